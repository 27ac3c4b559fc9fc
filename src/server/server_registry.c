/* What the host registered: clients, namespaces with their published
 * segments, node resources.  Loop only. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <pmix.h>

#include "common/log.h"
#include "common/store.h"
#include "server/server_ds21.h"
#include "server/server_fork.h"
#include "server/server_internal.h"
#include "server/server_registry.h"
#include "server/server_util.h"

sy_srv_client_t *sy_srv_client_find(sy_srv_t *s, const pmix_proc_t *proc)
{
    for (sy_srv_client_t *c = s->clients; c != NULL; c = c->next)
        if (c->proc.rank == proc->rank && PMIX_CHECK_NSPACE(c->proc.nspace, proc->nspace))
            return c;
    return NULL;
}

void sy_srv_hex_token(char out[SY_SRV_TOKEN_LEN + 1])
{
    unsigned char raw[SY_SRV_TOKEN_LEN / 2];
    if (sy_srv_random(raw, sizeof(raw)) != PMIX_SUCCESS) {
        /* Without randomness no token can be trusted: an empty one is
         * refused by the handshake, so TCP clients simply cannot connect. */
        out[0] = '\0';
        return;
    }
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 15];
    }
    out[SY_SRV_TOKEN_LEN] = '\0';
}

void sy_srv_client_token(const sy_srv_t *s, const pmix_proc_t *proc, char out[SY_SRV_TOKEN_LEN + 1])
{
    out[0] = '\0';
    if (!s->client_key_ok)
        return;
    /* the nspace up to its terminator, then the rank, little-endian */
    uint8_t in[PMIX_MAX_NSLEN + 1 + 4];
    size_t n = strnlen(proc->nspace, PMIX_MAX_NSLEN);
    memcpy(in, proc->nspace, n);
    in[n++] = '\0';
    for (int i = 0; i < 4; i++)
        in[n++] = (uint8_t)(proc->rank >> (8 * i));
    /* keyed by a secret of this server: a token cannot be guessed from
     * the name it belongs to (the MAC truncated to the token's length) */
    uint8_t mac[SY_SRV_TOKEN_LEN / 2];
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, sizeof(s->client_key), s->client_key);
    hmac_sha256_update(&ctx, n, in);
    hmac_sha256_digest(&ctx, sizeof(mac), mac);
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof(mac); i++) {
        out[2 * i] = digits[mac[i] >> 4];
        out[2 * i + 1] = digits[mac[i] & 15];
    }
    out[SY_SRV_TOKEN_LEN] = '\0';
}

sy_srv_client_t *sy_srv_client_get(sy_srv_t *s, const pmix_proc_t *proc)
{
    sy_srv_client_t *c = sy_srv_client_find(s, proc);
    if (c != NULL)
        return c;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    PMIX_LOAD_PROCID(&c->proc, proc->nspace, proc->rank);
    sy_srv_client_token(s, &c->proc, c->token);
    c->next = s->clients;
    s->clients = c;
    return c;
}

sy_srv_nspace_t *sy_srv_nspace_find(sy_srv_t *s, const char *nspace)
{
    for (sy_srv_nspace_t *n = s->nspaces; n != NULL; n = n->next)
        if (PMIX_CHECK_NSPACE(n->name, nspace))
            return n;
    return NULL;
}

void sy_srv_unlink(const char *path)
{
    if (path != NULL && unlink(path) != 0 && errno != ENOENT)
        sy_log(SY_LOG_WARN, "server: cannot remove %s: %s", path, strerror(errno));
}

static void res_free(sy_srv_res_t *r)
{
    if (r == NULL)
        return;
    PMIX_INFO_FREE(r->info, r->ninfo);
    free(r);
}

void sy_srv_nspace_free(sy_srv_nspace_t *ns)
{
    sy_store_detach(ns->name);
    sy_srv_unlink(ns->seg_path);
    free(ns->seg_path);
    sy_jobinfo_summary_free(&ns->summary);
    if (ns->local_info != NULL)
        PMIX_INFO_FREE(ns->local_info, ns->nlocal_info);
    sy_srv_ds21_free(ns);
    sy_srv_fork_env_forget(ns->name);
    free(ns);
}

void sy_srv_registry_free(sy_srv_t *s)
{
    while (s->nspaces != NULL) {
        sy_srv_nspace_t *n = s->nspaces;
        s->nspaces = n->next;
        sy_store_internal_forget(n->name);
        sy_srv_nspace_free(n);
    }
    while (s->clients != NULL) {
        sy_srv_client_t *c = s->clients;
        s->clients = c->next;
        free(c);
    }
    while (s->resources != NULL) {
        sy_srv_res_t *r = s->resources;
        s->resources = r->next;
        res_free(r);
    }
    res_free(s->topo_resources);
    s->topo_resources = NULL;
    sy_store_attach_resources(NULL);
    sy_srv_unlink(s->res_path);
    free(s->res_path);
    s->res_path = NULL;
}

static pmix_status_t add_resources(sy_jseg_builder_t *b, const sy_srv_res_t *r,
                                   const char *hostname)
{
    char *err = NULL;
    pmix_status_t rc = sy_jobinfo_compile_resources(r->info, r->ninfo, hostname, b, &err);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "server: resources refused: %s", err != NULL ? err : "bad input");
        free(err);
    }
    return rc;
}

/* Compile every resources registration into a new segment generation and
 * publish it; readers of the previous one follow its superseded mark. */
pmix_status_t sy_srv_resources_publish(sy_srv_t *s)
{
    sy_jseg_builder_t *b = NULL;
    pmix_status_t rc = sy_jseg_builder_new(NULL, &b);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (s->topo_resources != NULL)
        rc = add_resources(b, s->topo_resources, s->hostname);
    for (sy_srv_res_t *r = s->resources; r != NULL && rc == PMIX_SUCCESS; r = r->next)
        rc = add_resources(b, r, s->hostname);
    char *path = NULL;
    if (rc == PMIX_SUCCESS && asprintf(&path, "%s/resources.%u", s->tmpdir, ++s->res_gen) < 0) {
        path = NULL;
        rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS)
        rc = sy_jseg_publish(b, path, 0644);
    sy_jseg_builder_free(b);
    if (rc != PMIX_SUCCESS) {
        free(path);
        return rc;
    }
    if (s->res_path != NULL) {
        sy_jseg_supersede(s->res_path, path);
        sy_srv_unlink(s->res_path);
        free(s->res_path);
    }
    s->res_path = path;
    return sy_store_attach_resources(path);
}
