/* Reader for Switchyard's native topology format (grammar and examples
 * in docs/fabric.md):
 *
 *   plane  ID
 *   switch NAME [level=N] [plane=ID] [guid=G] [label=TEXT]
 *   device NAME [host=H] [plane=ID] [guid=G] [label=TEXT]
 *   link   A B [speed=SPEED] [state=up|down|unknown]
 *
 * One statement per line, whitespace-separated words, '#' comments.
 * Vertices must be declared before a link names them; a repeated link
 * adds a parallel cable to the existing edge. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fabric/read_util.h"

typedef struct {
    sy_topo_t *t;
    const char *name;
    char **errmsg;
    size_t line;
} nat_ctx_t;

static pmix_status_t fail_rc(nat_ctx_t *c, pmix_status_t rc, const char *what)
{
    return sy_read_error(c->errmsg, c->name, c->line, "cannot add %s: %s", what,
                         rc == PMIX_ERR_OUT_OF_RESOURCE ? "too many vertices or links"
                         : PMIX_ERR_NOMEM == rc         ? "out of memory"
                                                        : "invalid value");
}

static bool key_is(const char *tok, const char *key, const char **val)
{
    size_t n = strlen(key);
    if (strncmp(tok, key, n) == 0 && tok[n] == '=') {
        *val = tok + n + 1;
        return true;
    }
    return false;
}

static pmix_status_t vertex_stmt(nat_ctx_t *c, char *cur, bool is_switch)
{
    char *name = sy_next_token(&cur), *tok;
    const char *host = NULL, *plane = NULL, *guid = NULL, *label = NULL, *level = NULL, *val;
    if (name == NULL) {
        return sy_read_error(c->errmsg, c->name, c->line, "expected a %s name",
                             is_switch ? "switch" : "device");
    }
    if (strchr(name, '=') != NULL) {
        return sy_read_error(c->errmsg, c->name, c->line, "expected a %s name before '%.64s'",
                             is_switch ? "switch" : "device", name);
    }
    while ((tok = sy_next_token(&cur)) != NULL) {
        const char **slot = NULL;
        if (key_is(tok, "plane", &val)) {
            slot = &plane;
        } else if (key_is(tok, "guid", &val)) {
            slot = &guid;
        } else if (key_is(tok, "label", &val)) {
            slot = &label;
        } else if (!is_switch && key_is(tok, "host", &val)) {
            slot = &host;
        } else if (is_switch && key_is(tok, "level", &val)) {
            slot = &level;
        } else {
            return sy_read_error(
                c->errmsg, c->name, c->line,
                is_switch ? "unknown attribute '%.64s' (expected level=, plane=, guid= or label=)"
                          : "unknown attribute '%.64s' (expected host=, plane=, guid= or label=)",
                tok);
        }
        if (*slot != NULL) {
            return sy_read_error(c->errmsg, c->name, c->line, "attribute '%.64s' given twice", tok);
        }
        if ('\0' == *val) {
            return sy_read_error(c->errmsg, c->name, c->line, "expected a value in '%.64s'", tok);
        }
        *slot = val;
    }
    uint64_t lvl = 0;
    if (level != NULL && (!sy_parse_u64(level, false, &lvl) || lvl > 1000)) {
        return sy_read_error(c->errmsg, c->name, c->line, "expected a level 0..1000, got '%.64s'",
                             level);
    }
    uint32_t v, p = SY_TOPO_NONE;
    pmix_status_t rc;
    if (plane != NULL && (rc = sy_topo_add_plane(c->t, plane, &p)) != PMIX_SUCCESS) {
        return fail_rc(c, rc, "plane");
    }
    if (is_switch) {
        rc = sy_topo_add_switch(c->t, name, level != NULL ? (int32_t)lvl : -1, &v);
    } else {
        rc = sy_topo_add_device(c->t, name, host, NULL, &v);
    }
    if (rc == PMIX_EXISTS) {
        return sy_read_error(c->errmsg, c->name, c->line, "'%.64s' is already declared", name);
    }
    if (rc != PMIX_SUCCESS) {
        return fail_rc(c, rc, name);
    }
    if ((guid != NULL && (rc = sy_topo_set_guid(c->t, v, guid)) != PMIX_SUCCESS) ||
        (label != NULL && (rc = sy_topo_set_label(c->t, v, label)) != PMIX_SUCCESS) ||
        (p != SY_TOPO_NONE && (rc = sy_topo_set_plane(c->t, v, p)) != PMIX_SUCCESS)) {
        return fail_rc(c, rc, name);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t link_stmt(nat_ctx_t *c, char *cur)
{
    char *names[2], *tok;
    uint32_t ids[2];
    for (int i = 0; i < 2; i++) {
        names[i] = sy_next_token(&cur);
        if (names[i] == NULL || strchr(names[i], '=') != NULL) {
            return sy_read_error(c->errmsg, c->name, c->line,
                                 "expected two vertex names after 'link'");
        }
        if (sy_topo_find(c->t, names[i], &ids[i]) != PMIX_SUCCESS) {
            return sy_read_error(
                c->errmsg, c->name, c->line,
                "unknown vertex '%.64s' (declare it with 'device' or 'switch' first)", names[i]);
        }
    }
    if (ids[0] == ids[1]) {
        return sy_read_error(c->errmsg, c->name, c->line, "link from '%.64s' to itself", names[0]);
    }
    uint64_t speed = 0;
    uint8_t state = PMIX_LINK_UP;
    bool have_speed = false, have_state = false;
    while ((tok = sy_next_token(&cur)) != NULL) {
        const char *val;
        if (key_is(tok, "speed", &val) && !have_speed) {
            if (!sy_parse_speed(val, &speed)) {
                return sy_read_error(c->errmsg, c->name, c->line,
                                     "expected a speed such as 100G or 25Gb/s, got '%.64s'", val);
            }
            have_speed = true;
        } else if (key_is(tok, "state", &val) && !have_state) {
            if (strcmp(val, "up") == 0) {
                state = PMIX_LINK_UP;
            } else if (strcmp(val, "down") == 0) {
                state = PMIX_LINK_DOWN;
            } else if (strcmp(val, "unknown") == 0) {
                state = PMIX_LINK_STATE_UNKNOWN;
            } else {
                return sy_read_error(c->errmsg, c->name, c->line,
                                     "expected state=up, down or unknown, got '%.64s'", val);
            }
            have_state = true;
        } else {
            return sy_read_error(
                c->errmsg, c->name, c->line,
                "unexpected '%.64s' (expected speed= or state=, each at most once)", tok);
        }
    }
    pmix_status_t rc =
        sy_topo_add_link(c->t, ids[0], ids[1], speed, state, SY_TOPO_LINK_PARALLEL, NULL);
    return rc == PMIX_SUCCESS ? rc : fail_rc(c, rc, "link");
}

static pmix_status_t parse_line(void *ctx, char *line, size_t lineno)
{
    nat_ctx_t *c = ctx;
    c->line = lineno;
    char *cur = line;
    char *kw = sy_next_token(&cur);
    if (kw == NULL) {
        return PMIX_SUCCESS;
    }
    if (strcmp(kw, "device") == 0) {
        return vertex_stmt(c, cur, false);
    }
    if (strcmp(kw, "switch") == 0) {
        return vertex_stmt(c, cur, true);
    }
    if (strcmp(kw, "link") == 0) {
        return link_stmt(c, cur);
    }
    if (strcmp(kw, "plane") == 0) {
        char *id = sy_next_token(&cur);
        if (id == NULL || sy_next_token(&cur) != NULL) {
            return sy_read_error(c->errmsg, c->name, c->line,
                                 "expected exactly one plane id after 'plane'");
        }
        pmix_status_t rc = sy_topo_add_plane(c->t, id, NULL);
        return rc == PMIX_SUCCESS ? rc : fail_rc(c, rc, "plane");
    }
    return sy_read_error(c->errmsg, c->name, c->line,
                         "expected 'device', 'switch', 'link' or 'plane', got '%.64s'", kw);
}

pmix_status_t sy_topo_read_native_buffer(const char *buf, size_t len, const char *name,
                                         const sy_topo_limits_t *lim, sy_topo_t **out,
                                         char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    nat_ctx_t c = {.name = name, .errmsg = errmsg};
    pmix_status_t rc = sy_read_new_topo(lim, name, "native", &c.t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = sy_read_each_line(buf, len, name, false, parse_line, &c, errmsg);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(c.t);
        return rc;
    }
    *out = c.t;
    return PMIX_SUCCESS;
}
