/* Fabric groups (PMIX_FABRIC_GROUPS): a partition of the devices into
 * sets that are close in the fabric.
 *
 * Methods (docs/fabric.md, "Groups"):
 *   LEAF       devices under the same attachment switch;
 *   POD        devices whose attachment switches stay connected once the
 *              top switch level is removed (fat-tree pods);
 *   TRIANGLE   dragonfly router groups (structure.h);
 *   COMMUNITY  igraph Leiden (modularity) on the switch graph, seeded;
 *   AUTO       picks from the structure: tree -> POD with 3+ switch levels,
 *              LEAF with 2 (tree_mode overrides); dragonfly -> TRIANGLE;
 *              torus/mesh/single switch level -> LEAF; anything else ->
 *              COMMUNITY.
 * A device belongs to the group of its first attachment switch
 * (levels.h); a device with no usable switch link is a group of its own.
 * Group ids are numbered in order of their lowest device index, so group 0
 * holds device 0. */
#ifndef SWITCHYARD_FABRIC_GROUPS_H
#define SWITCHYARD_FABRIC_GROUPS_H

#include <stdint.h>

#include <pmix_common.h>

#include "fabric/devindex.h"
#include "fabric/topo.h"

typedef enum {
    SY_GROUPS_AUTO = 0,
    SY_GROUPS_LEAF,
    SY_GROUPS_POD,
    SY_GROUPS_TRIANGLE,
    SY_GROUPS_COMMUNITY
} sy_groups_method_t;

/* How AUTO groups a tree. */
typedef enum {
    SY_GROUPS_TREE_DEFAULT = 0, /* POD with 3+ switch levels, else LEAF */
    SY_GROUPS_TREE_LEAF,
    SY_GROUPS_TREE_POD
} sy_groups_tree_mode_t;

/* What the string lists.  The Standard's PMIX_FABRIC_GROUPS lists nodes,
 * so the default is each device's host name (its device name when it has
 * no host), each host at most once per group. */
typedef enum { SY_GROUPS_NAMES_HOST = 0, SY_GROUPS_NAMES_DEVICE } sy_groups_names_t;

typedef struct {
    sy_groups_method_t method;
    sy_groups_tree_mode_t tree_mode;
    sy_groups_names_t names;
    uint64_t seed; /* COMMUNITY only; 0 = SY_GROUPS_DEFAULT_SEED */
} sy_groups_opts_t;

#define SY_GROUPS_DEFAULT_SEED 42u

typedef struct {
    uint32_t ndev;
    uint32_t ngroups;
    uint32_t *group; /* ndev entries, in device-index order */
    /* "0:n0,n2;1:n1,n3": groups in id order, members in device order.
     * NULL when a listed name contains ',', ';' or ':' (the string could
     * not be parsed back); the groups themselves are still valid. */
    char *str;
    sy_groups_method_t method; /* the method that was applied (never AUTO) */
} sy_groups_t;

/* opts may be NULL (all defaults).  The topology must be finalized
 * (PMIX_ERR_NOT_AVAILABLE otherwise) and ix built from it.  On failure
 * *out is zeroed. */
pmix_status_t sy_groups_compute(const sy_topo_t *t, const sy_devindex_t *ix,
                                const sy_groups_opts_t *opts, sy_groups_t *out);
void sy_groups_free(sy_groups_t *g);

#endif
