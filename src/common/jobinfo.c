/* Entry points of the jobinfo compiler (jobinfo.h): the order of the
 * steps, the summary, error sentences, and the singleton's description. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/jobinfo_internal.h"
#include "common/log.h"

pmix_status_t sy_ji_fail(sy_ji_t *ctx, pmix_status_t rc, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    if (ctx->error == NULL || *ctx->error != NULL) {
        return rc;
    }
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    *ctx->error = strdup(line);
    return rc;
}

void sy_ji_ctx_free(sy_ji_t *ctx)
{
    for (size_t i = 0; i < ctx->nnodes; i++) {
        free(ctx->nodes[i].name);
        free(ctx->nodes[i].ranges);
    }
    free(ctx->nodes);
    free(ctx->noderuns);
    free(ctx->deferred);
    free(ctx->procs);
    memset(ctx, 0, sizeof(*ctx));
}

void sy_jobinfo_summary_free(sy_jobinfo_summary_t *s)
{
    if (s != NULL) {
        free(s->local_ranks);
        memset(s, 0, sizeof(*s));
        s->nodeid = UINT32_MAX;
    }
}

/* PMIX_REGISTER_NODATA among the flat keys: true unless given as false. */
static pmix_status_t find_nodata(sy_ji_t *ctx, const pmix_info_t info[], size_t ninfo, bool *nodata)
{
    *nodata = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (strncmp(info[i].key, PMIX_REGISTER_NODATA, PMIX_MAX_KEYLEN) != 0) {
            continue;
        }
        pmix_status_t rc = sy_ji_check_type(ctx, info[i].key, &info[i].value);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        *nodata = info[i].value.type == PMIX_UNDEF || info[i].value.data.flag;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t compile(sy_ji_t *ctx, int nlocalprocs, const pmix_info_t info[], size_t ninfo,
                             const pmix_info_t more[], size_t nmore, sy_jobinfo_summary_t *summary)
{
    bool nodata;
    pmix_status_t rc;

    if ((info == NULL && ninfo > 0) || (more == NULL && nmore > 0)) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%zu info entries but no array",
                          info == NULL ? ninfo : nmore);
    }
    if (nlocalprocs < 0) {
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "nlocalprocs is negative (%d)", nlocalprocs);
    }
    if ((rc = find_nodata(ctx, info, ninfo, &nodata)) != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_ji_default_str(ctx, SY_REALM_JOB, 0, PMIX_NSPACE, ctx->nspace);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (nodata) {
        summary->nlocal = (uint32_t)nlocalprocs;
        return PMIX_SUCCESS;
    }
    ctx->defer_nodes = true;
    ctx->record_procs = true;
    if ((rc = sy_ji_walk(ctx, info, ninfo, SY_REALM_JOB, 0, 0)) != PMIX_SUCCESS ||
        (rc = sy_ji_walk(ctx, more, nmore, SY_REALM_JOB, 0, 0)) != PMIX_SUCCESS) {
        return rc;
    }
    sy_ji_sort_procs(ctx);
    if ((rc = sy_ji_layout(ctx)) != PMIX_SUCCESS ||
        (rc = sy_ji_walk_deferred(ctx)) != PMIX_SUCCESS ||
        (rc = sy_ji_derive(ctx, nlocalprocs)) != PMIX_SUCCESS) {
        return rc;
    }
    return sy_ji_summarize(ctx, nlocalprocs, summary);
}

pmix_status_t sy_jobinfo_compile(const char *nspace, int nlocalprocs, const pmix_info_t info[],
                                 size_t ninfo, const char *local_hostname, sy_jseg_builder_t *b,
                                 sy_jobinfo_summary_t *summary, char **error)
{
    return sy_jobinfo_compile_with(nspace, nlocalprocs, info, ninfo, NULL, 0, local_hostname, b,
                                   summary, error);
}

/* borrow: the builder may point into info and more (they outlive it). */
static pmix_status_t compile_all(const char *nspace, int nlocalprocs, const pmix_info_t info[],
                                 size_t ninfo, const pmix_info_t more[], size_t nmore,
                                 const char *local_hostname, sy_jseg_builder_t *b,
                                 sy_jobinfo_summary_t *summary, char **error, bool borrow)
{
    sy_ji_t ctx = {.nspace = nspace,
                   .local_hostname = local_hostname,
                   .b = b,
                   .error = error,
                   .borrow = borrow};
    pmix_status_t rc;

    if (error != NULL) {
        *error = NULL;
    }
    if (summary == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(summary, 0, sizeof(*summary));
    summary->nodeid = UINT32_MAX;
    if (nspace == NULL || b == NULL) {
        return sy_ji_fail(&ctx, PMIX_ERR_BAD_PARAM, "no namespace or builder");
    }
    rc = compile(&ctx, nlocalprocs, info, ninfo, more, nmore, summary);
    if (rc != PMIX_SUCCESS) {
        /* the caller logs the refusal for the operator */
        sy_log(SY_LOG_DEBUG, "register_nspace %.*s refused: %s", PMIX_MAX_NSLEN, nspace,
               error != NULL && *error != NULL ? *error : PMIx_Error_string(rc));
        sy_jobinfo_summary_free(summary);
    }
    sy_ji_ctx_free(&ctx);
    return rc;
}

pmix_status_t sy_jobinfo_compile_with(const char *nspace, int nlocalprocs, const pmix_info_t info[],
                                      size_t ninfo, const pmix_info_t more[], size_t nmore,
                                      const char *local_hostname, sy_jseg_builder_t *b,
                                      sy_jobinfo_summary_t *summary, char **error)
{
    return compile_all(nspace, nlocalprocs, info, ninfo, more, nmore, local_hostname, b, summary,
                       error, true);
}

pmix_status_t sy_jobinfo_compile_more(const char *nspace, const pmix_info_t info[], size_t ninfo,
                                      const char *local_hostname, sy_jseg_builder_t *b,
                                      char **error)
{
    sy_jl_view_t prior;
    sy_ji_t ctx = {.nspace = nspace, .local_hostname = local_hostname, .b = b, .error = error};
    pmix_status_t rc;

    if (error != NULL) {
        *error = NULL;
    }
    if (nspace == NULL || b == NULL || (info == NULL && ninfo > 0)) {
        return sy_ji_fail(&ctx, PMIX_ERR_BAD_PARAM, "no namespace, builder or info array");
    }
    if (sy_jseg_builder_layout(b, &prior)) {
        ctx.prior = &prior;
    }
    rc = sy_ji_walk(&ctx, info, ninfo, SY_REALM_JOB, 0, 0);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_DEBUG, "more data for %.*s refused: %s", PMIX_MAX_NSLEN, nspace,
               error != NULL && *error != NULL ? *error : PMIx_Error_string(rc));
    }
    sy_ji_ctx_free(&ctx);
    return rc;
}

pmix_status_t sy_jobinfo_compile_singleton(const char *nspace, const char *hostname, pid_t pid,
                                           sy_jseg_builder_t *b)
{
    sy_jobinfo_summary_t summary;
    pmix_info_t info[3], pdata[2];
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 2, .array = pdata};
    char *nmap = NULL;
    pmix_status_t rc;

    if (nspace == NULL || hostname == NULL || '\0' == *hostname || b == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* "raw:" so that no name is mistaken for a compressed form */
    if ((nmap = malloc(strlen("raw:") + strlen(hostname) + 1)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    strcpy(nmap, "raw:");
    strcat(nmap, hostname);
    memset(info, 0, sizeof(info));
    memset(pdata, 0, sizeof(pdata));
    strcpy(info[0].key, PMIX_NODE_MAP);
    info[0].value = (pmix_value_t){.type = PMIX_STRING, .data.string = nmap};
    strcpy(info[1].key, PMIX_PROC_MAP);
    info[1].value = (pmix_value_t){.type = PMIX_STRING, .data.string = "raw:0"};
    strcpy(info[2].key, PMIX_PROC_DATA);
    info[2].value = (pmix_value_t){.type = PMIX_DATA_ARRAY, .data.darray = &darray};
    strcpy(pdata[0].key, PMIX_RANK);
    pdata[0].value = (pmix_value_t){.type = PMIX_PROC_RANK, .data.rank = 0};
    strcpy(pdata[1].key, PMIX_PROC_PID);
    pdata[1].value = (pmix_value_t){.type = PMIX_PID, .data.pid = pid};
    /* the description lives on this stack: the builder copies it */
    rc = compile_all(nspace, 1, info, 3, NULL, 0, hostname, b, &summary, NULL, false);
    sy_jobinfo_summary_free(&summary);
    free(nmap);
    return rc;
}
