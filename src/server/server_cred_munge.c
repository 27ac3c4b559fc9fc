/* MUNGE credentials: see server_cred_munge.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <munge.h>

#include "common/log.h"
#include "server/server_cred_munge.h"

/* A context aimed at munged's socket (SWITCHYARD_MUNGE_SOCKET overrides
 * libmunge's compiled-in default); *path is that socket. */
static munge_ctx_t munge_ctx(const char **path)
{
    munge_ctx_t ctx = munge_ctx_create();
    if (ctx == NULL)
        return NULL;
    const char *sock = getenv("SWITCHYARD_MUNGE_SOCKET");
    if (sock != NULL && *sock != '\0' &&
        munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock) != EMUNGE_SUCCESS) {
        munge_ctx_destroy(ctx);
        return NULL;
    }
    char *cur = NULL;
    if (path != NULL && munge_ctx_get(ctx, MUNGE_OPT_SOCKET, &cur) == EMUNGE_SUCCESS)
        *path = cur; /* owned by ctx */
    return ctx;
}

static bool socket_answers(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (path == NULL || strlen(path) >= sizeof(sa.sun_path))
        return false;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    int rc;
    do {
        rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    } while (rc != 0 && errno == EINTR);
    close(fd);
    return rc == 0;
}

bool sy_cred_munge_usable(void)
{
    const char *path = NULL;
    munge_ctx_t ctx = munge_ctx(&path);
    bool ok = ctx != NULL && socket_answers(path);
    if (ctx != NULL)
        munge_ctx_destroy(ctx);
    return ok;
}

pmix_status_t sy_cred_munge_encode(const void *payload, size_t len, char **cred)
{
    munge_ctx_t ctx = munge_ctx(NULL);
    if (ctx == NULL)
        return PMIX_ERR_NOMEM;
    munge_err_t e = munge_encode(cred, ctx, payload, (int)len);
    if (e != EMUNGE_SUCCESS)
        sy_log(SY_LOG_WARN, "credential: munge_encode: %s", munge_ctx_strerror(ctx));
    munge_ctx_destroy(ctx);
    return e == EMUNGE_SUCCESS ? PMIX_SUCCESS : e == EMUNGE_NO_MEMORY ? PMIX_ERR_NOMEM : PMIX_ERROR;
}

pmix_status_t sy_cred_munge_decode(const char *cred, size_t len, void **payload, size_t *plen,
                                   uid_t *uid, gid_t *gid)
{
    if (!sy_cred_munge_usable()) {
        sy_log(SY_LOG_WARN,
               "credential: a MUNGE credential to validate, but munged does not answer");
        return PMIX_ERR_UNREACH;
    }
    char *str = malloc(len + 1);
    munge_ctx_t ctx = str != NULL ? munge_ctx(NULL) : NULL;
    if (ctx == NULL) {
        free(str);
        return PMIX_ERR_NOMEM;
    }
    memcpy(str, cred, len);
    str[len] = '\0';
    int n = 0;
    *payload = NULL;
    munge_err_t e = munge_decode(str, ctx, payload, &n, uid, gid);
    pmix_status_t rc = PMIX_SUCCESS;
    if (e != EMUNGE_SUCCESS) {
        /* a refused credential is the caller's answer; a daemon that
         * cannot be reached is ours to report */
        rc = e == EMUNGE_NO_MEMORY ? PMIX_ERR_NOMEM : PMIX_ERR_INVALID_CRED;
        if (e == EMUNGE_SOCKET || e == EMUNGE_SNAFU)
            sy_log(SY_LOG_WARN, "credential: munge_decode: %s", munge_ctx_strerror(ctx));
        free(*payload);
        *payload = NULL;
    }
    *plen = n > 0 ? (size_t)n : 0;
    munge_ctx_destroy(ctx);
    free(str);
    return rc;
}
