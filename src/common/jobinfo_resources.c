/* PMIx_server_register_resources: node-realm data accumulated in one
 * builder over several calls.  Flat keys describe this node; node arrays
 * name theirs by PMIX_NODEID or PMIX_HOSTNAME, a hostname already seen
 * (as a hostname or an alias) meaning the same node again. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/jobinfo_internal.h"
#include "common/log.h"

/* This node's id: the flat PMIX_NODEID when given, else the node of that
 * hostname already in the builder, else the next free id. */
static pmix_status_t local_id(sy_ji_t *ctx, const pmix_info_t info[], size_t ninfo, uint32_t *id)
{
    uint64_t u;

    for (size_t i = ninfo; i > 0; i--) {
        const pmix_info_t *in = &info[i - 1];
        if (strncmp(in->key, PMIX_NODEID, PMIX_MAX_KEYLEN) != 0) {
            continue;
        }
        pmix_status_t rc = sy_ji_check_type(ctx, in->key, &in->value);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        if (!sy_ji_uint(&in->value, &u) || u >= SY_JI_NO_ID) {
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s is not a valid node id", in->key);
        }
        *id = (uint32_t)u;
        return PMIX_SUCCESS;
    }
    if (ctx->local_hostname == NULL || '\0' == *ctx->local_hostname) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "this node has neither a %s nor a hostname",
                          PMIX_NODEID);
    }
    *id = sy_ji_node_id_for(ctx, ctx->local_hostname);
    return PMIX_SUCCESS;
}

static bool has_flat_keys(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if ('\0' != info[i].key[0] && strcmp(info[i].key, PMIX_NODE_INFO_ARRAY) != 0 &&
            strcmp(info[i].key, PMIX_SESSION_INFO_ARRAY) != 0) {
            return true;
        }
    }
    return false;
}

pmix_status_t sy_jobinfo_compile_resources(const pmix_info_t info[], size_t ninfo,
                                           const char *local_hostname, sy_jseg_builder_t *b,
                                           char **error)
{
    sy_ji_t ctx = {.local_hostname = local_hostname, .b = b, .error = error};
    uint32_t me = SY_JI_NO_ID;
    pmix_status_t rc = PMIX_SUCCESS;

    if (error != NULL) {
        *error = NULL;
    }
    if (b == NULL || (info == NULL && ninfo > 0)) {
        return sy_ji_fail(&ctx, PMIX_ERR_BAD_PARAM, "no builder or no info array");
    }
    /* an unnamed node would match nothing later: name this one first */
    if (has_flat_keys(info, ninfo)) {
        rc = local_id(&ctx, info, ninfo, &me);
        if (rc == PMIX_SUCCESS && local_hostname != NULL && '\0' != *local_hostname) {
            rc = sy_ji_default_str(&ctx, SY_REALM_NODE, me, PMIX_HOSTNAME, local_hostname);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_ji_walk(&ctx, info, ninfo, SY_REALM_NODE, me, 0);
    }
    if (rc == PMIX_SUCCESS && me != SY_JI_NO_ID) {
        rc = sy_ji_default_u32(&ctx, SY_REALM_NODE, me, PMIX_NODEID, me);
    }
    if (rc != PMIX_SUCCESS) {
        /* the caller logs the refusal for the operator */
        sy_log(SY_LOG_DEBUG, "register_resources refused: %s",
               error != NULL && *error != NULL ? *error : PMIx_Error_string(rc));
    }
    sy_ji_ctx_free(&ctx);
    return rc;
}
