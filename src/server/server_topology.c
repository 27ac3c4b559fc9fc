/*
 * Switchyard -- the server's part of topology handling: the host's
 * topology, what is published for clients, and the locality and cpuset
 * strings hosts put in their job descriptions.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/datatype.h"
#include "common/log.h"
#include "common/topology.h"
#include "server/server_topology.h"

/* "<n>N:<n>S:<n>L3:<n>L2:<n>L1:<n>C:<n>H:<arch>:<le|be>", the form Open
 * MPI's runtime publishes, so hosts and clients can compare nodes. */
static pmix_status_t signature(hwloc_topology_t t, char **out)
{
    hwloc_obj_t root = hwloc_get_root_obj(t);
    const char *arch = hwloc_obj_get_info_by_name(root, "Architecture");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const char *endian = "be";
#else
    const char *endian = "le";
#endif
    int n = asprintf(
        out, "%dN:%dS:%dL3:%dL2:%dL1:%dC:%dH:%s:%s",
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE),
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE),
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE),
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L2CACHE),
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L1CACHE), hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE),
        hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), arch == NULL ? "unknown" : arch, endian);
    if (n < 0) {
        *out = NULL;
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t describe(hwloc_topology_t t, pmix_info_t **node_info, size_t *nnode_info)
{
    char *xml = NULL, *sig = NULL;
    pmix_status_t rc = sy_topology_export_xml(t, &xml);
    if (rc == PMIX_SUCCESS) {
        rc = signature(t, &sig);
    }
    uint64_t mem = hwloc_get_root_obj(t)->total_memory;
    size_t n = mem == 0 ? 2 : 3;
    pmix_info_t *infos = NULL;
    if (rc == PMIX_SUCCESS) {
        PMIX_INFO_CREATE(infos, n);
        if (infos == NULL) {
            rc = PMIX_ERR_NOMEM;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_load(&infos[0], PMIX_HWLOC_XML_V2, xml, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_load(&infos[1], PMIX_TOPOLOGY_SIGNATURE, sig, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS && n == 3) {
        rc = PMIx_Info_load(&infos[2], PMIX_AVAIL_PHYS_MEMORY, &mem, PMIX_UINT64);
    }
    free(xml);
    free(sig);
    if (rc != PMIX_SUCCESS) {
        if (infos != NULL) {
            PMIX_INFO_FREE(infos, n);
        }
        return rc;
    }
    *node_info = infos;
    *nnode_info = n;
    return PMIX_SUCCESS;
}

pmix_status_t sy_server_topology_setup(const pmix_info_t info[], size_t ninfo,
                                       pmix_info_t **node_info, size_t *nnode_info)
{
    bool share = false;
    hwloc_topology_t given = NULL;
    bool given_v2 = false;

    if (node_info == NULL || nnode_info == NULL || (info == NULL && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    *node_info = NULL;
    *nnode_info = 0;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_SERVER_SHARE_TOPOLOGY)) {
            share = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_TOPOLOGY2)) {
            const pmix_topology_t *t = in->value.data.topo;
            if (in->value.type != PMIX_TOPO || t == NULL || t->topology == NULL) {
                sy_log(SY_LOG_WARN, "PMIx_server_init: %s is not a loaded pmix_topology_t",
                       PMIX_TOPOLOGY2);
                return PMIX_ERR_BAD_PARAM;
            }
            if (!sy_from_hwloc(t->source)) {
                sy_log(SY_LOG_WARN, "PMIx_server_init: topology source \"%s\" is not hwloc",
                       t->source == NULL ? "(null)" : t->source);
                return PMIX_ERR_NOT_SUPPORTED;
            }
            given = t->topology;
            given_v2 = true;
        } else if (PMIX_CHECK_KEY(in, PMIX_TOPOLOGY) && !given_v2) {
            /* the pre-4.0 attribute: a bare hwloc_topology_t */
            if (in->value.type != PMIX_POINTER || in->value.data.ptr == NULL) {
                sy_log(SY_LOG_WARN, "PMIx_server_init: %s is not an hwloc topology pointer",
                       PMIX_TOPOLOGY);
                return PMIX_ERR_BAD_PARAM;
            }
            given = in->value.data.ptr;
        }
    }
    if (given != NULL) {
        pmix_status_t rc = sy_topology_adopt(given, false);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    if (!share) {
        return PMIX_SUCCESS;
    }
    hwloc_topology_t t;
    pmix_status_t rc = sy_topology_get(&t);
    if (rc == PMIX_SUCCESS) {
        rc = describe(t, node_info, nnode_info);
    }
    if (rc != PMIX_SUCCESS) {
        /* clients still discover it themselves */
        sy_log(SY_LOG_WARN, "PMIx_server_init: cannot share the topology (%s)",
               PMIx_Error_string(rc));
    }
    return rc;
}

void sy_server_topology_finalize(void)
{
    sy_topology_release_cached();
}

/* ---- strings for the host's job descriptions ---------------------------- */

PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality)
{
    if (cpuset == NULL || locality == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *locality = NULL;
    if (!sy_from_hwloc(cpuset->source)) {
        return cpuset->source == NULL ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_SUPPORTED;
    }
    if (cpuset->bitmap == NULL) {
        return PMIX_SUCCESS; /* unbound */
    }
    hwloc_topology_t t;
    pmix_status_t rc = sy_topology_get(&t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    return sy_topology_locality_string(t, (hwloc_const_cpuset_t)cpuset->bitmap, locality);
}

PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string)
{
    if (cpuset_string == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *cpuset_string = NULL;
    if (cpuset == NULL || cpuset->bitmap == NULL || cpuset->source == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!sy_from_hwloc(cpuset->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    char *list = NULL;
    if (hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)cpuset->bitmap) < 0 ||
        list == NULL) {
        free(list);
        return PMIX_ERR_NOMEM;
    }
    int n = asprintf(cpuset_string, "hwloc:%s", list);
    free(list);
    if (n < 0) {
        *cpuset_string = NULL;
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}
