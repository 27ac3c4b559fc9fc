/* Reader for Slurm 22.05 topology.conf (topology/tree grammar):
 *
 *   SwitchName=NAME (Nodes=HOSTLIST | Switches=HOSTLIST) [LinkSpeed=N]
 *
 * Keys are case-insensitive, values may be double-quoted, '#' starts a
 * comment and a trailing backslash continues the line.  The checks of
 * slurmctld are mirrored: exactly one of Nodes=/Switches= per line, no
 * duplicate switch, every child switch defined, at most 20 levels (more
 * means a loop).  Each node becomes a device named after the node (host =
 * node) linked to every leaf listing it; LinkSpeed (arbitrary units in
 * Slurm, unused there) is recorded unscaled as the speed of the links from
 * the switch to its children, 0 when absent. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabric/read_util.h"

#define SLURM_MAX_LEVELS 20

typedef struct {
    char *name;
    char *nodes;
    char *switches;
    uint64_t speed;
    size_t line;
    uint32_t id;                /* vertex */
    int level;                  /* -1 unknown, -2 being computed */
    uint32_t child_off, nchild; /* into children[] */
} sw_rec_t;

typedef struct {
    sy_topo_t *t;
    sw_rec_t *recs;
    size_t nrec, cap;
    uint32_t *children;
    size_t nchildren, capchildren;
    sw_rec_t *cur;
    uint32_t *rec_of_vertex; /* vertex id -> record, for switches */
    const char *name;
    char **errmsg;
    uint64_t budget;
} slurm_ctx_t;

static void recs_free(slurm_ctx_t *c)
{
    for (size_t i = 0; i < c->nrec; i++) {
        free(c->recs[i].name);
        free(c->recs[i].nodes);
        free(c->recs[i].switches);
    }
    free(c->recs);
    free(c->children);
    free(c->rec_of_vertex);
}

/* Strip the comment ('#' not escaped by a backslash). */
static void strip_comment(char *s)
{
    for (char *p = s; '\0' != *p; p++) {
        if ('#' == *p && (p == s || '\\' != p[-1])) {
            *p = '\0';
            return;
        }
    }
}

/* Split "key=value" in place; removes surrounding quotes of the value. */
static bool split_kv(char *tok, char **key, char **val)
{
    char *eq = strchr(tok, '=');
    if (eq == NULL || eq == tok) {
        return false;
    }
    *eq = '\0';
    *key = tok;
    char *v = eq + 1;
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v[n - 1] = '\0';
        v++;
    }
    *val = v;
    return true;
}

static pmix_status_t parse_line(void *ctx, char *line, size_t lineno)
{
    slurm_ctx_t *c = ctx;
    strip_comment(line);
    char *cur = line, *tok;
    sw_rec_t r = {.line = lineno, .level = -1};
    bool have_speed = false, first = true;
    pmix_status_t rc = PMIX_SUCCESS;
    while ((tok = sy_next_token(&cur)) != NULL) {
        char *key, *val;
        if (!split_kv(tok, &key, &val)) {
            rc = sy_read_error(c->errmsg, c->name, lineno, "expected KEY=VALUE, got '%.64s'", tok);
            goto fail;
        }
        if (first && strcasecmp(key, "SwitchName") != 0) {
            rc = sy_read_error(c->errmsg, c->name, lineno,
                               "expected SwitchName= first, got '%.64s='", key);
            goto fail;
        }
        first = false;
        char **slot = NULL;
        if (strcasecmp(key, "SwitchName") == 0) {
            slot = &r.name;
        } else if (strcasecmp(key, "Nodes") == 0) {
            slot = &r.nodes;
        } else if (strcasecmp(key, "Switches") == 0) {
            slot = &r.switches;
        } else if (strcasecmp(key, "LinkSpeed") == 0) {
            if (have_speed || !sy_parse_u64(val, false, &r.speed) || r.speed > UINT32_MAX) {
                rc =
                    sy_read_error(c->errmsg, c->name, lineno,
                                  have_speed ? "LinkSpeed given twice"
                                             : "expected an unsigned 32-bit LinkSpeed, got '%.64s'",
                                  val);
                goto fail;
            }
            have_speed = true;
            continue;
        } else {
            rc = sy_read_error(
                c->errmsg, c->name, lineno,
                "unknown key '%.64s' (expected SwitchName, Nodes, Switches or LinkSpeed)", key);
            goto fail;
        }
        if (*slot != NULL) {
            rc = sy_read_error(c->errmsg, c->name, lineno, "%s given twice", key);
            goto fail;
        }
        if ('\0' == *val) {
            rc = sy_read_error(c->errmsg, c->name, lineno, "expected a value after %s=", key);
            goto fail;
        }
        if (slot == &r.name && strlen(val) > SY_TOPO_MAX_NAME) {
            rc = sy_read_error(c->errmsg, c->name, lineno, "switch name too long");
            goto fail;
        }
        if ((*slot = strdup(val)) == NULL) {
            rc = PMIX_ERR_NOMEM;
            sy_read_error(c->errmsg, c->name, lineno, "out of memory");
            goto fail;
        }
    }
    if (first) {
        return PMIX_SUCCESS; /* blank or comment line */
    }
    if (r.nodes != NULL && r.switches != NULL) {
        rc = sy_read_error(c->errmsg, c->name, lineno,
                           "switch %.64s has both Nodes= and Switches=", r.name);
        goto fail;
    }
    if (r.nodes == NULL && r.switches == NULL) {
        rc = sy_read_error(c->errmsg, c->name, lineno,
                           "switch %.64s has neither Nodes= nor Switches=", r.name);
        goto fail;
    }
    if (c->nrec == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        sw_rec_t *n = realloc(c->recs, ncap * sizeof(*n));
        if (n == NULL) {
            rc = PMIX_ERR_NOMEM;
            sy_read_error(c->errmsg, c->name, lineno, "out of memory");
            goto fail;
        }
        c->recs = n;
        c->cap = ncap;
    }
    c->recs[c->nrec++] = r;
    return PMIX_SUCCESS;
fail:
    free(r.name);
    free(r.nodes);
    free(r.switches);
    return rc;
}

static pmix_status_t emit_node(void *ctx, const char *node)
{
    slurm_ctx_t *c = ctx;
    uint32_t v;
    pmix_status_t rc = sy_topo_add_device(c->t, node, node, NULL, &v);
    if (rc == PMIX_EXISTS) {
        if (c->t->v[v].kind != SY_TOPO_DEVICE) {
            return sy_read_error(c->errmsg, c->name, c->cur->line,
                                 "node %.64s has the name of a switch", node);
        }
    } else if (rc != PMIX_SUCCESS) {
        return sy_read_error(c->errmsg, c->name, c->cur->line, "cannot add node %.64s: %s", node,
                             rc == PMIX_ERR_OUT_OF_RESOURCE ? "too many vertices"
                                                            : "bad name or out of memory");
    }
    rc = sy_topo_add_link(c->t, v, c->cur->id, c->cur->speed, PMIX_LINK_UP, 0, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_EXISTS) {
        return sy_read_error(c->errmsg, c->name, c->cur->line, "cannot link node %.64s", node);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t emit_switch(void *ctx, const char *sw)
{
    slurm_ctx_t *c = ctx;
    uint32_t v;
    if (sy_topo_find(c->t, sw, &v) != PMIX_SUCCESS || c->t->v[v].kind != SY_TOPO_SWITCH) {
        return sy_read_error(c->errmsg, c->name, c->cur->line,
                             "switch %.64s listed in Switches= is not defined", sw);
    }
    if (v == c->cur->id) {
        return sy_read_error(c->errmsg, c->name, c->cur->line, "switch %.64s lists itself", sw);
    }
    pmix_status_t rc = sy_topo_add_link(c->t, v, c->cur->id, c->cur->speed, PMIX_LINK_UP, 0, NULL);
    if (rc == PMIX_EXISTS) {
        return PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
        return sy_read_error(c->errmsg, c->name, c->cur->line, "cannot link switch %.64s", sw);
    }
    if (c->nchildren == c->capchildren) {
        size_t ncap = c->capchildren ? c->capchildren * 2 : 64;
        uint32_t *n = realloc(c->children, ncap * sizeof(*n));
        if (n == NULL) {
            return sy_read_error(c->errmsg, c->name, c->cur->line, "out of memory");
        }
        c->children = n;
        c->capchildren = ncap;
    }
    c->children[c->nchildren++] = v;
    c->cur->nchild++;
    return PMIX_SUCCESS;
}

/* Level of record r: leaves 0, else 1 + max over children.  Depth is
 * bounded by SLURM_MAX_LEVELS, so the recursion is too. */
static pmix_status_t compute_level(slurm_ctx_t *c, sw_rec_t *r, int depth)
{
    if (r->level >= 0) {
        return PMIX_SUCCESS;
    }
    if (r->level == -2 || depth > SLURM_MAX_LEVELS) {
        return sy_read_error(
            c->errmsg, c->name, r->line,
            "switch %.64s is part of a loop or more than %d levels deep (not a tree)", r->name,
            SLURM_MAX_LEVELS);
    }
    if (r->nodes != NULL) {
        r->level = 0;
        return PMIX_SUCCESS;
    }
    r->level = -2;
    int lvl = 0;
    for (uint32_t i = 0; i < r->nchild; i++) {
        sw_rec_t *ch = &c->recs[c->rec_of_vertex[c->children[r->child_off + i]]];
        pmix_status_t rc = compute_level(c, ch, depth + 1);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        if (ch->level + 1 > lvl) {
            lvl = ch->level + 1;
        }
    }
    if (lvl > SLURM_MAX_LEVELS) {
        return sy_read_error(c->errmsg, c->name, r->line,
                             "switch %.64s is more than %d levels deep", r->name, SLURM_MAX_LEVELS);
    }
    r->level = lvl;
    return PMIX_SUCCESS;
}

static pmix_status_t build(slurm_ctx_t *c)
{
    pmix_status_t rc;
    for (size_t i = 0; i < c->nrec; i++) {
        sw_rec_t *r = &c->recs[i];
        rc = sy_topo_add_switch(c->t, r->name, -1, &r->id);
        if (rc == PMIX_EXISTS) {
            return sy_read_error(c->errmsg, c->name, r->line, "duplicate SwitchName %.64s",
                                 r->name);
        }
        if (rc != PMIX_SUCCESS) {
            return sy_read_error(c->errmsg, c->name, r->line, "cannot add switch %.64s", r->name);
        }
    }
    c->rec_of_vertex = malloc((c->nrec ? c->nrec : 1) * sizeof(uint32_t));
    if (c->rec_of_vertex == NULL) {
        return sy_read_error(c->errmsg, c->name, 0, "out of memory");
    }
    for (size_t i = 0; i < c->nrec; i++) {
        c->rec_of_vertex[c->recs[i].id] = (uint32_t)i; /* switches are vertices 0..nrec-1 */
    }
    for (size_t i = 0; i < c->nrec; i++) {
        sw_rec_t *r = c->cur = &c->recs[i];
        const char *why = NULL;
        r->child_off = (uint32_t)c->nchildren;
        if (r->nodes != NULL) {
            rc = sy_hostlist_expand(r->nodes, &c->budget, emit_node, c, &why);
        } else {
            rc = sy_hostlist_expand(r->switches, &c->budget, emit_switch, c, &why);
        }
        if (rc != PMIX_SUCCESS) {
            return sy_read_error(c->errmsg, c->name, r->line, "bad hostlist in %s=: %s",
                                 r->nodes != NULL ? "Nodes" : "Switches", why);
        }
    }
    for (size_t i = 0; i < c->nrec; i++) {
        if ((rc = compute_level(c, &c->recs[i], 0)) != PMIX_SUCCESS) {
            return rc;
        }
        c->t->v[c->recs[i].id].level = c->recs[i].level;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_read_slurm_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    slurm_ctx_t c = {.name = name, .errmsg = errmsg};
    c.budget = (lim != NULL && lim->max_vertices) ? lim->max_vertices : SY_TOPO_MAX_VERTICES;
    pmix_status_t rc = sy_read_new_topo(lim, name, "slurm", &c.t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_read_each_line(buf, len, name, true, parse_line, &c, errmsg);
    if (rc == PMIX_SUCCESS) {
        rc = build(&c);
    }
    recs_free(&c);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(c.t);
        return rc;
    }
    *out = c.t;
    return PMIX_SUCCESS;
}
