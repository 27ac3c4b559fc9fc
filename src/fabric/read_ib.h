/* What the InfiniBand readers share (read_ibnet.c: ibnetdiscover default
 * and -p output; read_osm.c: OpenSM's subnet.lst): one record per cable
 * end seen in the file, then one build step that names the vertices the
 * same way for every syntax, so that the same fabric read from any of
 * them gives the same graph.
 *
 * Vertices: every switch or router, named by its node GUID, and every
 * connected CA port, named by its port GUID (or "<node GUID>/<port>" when
 * no line gives it).  Names are "0x" + 16 lower-case hex digits.  A CA's
 * host is the first word of its NodeDescription; the whole description
 * becomes the vertex label.  A cable is identified by its two (vertex,
 * port) ends and kept once; several cables between the same two vertices
 * become one edge with `count` cables and the summed speed. */
#ifndef SWITCHYARD_FABRIC_READ_IB_H
#define SWITCHYARD_FABRIC_READ_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/read_util.h"

enum { SY_IB_CA = 0, SY_IB_SW = 1, SY_IB_RT = 2 };

typedef struct {
    uint64_t node;  /* node GUID, 0 if unknown (-p output) */
    uint64_t pguid; /* port GUID, 0 if unknown */
    uint32_t port;
    uint8_t type;
    /* NodeDescription, NULL if none: the bytes in the reader's source
     * buffer (not terminated), which outlives the build */
    const char *desc;
    uint32_t dlen;
    uint32_t vid; /* resolved vertex */
} sy_ib_end_t;

typedef struct {
    sy_ib_end_t a, b;
    uint64_t speed;
    size_t line;
    uint8_t state; /* PMIX_LINK_UP, _DOWN or _STATE_UNKNOWN */
    bool connected;
} sy_ib_cable_t;

typedef struct {
    sy_ib_cable_t *l;
    size_t n, cap;
    const char *name;
    char **errmsg;
    sy_read_skips_t skips;
} sy_ib_cables_t;

void sy_ib_cables_free(sy_ib_cables_t *c);
/* Room for n cables (a hint: failing to get it is not an error). */
pmix_status_t sy_ib_cables_reserve(sy_ib_cables_t *c, size_t n);
/* Append a copy of *l. */
pmix_status_t sy_ib_cables_push(sy_ib_cables_t *c, sy_ib_cable_t *l);
/* Turn the cables into vertices and links of t. */
pmix_status_t sy_ib_cables_build(sy_ib_cables_t *c, sy_topo_t *t);

/* Nominal speed in b/s of a width ("4x") and a lane rate ("EDR" or, as
 * OpenSM prints it, "25"); 0 when either is unknown. */
uint64_t sy_ib_speed(const char *width, size_t wn, const char *rate, size_t rn);
/* Hex (with or without 0x, at most 16 digits) and decimal (at most 9
 * digits, <= max) over exactly n bytes. */
bool sy_ib_hex(const char *s, size_t n, uint64_t *out);
bool sy_ib_dec(const char *s, size_t n, uint32_t max, uint32_t *out);
/* A copy of s[0..n), cut at SY_TOPO_MAX_NAME; NULL when out of memory. */
char *sy_ib_strndup(const char *s, size_t n);

#endif
