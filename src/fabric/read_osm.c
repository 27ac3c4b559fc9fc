/* Reader for OpenSM's subnet.lst (the --dump_files dump every subnet
 * manager node keeps, /var/log/opensm-subnet.lst): one cable end per line,
 *
 *   { SW Ports:24 SystemGUID:... NodeGUID:... PortGUID:... VenID:... DevID:...
 *     Rev:... {leaf0} LID:0001 PN:03 } { CA Ports:01 ... {node01 HCA-1}
 *     LID:0003 PN:01 } PHY=4x LOG=ACT SPD=25
 *
 * (on one line).  TYPE is SW, CA or Rt, with "-SM" on the subnet manager's
 * node; Ports, LID and PN are hex.  Simulated fabrics label switches CA
 * too, so a "CA" with more than two ports is taken for a switch.  The
 * vertices are named as ibnetdiscover's (read_ib.h), so both descriptions
 * of one fabric give the same graph.  LOG=ACT is a link up, DWN down,
 * INI and ARM (cabled, not yet configured by the SM) state unknown; the
 * speed is PHY lanes times SPD Gb/s.  Other lines are passed over with a
 * note. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_ib.h"

static const char *skip_blanks(const char *p)
{
    while (' ' == *p || '\t' == *p) {
        p++;
    }
    return p;
}

/* "KEY:" then hex up to a blank; *p moves past it. */
static bool key_hex(const char **p, const char *key, uint64_t *v)
{
    size_t k = strlen(key);
    const char *s = skip_blanks(*p);
    if (strncmp(s, key, k) != 0) {
        return false;
    }
    s += k;
    const char *e = s;
    while (isxdigit((unsigned char)*e)) {
        e++;
    }
    if (!sy_ib_hex(s, (size_t)(e - s), v)) {
        return false;
    }
    *p = e;
    return true;
}

/* One "{ ... }" end; line0/orig map the line's copy to the source. */
static bool parse_end(const char **pp, sy_ib_end_t *ep, const char *line0, const char *orig)
{
    const char *p = skip_blanks(*pp);
    if ('{' != *p) {
        return false;
    }
    p = skip_blanks(p + 1);
    const char *t = p;
    while (*p != '\0' && *p != ' ' && *p != '\t') {
        p++;
    }
    size_t tn = (size_t)(p - t);
    if (tn >= 3 && strncmp(t + tn - 3, "-SM", 3) == 0) {
        tn -= 3;
    }
    uint64_t ports, sys, dummy, lid, pn;
    if (!key_hex(&p, "Ports:", &ports) || !key_hex(&p, "SystemGUID:", &sys) ||
        !key_hex(&p, "NodeGUID:", &ep->node) || !key_hex(&p, "PortGUID:", &ep->pguid) ||
        !key_hex(&p, "VenID:", &dummy) || !key_hex(&p, "DevID:", &dummy) ||
        !key_hex(&p, "Rev:", &dummy)) {
        return false;
    }
    if (tn == 2 && strncmp(t, "SW", 2) == 0) {
        ep->type = SY_IB_SW;
    } else if (tn == 2 && (strncmp(t, "Rt", 2) == 0 || strncmp(t, "RT", 2) == 0)) {
        ep->type = SY_IB_RT;
    } else if ((tn == 2 && strncmp(t, "CA", 2) == 0) || (tn == 2 && strncmp(t, "**", 2) == 0)) {
        ep->type = ports > 2 ? SY_IB_SW : SY_IB_CA;
    } else {
        return false;
    }
    /* {description}: up to the "} LID:" that follows it */
    p = skip_blanks(p);
    const char *end = '{' == *p ? strstr(p, "} LID:") : NULL;
    if (end == NULL) {
        return false;
    }
    ep->desc = orig + (p + 1 - line0);
    ep->dlen = (uint32_t)(end - p - 1);
    p = end + 1;
    if (!key_hex(&p, "LID:", &lid) || !key_hex(&p, "PN:", &pn) || pn > 255) {
        return false;
    }
    ep->port = (uint32_t)pn;
    p = skip_blanks(p);
    if ('}' != *p) {
        return false;
    }
    *pp = p + 1;
    return true;
}

/* PHY=4x LOG=ACT SPD=25 (any order, each optional) */
static void parse_tail(const char *p, sy_ib_cable_t *l)
{
    const char *w = NULL, *r = NULL;
    size_t wn = 0, rn = 0;
    l->state = PMIX_LINK_UP;
    for (;;) {
        p = skip_blanks(p);
        if ('\0' == *p) {
            break;
        }
        const char *tok = p;
        while (*p != '\0' && *p != ' ' && *p != '\t') {
            p++;
        }
        size_t n = (size_t)(p - tok);
        if (n > 4 && strncmp(tok, "PHY=", 4) == 0) {
            w = tok + 4;
            wn = n - 4;
        } else if (n > 4 && strncmp(tok, "SPD=", 4) == 0) {
            r = tok + 4;
            rn = n - 4;
        } else if (n == 7 && strncmp(tok, "LOG=DWN", 7) == 0) {
            l->state = PMIX_LINK_DOWN;
        } else if (n == 7 && (strncmp(tok, "LOG=INI", 7) == 0 || strncmp(tok, "LOG=ARM", 7) == 0)) {
            l->state = PMIX_LINK_STATE_UNKNOWN;
        }
    }
    l->speed = w != NULL ? sy_ib_speed(w, wn, r != NULL ? r : "2.5", r != NULL ? rn : 3) : 0;
}

static pmix_status_t parse_line(sy_ib_cables_t *c, char *line, const char *orig, size_t lineno)
{
    const char *p = skip_blanks(line);
    if ('\0' == *p || '#' == *p) {
        return PMIX_SUCCESS;
    }
    if ('{' != *p) {
        sy_read_skip(&c->skips, lineno, p);
        return PMIX_SUCCESS;
    }
    sy_ib_cable_t l = {.line = lineno, .connected = true};
    if (!parse_end(&p, &l.a, line, orig) || !parse_end(&p, &l.b, line, orig)) {
        return sy_read_error(
            c->errmsg, c->name, lineno,
            "expected \"{ TYPE Ports:N SystemGUID:G NodeGUID:G PortGUID:G VenID:V "
            "DevID:D Rev:R {description} LID:L PN:P }\" twice, then PHY= LOG= SPD=");
    }
    parse_tail(p, &l);
    return sy_ib_cables_push(c, &l);
}

pmix_status_t sy_topo_read_osm_buffer(const char *buf, size_t len, const char *name,
                                      const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    sy_ib_cables_t c = {.name = name, .errmsg = errmsg};
    pmix_status_t rc = sy_ib_cables_reserve(&c, len / 200 + 16);
    /* descriptions point into buf: no copy per cable end */
    sy_lines_t it;
    int more = 0;
    sy_lines_init(&it, buf, len, name, false);
    while (rc == PMIX_SUCCESS && (more = sy_lines_next(&it, errmsg)) == 1)
        rc = parse_line(&c, it.line, buf + it.line_off, it.lineno);
    if (rc == PMIX_SUCCESS && more < 0)
        rc = PMIX_ERR_BAD_PARAM;
    sy_lines_done(&it);
    sy_topo_t *t = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_new_topo(lim, name, "osm-lst", &t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_ib_cables_build(&c, t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_skips_note(&c.skips, "subnet.lst", t);
    }
    sy_ib_cables_free(&c);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}
