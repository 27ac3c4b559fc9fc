/* PMIx_Init under an OpenPMIx 4.x server (common/opx_client.h): the
 * handshake, the job-info request whose answer becomes this process's
 * job-data segment, then a connection with OpenPMIx's framing, over which
 * every request goes through the OpenPMIx codec (sy_client_codec). */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client_internal.h"
#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/opx_client.h"
#include "common/store.h"

#define SY_OPX_INIT_WAIT 30.0

/* The server's identity from its URI, "<nspace>.<rank>;tcp4://...". */
static void server_from_uri(const char *uri, pmix_proc_t *server)
{
    PMIX_LOAD_PROCID(server, "openpmix-server", 0);
    const char *semi = strchr(uri, ';');
    if (semi == NULL)
        return;
    const char *dot = semi;
    while (dot > uri && *dot != '.')
        dot--;
    if (*dot != '.' || dot == uri || (size_t)(dot - uri) > PMIX_MAX_NSLEN)
        return;
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, uri, (size_t)(dot - uri));
    ns[dot - uri] = '\0';
    PMIX_LOAD_PROCID(server, ns, (pmix_rank_t)strtoul(dot + 1, NULL, 10));
}

/* A job's data to compile: the reply it is read from, the job, this
 * node's name (NULL: as the job data names it), and the parsed infos the
 * builder points into, freed once the segment is published. */
typedef struct {
    pmix_data_buffer_t *blob;
    pmix_proc_t job;
    const char *here;
    pmix_info_t *held;
    size_t nheld;
} opx_job_t;

static pmix_status_t fill_job(sy_jseg_builder_t *b, void *arg)
{
    opx_job_t *o = arg;
    return sy_opx_jobinfo_compile(o->blob, &o->job, o->here, b, &o->held, &o->nheld);
}

/* A job's data as a private segment, attached as its namespace's. */
static pmix_status_t attach_opx_job(opx_job_t *o)
{
    pmix_status_t rc = sy_client_attach_private_job(o->job.nspace, "opx", fill_job, o);
    sy_array_free(o->held, o->nheld, PMIX_INFO);
    o->held = NULL;
    o->nheld = 0;
    return rc;
}

/* Our own job's data. */
static pmix_status_t attach_job(pmix_data_buffer_t *reply)
{
    opx_job_t o = {.blob = reply, .job = sy_client.me};
    return attach_opx_job(&o);
}

pmix_status_t sy_client_opx_connect(const char *uri)
{
    int fd = -1;
    int32_t pindex = 0;
    pmix_status_t rc = sy_opx_connect(uri, &sy_client.me, SY_OPX_INIT_WAIT, &fd, &pindex);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* the job data: REQ, answered with the namespace and its values (no
     * status) */
    pmix_data_buffer_t req = {0}, rb;
    uint8_t cmd = SY_OPX_CMD_REQ;
    rc = sy_opx_pack(&req, &cmd, 1, PMIX_UINT8); /* a PMIX_COMMAND is one byte */
    void *body = NULL;
    size_t len = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_opx_exchange(fd, pindex, sy_client_next_tag(), req.base_ptr, req.bytes_used,
                             SY_OPX_INIT_WAIT, sy_frame_default_max_body(), &body, &len);
    sy_buffer_destruct(&req);
    if (rc == PMIX_SUCCESS) {
        sy_client_buffer_over(&rb, body, len);
        rc = attach_job(&rb);
        sy_buffer_destruct(&rb);
    }
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_Init: no job data from the OpenPMIx server: %s",
               PMIx_Error_string(rc));
        close(fd);
        return rc;
    }
    server_from_uri(uri, &sy_client.server);
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    sy_client.server_host = strdup(host);
    sy_conn_t *conn = NULL;
    rc = sy_conn_create_framed(sy_progress_base(sy_client.progress), fd, SY_FRAMING_OPENPMIX,
                               pindex, &sy_client_conn_callbacks, NULL, 0, &conn);
    if (rc == PMIX_SUCCESS) {
        sy_client.conn = conn;
        sy_client.opx = true;
    }
    return rc;
}

/* ---- CONNECT: the job data of the other namespaces ---- */

/* Our node's name as our own job data gives it (the other job's data
 * names its nodes the same way), else NULL. */
static char *our_hostname(void)
{
    pmix_value_t *v = NULL;
    char *host = NULL;
    if (sy_store_get(&sy_client.me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS &&
        v->type == PMIX_STRING && v->data.string != NULL)
        host = strdup(v->data.string);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return host;
}

/* A job's data: the namespace, then its pairs as at REQ (bytes of n). */
static pmix_status_t store_other_job(const void *bytes, size_t n, const char *here)
{
    pmix_data_buffer_t blob = {0};
    pmix_status_t rc = sy_buffer_set_copy(&blob, bytes, n);
    char *ns = NULL;
    int32_t one = 1;
    if (rc == PMIX_SUCCESS)
        rc = sy_opx_unpack(&blob, &ns, &one, PMIX_STRING);
    if (rc == PMIX_SUCCESS && (ns == NULL || ns[0] == '\0' || strlen(ns) > PMIX_MAX_NSLEN))
        rc = PMIX_ERR_UNPACK_FAILURE;
    if (rc == PMIX_SUCCESS && !PMIX_CHECK_NSPACE(ns, sy_client.me.nspace)) {
        /* the parser reads the namespace again */
        blob.unpack_ptr = blob.base_ptr;
        opx_job_t o = {.blob = &blob, .here = here};
        PMIX_LOAD_PROCID(&o.job, ns, PMIX_RANK_WILDCARD);
        rc = attach_opx_job(&o);
    }
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "OpenPMIx server: its data of job '%s' is unusable: %s",
               ns != NULL ? ns : "?", PMIx_Error_string(rc));
    free(ns);
    sy_buffer_destruct(&blob);
    return rc;
}

pmix_status_t sy_client_opx_connect_jobs(pmix_data_buffer_t *rest)
{
    pmix_status_t status = PMIX_SUCCESS;
    char *here = our_hostname();
    while (sy_buffer_remaining(rest) > 0) {
        pmix_byte_object_t bo = {0};
        int32_t one = 1;
        pmix_status_t rc = sy_opx_unpack(rest, &bo, &one, PMIX_BYTE_OBJECT);
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "PMIx_Connect: a malformed reply from the OpenPMIx server: %s",
                   PMIx_Error_string(rc));
            status = PMIX_ERR_UNPACK_FAILURE;
            break;
        }
        rc = store_other_job(bo.bytes, bo.size, here);
        if (rc != PMIX_SUCCESS)
            status = rc;
        free(bo.bytes);
    }
    free(here);
    return status;
}

/* ---- SPAWN: the new job's data after its namespace ---- */

typedef struct {
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} opx_spawn_t;

/* The new job's pairs (what follows the namespace) as its job data, so
 * that the parent can get the spawned job's keys before any connect, as
 * OpenPMIx's own client can.  A failure costs one log line, not the
 * spawn. */
static void store_spawned(const char *nspace, pmix_data_buffer_t *rest)
{
    pmix_data_buffer_t blob = {0};
    pmix_status_t rc = sy_opx_pack(&blob, &nspace, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = sy_buffer_append(&blob, rest->unpack_ptr, sy_buffer_remaining(rest));
    if (rc == PMIX_SUCCESS) {
        char *here = our_hostname();
        (void)store_other_job(blob.base_ptr, blob.bytes_used, here);
        free(here);
    }
    sy_buffer_destruct(&blob);
}

static void opx_spawn_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    opx_spawn_t *c = cbdata;
    sy_wire_spawn_rep_t m;
    pmix_nspace_t nspace;
    memset(nspace, 0, sizeof(nspace));
    pmix_status_t rc = sy_wire_unpack(&sy_wire_opx_client, reply, SY_WMSG_SPAWN_REP, &m);
    if (rc != PMIX_SUCCESS && status == PMIX_SUCCESS)
        status = rc;
    if (status == PMIX_SUCCESS && m.nspace != NULL) {
        PMIX_LOAD_NSPACE(nspace, m.nspace);
        if (sy_buffer_remaining(reply) > 0)
            store_spawned(nspace, reply);
    }
    sy_wire_spawn_rep_free(&m);
    if (c->cbfunc != NULL)
        c->cbfunc(status, nspace, c->cbdata);
    free(c);
}

pmix_status_t sy_client_opx_spawn_nb(sy_conn_t *conn, const sy_wire_spawn_req_t *m,
                                     pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    opx_spawn_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return PMIX_ERR_NOMEM;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    pmix_data_buffer_t req;
    pmix_status_t rc = sy_wire_pack_request(&sy_wire_opx_client, &req, SY_WMSG_SPAWN_REQ, m);
    if (rc == PMIX_SUCCESS)
        rc = sy_client_request_nb(conn, &req, opx_spawn_reply, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}
