/* The attribute-support table and the answer to attribute-support queries
 * (attr_support.h, Chap_API_Query.tex "Accessing attribute support
 * information"). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <switchyard.h>

#include "common/info.h"
#include "common/attr_support.h"
#include "common/attr_table.h"

#define SY_SUPPORT(fn, lvl, attr, note) {fn, lvl, #attr, attr, note},
#define SY_SUPPORT_FN(fn, lvl) {fn, lvl, NULL, NULL, NULL},
static const sy_support_t table[] = {
#include "common/attr_support.inc"
};
#undef SY_SUPPORT
#undef SY_SUPPORT_FN
#define NSUPPORT (sizeof(table) / sizeof(table[0]))

const sy_support_t *sy_support_table(size_t *count)
{
    *count = NSUPPORT;
    return table;
}

static const struct {
    const char *upcall, *api;
} upcalls[] = {
    {"client_connected", "PMIx_Init"},
    {"client_connected2", "PMIx_Init"},
    {"client_finalized", "PMIx_Finalize"},
    {"abort", "PMIx_Abort"},
    {"fence_nb", "PMIx_Fence"},
    {"direct_modex", "PMIx_Get"},
    {"publish", "PMIx_Publish"},
    {"lookup", "PMIx_Lookup"},
    {"unpublish", "PMIx_Unpublish"},
    {"spawn", "PMIx_Spawn"},
    {"connect", "PMIx_Connect"},
    {"disconnect", "PMIx_Disconnect"},
    {"register_events", "PMIx_Register_event_handler"},
    {"deregister_events", "PMIx_Deregister_event_handler"},
    {"notify_event", "PMIx_Notify_event"},
    {"query", "PMIx_Query_info"},
    {"tool_connected", "PMIx_tool_init"},
    {"log", "PMIx_Log"},
    {"allocate", "PMIx_Allocation_request"},
    {"job_control", "PMIx_Job_control"},
    {"monitor", "PMIx_Process_monitor"},
    {"get_credential", "PMIx_Get_credential"},
    {"validate_credential", "PMIx_Validate_credential"},
    {"iof_pull", "PMIx_IOF_pull"},
    {"push_stdin", "PMIx_IOF_push"},
    {"group", "PMIx_Group_construct"},
    {"fabric", "PMIx_Fabric_register"},
};

const char *sy_support_upcall_api(const char *upcall)
{
    if (upcall == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(upcalls) / sizeof(upcalls[0]); i++)
        if (strcmp(upcalls[i].upcall, upcall) == 0)
            return upcalls[i].api;
    return strncmp(upcall, "PMIx_", 5) == 0 ? upcall : NULL;
}

pmix_info_t *sy_infos_add(sy_infos_t *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        pmix_info_t *g = realloc(l->info, cap * sizeof(*g));
        if (g == NULL)
            return NULL;
        l->info = g;
        l->cap = cap;
    }
    pmix_info_t *i = &l->info[l->n++];
    memset(i, 0, sizeof(*i));
    return i;
}

void sy_infos_free(sy_infos_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        PMIx_Value_destruct(&l->info[i].value);
    free(l->info);
    memset(l, 0, sizeof(*l));
}

static const char *const level_attrs[SY_NLEVELS] = {PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES,
                                                    PMIX_TOOL_ATTRIBUTES, PMIX_HOST_ATTRIBUTES};
static const char *const level_fns[SY_NLEVELS] = {PMIX_CLIENT_FUNCTIONS, PMIX_SERVER_FUNCTIONS,
                                                  PMIX_TOOL_FUNCTIONS, PMIX_HOST_FUNCTIONS};

bool sy_support_is_query(const pmix_query_t *q)
{
    return q->keys != NULL && q->keys[0] != NULL &&
           strcmp(q->keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0;
}

/* A qualifier's setting: false, true, or a list of functions. */
static bool qual_on(const pmix_info_t *i)
{
    if (i->value.type == PMIX_BOOL)
        return i->value.data.flag;
    if (i->value.type == PMIX_STRING)
        return i->value.data.string != NULL && i->value.data.string[0] != '\0';
    return i->value.type == PMIX_UNDEF;
}

typedef struct {
    bool any_level; /* some level was named */
    bool on[SY_NLEVELS];
    const char *list[SY_NLEVELS]; /* functions for that level, or NULL: the keys */
    bool fns[SY_NLEVELS];
} request_t;

static void parse_request(const pmix_query_t *q, request_t *r)
{
    memset(r, 0, sizeof(*r));
    for (size_t i = 0; q->qualifiers != NULL && i < q->nqual; i++) {
        const pmix_info_t *in = &q->qualifiers[i];
        for (int l = 0; l < SY_NLEVELS; l++) {
            if (sy_info_is(in, level_attrs[l])) {
                r->any_level = true;
                r->on[l] = qual_on(in);
                r->list[l] = in->value.type == PMIX_STRING ? in->value.data.string : NULL;
            } else if (sy_info_is(in, level_fns[l])) {
                r->any_level = true;
                r->fns[l] = qual_on(in);
            }
        }
    }
    if (!r->any_level)
        for (int l = 0; l < SY_NLEVELS; l++)
            r->on[l] = true;
}

bool sy_support_wants_host(const pmix_query_t *q)
{
    request_t r;
    parse_request(q, &r);
    return r.on[SY_LEVEL_HOST] || r.fns[SY_LEVEL_HOST];
}

/* "PMIx_Get_nb" is served by the line of "PMIx_Get". */
static bool same_api(const char *asked, const char *fn)
{
    size_t n = strlen(fn);
    if (strncmp(asked, fn, n) != 0)
        return false;
    return asked[n] == '\0' || strcmp(asked + n, "_nb") == 0;
}

static bool host_has(const sy_host_attrs_t *host, size_t nhost, const char *fn)
{
    for (size_t i = 0; i < nhost; i++)
        if (same_api(fn, host[i].api))
            return true;
    return false;
}

static bool lib_has(const char *fn, int level)
{
    for (size_t i = 0; i < NSUPPORT; i++)
        if ((level < 0 || (int)table[i].level == level) && same_api(fn, table[i].function))
            return true;
    return false;
}

/* The machine-usable range a note ends with, "{min=N max=M}" or
 * "{enum=A|B|C}" (attr_support.txt).  The 4.2 ABI's pmix_regattr_t has no
 * info array (the standard's v5 struct does), so each bound is one more
 * string of the description, led by the key the standard names for it:
 * "pmix.descr.minval=N", "pmix.descr.maxval=M", "pmix.descr.enum=A,B,C"
 * (PMIX_MIN_VALUE, PMIX_MAX_VALUE, PMIX_ENUM_VALUE). */
static char **describe(const char *note)
{
    char **d = calloc(5, sizeof(char *));
    if (d == NULL || (d[0] = strdup(note)) == NULL) {
        free(d);
        return NULL;
    }
    const char *open = strrchr(note, '{');
    size_t len = strlen(note), k = 1;
    if (open == NULL || note[len - 1] != '}')
        return d;
    char *body = strndup(open + 1, (size_t)(note + len - 1 - (open + 1)));
    char *save = NULL;
    for (char *tok = body != NULL ? strtok_r(body, " ", &save) : NULL; tok != NULL && k < 4;
         tok = strtok_r(NULL, " ", &save)) {
        bool names = strncmp(tok, "enum=", 5) == 0;
        const char *key = strncmp(tok, "min=", 4) == 0   ? PMIX_MIN_VALUE
                          : strncmp(tok, "max=", 4) == 0 ? PMIX_MAX_VALUE
                          : names                        ? PMIX_ENUM_VALUE
                                                         : NULL;
        if (key == NULL)
            continue;
        char *v = strchr(tok, '=') + 1;
        long long num = strtoll(v, NULL, 0);
        for (char *c = v; names && *c != '\0'; c++)
            if (*c == '|')
                *c = ',';
        int rc = names ? asprintf(&d[k], "%s=%s", key, v) : asprintf(&d[k], "%s=%lld", key, num);
        if (rc < 0)
            d[k] = NULL;
        else
            k++;
    }
    free(body);
    return d;
}

/* name: a macro name or a key; string: its key when known (our own
 * attributes are in no table of the standard's). */
static pmix_status_t load_regattr(pmix_regattr_t *ra, const char *name, const char *string,
                                  const char *note)
{
    const sy_attr_t *a = sy_attr_by_name(name);
    if (a == NULL)
        a = sy_attr_by_string(name);
    ra->name = strdup(a != NULL ? a->name : name);
    PMIX_LOAD_KEY(ra->string, a != NULL ? a->string : string != NULL ? string : name);
    ra->type = a != NULL ? a->type : PMIX_UNDEF;
    if (note != NULL && (ra->description = describe(note)) == NULL)
        return PMIX_ERR_NOMEM;
    return ra->name != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

/* Level l's attributes of fn, as the value of an info keyed by the level. */
static pmix_status_t level_value(const char *fn, int l, const sy_host_attrs_t *host, size_t nhost,
                                 bool have_host, pmix_info_t *out)
{
    PMIX_LOAD_KEY(out->key, level_attrs[l]);
    out->value.type = PMIX_UNDEF;
    size_t n = 0;
    if (l == SY_LEVEL_HOST) {
        if (!have_host)
            return PMIX_SUCCESS;
        for (size_t i = 0; i < nhost; i++)
            for (size_t k = 0;
                 same_api(fn, host[i].api) && host[i].names != NULL && host[i].names[k] != NULL;
                 k++)
                n++;
    } else {
        for (size_t i = 0; i < NSUPPORT; i++)
            if ((int)table[i].level == l && table[i].name != NULL &&
                same_api(fn, table[i].function))
                n++;
    }
    if (n == 0)
        return PMIX_SUCCESS;
    pmix_regattr_t *ra = calloc(n, sizeof(*ra));
    pmix_data_array_t *da = malloc(sizeof(*da));
    if (ra == NULL || da == NULL) {
        free(ra);
        free(da);
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    if (l == SY_LEVEL_HOST) {
        for (size_t i = 0; i < nhost; i++)
            for (size_t j = 0; same_api(fn, host[i].api) && host[i].names != NULL &&
                               host[i].names[j] != NULL && rc == PMIX_SUCCESS;
                 j++)
                rc = load_regattr(&ra[k++], host[i].names[j], NULL, NULL);
    } else {
        for (size_t i = 0; i < NSUPPORT && rc == PMIX_SUCCESS; i++)
            if ((int)table[i].level == l && table[i].name != NULL &&
                same_api(fn, table[i].function))
                rc = load_regattr(&ra[k++], table[i].name, table[i].string, table[i].note);
    }
    da->type = PMIX_REGATTR;
    da->size = n;
    da->array = ra;
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = da;
    return rc;
}

typedef struct {
    char **names;
    size_t n;
} fnlist_t;

static void fnlist_add(fnlist_t *fl, const char *fn)
{
    for (size_t i = 0; i < fl->n; i++)
        if (strcmp(fl->names[i], fn) == 0)
            return;
    char **g = realloc(fl->names, (fl->n + 1) * sizeof(char *));
    if (g == NULL)
        return;
    fl->names = g;
    if ((fl->names[fl->n] = strdup(fn)) != NULL)
        fl->n++;
}

/* Every function level l knows. */
static void fnlist_all(fnlist_t *fl, int l, const sy_host_attrs_t *host, size_t nhost)
{
    if (l == SY_LEVEL_HOST) {
        for (size_t i = 0; i < nhost; i++)
            fnlist_add(fl, host[i].api);
        return;
    }
    for (size_t i = 0; i < NSUPPORT; i++)
        if ((int)table[i].level == l)
            fnlist_add(fl, table[i].function);
}

/* Add the comma list `s` (or "all") to fl. */
static void fnlist_parse(fnlist_t *fl, const char *s, int l, const sy_host_attrs_t *host,
                         size_t nhost)
{
    char *copy = strdup(s), *save = NULL;
    if (copy == NULL)
        return;
    for (char *t = strtok_r(copy, ", ", &save); t != NULL; t = strtok_r(NULL, ", ", &save)) {
        if (strcmp(t, "all") == 0)
            fnlist_all(fl, l, host, nhost);
        else
            fnlist_add(fl, t);
    }
    free(copy);
}

static void fnlist_free(fnlist_t *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->names[i]);
    free(fl->names);
}

/* The functions a level knows, as a comma list. */
static char *function_list(int l, const sy_host_attrs_t *host, size_t nhost)
{
    fnlist_t fl = {0};
    fnlist_all(&fl, l, host, nhost);
    size_t len = 1;
    for (size_t i = 0; i < fl.n; i++)
        len += strlen(fl.names[i]) + 1;
    char *s = malloc(len);
    if (s != NULL) {
        s[0] = '\0';
        for (size_t i = 0; i < fl.n; i++) {
            if (i > 0)
                strcat(s, ",");
            strcat(s, fl.names[i]);
        }
    }
    fnlist_free(&fl);
    return s;
}

pmix_status_t sy_support_answer(const pmix_query_t *q, const sy_host_attrs_t *host, size_t nhost,
                                bool have_host, sy_infos_t *out, size_t *asked, size_t *found)
{
    request_t r;
    parse_request(q, &r);
    /* per level, the functions asked for */
    fnlist_t per[SY_NLEVELS] = {{0}};
    fnlist_t all = {0};
    for (int l = 0; l < SY_NLEVELS; l++) {
        if (!r.on[l])
            continue;
        if (r.list[l] != NULL) {
            fnlist_parse(&per[l], r.list[l], l, host, nhost);
        } else {
            for (size_t k = 1; q->keys[k] != NULL; k++)
                fnlist_parse(&per[l], q->keys[k], l, host, nhost);
        }
        for (size_t i = 0; i < per[l].n; i++)
            fnlist_add(&all, per[l].names[i]);
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < all.n && rc == PMIX_SUCCESS; i++) {
        const char *fn = all.names[i];
        (*asked)++;
        if (!lib_has(fn, -1) && !host_has(host, nhost, fn))
            continue;
        size_t nlev = 0;
        for (int l = 0; l < SY_NLEVELS; l++)
            for (size_t k = 0; k < per[l].n; k++)
                if (strcmp(per[l].names[k], fn) == 0)
                    nlev++;
        pmix_info_t *levels;
        PMIX_INFO_CREATE(levels, nlev);
        pmix_data_array_t *da = malloc(sizeof(*da));
        pmix_info_t *o = sy_infos_add(out);
        if (levels == NULL || da == NULL || o == NULL) {
            if (levels != NULL)
                PMIX_INFO_FREE(levels, nlev);
            free(da);
            rc = PMIX_ERR_NOMEM;
            break;
        }
        size_t m = 0;
        for (int l = 0; l < SY_NLEVELS && rc == PMIX_SUCCESS; l++)
            for (size_t k = 0; k < per[l].n && rc == PMIX_SUCCESS; k++)
                if (strcmp(per[l].names[k], fn) == 0)
                    rc = level_value(fn, l, host, nhost, have_host, &levels[m++]);
        PMIX_LOAD_KEY(o->key, fn);
        da->type = PMIX_INFO;
        da->size = nlev;
        da->array = levels;
        o->value.type = PMIX_DATA_ARRAY;
        o->value.data.darray = da;
        (*found)++;
    }
    for (int l = 0; l < SY_NLEVELS && rc == PMIX_SUCCESS; l++) {
        if (!r.fns[l])
            continue;
        (*asked)++;
        if (l == SY_LEVEL_HOST && !have_host)
            continue;
        char *s = function_list(l, host, nhost);
        pmix_info_t *o = s != NULL ? sy_infos_add(out) : NULL;
        if (o == NULL) {
            free(s);
            rc = PMIX_ERR_NOMEM;
            break;
        }
        PMIX_LOAD_KEY(o->key, level_fns[l]);
        o->value.type = PMIX_STRING;
        o->value.data.string = s;
        (*found)++;
    }
    for (int l = 0; l < SY_NLEVELS; l++)
        fnlist_free(&per[l]);
    fnlist_free(&all);
    return rc;
}
