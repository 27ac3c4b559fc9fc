/* The link's handshake (sched.h).  Every connection is authenticated
 * both ways with fresh nonces from both sides, so that nothing recorded
 * from an earlier connection is accepted again:
 *
 *   sched -> node  HELLO  "SYFL", version, method, nonce_s (32 bytes)
 *   node -> sched  AUTH   method, nonce_n (32), host name, proof_n
 *   sched -> node  RESULT 0 (accepted) or 1 (refused), proof_s
 *
 * key    proof_n = HMAC-SHA256(K, "syfab-node" | nonce_s | nonce_n | host)
 *        proof_s = HMAC-SHA256(K, "syfab-sched" | nonce_s | nonce_n | host)
 *        session = HMAC-SHA256(K, "syfab-session" | nonce_s | nonce_n)
 * munge  proof_n = a MUNGE credential of "syfab-node" | nonce_s | nonce_n |
 *        k_n | host, proof_s one of "syfab-sched" | nonce_s | nonce_n | k_s
 *        (k_n, k_s: 32 random bytes each, inside MUNGE's encrypted
 *        payload); the encoder must be root or this daemon's user;
 *        session = HMAC-SHA256(k_n | k_s, "syfab-session" | nonce_s | nonce_n).
 *        MUNGE's own replay cache refuses a credential seen before.
 * peercred  (UNIX sockets only) the kernel's SO_PEERCRED: root or this
 *        daemon's user; no session key (the kernel carries the frames).
 *
 * A replayed AUTH answers a nonce_s that is not this connection's: its
 * proof does not match and the node is refused.  MUNGE goes through
 * src/server/server_cred_munge.c, the library's own MUNGE code, built
 * into this program too. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>

#include "sched_daemon.h"
#include "server/server_cred_munge.h"

#define HS_VERSION 1
#define NONCE 32
#define MAX_HS 8192

const char *link_auth_name(auth_method_t m)
{
    switch (m) {
    case AUTH_KEY: return "shared key (HMAC-SHA256)";
    case AUTH_MUNGE: return "MUNGE";
    case AUTH_PEERCRED: return "UNIX peer credentials";
    default: return "none";
    }
}

static int read_key(const char *path, link_auth_t *out, char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (asprintf(why, "key file %s: %s", path, strerror(errno)) < 0)
            *why = NULL;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* a secret anyone can read is no secret */
    if (!S_ISREG(st.st_mode) || (st.st_mode & 077) != 0 ||
        (st.st_uid != geteuid() && st.st_uid != 0)) {
        close(fd);
        if (asprintf(why, "key file %s: must be a regular file of ours, mode 0600 or 0400", path) <
            0)
            *why = NULL;
        return -1;
    }
    uint8_t buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 16) {
        if (asprintf(why, "key file %s: at least 16 bytes of secret expected", path) < 0)
            *why = NULL;
        return -1;
    }
    /* any length: hashed to the key */
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, (size_t)n, buf);
    sha256_digest(&h, SHA256_DIGEST_SIZE, out->key);
    out->keylen = SHA256_DIGEST_SIZE;
    memset(buf, 0, sizeof(buf));
    return 0;
}

int link_auth_setup(const char *method, const char *key_file, bool tcp, link_auth_t *out,
                    char **why)
{
    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (method == NULL)
        method = "auto";
    if (strcmp(method, "munge") == 0 ||
        (strcmp(method, "auto") == 0 && key_file == NULL && sy_cred_munge_usable())) {
        if (!sy_cred_munge_usable()) {
            *why = strdup("MUNGE asked for, but munged does not answer");
            return -1;
        }
        out->method = AUTH_MUNGE;
        return 0;
    }
    if (strcmp(method, "key") == 0 || (strcmp(method, "auto") == 0 && key_file != NULL)) {
        if (key_file == NULL) {
            *why = strdup("--auth key needs --key-file");
            return -1;
        }
        out->method = AUTH_KEY;
        return read_key(key_file, out, why);
    }
    if (strcmp(method, "auto") == 0 || strcmp(method, "none") == 0) {
        if (tcp) {
            *why = strdup("a TCP link must be authenticated: munged does not answer and no "
                          "--key-file was given");
            return -1;
        }
        out->method = AUTH_PEERCRED;
        return 0;
    }
    if (asprintf(why, "unknown --auth %s (auto, munge, key or none)", method) < 0)
        *why = NULL;
    return -1;
}

/* ---- raw handshake frames ---- */

static int hs_send(int fd, const uint8_t *p, size_t n)
{
    uint32_t be = htonl((uint32_t)n);
    return link_write_all(fd, &be, 4) == 0 && link_write_all(fd, p, n) == 0 ? 0 : -1;
}

static int hs_recv(int fd, uint8_t *p, size_t cap, size_t *n)
{
    uint32_t be;
    if (link_read_all(fd, &be, 4) != 0)
        return -1;
    *n = ntohl(be);
    if (*n == 0 || *n > cap)
        return -1;
    return link_read_all(fd, p, *n);
}

static void hmac_parts(const uint8_t *key, size_t klen, const char *label, const uint8_t *ns,
                       const uint8_t *nn, const char *host, uint8_t out[SHA256_DIGEST_SIZE])
{
    struct hmac_sha256_ctx c;
    hmac_sha256_set_key(&c, klen, key);
    hmac_sha256_update(&c, strlen(label), (const uint8_t *)label);
    hmac_sha256_update(&c, NONCE, ns);
    hmac_sha256_update(&c, NONCE, nn);
    if (host != NULL)
        hmac_sha256_update(&c, strlen(host), (const uint8_t *)host);
    hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

/* label | nonce_s | nonce_n | k | host */
static size_t munge_payload(uint8_t *p, const char *label, const uint8_t *ns, const uint8_t *nn,
                            const uint8_t *k, const char *host)
{
    size_t n = strlen(label);
    memcpy(p, label, n);
    memcpy(p + n, ns, NONCE);
    memcpy(p + n + NONCE, nn, NONCE);
    memcpy(p + n + 2 * NONCE, k, 32);
    n += 2 * NONCE + 32;
    if (host != NULL) {
        memcpy(p + n, host, strlen(host));
        n += strlen(host);
    }
    return n;
}

/* A MUNGE credential of ours (root or this user) whose payload is want. */
static bool munge_check(const uint8_t *cred, size_t len, const uint8_t *want, size_t wlen,
                        size_t key_off, uint8_t key[32], const char **why)
{
    void *payload = NULL;
    size_t plen = 0;
    uid_t uid;
    gid_t gid;
    pmix_status_t rc = sy_cred_munge_decode((const char *)cred, len, &payload, &plen, &uid, &gid);
    bool ok = rc == PMIX_SUCCESS && (uid == 0 || uid == geteuid()) && plen == wlen;
    if (ok) {
        /* everything but the sender's key half must be what we expect */
        memcpy(key, (uint8_t *)payload + key_off, 32);
        memcpy((uint8_t *)payload + key_off, want + key_off, 32);
        ok = memeql_sec(payload, want, wlen);
    }
    if (!ok)
        *why = rc == PMIX_ERR_UNREACH ? "munged does not answer"
               : rc != PMIX_SUCCESS   ? "MUNGE refused the credential (wrong key, expired or "
                                        "replayed)"
               : uid != 0 && uid != geteuid()
                   ? "the credential was made by another user"
                   : "the credential answers another connection's challenge (replayed?)";
    free(payload);
    return ok;
}

static void session_from(const uint8_t kn[32], const uint8_t ks[32], const uint8_t *ns,
                         const uint8_t *nn, uint8_t session[32])
{
    uint8_t k[64];
    memcpy(k, kn, 32);
    memcpy(k + 32, ks, 32);
    hmac_parts(k, sizeof(k), "syfab-session", ns, nn, NULL, session);
    memset(k, 0, sizeof(k));
}

int auth_server(int fd, const link_auth_t *a, char *peer, size_t peerlen, uint8_t session[32],
                bool *have_session, const char **why)
{
    uint8_t ns[NONCE], msg[MAX_HS], nn[NONCE];
    size_t n;
    *have_session = false;
    snprintf(peer, peerlen, "?");
    if (!link_random(ns, NONCE)) {
        *why = "no random bytes";
        return -1;
    }
    memcpy(msg, "SYFL", 4);
    msg[4] = HS_VERSION;
    msg[5] = (uint8_t)a->method;
    memcpy(msg + 6, ns, NONCE);
    if (hs_send(fd, msg, 6 + NONCE) != 0 || hs_recv(fd, msg, sizeof(msg) - 1, &n) != 0) {
        *why = "the peer hung up during the handshake";
        return -1;
    }
    /* method, nonce_n, host length, host, proof */
    if (n < 2 + NONCE || msg[0] != (uint8_t)a->method || n < 2 + NONCE + (size_t)msg[1 + NONCE]) {
        *why = msg[0] != (uint8_t)a->method ? "the peer uses another authentication method"
                                            : "malformed handshake";
        goto refuse;
    }
    memcpy(nn, msg + 1, NONCE);
    size_t hl = msg[1 + NONCE];
    char host[256];
    memcpy(host, msg + 2 + NONCE, hl);
    host[hl] = '\0';
    snprintf(peer, peerlen, "%s", host);
    const uint8_t *proof = msg + 2 + NONCE + hl;
    size_t plen = n - (2 + NONCE + hl);
    uint8_t out[MAX_HS];
    size_t outn = 1;
    out[0] = 0;
    if (a->method == AUTH_KEY) {
        uint8_t want[SHA256_DIGEST_SIZE];
        hmac_parts(a->key, a->keylen, "syfab-node", ns, nn, host, want);
        if (plen != sizeof(want) || !memeql_sec(proof, want, sizeof(want))) {
            *why = "its proof does not match (wrong key, or a replayed handshake)";
            goto refuse;
        }
        hmac_parts(a->key, a->keylen, "syfab-sched", ns, nn, host, out + 1);
        outn += SHA256_DIGEST_SIZE;
        hmac_parts(a->key, a->keylen, "syfab-session", ns, nn, NULL, session);
        *have_session = true;
    } else if (a->method == AUTH_MUNGE) {
        uint8_t want[MAX_HS], kn[32], ks[32], zero[32] = {0};
        size_t wlen = munge_payload(want, "syfab-node", ns, nn, zero, host);
        if (!munge_check(proof, plen, want, wlen, strlen("syfab-node") + 2 * NONCE, kn, why))
            goto refuse;
        if (!link_random(ks, sizeof(ks))) {
            *why = "no random bytes";
            goto refuse;
        }
        uint8_t pay[MAX_HS];
        size_t pl = munge_payload(pay, "syfab-sched", ns, nn, ks, NULL);
        char *cred = NULL;
        if (sy_cred_munge_encode(pay, pl, &cred) != PMIX_SUCCESS || strlen(cred) + 1 > MAX_HS) {
            free(cred);
            *why = "munge_encode failed";
            goto refuse;
        }
        memcpy(out + 1, cred, strlen(cred));
        outn += strlen(cred);
        free(cred);
        session_from(kn, ks, ns, nn, session);
        *have_session = true;
    } else {
        struct ucred uc;
        socklen_t ul = sizeof(uc);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) != 0 ||
            (uc.uid != 0 && uc.uid != geteuid())) {
            *why = "the peer runs as another user";
            goto refuse;
        }
    }
    if (hs_send(fd, out, outn) != 0) {
        *why = "the peer hung up during the handshake";
        return -1;
    }
    return 0;
refuse:
    out[0] = 1;
    (void)hs_send(fd, out, 1);
    return -1;
}

int auth_client(int fd, const link_auth_t *a, const char *hostname, uint8_t session[32],
                bool *have_session, const char **why, bool *fatal)
{
    uint8_t msg[MAX_HS], nn[NONCE], ns[NONCE], kn[32];
    size_t n;
    *have_session = false;
    if (hs_recv(fd, msg, sizeof(msg), &n) != 0 || n != 6 + NONCE || memcmp(msg, "SYFL", 4) != 0 ||
        msg[4] != HS_VERSION) {
        *why = "no scheduler greeting (not a switchyard-sched, or another version)";
        return -1;
    }
    if (msg[5] != (uint8_t)a->method) {
        *why = "the scheduler uses another authentication method";
        *fatal = true;
        return -1;
    }
    memcpy(ns, msg + 6, NONCE);
    if (!link_random(nn, NONCE) || !link_random(kn, sizeof(kn))) {
        *why = "no random bytes";
        return -1;
    }
    size_t hl = strnlen(hostname, 255);
    char host[256];
    memcpy(host, hostname, hl);
    host[hl] = '\0';
    msg[0] = (uint8_t)a->method;
    memcpy(msg + 1, nn, NONCE);
    msg[1 + NONCE] = (uint8_t)hl;
    memcpy(msg + 2 + NONCE, host, hl);
    n = 2 + NONCE + hl;
    if (a->method == AUTH_KEY) {
        hmac_parts(a->key, a->keylen, "syfab-node", ns, nn, host, msg + n);
        n += SHA256_DIGEST_SIZE;
    } else if (a->method == AUTH_MUNGE) {
        uint8_t pay[MAX_HS];
        size_t pl = munge_payload(pay, "syfab-node", ns, nn, kn, host);
        char *cred = NULL;
        if (sy_cred_munge_encode(pay, pl, &cred) != PMIX_SUCCESS ||
            n + strlen(cred) > sizeof(msg)) {
            free(cred);
            *why = "munge_encode failed";
            return -1;
        }
        memcpy(msg + n, cred, strlen(cred));
        n += strlen(cred);
        free(cred);
    }
    if (hs_send(fd, msg, n) != 0 || hs_recv(fd, msg, sizeof(msg), &n) != 0) {
        *why = "the scheduler hung up during the handshake";
        return -1;
    }
    if (msg[0] != 0) {
        *why = "refused by the scheduler (see its log)";
        *fatal = true;
        return -1;
    }
    if (a->method == AUTH_KEY) {
        uint8_t want[SHA256_DIGEST_SIZE];
        hmac_parts(a->key, a->keylen, "syfab-sched", ns, nn, host, want);
        if (n != 1 + sizeof(want) || !memeql_sec(msg + 1, want, sizeof(want))) {
            *why = "the scheduler's proof does not match: not our scheduler";
            *fatal = true;
            return -1;
        }
        hmac_parts(a->key, a->keylen, "syfab-session", ns, nn, NULL, session);
        *have_session = true;
    } else if (a->method == AUTH_MUNGE) {
        uint8_t want[MAX_HS], ks[32], zero[32] = {0};
        size_t wlen = munge_payload(want, "syfab-sched", ns, nn, zero, NULL);
        if (!munge_check(msg + 1, n - 1, want, wlen, strlen("syfab-sched") + 2 * NONCE, ks, why)) {
            *fatal = true;
            return -1;
        }
        session_from(kn, ks, ns, nn, session);
        *have_session = true;
    }
    return 0;
}
