/* What another local user tries against a server, and a rank for the
 * launcher-death test (tests/tools/security.sh, tests/tools/litter.sh).
 * It speaks the wire protocol itself (the library's own HELLO packing),
 * so it can send what a forged tool would: any token, any claimed uid.
 *
 *   test_security steal DIR URI USOCK
 *       read every file this user can open under DIR, collect the tokens
 *       ("token:" lines) and server URIs found; then, claiming uid/gid 0,
 *       say HELLO as a tool over TCP to URI and to every URI found, with
 *       each token found, no token and a guessed one, and connect to the
 *       UNIX socket USOCK.  Prints what it found and what was accepted;
 *       exit 0 when no token was readable and nothing let it in.
 *   test_security claim URI TOKEN
 *       HELLO as a tool over TCP with the server's token while claiming
 *       uid/gid 0, then get a credential from the server and have it
 *       validated: prints "uid=U gid=G", the identity the server vouches
 *       for (exit 0), or why it failed (exit 1).
 *   test_security rank wait|abort|exit STOPFILE
 *       a PMIx client: Init, Put, Commit, Fence; then wait until STOPFILE
 *       exists (or forever), PMIx_Abort, or Finalize and exit.  Prints
 *       "ready <rank> <pid>" after the fence. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/pack.h"
#include "common/rendezvous.h"
#include "common/usock.h"
#include "common/wire.h"

#define MAX_FOUND 64

static char *tokens[MAX_FOUND], *uris[MAX_FOUND];
static int ntokens, nuris, nread;

static void remember(char **list, int *n, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i], s) == 0)
            return;
    if (*n < MAX_FOUND)
        list[(*n)++] = strdup(s);
}

/* Every regular file this user can read: the lines that give secrets away. */
static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode))
        return 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    nread++;
    buf[n] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "token:", 6) == 0 && line[6] != '\0') {
            printf("found a token in %s\n", path);
            remember(tokens, &ntokens, line + 6);
        } else if (strstr(line, "tcp4://") != NULL || strstr(line, "tcp6://") != NULL) {
            remember(uris, &nuris, line);
        }
    }
    return 0;
}

/* A tool's HELLO over an open connection, claiming uid/gid 0 in its infos
 * (what a forged tool would say).  The server's answer. */
static pmix_status_t forged_hello(int fd, const char *token)
{
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, "", PMIX_RANK_UNDEF);
    pmix_info_t info[2];
    uint32_t zero = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_USERID, &zero, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_GRPID, &zero, PMIX_UINT32);
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_client_pack_hello(&req, SY_PEER_TOOL, &me, token, info, 2);
    void *body = NULL;
    size_t len = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_client_exchange(fd, 1, req.base_ptr, req.bytes_used, 10.0, &body, &len);
    sy_buffer_destruct(&req);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS)
        return rc;
    pmix_data_buffer_t rb;
    sy_client_buffer_over(&rb, body, len);
    pmix_status_t status = PMIX_ERROR;
    if (sy_client_unpack_status(&rb, &status) != PMIX_SUCCESS)
        status = PMIX_ERR_UNPACK_FAILURE;
    sy_buffer_destruct(&rb);
    return status;
}

static int dial(const char *uri)
{
    char host[256];
    int port = 0, fd = -1;
    if (sy_rndz_parse_uri(uri, host, sizeof(host), &port) != PMIX_SUCCESS ||
        sy_tcp_connect(host, port, &fd) != PMIX_SUCCESS)
        return -1;
    /* the exchange below is blocking I/O with its own deadline */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* true when the server let a forged tool in */
static bool try_tcp(const char *uri, const char *token, const char *what)
{
    int fd = dial(uri);
    if (fd < 0) {
        printf("cannot reach %s\n", uri);
        return false;
    }
    pmix_status_t rc = forged_hello(fd, token);
    close(fd);
    printf("HELLO to %s with %s claiming uid 0: %s\n", uri, what, PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS;
}

static int steal(const char *dir, const char *uri, const char *usock)
{
    nftw(dir, visit, 16, FTW_PHYS);
    printf("read %d files under %s, found %d tokens\n", nread, dir, ntokens);
    remember(uris, &nuris, uri);
    int let_in = 0;
    for (int u = 0; u < nuris; u++) {
        for (int t = 0; t < ntokens; t++)
            let_in += try_tcp(uris[u], tokens[t], "a stolen token");
        let_in += try_tcp(uris[u], NULL, "no token");
        let_in += try_tcp(uris[u], "00000000000000000000000000000000", "a guessed token");
    }
    int fd = -1;
    pmix_status_t rc = sy_usock_connect(usock, &fd);
    if (rc == PMIX_SUCCESS) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        rc = forged_hello(fd, NULL);
        close(fd);
        let_in += rc == PMIX_SUCCESS;
    }
    printf("UNIX socket %s: %s\n", usock, PMIx_Error_string(rc));
    printf("tokens stolen: %d, let in: %d\n", ntokens, let_in);
    for (int i = 0; i < ntokens; i++)
        free(tokens[i]);
    for (int i = 0; i < nuris; i++)
        free(uris[i]);
    return ntokens == 0 && let_in == 0 ? 0 : 1;
}

/* One request after the HELLO: the status opening its reply; the rest
 * of the reply is left in rb (destruct it) when that is PMIX_SUCCESS. */
static pmix_status_t request(int fd, uint32_t tag, pmix_data_buffer_t *req, pmix_data_buffer_t *rb)
{
    void *body = NULL;
    size_t len = 0;
    memset(rb, 0, sizeof(*rb));
    pmix_status_t rc =
        sy_client_exchange(fd, tag, req->base_ptr, req->bytes_used, 10.0, &body, &len);
    sy_buffer_destruct(req);
    if (rc != PMIX_SUCCESS)
        return rc;
    sy_client_buffer_over(rb, body, len);
    pmix_status_t status = PMIX_ERROR;
    if (sy_client_unpack_status(rb, &status) != PMIX_SUCCESS)
        status = PMIX_ERR_UNPACK_FAILURE;
    return status;
}

static int claim(const char *uri, const char *token)
{
    int fd = dial(uri);
    if (fd < 0) {
        printf("cannot reach %s\n", uri);
        return 1;
    }
    pmix_status_t rc = forged_hello(fd, token);
    if (rc != PMIX_SUCCESS) {
        printf("HELLO refused: %s\n", PMIx_Error_string(rc));
        close(fd);
        return 1;
    }
    /* GET_CRED with no info, then VALIDATE_CRED of what it gave */
    pmix_data_buffer_t req, rb;
    sy_wire_get_cred_req_t gq = {0};
    sy_wire_get_cred_rep_t gr = {0};
    rc = sy_wire_get_cred_req_pack(&sy_wire_native, &req, &gq);
    if (rc == PMIX_SUCCESS && (rc = request(fd, 2, &req, &rb)) == PMIX_SUCCESS)
        rc = sy_wire_get_cred_rep_unpack(&sy_wire_native, &rb, &gr);
    sy_buffer_destruct(&rb);
    if (rc != PMIX_SUCCESS) {
        printf("no credential: %s\n", PMIx_Error_string(rc));
        close(fd);
        return 1;
    }
    sy_wire_validate_cred_req_t vq = {.cred = gr.cred};
    sy_wire_validate_cred_rep_t vr = {0};
    rc = sy_wire_validate_cred_req_pack(&sy_wire_native, &req, &vq);
    sy_wire_get_cred_rep_free(&gr);
    if (rc == PMIX_SUCCESS && (rc = request(fd, 3, &req, &rb)) == PMIX_SUCCESS)
        rc = sy_wire_validate_cred_rep_unpack(&sy_wire_native, &rb, &vr);
    long uid = -1, gid = -1;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < vr.ninfo; i++) {
        if (vr.info[i].value.type != PMIX_UINT32)
            continue;
        if (PMIX_CHECK_KEY(&vr.info[i], PMIX_USERID))
            uid = vr.info[i].value.data.uint32;
        else if (PMIX_CHECK_KEY(&vr.info[i], PMIX_GRPID))
            gid = vr.info[i].value.data.uint32;
    }
    sy_wire_validate_cred_rep_free(&vr);
    sy_buffer_destruct(&rb);
    close(fd);
    if (rc != PMIX_SUCCESS || uid < 0) {
        printf("credential not validated: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("uid=%ld gid=%ld\n", uid, gid);
    return 0;
}

static int rank(const char *mode, const char *stop)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "test_security rank: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    if (PMIx_Put(PMIX_GLOBAL, "sy.sec", &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS ||
        PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
        fprintf(stderr, "test_security rank %u: exchange failed\n", me.rank);
    PMIX_VALUE_DESTRUCT(&v);
    printf("ready %u %ld\n", me.rank, (long)getpid());
    fflush(stdout);
    if (strcmp(mode, "abort") == 0 && me.rank == 0)
        PMIx_Abort(3, "test_security: abort", NULL, 0);
    if (strcmp(mode, "wait") == 0)
        while (access(stop, F_OK) != 0)
            usleep(50000);
    PMIx_Finalize(NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "steal") == 0)
        return steal(argv[2], argv[3], argv[4]);
    if (argc == 4 && strcmp(argv[1], "claim") == 0)
        return claim(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "rank") == 0)
        return rank(argv[2], argv[3]);
    fprintf(stderr, "usage: test_security steal DIR URI USOCK | claim URI TOKEN |"
                    " rank wait|abort|exit STOPFILE\n");
    return 2;
}
