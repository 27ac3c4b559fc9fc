/* Small helpers of the server role: attribute tests, thread shifts, random
 * tokens. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_util.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_upcall.h"

sy_srv_t *sy_srv;
pthread_mutex_t sy_srv_life_lock = PTHREAD_MUTEX_INITIALIZER;
bool sy_srv_alive;

/* A host may fork while another of its threads completes one of our
 * upcalls (under this lock), and then call setup_fork in the child: the
 * lock is held across fork() so that the child never finds it taken by a
 * thread that does not exist there. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&sy_srv_life_lock);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void atfork_register(void)
{
    pthread_atfork(fork_prepare, fork_done, fork_done);
}

void sy_srv_atfork_init(void)
{
    pthread_once(&atfork_once, atfork_register);
}

/* Threads using the live server outside the lock (posting to its loop,
 * reading what setup_fork needs): finalize waits for them.  Nothing that
 * allocates or blocks is done under sy_srv_life_lock, as it is held across
 * fork(): an allocator that locks itself before the atfork handlers run
 * (ASan's does) would otherwise deadlock a fork against a post. */
static pthread_cond_t users_gone = PTHREAD_COND_INITIALIZER;
static unsigned users;

sy_progress_t *sy_srv_use(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    sy_progress_t *p = sy_srv_alive && sy_srv != NULL ? sy_srv->progress : NULL;
    if (p != NULL)
        users++;
    pthread_mutex_unlock(&sy_srv_life_lock);
    return p;
}

void sy_srv_unuse(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    if (--users == 0)
        pthread_cond_broadcast(&users_gone);
    pthread_mutex_unlock(&sy_srv_life_lock);
}

void sy_srv_wait_unused(void)
{
    while (users > 0)
        pthread_cond_wait(&users_gone, &sy_srv_life_lock);
}

void sy_srv_post_or_drop(sy_progress_fn_t done, sy_progress_fn_t drop, void *arg)
{
    sy_progress_t *p = sy_srv_use();
    bool posted = p != NULL && sy_progress_post(p, done, arg) == PMIX_SUCCESS;
    if (p != NULL)
        sy_srv_unuse();
    if (!posted)
        drop(arg);
}

pmix_status_t sy_srv_post(sy_progress_fn_t fn, void *arg)
{
    sy_progress_t *p = sy_srv_use();
    if (p == NULL)
        return PMIX_ERR_INIT;
    pmix_status_t rc = sy_progress_post(p, fn, arg);
    sy_srv_unuse();
    return rc;
}

sy_progress_t *sy_srv_progress(void)
{
    pthread_mutex_lock(&sy_srv_life_lock);
    sy_progress_t *p = (sy_srv != NULL) ? sy_srv->progress : NULL;
    pthread_mutex_unlock(&sy_srv_life_lock);
    return p;
}

pmix_status_t sy_srv_random(void *buf, size_t n)
{
    unsigned char *out = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == n)
        return PMIX_SUCCESS;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return PMIX_ERR_NOT_AVAILABLE;
    while (got < n) {
        ssize_t r = read(fd, out + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return got == n ? PMIX_SUCCESS : PMIX_ERR_NOT_AVAILABLE;
}

pmix_status_t sy_srv_add_ids(pmix_info_t **info, size_t *ninfo, const sy_srv_client_t *c)
{
    pmix_info_t *all;
    PMIX_INFO_CREATE(all, *ninfo + 2);
    if (all == NULL)
        return PMIX_ERR_NOMEM;
    /* a peer never names its own identity: a PMIX_USERID or PMIX_GRPID it
     * put among its infos is dropped, so the host sees only ours */
    size_t k = 0;
    for (size_t i = 0; i < *ninfo; i++)
        if (!sy_info_is(&(*info)[i], PMIX_USERID) && !sy_info_is(&(*info)[i], PMIX_GRPID))
            PMIx_Info_xfer(&all[k++], &(*info)[i]);
    uint32_t uid = (uint32_t)c->uid, gid = (uint32_t)c->gid;
    PMIX_INFO_LOAD(&all[k++], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&all[k++], PMIX_GRPID, &gid, PMIX_UINT32);
    if (*info != NULL)
        PMIX_INFO_FREE(*info, *ninfo);
    *info = all;
    *ninfo = k;
    return PMIX_SUCCESS;
}

pmix_status_t sy_srv_op_start(sy_srv_op_t *op, sy_progress_fn_t fn, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    op->cbfunc = cbfunc;
    op->cbdata = cbdata;
    op->blocking = (cbfunc == NULL);
    if (!op->blocking) {
        pmix_status_t rc = sy_srv_post(fn, op);
        if (rc != PMIX_SUCCESS)
            free(op);
        return rc;
    }
    pmix_status_t rc = sy_sync_init(&op->sync);
    if (rc != PMIX_SUCCESS) {
        free(op);
        return rc;
    }
    sy_progress_t *p = sy_srv_progress();
    rc = sy_srv_post(fn, op);
    if (rc == PMIX_SUCCESS)
        rc = sy_sync_wait_progress(&op->sync, p);
    sy_sync_destroy(&op->sync);
    free(op);
    return rc;
}

void sy_srv_op_finish(sy_srv_op_t *op, pmix_status_t status)
{
    if (op->blocking) {
        sy_sync_signal(&op->sync, status, NULL);
        return;
    }
    if (op->cbfunc != NULL)
        op->cbfunc(status, op->cbdata);
    free(op);
}

const sy_wire_codec_t *sy_srv_codec(const sy_srv_peer_t *peer)
{
    /* chosen once per connection, by its first bytes (server_opx.c) */
    return peer->opx ? &sy_wire_openpmix : &sy_wire_native;
}

pmix_status_t sy_srv_unpack_msg(const sy_srv_peer_t *peer, pmix_data_buffer_t *b,
                                sy_wire_msg_id_t id, void *msg)
{
    return sy_wire_unpack(sy_srv_codec(peer), b, id, msg);
}

pmix_status_t sy_srv_peer_send_msg(sy_srv_peer_t *peer, sy_wire_msg_id_t id, const void *msg)
{
    const sy_wire_desc_t *d = sy_wire_desc(id);
    if (d == NULL || d->part != SY_WIRE_MESSAGE)
        return PMIX_ERR_BAD_PARAM;
    pmix_data_buffer_t b;
    pmix_status_t rc = sy_wire_pack_message(sy_srv_codec(peer), &b, id, msg);
    /* OpenPMIx reads forwarded output on its IOF channel, tag 2 */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_peer_send_tagged(peer, peer->opx && id == SY_WMSG_IOF_MSG ? 2 : 0, &b);
    sy_buffer_destruct(&b);
    return rc;
}

void sy_srv_peer_reply_msg(sy_srv_peer_t *peer, uint32_t tag, pmix_status_t status,
                           sy_wire_msg_id_t id, const void *msg)
{
    pmix_data_buffer_t b = {0};
    pmix_status_t rc = msg != NULL ? sy_wire_pack(sy_srv_codec(peer), &b, id, msg) : PMIX_SUCCESS;
    /* a reply that cannot be packed is its failure */
    sy_srv_peer_reply_with(peer, tag, rc == PMIX_SUCCESS ? status : rc, &b);
    sy_buffer_destruct(&b);
}

void sy_srv_req_reply(sy_srv_req_t *req, pmix_status_t status, sy_wire_msg_id_t id, const void *msg)
{
    req->status = status;
    pmix_status_t rc = sy_wire_pack(sy_srv_codec(req->peer), &req->reply, id, msg);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&req->reply);
        req->status = rc;
    }
}
