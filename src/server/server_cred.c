/* Credentials (Chap_API_Security.tex): GET_CRED and VALIDATE_CRED from
 * clients.  A host that provides get_credential / validate_credential
 * issues and checks them (with the requester's PMIX_USERID / PMIX_GRPID
 * appended to its directives).  Otherwise the server vouches itself for
 * the identity the kernel reported for the client's connection
 * (SO_PEERCRED; the registered uid/gid over TCP, where the token
 * authenticated it), in one of two forms:
 *   "munge"   the identity record encoded by munged (server_cred_munge.c),
 *             when munged is reachable: it validates on every node that
 *             shares the MUNGE key, once (MUNGE refuses a replay), and only
 *             when the encoder was root or this server's own user;
 *   "native"  the identity record sealed with HMAC-SHA256 (nettle) under a
 *             random key of this server: any client of this server can have
 *             it checked, and nothing else can produce one.
 * PMIX_CRED_TYPE picks among them (a prioritized list); by default munge
 * when it is usable, else native.  PMIX_CRYPTO_KEY binds a credential to a
 * caller's key: it only validates when the same key is given again.
 *
 * Identity record (integers little-endian):
 *   "SYC1", u8 version (2), u8 flags (1: bound to a PMIX_CRYPTO_KEY),
 *   u16 0, u32 uid, u32 gid, u32 pid, u32 rank, u64 issued (epoch s),
 *   u64 nonce, u8 nspace length, nspace,
 * then a 32-byte HMAC-SHA256 of all that: native, under the server's key
 * (or a key derived from it and the caller's); munge, only when bound,
 * under the caller's key. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_cred_munge.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_cred.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

#define CRED_MAGIC "SYC1"
#define CRED_VERSION 2
#define CRED_HEAD 41 /* bytes before the nspace */
#define CRED_MAC SHA256_DIGEST_SIZE
#define CRED_KEYED 0x01
#define TYPE_NATIVE "native"
#define TYPE_MUNGE "munge"

static uint8_t secret[SHA256_DIGEST_SIZE];
static bool have_secret;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void hmac(const uint8_t *key, size_t keylen, const uint8_t *data, size_t len,
                 uint8_t out[CRED_MAC])
{
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, keylen, key);
    hmac_sha256_update(&ctx, len, data);
    hmac_sha256_digest(&ctx, CRED_MAC, out);
}

/* The MAC of a record: native under our key, or under HMAC(our key, the
 * caller's key) when bound; munge under the caller's key itself. */
static pmix_status_t record_mac(bool munge, const pmix_byte_object_t *crypto, const uint8_t *rec,
                                size_t len, uint8_t mac[CRED_MAC])
{
    if (munge) {
        hmac((const uint8_t *)crypto->bytes, crypto->size, rec, len, mac);
        return PMIX_SUCCESS;
    }
    if (!have_secret) {
        pmix_status_t rc = sy_srv_random(secret, sizeof(secret));
        if (rc != PMIX_SUCCESS)
            return rc;
        have_secret = true;
    }
    uint8_t key[CRED_MAC];
    if (crypto == NULL)
        memcpy(key, secret, sizeof(key));
    else
        hmac(secret, sizeof(secret), (const uint8_t *)crypto->bytes, crypto->size, key);
    hmac(key, sizeof(key), rec, len, mac);
    return PMIX_SUCCESS;
}

/* The identity record of WHO, with its MAC where the form needs one. */
static pmix_status_t record_make(bool munge, const pmix_proc_t *who, uint32_t uid, uint32_t gid,
                                 uint32_t pid, const pmix_byte_object_t *crypto, uint8_t **out,
                                 size_t *outlen)
{
    size_t nslen = strnlen(who->nspace, PMIX_MAX_NSLEN);
    bool with_mac = !munge || crypto != NULL;
    size_t len = CRED_HEAD + nslen + (with_mac ? CRED_MAC : 0);
    uint64_t nonce = 0;
    pmix_status_t rc = sy_srv_random(&nonce, sizeof(nonce));
    uint8_t *c = rc == PMIX_SUCCESS ? calloc(1, len) : NULL;
    if (c == NULL)
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM;
    memcpy(c, CRED_MAGIC, 4);
    c[4] = CRED_VERSION;
    c[5] = crypto != NULL ? CRED_KEYED : 0;
    put32(c + 8, uid);
    put32(c + 12, gid);
    put32(c + 16, pid);
    put32(c + 20, who->rank);
    put64(c + 24, (uint64_t)time(NULL));
    put64(c + 32, nonce);
    c[40] = (uint8_t)nslen;
    memcpy(c + CRED_HEAD, who->nspace, nslen);
    if (with_mac && (rc = record_mac(munge, crypto, c, CRED_HEAD + nslen, c + CRED_HEAD + nslen)) !=
                        PMIX_SUCCESS) {
        free(c);
        return rc;
    }
    *out = c;
    *outlen = len;
    return PMIX_SUCCESS;
}

static bool cred_is_native(const pmix_byte_object_t *cred)
{
    return cred->bytes != NULL && cred->size >= 4 && memcmp(cred->bytes, CRED_MAGIC, 4) == 0;
}

static bool cred_is_munge(const pmix_byte_object_t *cred)
{
    size_t n = strlen(SY_MUNGE_PREFIX);
    return cred->bytes != NULL && cred->size > n && memcmp(cred->bytes, SY_MUNGE_PREFIX, n) == 0;
}

/* Check a record and read it, refusing with PMIX_ERR_INVALID_CRED what was
 * not sealed for that key. */
static pmix_status_t record_open(bool munge, const uint8_t *c, size_t size,
                                 const pmix_byte_object_t *crypto, pmix_proc_t *who, uint32_t *uid,
                                 uint32_t *gid, uint32_t *pid)
{
    if (size < CRED_HEAD || memcmp(c, CRED_MAGIC, 4) != 0 || c[4] != CRED_VERSION)
        return PMIX_ERR_INVALID_CRED;
    size_t nslen = c[40];
    bool with_mac = !munge || crypto != NULL;
    if (nslen > PMIX_MAX_NSLEN || size != CRED_HEAD + nslen + (with_mac ? CRED_MAC : 0))
        return PMIX_ERR_INVALID_CRED;
    /* a credential bound to a key checks only with that key, and a key
     * given proves nothing about a credential not bound to it */
    if (((c[5] & CRED_KEYED) != 0) != (crypto != NULL) || (c[5] & ~CRED_KEYED) != 0)
        return PMIX_ERR_INVALID_CRED;
    if (with_mac) {
        uint8_t mac[CRED_MAC];
        pmix_status_t rc = record_mac(munge, crypto, c, CRED_HEAD + nslen, mac);
        if (rc != PMIX_SUCCESS)
            return rc;
        if (!memeql_sec(mac, c + CRED_HEAD + nslen, CRED_MAC))
            return PMIX_ERR_INVALID_CRED;
    }
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, c + CRED_HEAD, nslen);
    ns[nslen] = '\0';
    PMIX_LOAD_PROCID(who, ns, get32(c + 20));
    *uid = get32(c + 8);
    *gid = get32(c + 12);
    *pid = get32(c + 16);
    return PMIX_SUCCESS;
}

/* A credential of one of our forms (a MUNGE credential may be ours). */
static bool cred_is_ours(const pmix_byte_object_t *cred)
{
    return cred_is_native(cred) || cred_is_munge(cred);
}

/* Open a credential of either form. */
static pmix_status_t cred_open(const pmix_byte_object_t *cred, const pmix_byte_object_t *crypto,
                               pmix_proc_t *who, uint32_t *uid, uint32_t *gid, uint32_t *pid)
{
    if (cred_is_native(cred))
        return record_open(false, (const uint8_t *)cred->bytes, cred->size, crypto, who, uid, gid,
                           pid);
    void *payload = NULL;
    size_t plen = 0;
    uid_t enc_uid;
    gid_t enc_gid;
    pmix_status_t rc =
        sy_cred_munge_decode(cred->bytes, cred->size, &payload, &plen, &enc_uid, &enc_gid);
    /* only a server of this host's user (or root) vouches for others */
    if (rc == PMIX_SUCCESS && enc_uid != 0 && enc_uid != geteuid())
        rc = PMIX_ERR_INVALID_CRED;
    if (rc == PMIX_SUCCESS)
        rc = record_open(true, payload, plen, crypto, who, uid, gid, pid);
    free(payload);
    return rc;
}

/* ---- requests ---- */

typedef struct {
    sy_srv_req_t req;  /* first; reply: what follows the status */
    pmix_info_t *info; /* the directives, the host's until it calls back */
    size_t ninfo;
    pmix_byte_object_t cred;
} cred_req_t;

static void req_free(sy_srv_req_t *req)
{
    cred_req_t *r = (cred_req_t *)req;
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    free(r->cred.bytes);
    free(r);
}

/* The reply of a GET (the credential and infos) or a VALIDATE (infos);
 * an error reply is the status alone. */
static void pack_answer(cred_req_t *r, pmix_status_t status, bool get,
                        const pmix_byte_object_t *cred, const pmix_info_t *info, size_t ninfo)
{
    r->req.status = status;
    if (status != PMIX_SUCCESS)
        return;
    /* the struct only lends the pointers to the codec, which reads them */
    sy_wire_get_cred_rep_t got = {.info = (pmix_info_t *)info, .ninfo = ninfo};
    sy_wire_validate_cred_rep_t valid = {.info = (pmix_info_t *)info, .ninfo = ninfo};
    if (cred != NULL)
        got.cred = *cred;
    if (get)
        sy_srv_req_reply(&r->req, status, SY_WMSG_GET_CRED_REP, &got);
    else
        sy_srv_req_reply(&r->req, status, SY_WMSG_VALIDATE_CRED_REP, &valid);
}

/* The host's credential (any thread): valid only here. */
static void host_cred_cb(pmix_status_t status, pmix_byte_object_t *credential, pmix_info_t info[],
                         size_t ninfo, void *cbdata)
{
    cred_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r == NULL)
        return;
    pack_answer(r, status, true, credential, info, ninfo);
    sy_srv_req_post(&r->req);
}

static void host_valid_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata)
{
    cred_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r == NULL)
        return;
    pack_answer(r, status, false, NULL, info, ninfo);
    sy_srv_req_post(&r->req);
}

static const pmix_byte_object_t *crypto_key(const cred_req_t *r)
{
    for (size_t i = 0; i < r->ninfo; i++)
        if (sy_info_is(&r->info[i], PMIX_CRYPTO_KEY) && r->info[i].value.type == PMIX_BYTE_OBJECT)
            return &r->info[i].value.data.bo;
    return NULL;
}

/* PMIX_CRED_TYPE, a prioritized comma-separated list: the first of our
 * forms in it that we can issue, or NULL.  Without it: munge when munged
 * answers, else native. */
static const char *wanted_type(const cred_req_t *r)
{
    for (size_t i = 0; i < r->ninfo; i++) {
        if (!sy_info_is(&r->info[i], PMIX_CRED_TYPE) || r->info[i].value.type != PMIX_STRING)
            continue;
        const char *s = r->info[i].value.data.string;
        while (s != NULL && *s != '\0') {
            size_t len = strcspn(s, ",");
            while (len > 0 && s[0] == ' ')
                s++, len--;
            if (len == strlen(TYPE_NATIVE) && strncmp(s, TYPE_NATIVE, len) == 0)
                return TYPE_NATIVE;
            if (len == strlen(TYPE_MUNGE) && strncmp(s, TYPE_MUNGE, len) == 0 &&
                sy_cred_munge_usable())
                return TYPE_MUNGE;
            s += len;
            if (*s == ',')
                s++;
        }
        return NULL;
    }
    return sy_cred_munge_usable() ? TYPE_MUNGE : TYPE_NATIVE;
}

static void own_get(cred_req_t *r)
{
    sy_srv_peer_t *peer = r->req.peer;
    const char *type = wanted_type(r);
    if (type == NULL) {
        r->req.status = PMIX_ERR_NOT_SUPPORTED;
        return;
    }
    bool munge = strcmp(type, TYPE_MUNGE) == 0;
    uint32_t uid = peer->cred_known ? (uint32_t)peer->uid : (uint32_t)peer->client->uid;
    uint32_t gid = peer->cred_known ? (uint32_t)peer->gid : (uint32_t)peer->client->gid;
    uint8_t *rec = NULL;
    size_t len = 0;
    pmix_byte_object_t cred = {0};
    pmix_status_t rc = record_make(munge, &peer->client->proc, uid, gid, (uint32_t)peer->pid,
                                   crypto_key(r), &rec, &len);
    if (rc == PMIX_SUCCESS && munge) {
        rc = sy_cred_munge_encode(rec, len, &cred.bytes);
        cred.size = rc == PMIX_SUCCESS ? strlen(cred.bytes) : 0;
        free(rec);
    } else if (rc == PMIX_SUCCESS) {
        cred.bytes = (char *)rec;
        cred.size = len;
    }
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_CRED_TYPE, type, PMIX_STRING);
    pack_answer(r, rc, true, &cred, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    free(cred.bytes);
}

static void own_validate(cred_req_t *r)
{
    pmix_proc_t who;
    uint32_t uid, gid, pid;
    pmix_status_t rc = cred_open(&r->cred, crypto_key(r), &who, &uid, &gid, &pid);
    const char *type = cred_is_native(&r->cred) ? TYPE_NATIVE : TYPE_MUNGE;
    pmix_info_t res[4];
    size_t n = 0;
    if (rc == PMIX_SUCCESS) {
        PMIX_INFO_LOAD(&res[n++], PMIX_USERID, &uid, PMIX_UINT32);
        PMIX_INFO_LOAD(&res[n++], PMIX_GRPID, &gid, PMIX_UINT32);
        PMIX_INFO_LOAD(&res[n++], PMIX_PROCID, &who, PMIX_PROC);
        PMIX_INFO_LOAD(&res[n++], PMIX_CRED_TYPE, type, PMIX_STRING);
    }
    pack_answer(r, rc, false, NULL, res, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&res[i]);
}

void sy_srv_cred_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    cred_req_t *r = c != NULL ? calloc(1, sizeof(*r)) : NULL;
    if (r == NULL) {
        sy_srv_peer_reply_status(peer, tag, c == NULL ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_NOMEM);
        return;
    }
    sy_srv_req_init(&r->req, peer, tag, req_free);
    /* the request's fields are moved into r */
    pmix_status_t rc;
    if (cmd == SY_CMD_VALIDATE_CRED) {
        sy_wire_validate_cred_req_t m;
        rc = sy_srv_unpack_msg(peer, b, SY_WMSG_VALIDATE_CRED_REQ, &m);
        r->cred = m.cred;
        r->info = m.info;
        r->ninfo = m.ninfo;
    } else {
        sy_wire_get_cred_req_t m;
        rc = sy_srv_unpack_msg(peer, b, SY_WMSG_GET_CRED_REQ, &m);
        r->info = m.info;
        r->ninfo = m.ninfo;
    }
    if (rc != PMIX_SUCCESS) {
        r->req.status = rc == PMIX_ERR_NOMEM ? rc : PMIX_ERR_UNPACK_FAILURE;
        sy_srv_req_finish(&r->req);
        return;
    }
    /* the host's own credentials when it has them; ours otherwise */
    bool native = cmd == SY_CMD_GET_CRED
                      ? s->module.get_credential == NULL
                      : s->module.validate_credential == NULL ||
                            (s->module.get_credential == NULL && cred_is_ours(&r->cred));
    if (!native) {
        rc = sy_srv_add_ids(&r->info, &r->ninfo, c);
        bool called = rc == PMIX_SUCCESS;
        void *t = sy_srv_req_ticket(&r->req);
        if (rc == PMIX_SUCCESS && cmd == SY_CMD_GET_CRED)
            rc = s->module.get_credential(&c->proc, r->info, r->ninfo, host_cred_cb, t);
        else if (rc == PMIX_SUCCESS)
            rc = s->module.validate_credential(&c->proc, &r->cred, r->info, r->ninfo, host_valid_cb,
                                               t);
        if (!sy_srv_upcall_returned(&r->req.up, called ? rc : PMIX_ERROR))
            return;
        if (rc == PMIX_OPERATION_SUCCEEDED && cmd == SY_CMD_VALIDATE_CRED) {
            pack_answer(r, PMIX_SUCCESS, false, NULL, NULL, 0);
            sy_srv_req_finish(&r->req);
            return;
        }
        /* a host that declines leaves it to us */
        native = rc == PMIX_ERR_NOT_SUPPORTED;
        r->req.status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERROR : rc; /* no credential given */
    }
    if (native && cmd == SY_CMD_GET_CRED)
        own_get(r);
    else if (native && cred_is_ours(&r->cred))
        own_validate(r);
    else if (native)
        r->req.status =
            s->module.get_credential != NULL ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_INVALID_CRED;
    sy_srv_req_finish(&r->req);
}

void sy_srv_cred_finalize(sy_srv_t *s)
{
    (void)s;
    /* a server started again seals with a new key */
    memset(secret, 0, sizeof(secret));
    have_secret = false;
}
