/* PMI-2 commands: `cmd=<name>;key=value;...;` after a 6-byte length
 * (server_pmi_wire.c frames them).  Values escape ';' as ";;".  MPICH
 * 4.0.2's client declares 6 bytes too many and sends 6 bytes of garbage
 * after the last ';': parsing stops at a NUL and ignores a trailing
 * fragment that no ';' ends.  A threaded client's thrid= is echoed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "server/server_pmi.h"

#define MAX_PAIRS 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
/* node attributes one connection may wait for at once (a threaded
 * client's threads each wait for one or two) */
#define MAX_NODE_WAITS 64

typedef struct {
    char *key[MAX_PAIRS], *val[MAX_PAIRS];
    int n;
} pairs_t;

/* In place: keys end at '=', values at a ';' that is not ";;" (which
 * becomes one ';'). */
static bool parse(char *s, size_t len, pairs_t *p)
{
    p->n = 0;
    char *end = memchr(s, '\0', len);
    if (end == NULL)
        end = s + len;
    char *r = s;
    while (r < end) {
        char *eq = memchr(r, '=', (size_t)(end - r));
        if (eq == NULL)
            break; /* a trailing fragment */
        char *key = r, *val = eq + 1, *w = val;
        *eq = '\0';
        r = val;
        bool done = false;
        while (r < end) {
            if (*r == ';') {
                if (r + 1 < end && r[1] == ';') {
                    *w++ = ';';
                    r += 2;
                    continue;
                }
                done = true;
                r++;
                break;
            }
            *w++ = *r++;
        }
        if (!done)
            break; /* no ';' ends it: the garbage of MPICH's length bug */
        *w = '\0';
        if (p->n == MAX_PAIRS)
            return false;
        p->key[p->n] = key;
        p->val[p->n] = val;
        p->n++;
    }
    return p->n > 0 && strcmp(p->key[0], "cmd") == 0;
}

static const char *get(const pairs_t *p, const char *key)
{
    for (int i = 1; i < p->n; i++)
        if (strcmp(p->key[i], key) == 0)
            return p->val[i];
    return NULL;
}

/* ---- replies ---- */

typedef struct {
    char buf[4 * VALLEN_MAX];
    size_t len;
    bool overflow;
} out_t;

static void add(out_t *o, const char *key, const char *val)
{
    for (const char *s = key; *s != '\0' && !o->overflow; s++)
        o->buf[o->len++] = *s, o->overflow = o->len + 4 >= sizeof(o->buf);
    if (o->overflow)
        return;
    o->buf[o->len++] = '=';
    for (const char *s = val; *s != '\0' && !o->overflow; s++) {
        if (*s == ';')
            o->buf[o->len++] = ';';
        o->buf[o->len++] = *s;
        o->overflow = o->len + 4 >= sizeof(o->buf);
    }
    if (!o->overflow)
        o->buf[o->len++] = ';';
    o->buf[o->len] = '\0';
}

static void start(out_t *o, const char *cmd, const char *thrid)
{
    o->len = 0;
    o->overflow = false;
    add(o, "cmd", cmd);
    if (thrid != NULL)
        add(o, "thrid", thrid);
}

static void finish(sy_pmi_conn_t *c, out_t *o, int rc)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", rc);
    add(o, "rc", n);
    if (o->overflow)
        sy_pmi_drop(c, "a PMI-2 reply too long");
    else
        sy_pmi_send2(c, o->buf);
}

static void simple(sy_pmi_conn_t *c, const char *cmd, const char *thrid, int rc)
{
    out_t o;
    start(&o, cmd, thrid);
    finish(c, &o, rc);
}

static char *dup_opt(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* ---- name service: the reply comes later, with the thrid of its own
 * request (a threaded client may have several out at once) ---- */

static void ns_reply(sy_pmi_conn_t *c, const char *cmd, const char *thrid, pmix_status_t rc,
                     const char *port, const char *failmsg)
{
    out_t o;
    start(&o, cmd, thrid);
    if (port != NULL) {
        add(&o, "port", port);
        add(&o, "found", "TRUE");
    } else if (strcmp(cmd, "name-lookup-response") == 0) {
        add(&o, "found", "FALSE");
    }
    if (rc != PMIX_SUCCESS)
        add(&o, "errmsg", failmsg);
    finish(c, &o, rc == PMIX_SUCCESS ? 0 : 1);
}

static void publish_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    (void)port;
    ns_reply(c, "name-publish-response", thrid, rc, NULL, "duplicate_service");
}

static void unpublish_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    (void)port;
    ns_reply(c, "name-unpublish-response", thrid, rc, NULL, "service_not_found");
}

static void lookup_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    ns_reply(c, "name-lookup-response", thrid, rc, rc == PMIX_SUCCESS ? port : NULL,
             "service_not_found");
}

/* ---- fences and node attributes: answered when complete ---- */

static void fence_done(sy_pmi_conn_t *c, pmix_status_t status)
{
    char *thrid = c->fence_thrid;
    c->fence_thrid = NULL;
    out_t o;
    start(&o, "kvs-fence-response", thrid);
    if (status != PMIX_SUCCESS)
        add(&o, "errmsg", PMIx_Error_string(status));
    finish(c, &o, status == PMIX_SUCCESS ? 0 : -1);
    free(thrid);
}

static void nodeattr_reply(sy_pmi_conn_t *c, const char *thrid, const char *val)
{
    out_t o;
    start(&o, "info-getnodeattr-response", thrid);
    add(&o, "found", val != NULL ? "TRUE" : "FALSE");
    if (val != NULL)
        add(&o, "value", val);
    finish(c, &o, 0);
}

/* A node attribute was put: answer every wait for it, each with its own
 * thrid. */
static void wake_waiters(sy_pmi_job_t *j, const char *key, const char *val)
{
    for (sy_pmi_conn_t *c = sy_pmi_conns(), *next; c != NULL; c = next) {
        next = c->next;
        if (c->job != j)
            continue;
        unsigned long serial = c->serial;
        for (sy_pmi_nodewait_t **pp = &c->waits; *pp != NULL;) {
            sy_pmi_nodewait_t *nw = *pp;
            if (strcmp(nw->key, key) != 0) {
                pp = &nw->next;
                continue;
            }
            *pp = nw->next;
            c->nwaits--;
            nodeattr_reply(c, nw->thrid, val); /* may drop c, never another */
            free(nw->key);
            free(nw->thrid);
            free(nw);
            if (sy_pmi_conn_by_serial(serial) != c)
                break;
        }
    }
}

/* Hold a wait=TRUE get of key until it is put: false when c was dropped. */
static bool nodeattr_wait(sy_pmi_conn_t *c, const char *key, const char *thrid)
{
    if (c->nwaits >= MAX_NODE_WAITS) {
        sy_pmi_drop(c, "too many node attributes waited for at once");
        return false;
    }
    sy_pmi_nodewait_t *nw = calloc(1, sizeof(*nw));
    if (nw == NULL || (nw->key = strdup(key)) == NULL ||
        (thrid != NULL && (nw->thrid = strdup(thrid)) == NULL)) {
        if (nw != NULL)
            free(nw->key);
        free(nw);
        sy_pmi_drop(c, "out of memory");
        return false;
    }
    /* appended: waits for one key are answered in the order they came */
    sy_pmi_nodewait_t **pp = &c->waits;
    while (*pp != NULL)
        pp = &(*pp)->next;
    *pp = nw;
    c->nwaits++;
    return true;
}

static void kvs_get_reply(sy_pmi_conn_t *c, const char *val, const char *thrid)
{
    out_t o;
    start(&o, "kvs-get-response", thrid);
    add(&o, "found", val != NULL ? "TRUE" : "FALSE");
    if (val != NULL)
        add(&o, "value", val);
    finish(c, &o, 0);
}

static void job_attr(sy_pmi_conn_t *c, const char *thrid, const char *key)
{
    char buf[VALLEN_MAX];
    const char *val = NULL;
    if (strcmp(key, "PMI_process_mapping") == 0) {
        if (sy_pmi_mapping(c->job, buf, sizeof(buf)))
            val = buf;
    } else if (strcmp(key, "universeSize") == 0) {
        long u = sy_pmi_universe(c->job);
        if (u > 0) {
            snprintf(buf, sizeof(buf), "%ld", u);
            val = buf;
        }
    } else if (strcmp(key, "hasNameServ") == 0) {
        val = "TRUE";
    } else if (strcmp(key, "PMI_dead_processes") == 0) {
        val = "";
    }
    out_t o;
    start(&o, "info-getjobattr-response", thrid);
    add(&o, "found", val != NULL ? "TRUE" : "FALSE");
    if (val != NULL)
        add(&o, "value", val);
    finish(c, &o, 0);
}

static void fullinit(sy_pmi_conn_t *c)
{
    char n[16];
    out_t o;
    start(&o, "fullinit-response", NULL);
    add(&o, "pmi-version", "2");
    add(&o, "pmi-subversion", "0");
    snprintf(n, sizeof(n), "%u", c->proc.rank);
    add(&o, "rank", n);
    snprintf(n, sizeof(n), "%u", sy_pmi_job_size(c->job));
    add(&o, "size", n);
    snprintf(n, sizeof(n), "%ld", sy_pmi_appnum(&c->proc));
    add(&o, "appnum", n);
    pmix_proc_t parent;
    if (sy_pmi_parent(c->proc.nspace, &parent))
        add(&o, "spawner-jobid", parent.nspace);
    add(&o, "debugged", "FALSE");
    add(&o, "pmiverbose", "FALSE");
    finish(c, &o, 0);
}

/* ---- spawn: `ncmds;preputcount;ppkeyN;ppvalN;` then per command
 * `subcmd;maxprocs;argc;argvN;infokeycount;infokeyN;infovalN;` (0-based);
 * answered when the host started the job ---- */

/* key `name` (followed by i when i >= 0) among pairs [from, to) */
static const char *get_in(const pairs_t *p, int from, int to, const char *name, int i)
{
    char key[64];
    if (i >= 0)
        snprintf(key, sizeof(key), "%s%d", name, i);
    else
        snprintf(key, sizeof(key), "%s", name);
    for (int k = from; k < to; k++)
        if (strcmp(p->key[k], key) == 0)
            return p->val[k];
    return NULL;
}

static int int_in(const pairs_t *p, int from, int to, const char *key, int dflt)
{
    const char *v = get_in(p, from, to, key, -1);
    return v != NULL ? atoi(v) : dflt;
}

static void spawn_done(sy_pmi_conn_t *c, const sy_pmi_spawn_t *sp, pmix_status_t rc,
                       const char *nspace)
{
    out_t o;
    start(&o, "spawn-response", sp->thrid);
    if (rc == PMIX_SUCCESS) {
        add(&o, "jobid", nspace);
        add(&o, "nerrs", "0");
    } else {
        sy_log(SY_LOG_WARN, "pmi: %s.%u: spawn failed: %s", c->proc.nspace, c->proc.rank,
               PMIx_Error_string(rc));
        add(&o, "errmsg", PMIx_Error_string(rc));
    }
    finish(c, &o, rc == PMIX_SUCCESS ? 0 : -1);
}

/* The command of pairs [from, to) into sp: false when malformed. */
static bool spawn_cmd(sy_pmi_spawn_t *sp, const pairs_t *p, int from, int to)
{
    int argc = int_in(p, from, to, "argc", 0), ninfo = int_in(p, from, to, "infokeycount", 0);
    if (argc < 0 || ninfo < 0 || argc > MAX_PAIRS || ninfo > MAX_PAIRS)
        return false;
    pmix_app_t *app = sy_pmi_spawn_add_app(sp, p->val[from], int_in(p, from, to, "maxprocs", -1));
    bool ok = app != NULL;
    for (int i = 0; ok && i < argc; i++) {
        const char *a = get_in(p, from, to, "argv", i);
        ok = a != NULL && sy_pmi_spawn_add_arg(app, a);
    }
    for (int i = 0; ok && i < ninfo; i++) {
        const char *k = get_in(p, from, to, "infokey", i);
        const char *v = get_in(p, from, to, "infoval", i);
        ok = k != NULL && v != NULL && sy_pmi_spawn_add_info(app, k, v);
    }
    return ok;
}

static void spawn(sy_pmi_conn_t *c, const pairs_t *p, const char *thrid)
{
    int first = 1; /* the header: pairs before the first subcmd */
    while (first < p->n && strcmp(p->key[first], "subcmd") != 0)
        first++;
    int ncmds = int_in(p, 1, first, "ncmds", -1), npre = int_in(p, 1, first, "preputcount", 0);
    sy_pmi_spawn_t *sp = sy_pmi_spawn_new();
    bool ok = sp != NULL && ncmds >= 1 && npre >= 0 && npre <= MAX_PAIRS &&
              (thrid == NULL || (sp->thrid = strdup(thrid)) != NULL);
    for (int i = 0; ok && i < npre; i++) {
        const char *k = get_in(p, 1, first, "ppkey", i), *v = get_in(p, 1, first, "ppval", i);
        ok = k != NULL && v != NULL && sy_pmi_spawn_add_preput(sp, k, v);
    }
    for (int from = first; ok && from < p->n;) {
        int to = from + 1;
        while (to < p->n && strcmp(p->key[to], "subcmd") != 0)
            to++;
        ok = spawn_cmd(sp, p, from, to);
        from = to;
    }
    if (!ok || sp == NULL || sp->napps != (size_t)ncmds) {
        sy_pmi_spawn_free(sp);
        out_t o;
        start(&o, "spawn-response", thrid);
        add(&o, "errmsg", "malformed_spawn");
        finish(c, &o, -1);
        return;
    }
    sy_pmi_spawn(c, sp, spawn_done);
}

static bool ok_len(const char *s, size_t max)
{
    return s != NULL && strlen(s) <= max;
}

void sy_pmi2_command(sy_pmi_conn_t *c, char *msg, size_t len)
{
    pairs_t p;
    if (!parse(msg, len, &p)) {
        sy_pmi_drop(c, "a malformed PMI-2 command");
        return;
    }
    if (c->version != 2) {
        sy_pmi_drop(c, "a PMI-2 command without a PMI-2 init");
        return;
    }
    if (c->finalized) {
        sy_pmi_drop(c, "a command after finalize");
        return;
    }
    const char *cmd = p.val[0], *thrid = get(&p, "thrid");
    if (c->job == NULL) {
        /* PMI_PORT mode: fullinit's pmirank is the PMI_ID secret */
        if (strcmp(cmd, "fullinit") != 0 || !sy_pmi_port_identify(c, get(&p, "pmirank"))) {
            sy_pmi_drop(c, "a PMI-2 client on PMI_PORT without a valid PMI_ID");
            return;
        }
        sy_pmi_conn_started(c);
    }
    if (strcmp(cmd, "fullinit") == 0) {
        fullinit(c);
    } else if (strcmp(cmd, "job-getid") == 0) {
        out_t o;
        start(&o, "job-getid-response", thrid);
        add(&o, "jobid", c->proc.nspace);
        finish(c, &o, 0);
    } else if (strcmp(cmd, "info-getjobattr") == 0) {
        const char *key = get(&p, "key");
        if (key == NULL)
            simple(c, "info-getjobattr-response", thrid, -1);
        else
            job_attr(c, thrid, key);
    } else if (strcmp(cmd, "info-putnodeattr") == 0) {
        const char *key = get(&p, "key"), *val = get(&p, "value");
        if (!ok_len(key, KEYLEN_MAX) || !ok_len(val, VALLEN_MAX) ||
            !sy_pmi_nodeattr_put(c->job, key, val)) {
            simple(c, "info-putnodeattr-response", thrid, -1);
            return;
        }
        sy_pmi_job_t *j = c->job;
        simple(c, "info-putnodeattr-response", thrid, 0); /* may drop c */
        wake_waiters(j, key, val);
    } else if (strcmp(cmd, "info-getnodeattr") == 0) {
        const char *key = get(&p, "key"), *wait = get(&p, "wait");
        if (!ok_len(key, KEYLEN_MAX)) {
            simple(c, "info-getnodeattr-response", thrid, -1);
            return;
        }
        const char *val = sy_pmi_nodeattr_get(c->job, key);
        if (val != NULL || wait == NULL || strcmp(wait, "TRUE") != 0)
            nodeattr_reply(c, thrid, val);
        else
            nodeattr_wait(c, key, thrid);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        const char *key = get(&p, "key"), *val = get(&p, "value");
        bool ok = ok_len(key, KEYLEN_MAX) && key[0] != '\0' && ok_len(val, VALLEN_MAX) &&
                  sy_pmi_kvs_put(c, key, val);
        simple(c, "kvs-put-response", thrid, ok ? 0 : -1);
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        free(c->fence_thrid);
        c->fence_thrid = dup_opt(thrid);
        sy_pmi_barrier_enter(c, fence_done);
    } else if (strcmp(cmd, "kvs-get") == 0) {
        const char *jobid = get(&p, "jobid"), *key = get(&p, "key"), *src = get(&p, "srcid");
        sy_pmi_job_t *j =
            jobid == NULL || strcmp(jobid, c->proc.nspace) == 0 ? c->job : sy_pmi_job_get(jobid);
        long srcid = src != NULL ? atol(src) : -1;
        const char *val =
            j != NULL && key != NULL ? sy_pmi_kvs_get(c, sy_pmi_job_nspace(j), srcid, key) : NULL;
        /* not here: the job's processes on other nodes, the reply later */
        if (val != NULL || j == NULL || key == NULL ||
            !sy_pmi_kvs_get_remote(c, sy_pmi_job_nspace(j), srcid, key, thrid, kvs_get_reply))
            kvs_get_reply(c, val, thrid);
    } else if (strcmp(cmd, "finalize") == 0) {
        sy_pmi_conn_finalized(c);
        simple(c, "finalize-response", thrid, 0);
    } else if (strcmp(cmd, "abort") == 0) {
        const char *m = get(&p, "msg");
        /* the client exits 255 after sending it */
        sy_pmi_abort(c, 255, m != NULL ? m : "PMI-2 abort");
    } else if (strcmp(cmd, "name-publish") == 0 || strcmp(cmd, "name-unpublish") == 0 ||
               strcmp(cmd, "name-lookup") == 0) {
        const char *name = get(&p, "name"), *port = get(&p, "port");
        char resp[64];
        snprintf(resp, sizeof(resp), "%s-response", cmd);
        if (name == NULL || (cmd[5] == 'p' && port == NULL)) {
            simple(c, resp, thrid, -1);
            return;
        }
        if (cmd[5] == 'p')
            sy_pmi_publish(c, name, port, thrid, publish_done);
        else if (cmd[5] == 'u')
            sy_pmi_unpublish(c, name, thrid, unpublish_done);
        else
            sy_pmi_lookup(c, name, thrid, lookup_done);
    } else if (strcmp(cmd, "job-connect") == 0 || strcmp(cmd, "job-disconnect") == 0) {
        out_t o;
        start(&o,
              strcmp(cmd, "job-connect") == 0 ? "job-connect-response" : "job-disconnect-response",
              thrid);
        add(&o, "kvscopy", "FALSE");
        finish(c, &o, 0);
    } else if (strcmp(cmd, "spawn") == 0) {
        spawn(c, &p, thrid);
    } else {
        char why[96];
        snprintf(why, sizeof(why), "unknown PMI-2 command '%.40s'", cmd);
        sy_pmi_drop(c, why);
    }
}
