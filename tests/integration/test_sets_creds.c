/* Clients of process sets, credentials and allocation requests.
 *   psets   under switchyard-run --pset ocean -n 2 : --pset ice -n 1: the
 *           PMIX_PROCESS_SET_DEFINE events (cached, so they reach a handler
 *           registered after them), PMIx_Get(PMIX_PSET_NAMES), and the pset
 *           queries the server answers itself.
 *   cred    (2 ranks) the server's native credentials: get and validate
 *           (uid, gid, process), a peer's credential, refusal of tampered,
 *           truncated, foreign and empty ones, PMIX_CRED_TYPE,
 *           PMIX_CRYPTO_KEY, the non-blocking forms.
 *   alloc   (1 rank, switchyard-run) what the launcher grants and refuses;
 *           PMIX_QUERY_ALLOC_STATUS of its own allocation, of requests
 *           granted and refused, of one asked about before its request
 *           (answered once it is decided) and of one never requested.
 * And, run by test_host:
 *   host-psets   sets the host defines and deletes while the client runs
 *   host-cred    credentials issued and checked by the host's upcalls
 *   host-alloc   requests forwarded to the host's allocate upcall
 *   no-alloc     a host without allocate: PMIX_ERR_NOT_SUPPORTED
 *   host-upcalls (2 local ranks) Get of another node's key through the
 *                host's direct_modex (PMIX_REQUIRED_KEY, PMIX_TIMEOUT);
 *                PMIX_IMMEDIATE answered by the local server alone (a
 *                local peer's committed key found, no host asked);
 *                PMIX_TIMEOUT of any integer type, another refused;
 *                spawn, log, job_control and monitor reaching the host
 *                with the infos the library adds (the host checks them)
 * In the host modes the client logs "ready" (PMIx_Log) when the host may
 * act and waits for what the host does. */
#include <stdlib.h>

#include "itest.h"

static int n_define, n_delete;
static char last_pset[64];
static pmix_rank_t last_members[8];
static size_t last_nmembers;

static void h_pset(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t info[],
                   size_t ninfo, pmix_info_t *res, size_t nres,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata)
{
    (void)id, (void)src, (void)res, (void)nres;
    const pmix_info_t *name = find_info(info, ninfo, PMIX_PSET_NAME);
    const pmix_info_t *mem = find_info(info, ninfo, PMIX_PSET_MEMBERS);
    pthread_mutex_lock(&itest_lock);
    if (name != NULL && name->value.type == PMIX_STRING)
        snprintf(last_pset, sizeof(last_pset), "%s", name->value.data.string);
    last_nmembers = 0;
    if (mem != NULL && mem->value.type == PMIX_DATA_ARRAY && mem->value.data.darray != NULL) {
        const pmix_proc_t *p = mem->value.data.darray->array;
        for (size_t i = 0; i < mem->value.data.darray->size && i < 8; i++)
            last_members[last_nmembers++] = p[i].rank;
    }
    if (st == PMIX_PROCESS_SET_DEFINE)
        n_define++;
    else
        n_delete++;
    pthread_mutex_unlock(&itest_lock);
    cb(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* One query of one key, with an optional string qualifier. */
static pmix_status_t query1(const char *key, const char *qkey, const char *qval, pmix_info_t **res,
                            size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {(char *)key, NULL};
    q.keys = keys;
    pmix_info_t qual;
    if (qkey != NULL) {
        PMIX_INFO_LOAD(&qual, qkey, qval, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    if (qkey != NULL)
        PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

static void my_psets_are(const char *name)
{
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v), PMIX_SUCCESS, "Get PMIX_PSET_NAMES");
    if (!has_name(v, name) || v->data.darray->size != 1)
        FAIL("PMIX_PSET_NAMES is not just %s", name);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void psets_mode(void)
{
    /* the two sets were defined before this client ran: the cache */
    on_event(PMIX_PROCESS_SET_DEFINE, h_pset);
    wait_count(&n_define, 2, "two PMIX_PROCESS_SET_DEFINE events");
    my_psets_are(me.rank < 2 ? "ocean" : "ice");
    pmix_proc_t other = rank_of(me.rank < 2 ? 2 : 0);
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&other, PMIX_PSET_NAMES, NULL, 0, &v), PMIX_SUCCESS,
           "Get PMIX_PSET_NAMES of another rank");
    if (!has_name(v, me.rank < 2 ? "ice" : "ocean"))
        FAIL("another rank's PMIX_PSET_NAMES is wrong");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(query1(PMIX_QUERY_NUM_PSETS, NULL, NULL, &res, &nres), PMIX_SUCCESS,
           "PMIX_QUERY_NUM_PSETS");
    const pmix_info_t *n = find_info(res, nres, PMIX_QUERY_NUM_PSETS);
    if (n == NULL || n->value.type != PMIX_SIZE || n->value.data.size != 2)
        FAIL("PMIX_QUERY_NUM_PSETS is not 2");
    PMIX_INFO_FREE(res, nres);
    EXPECT(query1(PMIX_QUERY_PSET_NAMES, NULL, NULL, &res, &nres), PMIX_SUCCESS,
           "PMIX_QUERY_PSET_NAMES");
    const pmix_info_t *names = find_info(res, nres, PMIX_QUERY_PSET_NAMES);
    if (names == NULL || names->value.type != PMIX_STRING ||
        strstr(names->value.data.string, "ocean") == NULL ||
        strstr(names->value.data.string, "ice") == NULL)
        FAIL("PMIX_QUERY_PSET_NAMES is not \"ocean,ice\" in some order");
    PMIX_INFO_FREE(res, nres);
    EXPECT(query1(PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME, "ocean", &res, &nres), PMIX_SUCCESS,
           "PMIX_QUERY_PSET_MEMBERSHIP");
    const pmix_info_t *mem = find_info(res, nres, PMIX_QUERY_PSET_MEMBERSHIP);
    pmix_rank_t ocean[] = {0, 1};
    if (mem == NULL || !is_members(&mem->value, ocean, 2))
        FAIL("ocean is not ranks 0,1");
    PMIX_INFO_FREE(res, nres);
    EXPECT(query1(PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME, "nowhere", &res, &nres),
           PMIX_ERR_NOT_FOUND, "the membership of an unknown set");
    /* the app's own data names its set too */
    pmix_info_t app[1];
    bool yes = true;
    PMIX_INFO_LOAD(&app[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
    EXPECT(PMIx_Get(&me, PMIX_PSET_NAME, app, 1, &v), PMIX_SUCCESS, "Get the app's PMIX_PSET_NAME");
    if (v != NULL &&
        (v->type != PMIX_STRING || strcmp(v->data.string, me.rank < 2 ? "ocean" : "ice") != 0))
        FAIL("the app's PMIX_PSET_NAME is wrong");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&app[0]);
}

/* ---- credentials ---- */

static void check_identity(const pmix_info_t *res, size_t nres, pmix_rank_t rank)
{
    const pmix_info_t *uid = find_info(res, nres, PMIX_USERID);
    const pmix_info_t *gid = find_info(res, nres, PMIX_GRPID);
    const pmix_info_t *who = find_info(res, nres, PMIX_PROCID);
    const pmix_info_t *type = find_info(res, nres, PMIX_CRED_TYPE);
    if (uid == NULL || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != geteuid())
        FAIL("the credential's PMIX_USERID is not ours");
    if (gid == NULL || gid->value.type != PMIX_UINT32 || gid->value.data.uint32 != getegid())
        FAIL("the credential's PMIX_GRPID is not ours");
    if (who == NULL || who->value.type != PMIX_PROC ||
        !PMIX_CHECK_NSPACE(who->value.data.proc->nspace, me.nspace) ||
        who->value.data.proc->rank != rank)
        FAIL("the credential does not name rank %u", rank);
    if (type == NULL || type->value.type != PMIX_STRING ||
        strcmp(type->value.data.string, "native") != 0)
        FAIL("the credential's type is not native");
}

static pmix_status_t validate(const pmix_byte_object_t *cred, const pmix_info_t *info, size_t n,
                              pmix_rank_t rank)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Validate_credential(cred, info, n, &res, &nres);
    if (rc == PMIX_SUCCESS)
        check_identity(res, nres, rank);
    else if (res != NULL || nres != 0)
        FAIL("a refused credential came with results");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    return rc;
}

/* Flip bit `bit` of byte `at`. */
static void tampered(const pmix_byte_object_t *in, size_t at, pmix_byte_object_t *out)
{
    out->bytes = malloc(in->size);
    out->size = in->size;
    memcpy(out->bytes, in->bytes, in->size);
    out->bytes[at % in->size] ^= 0x01;
}

static int n_cred_cb;
static pmix_status_t cred_cb_status;
static void got_cred(pmix_status_t st, pmix_byte_object_t *cred, pmix_info_t info[], size_t ninfo,
                     void *cbdata)
{
    (void)info, (void)ninfo, (void)cbdata;
    cred_cb_status = st == PMIX_SUCCESS && (cred == NULL || cred->size == 0) ? PMIX_ERROR : st;
    itest_bump(&n_cred_cb);
}

static void validated(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *cbdata)
{
    (void)cbdata;
    if (st == PMIX_SUCCESS)
        check_identity(info, ninfo, me.rank);
    cred_cb_status = st;
    itest_bump(&n_cred_cb);
}

static void cred_mode(bool host)
{
    pmix_byte_object_t cred = {0}, bad;
    EXPECT(PMIx_Get_credential(NULL, 0, &cred), PMIX_SUCCESS, "PMIx_Get_credential");
    if (cred.size == 0)
        FAIL("an empty credential");
    if (host) {
        /* the host's: it knows what it issued */
        pmix_info_t *res = NULL;
        size_t nres = 0;
        EXPECT(PMIx_Validate_credential(&cred, NULL, 0, &res, &nres), PMIX_SUCCESS,
               "validating the host's credential");
        if (find_info(res, nres, "test.issuer") == NULL)
            FAIL("the host's validation results did not come back");
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        tampered(&cred, 0, &bad);
        EXPECT(PMIx_Validate_credential(&bad, NULL, 0, &res, &nres), PMIX_ERR_INVALID_CRED,
               "the host refusing a tampered credential");
        free(bad.bytes);
        free(cred.bytes);
        return;
    }
    EXPECT(validate(&cred, NULL, 0, me.rank), PMIX_SUCCESS, "validating our own credential");
    /* every byte matters: identity, header, MAC */
    for (size_t at = 0; at < cred.size; at += 3) {
        tampered(&cred, at, &bad);
        if (validate(&bad, NULL, 0, me.rank) != PMIX_ERR_INVALID_CRED)
            FAIL("a credential tampered at byte %zu was accepted", at);
        free(bad.bytes);
    }
    pmix_byte_object_t cut = {.bytes = cred.bytes, .size = cred.size - 1};
    EXPECT(validate(&cut, NULL, 0, me.rank), PMIX_ERR_INVALID_CRED, "a truncated credential");
    pmix_byte_object_t none = {0};
    EXPECT(validate(&none, NULL, 0, me.rank), PMIX_ERR_INVALID_CRED, "an empty credential");
    char junk[80];
    memset(junk, 'x', sizeof(junk));
    pmix_byte_object_t foreign = {.bytes = junk, .size = sizeof(junk)};
    EXPECT(validate(&foreign, NULL, 0, me.rank), PMIX_ERR_INVALID_CRED, "a foreign credential");

    /* types */
    pmix_info_t type;
    pmix_byte_object_t other = {0};
    PMIX_INFO_LOAD(&type, PMIX_CRED_TYPE, "munge", PMIX_STRING);
    EXPECT(PMIx_Get_credential(&type, 1, &other), PMIX_ERR_NOT_SUPPORTED,
           "asking only for a munge credential");
    PMIX_INFO_DESTRUCT(&type);
    PMIX_INFO_LOAD(&type, PMIX_CRED_TYPE, "munge, native", PMIX_STRING);
    EXPECT(PMIx_Get_credential(&type, 1, &other), PMIX_SUCCESS, "asking for munge or native");
    free(other.bytes);
    other.bytes = NULL;
    PMIX_INFO_DESTRUCT(&type);

    /* bound to a key */
    pmix_byte_object_t k1 = {.bytes = "secret-one", .size = 10};
    pmix_byte_object_t k2 = {.bytes = "secret-two", .size = 10};
    pmix_info_t key1, key2;
    PMIX_INFO_LOAD(&key1, PMIX_CRYPTO_KEY, &k1, PMIX_BYTE_OBJECT);
    PMIX_INFO_LOAD(&key2, PMIX_CRYPTO_KEY, &k2, PMIX_BYTE_OBJECT);
    EXPECT(PMIx_Get_credential(&key1, 1, &other), PMIX_SUCCESS, "a credential bound to a key");
    EXPECT(validate(&other, &key1, 1, me.rank), PMIX_SUCCESS, "validating it with the key");
    EXPECT(validate(&other, NULL, 0, me.rank), PMIX_ERR_INVALID_CRED,
           "validating it without the key");
    EXPECT(validate(&other, &key2, 1, me.rank), PMIX_ERR_INVALID_CRED,
           "validating it with another key");
    EXPECT(validate(&cred, &key1, 1, me.rank), PMIX_ERR_INVALID_CRED,
           "validating an unbound credential with a key");
    free(other.bytes);
    PMIX_INFO_DESTRUCT(&key1);
    PMIX_INFO_DESTRUCT(&key2);

    /* the non-blocking forms */
    EXPECT(PMIx_Get_credential_nb(NULL, 0, got_cred, NULL), PMIX_SUCCESS, "PMIx_Get_credential_nb");
    wait_count(&n_cred_cb, 1, "the credential callback");
    EXPECT(cred_cb_status, PMIX_SUCCESS, "the credential callback's status");
    EXPECT(PMIx_Validate_credential_nb(&cred, NULL, 0, validated, NULL), PMIX_SUCCESS,
           "PMIx_Validate_credential_nb");
    wait_count(&n_cred_cb, 2, "the validation callback");
    EXPECT(cred_cb_status, PMIX_SUCCESS, "the validation callback's status");
    EXPECT(PMIx_Validate_credential_nb(NULL, NULL, 0, validated, NULL), PMIX_ERR_BAD_PARAM,
           "validating no credential");

    /* a peer's credential: rank 0 hands it over, rank 1 checks it */
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &cred, PMIX_BYTE_OBJECT);
    EXPECT(PMIx_Put(PMIX_GLOBAL, "sy.cred", &val), PMIX_SUCCESS, "PMIx_Put of a credential");
    PMIX_VALUE_DESTRUCT(&val);
    EXPECT(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    EXPECT(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "PMIx_Fence");
    pmix_rank_t peer = me.rank == 0 ? 1 : 0;
    pmix_proc_t p = rank_of(peer);
    pmix_value_t *v = NULL;
    EXPECT(PMIx_Get(&p, "sy.cred", NULL, 0, &v), PMIX_SUCCESS, "Get of a peer's credential");
    if (v != NULL && v->type == PMIX_BYTE_OBJECT)
        EXPECT(validate(&v->data.bo, NULL, 0, peer), PMIX_SUCCESS,
               "validating a peer's credential");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    free(cred.bytes);
}

/* ---- allocations ---- */

static uint64_t u64_of(const pmix_info_t *res, size_t n, const char *key)
{
    const pmix_info_t *i = find_info(res, n, key);
    return i != NULL && i->value.type == PMIX_UINT64 ? i->value.data.uint64 : 0;
}

static int n_status;
static char status_text[64];
static pmix_status_t status_rc;

static void status_cb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)cbdata;
    const pmix_info_t *i = find_info(info, ninfo, PMIX_QUERY_ALLOC_STATUS);
    pthread_mutex_lock(&itest_lock);
    status_rc = st;
    snprintf(status_text, sizeof(status_text), "%s",
             i != NULL && i->value.type == PMIX_STRING ? i->value.data.string : "(none)");
    pthread_mutex_unlock(&itest_lock);
    if (release_fn != NULL)
        release_fn(release_cbdata);
    itest_bump(&n_status);
}

/* The status string of an allocation (NULL id: the launcher's own). */
static void alloc_status_is(const char *id, pmix_status_t want_rc, const char *want)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_info_t qual[2];
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_ALLOC_STATUS, NULL};
    q.keys = keys;
    if (id != NULL) {
        int zero = 0; /* do not wait for a request naming it */
        PMIX_INFO_LOAD(&qual[0], PMIX_ALLOC_ID, id, PMIX_STRING);
        PMIX_INFO_LOAD(&qual[1], PMIX_TIMEOUT, &zero, PMIX_INT);
        q.qualifiers = qual;
        q.nqual = 2;
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    EXPECT(rc, want_rc, "PMIX_QUERY_ALLOC_STATUS");
    const pmix_info_t *i = find_info(res, nres, PMIX_QUERY_ALLOC_STATUS);
    if (want != NULL && (i == NULL || i->value.type != PMIX_STRING ||
                         strncmp(i->value.data.string, want, strlen(want)) != 0))
        FAIL("allocation %s: status %s, not %s", id != NULL ? id : "(own)",
             i != NULL && i->value.type == PMIX_STRING ? i->value.data.string : "(none)", want);
    if (id != NULL) {
        PMIX_INFO_DESTRUCT(&qual[0]);
        PMIX_INFO_DESTRUCT(&qual[1]);
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
}

static void alloc_status_mode(void)
{
    alloc_status_is(NULL, PMIX_SUCCESS, "active");
    alloc_status_is("sy-never", PMIX_ERR_NOT_FOUND, NULL);
    /* asked before its request is made: answered when it is decided */
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_ALLOC_STATUS, NULL};
    q.keys = keys;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_ALLOC_ID, "sy-alloc-early", PMIX_STRING);
    q.qualifiers = &qual;
    q.nqual = 1;
    EXPECT(PMIx_Query_info_nb(&q, 1, status_cb, NULL), PMIX_SUCCESS, "an early status query");
    usleep(100000);
    if (itest_read(&n_status) != 0)
        FAIL("the status of an allocation not requested yet came before its request");
    pmix_info_t req;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    PMIX_INFO_LOAD(&req, PMIX_ALLOC_ID, "sy-alloc-early", PMIX_STRING);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, &req, 1, &res, &nres), PMIX_SUCCESS,
           "the request the early query waits for");
    PMIX_INFO_DESTRUCT(&req);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    wait_count(&n_status, 1, "the early status query's answer");
    pthread_mutex_lock(&itest_lock);
    bool ok = status_rc == PMIX_SUCCESS && strcmp(status_text, "granted") == 0;
    pthread_mutex_unlock(&itest_lock);
    if (!ok)
        FAIL("the early query: %s, %s", PMIx_Error_string(status_rc), status_text);
    PMIX_INFO_DESTRUCT(&qual);
    /* granted and refused, by their ids */
    alloc_status_is("sy-alloc-early", PMIX_SUCCESS, "granted");
    uint64_t four = 4;
    pmix_info_t big[2];
    PMIX_INFO_LOAD(&big[0], PMIX_ALLOC_ID, "sy-alloc-big", PMIX_STRING);
    PMIX_INFO_LOAD(&big[1], PMIX_ALLOC_NUM_NODES, &four, PMIX_UINT64);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_NEW, big, 2, &res, &nres), PMIX_ERR_OUT_OF_RESOURCE,
           "a request for 4 nodes");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&big[0]);
    PMIX_INFO_DESTRUCT(&big[1]);
    alloc_status_is("sy-alloc-big", PMIX_SUCCESS, "refused");
}

static void alloc_mode(void)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_value_t *host = NULL;
    EXPECT(PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &host), PMIX_SUCCESS, "Get PMIX_HOSTNAME");
    pmix_info_t req[2];
    PMIX_INFO_LOAD(&req[0], PMIX_ALLOC_REQ_ID, "sy-req-1", PMIX_STRING);
    /* what is there */
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, req, 1, &res, &nres), PMIX_SUCCESS,
           "a request with no amounts");
    const pmix_info_t *nodes = find_info(res, nres, PMIX_ALLOC_NODE_LIST);
    const pmix_info_t *id = find_info(res, nres, PMIX_ALLOC_REQ_ID);
    if (u64_of(res, nres, PMIX_ALLOC_NUM_NODES) != 1 || u64_of(res, nres, PMIX_ALLOC_NUM_CPUS) < 1)
        FAIL("the allocation is not one node with cpus");
    if (nodes == NULL || nodes->value.type != PMIX_STRING || host == NULL ||
        strcmp(nodes->value.data.string, host->data.string) != 0)
        FAIL("the allocation is not this host");
    if (id == NULL || id->value.type != PMIX_STRING || strcmp(id->value.data.string, "sy-req-1"))
        FAIL("PMIX_ALLOC_REQ_ID did not come back");
    if (find_info(res, nres, PMIX_ALLOC_ID) == NULL)
        FAIL("no PMIX_ALLOC_ID");
    PMIX_INFO_FREE(res, nres);
    /* growth */
    uint64_t four = 4;
    PMIX_INFO_LOAD(&req[1], PMIX_ALLOC_NUM_NODES, &four, PMIX_UINT64);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_NEW, req, 2, &res, &nres), PMIX_ERR_OUT_OF_RESOURCE,
           "asking for 4 nodes");
    PMIX_INFO_DESTRUCT(&req[1]);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_RELEASE, req, 1, &res, &nres), PMIX_ERR_NOT_SUPPORTED,
           "giving resources back");
    /* time */
    uint32_t minute = 60;
    PMIX_INFO_LOAD(&req[1], PMIX_ALLOC_TIME, &minute, PMIX_UINT32);
    EXPECT(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, req, 2, &res, &nres), PMIX_SUCCESS,
           "asking for more time");
    const pmix_info_t *t = find_info(res, nres, PMIX_ALLOC_TIME);
    if (t == NULL || t->value.type != PMIX_UINT32 || t->value.data.uint32 != 60)
        FAIL("PMIX_ALLOC_TIME is not the minute granted");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&req[1]);
    PMIX_INFO_DESTRUCT(&req[0]);
    PMIX_VALUE_RELEASE(host);
    alloc_status_mode();
}

/* ---- against test_host ---- */

static void ready(void)
{
    pmix_info_t msg;
    PMIX_INFO_LOAD(&msg, PMIX_LOG_STDOUT, "ready", PMIX_STRING);
    EXPECT(PMIx_Log(&msg, 1, NULL, 0), PMIX_SUCCESS, "telling the host we are ready");
    PMIX_INFO_DESTRUCT(&msg);
}

static void host_psets_mode(void)
{
    on_event(PMIX_PROCESS_SET_DEFINE, h_pset);
    on_event(PMIX_PROCESS_SET_DELETE, h_pset);
    /* "early" was defined before we started */
    wait_count(&n_define, 1, "the early set");
    my_psets_are("early");
    ready(); /* the host deletes "early" and defines "late" */
    wait_count(&n_delete, 1, "PMIX_PROCESS_SET_DELETE");
    wait_count(&n_define, 2, "the late set");
    pthread_mutex_lock(&itest_lock);
    bool ok = strcmp(last_pset, "late") == 0 && last_nmembers >= 1;
    pthread_mutex_unlock(&itest_lock);
    if (!ok)
        FAIL("the late set came as %s with %zu members", last_pset, last_nmembers);
    my_psets_are("late");
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(query1(PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME, "early", &res, &nres),
           PMIX_ERR_NOT_FOUND, "the membership of a deleted set");
}

static void host_alloc_mode(bool have)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_info_t req[2];
    uint64_t cpus = 8;
    PMIX_INFO_LOAD(&req[0], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    PMIX_INFO_LOAD(&req[1], "test.custom", "kept", PMIX_STRING);
    pmix_status_t rc = PMIx_Allocation_request(PMIX_ALLOC_NEW, req, 2, &res, &nres);
    if (!have) {
        EXPECT(rc, PMIX_ERR_NOT_SUPPORTED, "an allocation request without a host allocate");
    } else {
        EXPECT(rc, PMIX_SUCCESS, "an allocation request the host grants");
        const pmix_info_t *id = find_info(res, nres, PMIX_ALLOC_ID);
        if (id == NULL || id->value.type != PMIX_STRING ||
            strcmp(id->value.data.string, "test-alloc-1") != 0)
            FAIL("the host's PMIX_ALLOC_ID did not come back");
    }
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&req[0]);
    PMIX_INFO_DESTRUCT(&req[1]);
}

/* The other local rank (PMIX_LOCAL_PEERS), or our own when alone. */
static pmix_rank_t local_peer(void)
{
    pmix_proc_t wild = rank_of(PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_rank_t peer = me.rank;
    if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_STRING) {
        for (char *p = v->data.string; p != NULL && *p != '\0';) {
            char *end;
            unsigned long r = strtoul(p, &end, 10);
            if (end == p)
                break;
            if (r != me.rank)
                peer = (pmix_rank_t)r;
            p = *end == ',' ? end + 1 : end;
        }
    }
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    return peer;
}

static void host_upcalls_mode(void)
{
    pmix_value_t *v = NULL;
    pmix_info_t dir;
    /* another node's key: the host's direct_modex, with our timeout */
    pmix_proc_t far = rank_of(0);
    uint16_t t16 = 30;
    PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, &t16, PMIX_UINT16);
    EXPECT(PMIx_Get(&far, "test.remote", &dir, 1, &v), PMIX_SUCCESS, "Get of another node's key");
    if (v == NULL || v->type != PMIX_STRING || strcmp(v->data.string, "far-0") != 0)
        FAIL("the host's answer for rank 0 did not come back");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    PMIX_INFO_DESTRUCT(&dir);
    /* PMIX_IMMEDIATE: never the host (it would answer, and count it) */
    far = rank_of(1);
    PMIX_INFO_LOAD(&dir, PMIX_IMMEDIATE, NULL, PMIX_BOOL);
    EXPECT(PMIx_Get(&far, "test.remote", &dir, 1, &v), PMIX_ERR_NOT_FOUND,
           "an IMMEDIATE Get of another node's key");
    /* ... but the local server once: a local peer's committed key */
    char mine[16];
    snprintf(mine, sizeof mine, "imm-%u", me.rank);
    put_str("test.imm", mine);
    EXPECT(PMIx_Commit(), PMIX_SUCCESS, "Commit");
    pmix_proc_t peer = rank_of(local_peer());
    if (peer.rank == me.rank)
        FAIL("no other local rank: run host-upcalls with -n 2");
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    for (int i = 0; i < 300 && rc == PMIX_ERR_NOT_FOUND; i++) {
        rc = PMIx_Get(&peer, "test.imm", &dir, 1, &v);
        if (rc == PMIX_ERR_NOT_FOUND)
            usleep(100000);
    }
    char want[16];
    snprintf(want, sizeof want, "imm-%u", peer.rank);
    EXPECT(rc, PMIX_SUCCESS, "an IMMEDIATE Get of a local peer's committed key");
    if (rc == PMIX_SUCCESS && (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0))
        FAIL("the local peer's key came back wrong");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    EXPECT(PMIx_Get(&peer, "test.never", &dir, 1, &v), PMIX_ERR_NOT_FOUND,
           "an IMMEDIATE Get of a key nobody posted (no waiting)");
    PMIX_INFO_DESTRUCT(&dir);
    /* PMIX_TIMEOUT: any integer type; anything else is a bad parameter */
    size_t tsz = 30;
    int64_t t64 = 30;
    PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, &tsz, PMIX_SIZE);
    EXPECT(PMIx_Get(&peer, "test.imm", &dir, 1, &v), PMIX_SUCCESS, "Get with a size_t timeout");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    PMIX_INFO_DESTRUCT(&dir);
    PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, &t64, PMIX_INT64);
    EXPECT(PMIx_Get(&peer, "test.imm", &dir, 1, &v), PMIX_SUCCESS, "Get with an int64 timeout");
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    PMIX_INFO_DESTRUCT(&dir);
    PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, "30", PMIX_STRING);
    EXPECT(PMIx_Get(&peer, "test.imm", &dir, 1, &v), PMIX_ERR_BAD_PARAM,
           "Get with a string timeout");
    PMIX_INFO_DESTRUCT(&dir);
    t64 = -1;
    PMIX_INFO_LOAD(&dir, PMIX_TIMEOUT, &t64, PMIX_INT64);
    EXPECT(PMIx_Get(&peer, "test.imm", &dir, 1, &v), PMIX_ERR_BAD_PARAM,
           "Get with a negative timeout");
    PMIX_INFO_DESTRUCT(&dir);

    /* spawn: the host checks what the library added; ours are dropped */
    pmix_info_t job[3];
    uint32_t fake = 12345;
    bool yes = true;
    PMIX_INFO_LOAD(&job[0], "test.job", "kept", PMIX_STRING);
    PMIX_INFO_LOAD(&job[1], PMIX_USERID, &fake, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[2], PMIX_SPAWNED, &yes, PMIX_BOOL);
    pmix_app_t *app;
    PMIX_APP_CREATE(app, 1);
    app->cmd = strdup("/bin/true");
    app->maxprocs = 1;
    pmix_nspace_t child;
    EXPECT(PMIx_Spawn(job, 3, app, 1, child), PMIX_SUCCESS, "Spawn");
    if (strcmp(child, "test-spawned") != 0)
        FAIL("Spawn returned namespace \"%s\"", child);
    PMIX_APP_FREE(app, 1);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&job[i]);
    /* log, job_control, monitor: the requester's ids */
    pmix_info_t msg;
    PMIX_INFO_LOAD(&msg, PMIX_LOG_STDOUT, "host-upcalls", PMIX_STRING);
    EXPECT(PMIx_Log(&msg, 1, NULL, 0), PMIX_SUCCESS, "Log");
    PMIX_INFO_DESTRUCT(&msg);
    pmix_proc_t target = rank_of(0);
    PMIX_INFO_LOAD(&msg, "test.jctrl", "x", PMIX_STRING);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    EXPECT(PMIx_Job_control(&target, 1, &msg, 1, &res, &nres), PMIX_SUCCESS, "Job_control");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&msg);
    PMIX_INFO_LOAD(&msg, "test.monitor", "x", PMIX_STRING);
    res = NULL;
    nres = 0;
    EXPECT(PMIx_Process_monitor(&msg, PMIX_MONITOR_FILE_ALERT, NULL, 0, &res, &nres), PMIX_SUCCESS,
           "Process_monitor");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&msg);
    /* the peer may still be reading our key: leave together (with the
     * directives test_host expects of every fence) */
    pmix_info_t fdir[2];
    int t600 = 600;
    PMIX_INFO_LOAD(&fdir[0], PMIX_TIMEOUT, &t600, PMIX_INT);
    PMIX_INFO_LOAD(&fdir[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    EXPECT(PMIx_Fence(NULL, 0, fdir, 2), PMIX_SUCCESS, "Fence");
    PMIX_INFO_DESTRUCT(&fdir[0]);
    PMIX_INFO_DESTRUCT(&fdir[1]);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "psets";
    itest_name = "test_sets_creds";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (strcmp(mode, "cred") == 0)
        cred_mode(false);
    else if (strcmp(mode, "host-cred") == 0)
        cred_mode(true);
    else if (strcmp(mode, "alloc") == 0)
        alloc_mode();
    else if (strcmp(mode, "host-psets") == 0)
        host_psets_mode();
    else if (strcmp(mode, "host-alloc") == 0)
        host_alloc_mode(true);
    else if (strcmp(mode, "no-alloc") == 0)
        host_alloc_mode(false);
    else if (strcmp(mode, "host-upcalls") == 0)
        host_upcalls_mode();
    else
        psets_mode();
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        FAIL("Finalize: %s", PMIx_Error_string(rc));
    if (failures == 0)
        printf("test_sets_creds %s rank %u: ok\n", mode, me.rank);
    return failures == 0 ? 0 : 1;
}
