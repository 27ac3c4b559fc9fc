/* PMI-1 commands (`cmd=<name> key=value ...` lines; docs/pmi.md has the
 * table).  The same first `init` line starts PMI-2 clients, whose later
 * commands go to server_pmi2.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "server/server_pmi.h"

#define MAX_PAIRS 64
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
#define LINE_MAX_LEN 1024 /* the client's read buffer: a reply must be shorter */
/* The longest value a get reply can carry within LINE_MAX_LEN (MPICH
 * itself never puts more than 674 characters). */
#define GET_PREFIX "cmd=get_result rc=0 msg=success value="
#define VALUE_MAX ((size_t)LINE_MAX_LEN - 1 - sizeof(GET_PREFIX))

typedef struct {
    char *key[MAX_PAIRS], *val[MAX_PAIRS];
    int n;
} pairs_t;

/* Split "k=v k=v" in place on blanks; false on a token without '='. */
static bool split(char *s, pairs_t *p)
{
    p->n = 0;
    for (char *tok = strtok(s, " "); tok != NULL; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || p->n == MAX_PAIRS)
            return false;
        *eq = '\0';
        p->key[p->n] = tok;
        p->val[p->n] = eq + 1;
        p->n++;
    }
    return p->n > 0;
}

static const char *get(const pairs_t *p, const char *key)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->key[i], key) == 0)
            return p->val[i];
    return NULL;
}

static void reply(sy_pmi_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(sy_pmi_conn_t *c, const char *fmt, ...)
{
    char line[LINE_MAX_LEN + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || n >= LINE_MAX_LEN) {
        sy_pmi_drop(c, "a PMI-1 reply would exceed 1023 bytes");
        return;
    }
    sy_pmi_send1(c, line);
}

/* MPICH's client reads no rc in barrier_out: a failed barrier (a process
 * of the job ended first) closes the connection, which it sees. */
static void barrier_done(sy_pmi_conn_t *c, pmix_status_t status)
{
    if (status == PMIX_SUCCESS) {
        sy_pmi_send1(c, "cmd=barrier_out");
        return;
    }
    char why[128];
    snprintf(why, sizeof(why), "the barrier failed (%s)", PMIx_Error_string(status));
    sy_pmi_drop(c, why);
}

static void publish_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    (void)thrid;
    (void)port;
    if (rc == PMIX_SUCCESS)
        reply(c, "cmd=publish_result info=ok rc=0 msg=success");
    else
        reply(c, "cmd=publish_result info=ok rc=1 msg=%s",
              rc == PMIX_ERR_DUPLICATE_KEY ? "key_already_present" : "publish_failed");
}

static void unpublish_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    (void)thrid;
    (void)port;
    if (rc == PMIX_SUCCESS)
        reply(c, "cmd=unpublish_result info=ok rc=0 msg=success");
    else
        reply(c, "cmd=unpublish_result info=ok rc=1 msg=service_not_found");
}

static void lookup_done(sy_pmi_conn_t *c, pmix_status_t rc, const char *port, const char *thrid)
{
    (void)thrid;
    if (rc == PMIX_SUCCESS && port != NULL && strchr(port, ' ') == NULL)
        reply(c, "cmd=lookup_result port=%s info=ok rc=0 msg=success", port);
    else
        reply(c, "cmd=lookup_result rc=1 msg=service_not_found");
}

/* A key or value PMI-1 can carry: no blank, bounded. */
static bool plain(const char *s, size_t max)
{
    return s != NULL && strlen(s) < max && strchr(s, ' ') == NULL;
}

/* (thrid: the key, for the not-found message) */
static void get_reply(sy_pmi_conn_t *c, const char *v, const char *key)
{
    if (v != NULL && strlen(v) > VALUE_MAX)
        reply(c, "cmd=get_result rc=-1 msg=value_not_representable_in_pmi1 value=unknown");
    else if (v != NULL)
        reply(c, GET_PREFIX "%s", v);
    else
        reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found value=unknown", key);
}

static void do_get(sy_pmi_conn_t *c, const pairs_t *p)
{
    const char *kvs = get(p, "kvsname"), *key = get(p, "key");
    if (kvs == NULL || key == NULL || !plain(key, KEYLEN_MAX)) {
        reply(c, "cmd=get_result rc=-1 msg=invalid_key value=unknown");
        return;
    }
    sy_pmi_job_t *j = strcmp(kvs, c->proc.nspace) == 0 ? c->job : sy_pmi_job_get(kvs);
    if (j == NULL) {
        reply(c, "cmd=get_result rc=-1 msg=kvs_%s_not_found value=unknown", kvs);
        return;
    }
    if (strcmp(key, "PMI_process_mapping") == 0) {
        char map[VALLEN_MAX];
        if (sy_pmi_mapping(j, map, sizeof(map)))
            reply(c, "cmd=get_result rc=0 msg=success value=%s", map);
        else /* MPICH then falls back to host names */
            reply(c, "cmd=get_result rc=-1 msg=mapping_too_long value=unknown");
        return;
    }
    if (strcmp(key, "PMI_dead_processes") == 0) {
        reply(c, "cmd=get_result rc=0 msg=success value=");
        return;
    }
    const char *v = sy_pmi_kvs_get(c, sy_pmi_job_nspace(j), -1, key);
    /* not here: the job's processes on other nodes, the reply later */
    if (v != NULL || !sy_pmi_kvs_get_remote(c, sy_pmi_job_nspace(j), -1, key, key, get_reply))
        get_reply(c, v, key);
}

/* "cmd=put kvsname=K key=k value=<rest of the line>": the value is taken
 * whole (MPICH puts it last), so only the newline cannot be in it. */
static void do_put(sy_pmi_conn_t *c, char *msg)
{
    char *vp = strstr(msg, " value=");
    if (vp == NULL) {
        reply(c, "cmd=put_result rc=-1 msg=no_value");
        return;
    }
    *vp = '\0';
    const char *val = vp + 7;
    pairs_t p;
    if (!split(msg, &p)) {
        sy_pmi_drop(c, "a malformed put");
        return;
    }
    const char *kvs = get(&p, "kvsname"), *key = get(&p, "key");
    if (kvs == NULL || strcmp(kvs, c->proc.nspace) != 0)
        reply(c, "cmd=put_result rc=-1 msg=not_your_kvs");
    else if (key == NULL || key[0] == '\0' || !plain(key, KEYLEN_MAX))
        reply(c, "cmd=put_result rc=-1 msg=invalid_key");
    else if (strlen(val) > VALUE_MAX)
        reply(c, "cmd=put_result rc=-1 msg=value_too_long");
    else if (!sy_pmi_kvs_put(c, key, val))
        reply(c, "cmd=put_result rc=-1 msg=out_of_memory");
    else
        reply(c, "cmd=put_result rc=0 msg=success");
}

/* ---- spawn: one mcmd=spawn block per command, `key=value` lines (the
 * value runs to the end of the line); answered once all arrived ---- */

#define SPAWN_MAX_LINES 4096

typedef struct {
    char *key[SPAWN_MAX_LINES], *val[SPAWN_MAX_LINES];
    int n;
} lines_t;

/* key `name`, followed by i when i >= 0 */
static const char *line_get(const lines_t *l, const char *name, int i)
{
    char key[64];
    if (i >= 0)
        snprintf(key, sizeof(key), "%s%d", name, i);
    else
        snprintf(key, sizeof(key), "%s", name);
    for (int k = 0; k < l->n; k++)
        if (strcmp(l->key[k], key) == 0)
            return l->val[k];
    return NULL;
}

static int line_int(const lines_t *l, const char *key, int dflt)
{
    const char *v = line_get(l, key, -1);
    return v != NULL ? atoi(v) : dflt;
}

static void spawn_done(sy_pmi_conn_t *c, const sy_pmi_spawn_t *sp, pmix_status_t rc,
                       const char *nspace)
{
    (void)sp;
    (void)nspace;
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "pmi: %s.%u: spawn failed: %s", c->proc.nspace, c->proc.rank,
               PMIx_Error_string(rc));
    reply(c, "cmd=spawn_result rc=%d", rc == PMIX_SUCCESS ? 0 : -1);
}

/* One block into c->spawn: false when malformed (the caller drops c). */
static bool spawn_block(sy_pmi_conn_t *c, char *msg, int *sofar, int *total)
{
    static lines_t l; /* the loop's only: one block at a time */
    l.n = 0;
    for (char *line = strtok(msg, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (eq == NULL) {
            if (strcmp(line, "endcmd") == 0)
                continue;
            return false;
        }
        if (l.n == SPAWN_MAX_LINES)
            return false;
        *eq = '\0';
        l.key[l.n] = line;
        l.val[l.n++] = eq + 1;
    }
    const char *exe = line_get(&l, "execname", -1);
    *total = line_int(&l, "totspawns", -1);
    *sofar = line_int(&l, "spawnssofar", -1);
    int nprocs = line_int(&l, "nprocs", -1), argc = line_int(&l, "argcnt", 0);
    int npre = line_int(&l, "preput_num", 0), ninfo = line_int(&l, "info_num", 0);
    if (exe == NULL || *total < 1 || *sofar < 1 || *sofar > *total || argc < 0 || npre < 0 ||
        ninfo < 0 || argc > SPAWN_MAX_LINES || npre > SPAWN_MAX_LINES || ninfo > SPAWN_MAX_LINES)
        return false;
    if (c->spawn == NULL && (c->spawn = sy_pmi_spawn_new()) == NULL)
        return false;
    sy_pmi_spawn_t *sp = c->spawn;
    pmix_app_t *app = sy_pmi_spawn_add_app(sp, exe, nprocs);
    bool ok = app != NULL;
    for (int i = 1; ok && i <= argc; i++) {
        const char *a = line_get(&l, "arg", i);
        ok = a != NULL && sy_pmi_spawn_add_arg(app, a);
    }
    for (int i = 0; ok && i < ninfo; i++) {
        const char *k = line_get(&l, "info_key_", i), *v = line_get(&l, "info_val_", i);
        ok = k != NULL && v != NULL && sy_pmi_spawn_add_info(app, k, v);
    }
    /* the preput pairs are repeated in every block: the first's count */
    for (int i = 0; ok && *sofar == 1 && i < npre; i++) {
        const char *k = line_get(&l, "preput_key_", i), *v = line_get(&l, "preput_val_", i);
        ok = k != NULL && v != NULL && sy_pmi_spawn_add_preput(sp, k, v);
    }
    return ok;
}

static void do_spawn(sy_pmi_conn_t *c, char *msg)
{
    int sofar = 0, total = 0;
    if (!spawn_block(c, msg, &sofar, &total) ||
        (c->spawn != NULL && c->spawn->napps != (size_t)sofar)) {
        sy_pmi_drop(c, "a malformed spawn");
        return;
    }
    if (sofar < total)
        return;
    sy_pmi_spawn_t *sp = c->spawn;
    c->spawn = NULL;
    sy_pmi_spawn(c, sp, spawn_done);
}

void sy_pmi1_command(sy_pmi_conn_t *c, char *msg, size_t len)
{
    (void)len;
    if (strncmp(msg, "mcmd=spawn", 10) == 0) {
        if (c->version != 1)
            sy_pmi_drop(c, "spawn before init");
        else
            do_spawn(c, msg);
        return;
    }
    if (strncmp(msg, "cmd=put ", 8) == 0 && c->version == 1) {
        do_put(c, msg);
        return;
    }
    pairs_t p;
    if (!split(msg, &p) || strcmp(p.key[0], "cmd") != 0) {
        sy_pmi_drop(c, "a malformed PMI-1 line");
        return;
    }
    const char *cmd = p.val[0];
    if (strcmp(cmd, "initack") == 0) {
        /* PMI_PORT mode: the connection names its process by its secret */
        if (c->job != NULL || c->version != 0 || !sy_pmi_port_identify(c, get(&p, "pmiid"))) {
            sy_pmi_drop(c, "an initack without a valid PMI_ID");
            return;
        }
        reply(c, "cmd=initack\ncmd=set size=%u\ncmd=set rank=%u\ncmd=set debug=0",
              sy_pmi_job_size(c->job), c->proc.rank);
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        if (c->version != 0) {
            sy_pmi_drop(c, "init twice");
            return;
        }
        const char *v = get(&p, "pmi_version"), *sv = get(&p, "pmi_subversion");
        int ver = v != NULL ? atoi(v) : 0;
        if (ver != 1 && ver != 2) {
            reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1");
            return;
        }
        if (c->job == NULL && ver == 1) {
            sy_pmi_drop(c, "a PMI-1 init on PMI_PORT without initack");
            return;
        }
        c->version = ver;
        if (c->job != NULL) /* else at PMI-2's fullinit, which names it */
            sy_pmi_conn_started(c);
        reply(c, "cmd=response_to_init pmi_version=%d pmi_subversion=%d rc=0", ver,
              sv != NULL ? atoi(sv) : 0);
        return;
    }
    if (c->version != 1) {
        sy_pmi_drop(c, c->version == 0 ? "a command before init"
                                       : "a PMI-1 command from a PMI-2 client");
        return;
    }
    if (c->finalized) {
        sy_pmi_drop(c, "a command after finalize");
        return;
    }
    if (strcmp(cmd, "get_maxes") == 0) {
        reply(c, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d", KVSNAME_MAX, KEYLEN_MAX,
              VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(c, "cmd=appnum appnum=%ld", sy_pmi_appnum(&c->proc));
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(c, "cmd=my_kvsname kvsname=%s", c->proc.nspace);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(c, "cmd=universe_size size=%ld", sy_pmi_universe(c->job));
    } else if (strcmp(cmd, "get") == 0) {
        do_get(c, &p);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        sy_pmi_barrier_enter(c, barrier_done);
    } else if (strcmp(cmd, "finalize") == 0) {
        sy_pmi_conn_finalized(c);
        reply(c, "cmd=finalize_ack");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = get(&p, "exitcode");
        sy_pmi_abort(c, code != NULL ? atoi(code) : 1, "PMI-1 abort");
    } else if (strcmp(cmd, "publish_name") == 0) {
        const char *svc = get(&p, "service"), *port = get(&p, "port");
        if (svc == NULL || port == NULL)
            reply(c, "cmd=publish_result info=ok rc=1 msg=invalid_arguments");
        else
            sy_pmi_publish(c, svc, port, NULL, publish_done);
    } else if (strcmp(cmd, "unpublish_name") == 0) {
        const char *svc = get(&p, "service");
        if (svc == NULL)
            reply(c, "cmd=unpublish_result info=ok rc=1 msg=invalid_arguments");
        else
            sy_pmi_unpublish(c, svc, NULL, unpublish_done);
    } else if (strcmp(cmd, "lookup_name") == 0) {
        const char *svc = get(&p, "service");
        if (svc == NULL)
            reply(c, "cmd=lookup_result rc=1 msg=invalid_arguments");
        else
            sy_pmi_lookup(c, svc, NULL, lookup_done);
    } else {
        char why[96];
        snprintf(why, sizeof(why), "unknown PMI-1 command '%.40s'", cmd);
        sy_pmi_drop(c, why);
    }
}
