/* Reader for InfiniBand `ibnetdiscover` output, default and `-p` (ports)
 * formats; a file may mix both (the line's first word decides).
 *
 * Vertices: every switch or router (named by its node GUID, or by its port
 * GUID in -p output, which is the same for switches) and every connected
 * CA port (named by its port GUID; when no line gives that GUID, by
 * "<node GUID>/<port>").  Names are "0x" + 16 lower-case hex digits.  A
 * CA's host is the first word of its NodeDescription ("node031 HCA-1" ->
 * "node031"); the whole description becomes the vertex label.
 *
 * Each cable normally appears once from each end: cables are identified by
 * their two (vertex, port) ends and kept once; several cables between the
 * same two vertices become one edge with `count` cables and the summed
 * speed.  Speeds are nominal: lanes x per-lane rate (SDR 2.5, DDR 5,
 * QDR/FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s); 0 if
 * unknown. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/read_ib.h"

typedef struct {
    sy_ib_cables_t cab;
    /* current record of the default format */
    bool in_node;
    uint8_t cur_type;
    uint64_t cur_guid;
    uint32_t cur_nports;
    const char *cur_desc; /* in the source buffer */
    uint32_t cur_dlen;
    bool saw_default, saw_ports;
    /* the line being parsed (a copy) and where it is in the source */
    const char *line0, *orig;
} ib_ctx_t;

/* The source bytes of a pointer into the line's copy. */
static const char *src_of(const ib_ctx_t *c, const char *p)
{
    return c->orig + (p - c->line0);
}

static void ctx_free(ib_ctx_t *c)
{
    sy_ib_cables_free(&c->cab);
}

static bool parse_hex(const char *s, size_t n, uint64_t *out)
{
    return sy_ib_hex(s, n, out);
}

static bool parse_dec(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    return sy_ib_dec(s, n, max, out);
}

/* Speed from the text after a port line's last quote: " lid 0 4xSDR". */
static uint64_t speed_from_tail(const char *s)
{
    uint64_t best = 0;
    while ('\0' != *s) {
        while (isspace((unsigned char)*s)) {
            s++;
        }
        const char *tok = s;
        while ('\0' != *s && !isspace((unsigned char)*s)) {
            s++;
        }
        size_t n = (size_t)(s - tok);
        const char *x = memchr(tok, 'x', n);
        if (x != NULL && x > tok) {
            size_t wl = (size_t)(x - tok) + 1;
            uint64_t sp = sy_ib_speed(tok, wl, x + 1, n - wl);
            if (sp != 0) {
                best = sp;
            }
        }
    }
    return best;
}

static pmix_status_t push_link(ib_ctx_t *c, sy_ib_cable_t *l)
{
    return sy_ib_cables_push(&c->cab, l);
}

/* The description quoted after '#': from the first '"' to the last. */
static bool comment_desc(const char *s, const char **d, size_t *dn, const char **tail)
{
    const char *hash = strchr(s, '#');
    if (hash == NULL) {
        return false;
    }
    const char *q1 = strchr(hash, '"');
    const char *q2 = strrchr(hash, '"');
    if (q1 == NULL || q1 == q2) {
        return false;
    }
    *d = q1 + 1;
    *dn = (size_t)(q2 - q1 - 1);
    *tail = q2 + 1;
    return true;
}

/* ------------------------------------------------------ default format */

/* '"' ("S-"|"H-"|"R-") 16hex '"' */
static bool parse_id(const char **pp, uint8_t *type, uint64_t *guid)
{
    const char *p = *pp;
    if (p[0] != '"' || p[2] != '-') {
        return false;
    }
    switch (p[1]) {
    case 'S': *type = SY_IB_SW; break;
    case 'H': *type = SY_IB_CA; break;
    case 'R': *type = SY_IB_RT; break;
    default: return false;
    }
    const char *q = strchr(p + 3, '"');
    if (q == NULL || !parse_hex(p + 3, (size_t)(q - p - 3), guid)) {
        return false;
    }
    *pp = q + 1;
    return true;
}

/* "[" port "]" ["(" hex ")"] */
static bool parse_port(const char **pp, uint32_t *port, uint64_t *pguid)
{
    const char *p = *pp;
    if ('[' != *p) {
        return false;
    }
    const char *q = strchr(p, ']');
    if (q == NULL || !parse_dec(p + 1, (size_t)(q - p - 1), 65535, port)) {
        return false;
    }
    p = q + 1;
    /* -g numbers the external ports of chassis: "[ext 3]" */
    if (strncmp(p, "[ext ", 5) == 0 && (q = strchr(p, ']')) != NULL) {
        p = q + 1;
    }
    *pguid = 0;
    if ('(' == *p) {
        q = strchr(p, ')');
        if (q == NULL || !parse_hex(p + 1, (size_t)(q - p - 1), pguid)) {
            return false;
        }
        p = q + 1;
    }
    *pp = p;
    return true;
}

static pmix_status_t default_header(ib_ctx_t *c, char *line, size_t lineno, uint8_t type)
{
    const char *p = line;
    while (!isspace((unsigned char)*p)) {
        p++;
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    const char *n0 = p;
    while (isdigit((unsigned char)*p)) {
        p++;
    }
    uint32_t nports;
    uint8_t idtype;
    uint64_t guid;
    if (!parse_dec(n0, (size_t)(p - n0), 255, &nports)) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "expected the number of ports after the node type");
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if (!parse_id(&p, &idtype, &guid) || idtype != type) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "expected a quoted node id (\"S-\", \"H-\" or \"R-\" + hex GUID) "
                             "matching the node type");
    }
    const char *d, *tail;
    size_t dn = 0;
    c->cur_desc = NULL;
    c->cur_dlen = 0;
    if (comment_desc(p, &d, &dn, &tail)) {
        c->cur_desc = src_of(c, d);
        c->cur_dlen = (uint32_t)dn;
    }
    c->in_node = true;
    c->cur_type = type;
    c->cur_guid = guid;
    c->cur_nports = nports;
    c->saw_default = true;
    if (SY_IB_CA != type) {
        /* Switches exist even with no cable: record a lone endpoint. */
        sy_ib_cable_t l = {.line = lineno, .state = PMIX_LINK_UP, .connected = false};
        l.a = (sy_ib_end_t){.node = guid, .type = type};
        l.a.desc = c->cur_desc;
        l.a.dlen = c->cur_dlen;
        return push_link(c, &l);
    }
    return PMIX_SUCCESS;
}

static pmix_status_t default_port(ib_ctx_t *c, char *line, size_t lineno)
{
    if (!c->in_node) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "port line outside a Switch/Ca/Rt record");
    }
    const char *p = line;
    sy_ib_cable_t l = {.line = lineno, .state = PMIX_LINK_UP, .connected = true};
    l.a.node = c->cur_guid;
    l.a.type = c->cur_type;
    if (!parse_port(&p, &l.a.port, &l.a.pguid)) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "expected \"[port](portguid)\" at the start of the port line");
    }
    if (l.a.port > c->cur_nports) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "port %u beyond the node's %u ports", l.a.port, c->cur_nports);
    }
    /* Extended port GUIDs ("{...}") may follow; they are not needed. */
    if ('{' == *p) {
        const char *q = strchr(p, '}');
        p = q ? q + 1 : p;
    }
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if (!parse_id(&p, &l.b.type, &l.b.node) || !parse_port(&p, &l.b.port, &l.b.pguid)) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "expected the peer as \"X-GUID\"[port](portguid)");
    }
    const char *d, *tail;
    size_t dn;
    if (comment_desc(p, &d, &dn, &tail)) {
        l.speed = speed_from_tail(tail);
        l.b.desc = src_of(c, d);
        l.b.dlen = (uint32_t)dn;
    }
    l.a.desc = c->cur_desc;
    l.a.dlen = c->cur_dlen;
    return push_link(c, &l);
}

static bool type_word(const char *tok, uint8_t *type)
{
    if (strcmp(tok, "CA") == 0) {
        *type = SY_IB_CA;
    } else if (strcmp(tok, "SW") == 0) {
        *type = SY_IB_SW;
    } else if (strcmp(tok, "RT") == 0) {
        *type = SY_IB_RT;
    } else {
        return false;
    }
    return true;
}

/* --------------------------------------------------------- -p format */

/* "CA 0 1 0xGUID 4x SDR - SW 0 8 0xGUID ( 'd1' - 'd2' )"
 * "SW 0 36 0xGUID 4x SDR 'd1'" (unconnected) */
static pmix_status_t ports_line(ib_ctx_t *c, char *line, size_t lineno)
{
    char *cur = line;
    char *tok[11];
    size_t nt = 0;
    sy_ib_cable_t l = {.line = lineno, .state = PMIX_LINK_UP};
    c->saw_ports = true;
    /* Up to 11 plain tokens, then the quoted descriptions. */
    while (nt < 11) {
        while (isspace((unsigned char)*cur)) {
            cur++;
        }
        if ('\'' == *cur || '(' == *cur || '\0' == *cur) {
            break;
        }
        char *tk = sy_next_token(&cur);
        if (tk == NULL) {
            break;
        }
        tok[nt++] = tk;
    }
    while (isspace((unsigned char)*cur)) {
        cur++;
    }
    uint32_t lid;
    if (nt < 6 || !type_word(tok[0], &l.a.type) ||
        !parse_dec(tok[1], strlen(tok[1]), 65535, &lid) ||
        !parse_dec(tok[2], strlen(tok[2]), 65535, &l.a.port) ||
        !parse_hex(tok[3], strlen(tok[3]), &l.a.pguid)) {
        return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                             "expected \"TYPE LID PORT GUID WIDTH SPEED\" (TYPE = CA, SW or RT)");
    }
    l.speed = sy_ib_speed(tok[4], strlen(tok[4]), tok[5], strlen(tok[5]));
    const char *rest = cur;
    if (nt == 6) {
        /* Unconnected port: only the node's existence matters. */
        const char *q1 = strchr(rest, '\''), *q2 = strrchr(rest, '\'');
        if (q1 == NULL || q1 == q2) {
            return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                                 "expected '- PEER...' or a quoted description");
        }
        if (SY_IB_CA == l.a.type) {
            return PMIX_SUCCESS; /* a CA port without cable is no device of the fabric */
        }
        l.a.desc = src_of(c, q1 + 1);
        l.a.dlen = (uint32_t)(q2 - q1 - 1);
    } else {
        if (nt != 11 || strcmp(tok[6], "-") != 0 || !type_word(tok[7], &l.b.type) ||
            !parse_dec(tok[8], strlen(tok[8]), 65535, &lid) ||
            !parse_dec(tok[9], strlen(tok[9]), 65535, &l.b.port) ||
            !parse_hex(tok[10], strlen(tok[10]), &l.b.pguid)) {
            return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                                 "expected \"- TYPE LID PORT GUID\" for the peer");
        }
        /* ( 'desc' - 'peer desc' ) */
        const char *q1 = strchr(rest, '\''), *sep = q1 ? strstr(q1 + 1, "' - '") : NULL;
        const char *q2 = strrchr(rest, '\'');
        if ('(' != *rest || q1 == NULL || sep == NULL || q2 <= sep + 4) {
            return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                                 "expected ( 'description' - 'peer description' )");
        }
        l.a.desc = src_of(c, q1 + 1);
        l.a.dlen = (uint32_t)(sep - q1 - 1);
        l.b.desc = src_of(c, sep + 5);
        l.b.dlen = (uint32_t)(q2 - sep - 5);
        l.connected = true;
    }
    /* Switch GUIDs here are port GUIDs, equal to the switch's node GUID. */
    if (SY_IB_CA != l.a.type) {
        l.a.node = l.a.pguid;
    }
    if (l.connected && SY_IB_CA != l.b.type) {
        l.b.node = l.b.pguid;
    }
    return push_link(c, &l);
}

static pmix_status_t parse_line(ib_ctx_t *c, char *line, size_t lineno)
{
    char *p = line;
    while (isspace((unsigned char)*p)) {
        p++;
    }
    if ('\0' == *p) {
        c->in_node = false; /* a blank line ends a record */
        return PMIX_SUCCESS;
    }
    if ('#' == *p) {
        return PMIX_SUCCESS;
    }
    if ('[' == *p) {
        return default_port(c, p, lineno);
    }
    size_t w = 0;
    while (isalnum((unsigned char)p[w]) || p[w] == '-') {
        w++;
    }
    char word[16];
    if (w >= sizeof(word)) {
        w = sizeof(word) - 1;
    }
    memcpy(word, p, w);
    word[w] = '\0';
    /* A record or ports line is the word, blanks, then a number; the same
     * word followed by anything else ("Switch : 0x..." of -l) is not one. */
    const char *after = p + w;
    while (' ' == *after || '\t' == *after) {
        after++;
    }
    bool number_follows = after > p + w && isdigit((unsigned char)*after);
    uint8_t type;
    if (number_follows && type_word(word, &type)) {
        return ports_line(c, p, lineno);
    }
    if (number_follows && strcmp(word, "Switch") == 0) {
        return default_header(c, p, lineno, SY_IB_SW);
    }
    if (number_follows && strcmp(word, "Ca") == 0) {
        return default_header(c, p, lineno, SY_IB_CA);
    }
    if (number_follows && strcmp(word, "Rt") == 0) {
        return default_header(c, p, lineno, SY_IB_RT);
    }
    if (p[w] == '=' && (strcmp(word, "vendid") == 0 || strcmp(word, "devid") == 0 ||
                        strcmp(word, "sysimgguid") == 0 || strcmp(word, "switchguid") == 0 ||
                        strcmp(word, "caguid") == 0 || strcmp(word, "routerguid") == 0)) {
        const char *v = p + w + 1, *e = v;
        while (isxdigit((unsigned char)*e) || 'x' == *e || 'X' == *e) {
            e++;
        }
        uint64_t dummy;
        if (!parse_hex(v, (size_t)(e - v), &dummy)) {
            return sy_read_error(c->cab.errmsg, c->cab.name, lineno,
                                 "expected a hex value after %s=", word);
        }
        return PMIX_SUCCESS;
    }
    /* -g output groups nodes by chassis; the grouping is not needed. */
    if (strcmp(word, "Chassis") == 0 || strncmp(p, "Non-Chassis Nodes", 17) == 0 ||
        strncmp(p, "Hostname:", 9) == 0) {
        return PMIX_SUCCESS;
    }
    /* Anything else is what the tools print besides the topology ("DR path
     * slid 0; dlid 0; 0,1" of -v, ibwarn lines, -l listings): passed over,
     * and said once. */
    sy_read_skip(&c->cab.skips, lineno, p);
    return PMIX_SUCCESS;
}

pmix_status_t sy_topo_read_ibnet_buffer(const char *buf, size_t len, const char *name,
                                        const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    ib_ctx_t c = {.cab = {.name = name, .errmsg = errmsg}};
    /* cable lines of real captures are 60-100 bytes: no regrowth, and the
     * part of the reservation no cable uses is never touched
     * (sy_big_alloc); pathological short lines make push grow it */
    pmix_status_t rc = sy_ib_cables_reserve(&c.cab, len / 48 + 16);
    /* descriptions point into buf: no copy per cable end */
    sy_lines_t it;
    int more = 0;
    sy_lines_init(&it, buf, len, name, false);
    while (rc == PMIX_SUCCESS && (more = sy_lines_next(&it, errmsg)) == 1) {
        c.line0 = it.line;
        c.orig = buf + it.line_off;
        rc = parse_line(&c, it.line, it.lineno);
    }
    if (rc == PMIX_SUCCESS && more < 0)
        rc = PMIX_ERR_BAD_PARAM;
    sy_lines_done(&it);
    sy_topo_t *t = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_new_topo(lim, name, c.saw_ports && !c.saw_default ? "ibnet-ports" : "ibnet",
                              &t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_ib_cables_build(&c.cab, t);
    }
    if (rc == PMIX_SUCCESS) {
        rc = sy_read_skips_note(&c.cab.skips, "ibnetdiscover", t);
    }
    ctx_free(&c);
    if (rc != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}
