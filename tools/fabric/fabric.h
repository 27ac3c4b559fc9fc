/* switchyard-fabric's parts: output helpers, the device table, the
 * exports.  fabric_main.c holds the options and the summary. */
#ifndef SY_TOOLS_FABRIC_H
#define SY_TOOLS_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/engine.h"

#define PROG "switchyard-fabric"
/* A heatmap larger than this many pixels a side is downsampled. */
#define PNG_MAX_SIDE 4096u

/* Print "switchyard-fabric: MESSAGE" on stderr; returns 1 (the runtime
 * error exit status). */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* PATH "-" is stdout.  out_close reports a write error through fail(). */
FILE *out_open(const char *path);
int out_close(FILE *f, const char *path);

/* "100Gb/s", "25Gb/s", "1500b/s": the largest unit that divides exactly. */
void speed_text(uint64_t bps, char *buf, size_t len);
/* The largest reachable cost (the diameter). */
uint16_t finite_max(const sy_cost_t *c);
const char *coords_method_name(sy_coords_method_t m);

/* --discover: this machine's fabric devices, as a table or JSON. */
int discover(bool json);

/* Exports; each returns 0 or 1 (after a message through fail()). */
int export_matrix_bin(const sy_cost_t *c, const char *path);
int export_matrix_csv(const sy_cost_t *c, const char *path);
int export_groups(const sy_groups_t *g, const char *path);
int export_dot(const sy_topo_t *t, const char *path);
int export_coords(sy_fabric_engine_t *eng, const char *path);
int export_png(const sy_cost_t *c, const char *path);

#endif
