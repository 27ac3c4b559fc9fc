/*
 * switchyard-tool: a PMIx tool for running jobs (README, docs/launcher.md).
 *
 *   switchyard-tool servers                   the PMIx servers of this node
 *   switchyard-tool [--pid P] ps              a server's jobs and processes
 *   switchyard-tool [--pid P] attach [...]    stream a job's output (and stdin)
 *   switchyard-tool [--pid P] signal|kill|term [RANK...]
 *   switchyard-tool [--pid P] attrs [--level L] FUNCTION...
 *   switchyard-tool [--pid P] query KEY...
 *
 * Uses only the public API: PMIx_tool_init finds the server (by pid,
 * namespace, URI, rendezvous file, or the newest one it can find),
 * PMIx_Query_info, PMIx_IOF_pull/push and PMIx_Job_control do the rest.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: switchyard-tool [which server] COMMAND [options]\n"
               "\n"
               "Which server (default: the newest one of this node that accepts us):\n"
               "  --pid PID        the server of process PID (e.g. a switchyard-run)\n"
               "  --nspace NS      the server whose namespace is NS\n"
               "  --uri URI        the server at URI\n"
               "  --file PATH      the server a rendezvous file describes\n"
               "  --system         the node's system server\n"
               "  --tmpdir DIR     look for rendezvous files under DIR (default $TMPDIR, /tmp)\n"
               "  --wait SECONDS   retry for that long while the server is not there yet\n"
               "\n"
               "Commands:\n"
               "  servers          list the PMIx servers of this node (connects to none)\n"
               "  ps               the server's jobs and their processes\n"
               "  attach [--job NS] [--stdin] [--tag] [--timestamp] [--copy] [--rank R]...\n"
               "                   print a job's output until it ends (or Ctrl-C); --stdin\n"
               "                   forwards our stdin to rank 0 (the job must run with\n"
               "                   switchyard-run --stdin tools); --copy leaves the output on\n"
               "                   the launcher's terminal too\n"
               "  signal SIG [RANK...], kill [RANK...], term [RANK...]\n"
               "                   send a signal, SIGKILL or SIGTERM to ranks (default all)\n"
               "  attrs [--level client|server|tool|host]... FUNCTION...\n"
               "                   the attributes a PMIx function supports, per level\n"
               "  query KEY...     any PMIx_Query_info key, e.g. pmix.qry.ns\n");
}

/* ---- printing values ---- */

static void print_value(const pmix_value_t *v, int indent);

static void print_info(const pmix_info_t *in, int indent)
{
    printf("%*s%s: ", indent, "", in->key);
    print_value(&in->value, indent);
}

static void print_value(const pmix_value_t *v, int indent)
{
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL) {
        const pmix_data_array_t *d = v->data.darray;
        printf("(%zu)\n", d->size);
        for (size_t i = 0; i < d->size; i++) {
            if (d->type == PMIX_INFO) {
                print_info(&((pmix_info_t *)d->array)[i], indent + 2);
            } else if (d->type == PMIX_REGATTR) {
                const pmix_regattr_t *r = &((pmix_regattr_t *)d->array)[i];
                printf("%*s%s (\"%s\", %s)%s%s\n", indent + 2, "", r->name, r->string,
                       PMIx_Data_type_string(r->type),
                       r->description != NULL && r->description[0] != NULL ? ": " : "",
                       r->description != NULL && r->description[0] != NULL ? r->description[0]
                                                                           : "");
            } else if (d->type == PMIX_PROC_INFO) {
                const pmix_proc_info_t *p = &((pmix_proc_info_t *)d->array)[i];
                printf("%*s%s:%u pid %ld %s %s\n", indent + 2, "", p->proc.nspace, p->proc.rank,
                       (long)p->pid, PMIx_Proc_state_string(p->state),
                       p->executable_name ? p->executable_name : "");
            } else {
                printf("%*s(%s)\n", indent + 2, "", PMIx_Data_type_string(d->type));
            }
        }
        return;
    }
    switch (v->type) {
    case PMIX_UNDEF: printf("(none)\n"); return;
    case PMIX_STRING: printf("%s\n", v->data.string != NULL ? v->data.string : ""); return;
    case PMIX_BOOL: printf("%s\n", v->data.flag ? "true" : "false"); return;
    case PMIX_UINT32: printf("%u\n", v->data.uint32); return;
    case PMIX_SIZE: printf("%zu\n", v->data.size); return;
    case PMIX_INT: printf("%d\n", v->data.integer); return;
    case PMIX_STATUS: printf("%s\n", PMIx_Error_string(v->data.status)); return;
    default: break;
    }
    char *s = PMIx_Value_string(v);
    printf("%s\n", s != NULL ? s : "?");
    free(s);
}

/* ---- queries ---- */

static pmix_status_t query(char **keys, pmix_info_t *qual, size_t nqual, pmix_info_t **out,
                           size_t *nout)
{
    pmix_query_t q = {.keys = keys, .qualifiers = qual, .nqual = nqual};
    return PMIx_Query_info(&q, 1, out, nout);
}

/* The array of a query's first result, or NULL when it is not one. */
static const pmix_data_array_t *first_array(const pmix_info_t *res, size_t n)
{
    if (n == 0 || res[0].value.type != PMIX_DATA_ARRAY)
        return NULL;
    return res[0].value.data.darray;
}

/* A string value, or NULL when it is not one. */
static const char *str_of(const pmix_info_t *i)
{
    return i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

/* The namespaces the server's host reports (comma list), or NULL. */
static char *namespaces(void)
{
    char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    pmix_info_t *res = NULL;
    size_t n = 0;
    char *ns = NULL;
    if (query(keys, NULL, 0, &res, &n) == PMIX_SUCCESS && n > 0 &&
        res[0].value.type == PMIX_STRING && res[0].value.data.string != NULL)
        ns = strdup(res[0].value.data.string);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    return ns;
}

static int cmd_servers(void)
{
    char *keys[] = {PMIX_QUERY_AVAIL_SERVERS, NULL};
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc = query(keys, NULL, 0, &res, &n);
    const pmix_data_array_t *d = first_array(res, n);
    if (rc != PMIX_SUCCESS || d == NULL || (d->size > 0 && d->type != PMIX_INFO)) {
        fprintf(stderr, "switchyard-tool: servers: %s\n",
                rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "an answer of another shape");
        if (res != NULL)
            PMIX_INFO_FREE(res, n);
        return 1;
    }
    if (d->size == 0)
        printf("no PMIx server found\n");
    for (size_t i = 0; i < d->size; i++) {
        const pmix_data_array_t *e = first_array(&((pmix_info_t *)d->array)[i], 1);
        const char *ns = NULL, *uri = NULL, *file = NULL;
        unsigned long pid = 0;
        for (size_t k = 0; e != NULL && e->type == PMIX_INFO && k < e->size; k++) {
            const pmix_info_t *x = &((pmix_info_t *)e->array)[k];
            if (!strcmp(x->key, PMIX_NSPACE))
                ns = str_of(x);
            else if (!strcmp(x->key, PMIX_SERVER_URI))
                uri = str_of(x);
            else if (!strcmp(x->key, PMIX_TOOL_ATTACHMENT_FILE))
                file = str_of(x);
            else if (!strcmp(x->key, PMIX_SERVER_PIDINFO) && x->value.type == PMIX_UINT32)
                pid = x->value.data.uint32;
        }
        printf("%-32s pid %-8lu %s\n  %s\n", ns ? ns : "?", pid, uri ? uri : "-",
               file ? file : "-");
    }
    PMIX_INFO_FREE(res, n);
    return 0;
}

static int cmd_ps(void)
{
    char *all = namespaces();
    if (all == NULL) {
        fprintf(stderr, "switchyard-tool: the server reports no job\n");
        return 1;
    }
    char *save = NULL;
    for (char *ns = strtok_r(all, ",", &save); ns != NULL; ns = strtok_r(NULL, ",", &save)) {
        char *keys[] = {PMIX_QUERY_PROC_TABLE, NULL};
        pmix_info_t qual;
        PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
        pmix_info_t *res = NULL;
        size_t n = 0;
        pmix_status_t rc = query(keys, &qual, 1, &res, &n);
        PMIX_INFO_DESTRUCT(&qual);
        printf("job %s\n", ns);
        const pmix_data_array_t *d = first_array(res, n);
        if (rc != PMIX_SUCCESS || d == NULL || (d->size > 0 && d->type != PMIX_PROC_INFO)) {
            printf("  (no process table: %s)\n", PMIx_Error_string(rc));
        } else {
            printf("  %-6s %-8s %-20s %-5s %-12s %s\n", "RANK", "PID", "STATE", "EXIT", "HOST",
                   "COMMAND");
            for (size_t i = 0; i < d->size; i++) {
                pmix_proc_info_t *p = &((pmix_proc_info_t *)d->array)[i];
                printf("  %-6u %-8ld %-20s %-5d %-12s %s\n", p->proc.rank, (long)p->pid,
                       PMIx_Proc_state_string(p->state), p->exit_code,
                       p->hostname ? p->hostname : "-",
                       p->executable_name ? p->executable_name : "-");
            }
        }
        if (res != NULL)
            PMIX_INFO_FREE(res, n);
    }
    free(all);
    return 0;
}

/* ---- attach ---- */

static volatile sig_atomic_t stop_now;
static pthread_mutex_t att_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t att_cond = PTHREAD_COND_INITIALIZER;
static size_t ended, expected;
static bool gone;

static void on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

static void output(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                   pmix_info_t info[], size_t ninfo)
{
    (void)id;
    (void)src;
    if (bo != NULL && bo->size > 0) {
        FILE *f = ch & PMIX_FWD_STDERR_CHANNEL ? stderr : stdout;
        fwrite(bo->bytes, 1, bo->size, f);
        fflush(f);
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (!strcmp(info[i].key, PMIX_IOF_COMPLETE)) {
            pthread_mutex_lock(&att_lock);
            ended++;
            pthread_cond_signal(&att_cond);
            pthread_mutex_unlock(&att_lock);
        }
    }
}

static void lost(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                 size_t ninfo, pmix_info_t results[], size_t nresults,
                 pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&att_lock);
    gone = true;
    pthread_cond_signal(&att_cond);
    pthread_mutex_unlock(&att_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

typedef struct {
    pmix_status_t status;
    size_t id;
    bool done;
} reg_wait_t;

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    reg_wait_t *w = cbdata;
    pthread_mutex_lock(&att_lock);
    w->status = status;
    w->id = ref;
    w->done = true;
    pthread_cond_signal(&att_cond);
    pthread_mutex_unlock(&att_lock);
}

/* Processes of ns, from the host's process table (0 if unknown). */
static size_t job_size(const char *ns)
{
    char *keys[] = {PMIX_QUERY_PROC_TABLE, NULL};
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
    pmix_info_t *res = NULL;
    size_t n = 0, size = 0;
    if (query(keys, &qual, 1, &res, &n) == PMIX_SUCCESS && first_array(res, n) != NULL)
        size = first_array(res, n)->size;
    PMIX_INFO_DESTRUCT(&qual);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    return size;
}

static int cmd_attach(int argc, char **argv)
{
    const char *job = NULL;
    bool in = false, tag = false, ts = false, copy = false;
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--job") && i + 1 < argc) {
            job = argv[++i];
        } else if (!strcmp(argv[i], "--stdin")) {
            in = true;
        } else if (!strcmp(argv[i], "--tag")) {
            tag = true;
        } else if (!strcmp(argv[i], "--timestamp")) {
            ts = true;
        } else if (!strcmp(argv[i], "--copy")) {
            copy = true;
        } else if (!strcmp(argv[i], "--rank") && i + 1 < argc) {
            pmix_proc_t *g = realloc(procs, (nprocs + 1) * sizeof(*g));
            if (g == NULL)
                return 1;
            procs = g;
            procs[nprocs++].rank = (pmix_rank_t)strtoul(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "switchyard-tool: attach: unknown option %s\n", argv[i]);
            free(procs);
            return 2;
        }
    }
    char *all = job == NULL ? namespaces() : NULL;
    char ns[PMIX_MAX_NSLEN + 1];
    if (job == NULL && all == NULL) {
        fprintf(stderr, "switchyard-tool: the server reports no job\n");
        free(procs);
        return 1;
    }
    snprintf(ns, sizeof(ns), "%s", job != NULL ? job : all);
    char *comma = strchr(ns, ',');
    if (comma != NULL)
        *comma = '\0'; /* the first job */
    free(all);
    if (nprocs == 0) {
        procs = calloc(1, sizeof(*procs));
        if (procs == NULL)
            return 1;
        procs[0].rank = PMIX_RANK_WILDCARD;
        nprocs = 1;
    }
    for (size_t i = 0; i < nprocs; i++)
        PMIX_LOAD_NSPACE(procs[i].nspace, ns);
    size_t size = job_size(ns);
    expected = 2 * (procs[0].rank == PMIX_RANK_WILDCARD ? size : nprocs);

    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    PMIx_Register_event_handler(&code, 1, NULL, 0, lost, NULL, NULL);
    pmix_info_t dirs[3];
    size_t nd = 0;
    if (tag)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_TAG_OUTPUT, NULL, PMIX_BOOL);
    if (ts)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_TIMESTAMP_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[nd++], copy ? PMIX_IOF_COPY : PMIX_IOF_REDIRECT, NULL, PMIX_BOOL);
    reg_wait_t w = {0};
    pmix_status_t rc =
        PMIx_IOF_pull(procs, nprocs, dirs, nd, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                      output, registered, &w);
    for (size_t i = 0; i < nd; i++)
        PMIX_INFO_DESTRUCT(&dirs[i]);
    pthread_mutex_lock(&att_lock);
    while (rc == PMIX_SUCCESS && !w.done)
        pthread_cond_wait(&att_cond, &att_lock);
    pthread_mutex_unlock(&att_lock);
    if (rc == PMIX_SUCCESS)
        rc = w.status;
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-tool: cannot pull the output of %s: %s\n", ns,
                PMIx_Error_string(rc));
        free(procs);
        return 1;
    }
    if (in) {
        pmix_proc_t rank0;
        PMIX_LOAD_PROCID(&rank0, ns, 0);
        pmix_info_t push;
        PMIX_INFO_LOAD(&push, PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
        rc = PMIx_IOF_push(&rank0, 1, NULL, &push, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&push);
        if (rc != PMIX_SUCCESS)
            fprintf(stderr, "switchyard-tool: cannot forward stdin to %s:0: %s\n", ns,
                    PMIx_Error_string(rc));
    }
    /* until every stream ended, the server went, or we are told to stop */
    for (;;) {
        pthread_mutex_lock(&att_lock);
        bool over = gone || (expected > 0 && ended >= expected);
        if (!over && !stop_now) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 100 * 1000 * 1000;
            if (t.tv_nsec >= 1000000000) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&att_cond, &att_lock, &t);
        }
        pthread_mutex_unlock(&att_lock);
        if (over || stop_now)
            break;
    }
    if (!gone)
        PMIx_IOF_deregister(w.id, NULL, 0, NULL, NULL);
    free(procs);
    return 0;
}

/* ---- job control ---- */

static int cmd_signal(const char *what, int argc, char **argv)
{
    char *all = namespaces();
    if (all == NULL) {
        fprintf(stderr, "switchyard-tool: the server reports no job\n");
        return 1;
    }
    char *comma = strchr(all, ',');
    if (comma != NULL)
        *comma = '\0';
    pmix_info_t dir;
    int sig = 0;
    if (!strcmp(what, "kill")) {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, NULL, PMIX_BOOL);
    } else if (!strcmp(what, "term")) {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_TERMINATE, NULL, PMIX_BOOL);
    } else {
        if (argc < 1) {
            fprintf(stderr, "switchyard-tool: signal: which signal?\n");
            free(all);
            return 2;
        }
        sig = atoi(argv[0]);
        if (sig <= 0) {
            fprintf(stderr, "switchyard-tool: signal %s: give a number\n", argv[0]);
            free(all);
            return 2;
        }
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        argc--;
        argv++;
    }
    size_t n = argc > 0 ? (size_t)argc : 1;
    pmix_proc_t *targets = calloc(n, sizeof(*targets));
    if (targets == NULL) {
        free(all);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        PMIX_LOAD_PROCID(&targets[i], all,
                         argc > 0 ? (pmix_rank_t)strtoul(argv[i], NULL, 10) : PMIX_RANK_WILDCARD);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Job_control(targets, n, &dir, 1, &res, &nres);
    PMIX_INFO_DESTRUCT(&dir);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    free(targets);
    free(all);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-tool: %s: %s\n", what, PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}

/* ---- attribute support and plain queries ---- */

static int cmd_attrs(int argc, char **argv)
{
    char **keys = calloc((size_t)argc + 2, sizeof(char *));
    pmix_info_t qual[4];
    size_t nq = 0, nk = 0;
    if (keys == NULL)
        return 1;
    keys[nk++] = PMIX_QUERY_ATTRIBUTE_SUPPORT;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc && nq < 4) {
            const char *l = argv[++i];
            const char *k = !strcmp(l, "client")   ? PMIX_CLIENT_ATTRIBUTES
                            : !strcmp(l, "server") ? PMIX_SERVER_ATTRIBUTES
                            : !strcmp(l, "tool")   ? PMIX_TOOL_ATTRIBUTES
                            : !strcmp(l, "host")   ? PMIX_HOST_ATTRIBUTES
                                                   : NULL;
            if (k == NULL) {
                fprintf(stderr, "switchyard-tool: attrs: level %s: client, server, tool or host\n",
                        l);
                free(keys);
                return 2;
            }
            PMIX_INFO_LOAD(&qual[nq++], k, NULL, PMIX_BOOL);
        } else {
            keys[nk++] = argv[i];
        }
    }
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc = query(keys, nq > 0 ? qual : NULL, nq, &res, &n);
    for (size_t i = 0; i < nq; i++)
        PMIX_INFO_DESTRUCT(&qual[i]);
    free(keys);
    for (size_t i = 0; i < n; i++)
        print_info(&res[i], 0);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_PARTIAL_SUCCESS) {
        fprintf(stderr, "switchyard-tool: attrs: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}

static int cmd_query(int argc, char **argv)
{
    char **keys = calloc((size_t)argc + 1, sizeof(char *));
    if (keys == NULL || argc == 0) {
        free(keys);
        fprintf(stderr, "switchyard-tool: query: which keys?\n");
        return 2;
    }
    for (int i = 0; i < argc; i++)
        keys[i] = argv[i];
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc = query(keys, NULL, 0, &res, &n);
    free(keys);
    for (size_t i = 0; i < n; i++)
        print_info(&res[i], 0);
    if (res != NULL)
        PMIX_INFO_FREE(res, n);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-tool: query: %s\n", PMIx_Error_string(rc));
        return rc == PMIX_ERR_PARTIAL_SUCCESS ? 0 : 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    pmix_info_t info[16];
    size_t n = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--pid") && more) {
            pid_t pid = (pid_t)atol(argv[++i]);
            PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        } else if (!strcmp(a, "--nspace") && more) {
            PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_NSPACE, argv[++i], PMIX_STRING);
        } else if (!strcmp(a, "--uri") && more) {
            PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_URI, argv[++i], PMIX_STRING);
        } else if (!strcmp(a, "--file") && more) {
            PMIX_INFO_LOAD(&info[n++], PMIX_TOOL_ATTACHMENT_FILE, argv[++i], PMIX_STRING);
        } else if (!strcmp(a, "--system")) {
            PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
        } else if (!strcmp(a, "--tmpdir") && more) {
            PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_TMPDIR, argv[++i], PMIX_STRING);
        } else if (!strcmp(a, "--wait") && more) {
            uint32_t tries = (uint32_t)atoi(argv[++i]), one = 1;
            PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_MAX_RETRIES, &tries, PMIX_UINT32);
            PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_RETRY_DELAY, &one, PMIX_UINT32);
        } else {
            fprintf(stderr, "switchyard-tool: unknown option %s (see --help)\n", a);
            return 2;
        }
        if (n > 12) {
            fprintf(stderr, "switchyard-tool: too many options\n");
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[i++];
    bool servers = !strcmp(cmd, "servers");
    if (servers)
        PMIX_INFO_LOAD(&info[n++], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, n);
    for (size_t k = 0; k < n; k++)
        PMIX_INFO_DESTRUCT(&info[k]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "switchyard-tool: no PMIx server to talk to: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int code;
    if (servers)
        code = cmd_servers();
    else if (!strcmp(cmd, "ps"))
        code = cmd_ps();
    else if (!strcmp(cmd, "attach"))
        code = cmd_attach(argc - i, argv + i);
    else if (!strcmp(cmd, "signal") || !strcmp(cmd, "kill") || !strcmp(cmd, "term"))
        code = cmd_signal(cmd, argc - i, argv + i);
    else if (!strcmp(cmd, "attrs"))
        code = cmd_attrs(argc - i, argv + i);
    else if (!strcmp(cmd, "query"))
        code = cmd_query(argc - i, argv + i);
    else {
        fprintf(stderr, "switchyard-tool: unknown command %s (see --help)\n", cmd);
        code = 2;
    }
    PMIx_tool_finalize();
    return code;
}
