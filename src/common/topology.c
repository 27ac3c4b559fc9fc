/*
 * Switchyard -- the process-wide hwloc topology: where it comes from, how
 * long it lives, and the public calls that hand it out
 * (PMIx_Load_topology, PMIx_Get_cpuset).
 */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <pmix.h>

#include "common/datatype.h"
#include "common/log.h"
#include "common/store.h"
#include "common/topo_xml.h"
#include "common/topology.h"
#include "common/wire.h"

/* hwloc's own version string is only a compile-time macro. */
#define SY_TOPOLOGY_SOURCE "hwloc:" HWLOC_VERSION

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static hwloc_topology_t cached;
static bool cached_owned;

const char *sy_topology_source(void)
{
    return SY_TOPOLOGY_SOURCE;
}

pmix_status_t sy_topology_discover(hwloc_topology_t *out)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) {
        return PMIX_ERR_NOMEM;
    }
    /* No I/O discovery: locality, cpusets and binding need the CPU side
     * only, PCI discovery is the slowest part of a load, and hwloc 2.9's
     * PCI plugin leaks on every load.  PMIx_Compute_distances (issue 8)
     * will discover devices when it is asked to. */
    if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        sy_log(SY_LOG_WARN, "hwloc could not discover this node's topology");
        return PMIX_ERR_NOT_AVAILABLE;
    }
    *out = t;
    return PMIX_SUCCESS;
}

pmix_status_t sy_topology_import_xml(const char *xml, size_t len, bool this_system,
                                     hwloc_topology_t *out)
{
    if (xml == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* hwloc wants the length of a NUL-terminated buffer, NUL included; an
     * embedded NUL would make it read a different document than we
     * screened. */
    if (len > 0 && '\0' == xml[len - 1]) {
        len--;
    }
    if (len >= INT_MAX || memchr(xml, '\0', len) != NULL || !sy_topo_xml_ok(xml, len)) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(copy, xml, len);
    copy[len] = '\0';
    hwloc_topology_t t;
    pmix_status_t rc = PMIX_SUCCESS;
    unsigned long flags = HWLOC_TOPOLOGY_FLAG_IMPORT_SUPPORT;
    if (this_system) {
        flags |= HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM;
    }
    if (hwloc_topology_init(&t) != 0) {
        rc = PMIX_ERR_NOMEM;
    } else if (hwloc_topology_set_all_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL) != 0 ||
               hwloc_topology_set_flags(t, flags) != 0 ||
               hwloc_topology_set_xmlbuffer(t, copy, (int)len + 1) != 0 ||
               hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        rc = PMIX_ERR_BAD_PARAM;
    } else {
        *out = t;
    }
    free(copy);
    return rc;
}

pmix_status_t sy_topology_export_xml(hwloc_topology_t topo, char **xml)
{
    char *buf = NULL;
    int len = 0;
    if (topo == NULL || xml == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (hwloc_topology_export_xmlbuffer(topo, &buf, &len, 0) != 0 || buf == NULL || len <= 0) {
        if (buf != NULL) {
            hwloc_free_xmlbuffer(topo, buf);
        }
        return PMIX_ERR_NOT_AVAILABLE;
    }
    /* hwloc's buffer must go back through hwloc_free_xmlbuffer; callers get
     * plain malloc memory. */
    *xml = strndup(buf, (size_t)len);
    hwloc_free_xmlbuffer(topo, buf);
    return *xml == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

/* The XML our server published for this node (server_topology.c), found
 * through the store without any IPC.  The node is named by the hostname the
 * server gave its clients, so a client finds it in its own namespace's node
 * data or in the resources segment. */
static pmix_status_t load_from_store(hwloc_topology_t *out)
{
    if (!sy_store_active()) {
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_proc_t proc;
    memset(&proc, 0, sizeof(proc));
    const char *ns = getenv(SY_ENV_NSPACE);
    sy_load_fixed(proc.nspace, ns, sizeof(proc.nspace));
    proc.rank = PMIX_RANK_WILDCARD;

    char host[256];
    const char *name = getenv(SY_ENV_HOSTNAME);
    if (name == NULL) {
        if (gethostname(host, sizeof(host)) != 0) {
            return PMIX_ERR_NOT_FOUND;
        }
        host[sizeof(host) - 1] = '\0';
        name = host;
    }
    pmix_info_t info[2];
    memset(info, 0, sizeof(info));
    sy_load_fixed(info[0].key, PMIX_NODE_INFO, sizeof(info[0].key));
    info[0].value.type = PMIX_BOOL;
    info[0].value.data.flag = true;
    sy_load_fixed(info[1].key, PMIX_HOSTNAME, sizeof(info[1].key));
    info[1].value.type = PMIX_STRING;
    info[1].value.data.string = (char *)name;

    pmix_value_t *val = NULL;
    pmix_status_t rc = sy_store_get(&proc, PMIX_HWLOC_XML_V2, info, 2, &val);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (val->type == PMIX_STRING && val->data.string != NULL) {
        rc = sy_topology_import_xml(val->data.string, strlen(val->data.string), true, out);
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "the topology published for node %s was refused; discovering",
                   name);
        }
    } else {
        rc = PMIX_ERR_TYPE_MISMATCH;
    }
    sy_value_destruct(val);
    free(val);
    return rc;
}

pmix_status_t sy_topology_get(hwloc_topology_t *out)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&cache_lock);
    if (cached == NULL) {
        hwloc_topology_t t = NULL;
        if (load_from_store(&t) != PMIX_SUCCESS) {
            rc = sy_topology_discover(&t);
        }
        if (rc == PMIX_SUCCESS) {
            cached = t;
            cached_owned = true;
        }
    }
    *out = cached;
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

pmix_status_t sy_topology_adopt(hwloc_topology_t topo, bool owned)
{
    if (topo == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&cache_lock);
    if (cached != NULL && cached != topo && cached_owned) {
        hwloc_topology_destroy(cached);
    }
    cached = topo;
    cached_owned = owned;
    pthread_mutex_unlock(&cache_lock);
    return PMIX_SUCCESS;
}

bool sy_topology_is_cached(const void *topology)
{
    pthread_mutex_lock(&cache_lock);
    bool is = topology != NULL && topology == (const void *)cached;
    pthread_mutex_unlock(&cache_lock);
    return is;
}

static hwloc_topology_t io_cached;

pmix_status_t sy_topology_get_io(hwloc_topology_t *out)
{
    pthread_mutex_lock(&cache_lock);
    if (io_cached == NULL) {
        hwloc_topology_t n;
        if (hwloc_topology_init(&n) == 0) {
            hwloc_topology_set_io_types_filter(n, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
            if (hwloc_topology_load(n) == 0) {
                io_cached = n;
            } else {
                hwloc_topology_destroy(n);
            }
        }
    }
    *out = io_cached;
    pthread_mutex_unlock(&cache_lock);
    return *out != NULL ? PMIX_SUCCESS : PMIX_ERR_NOT_AVAILABLE;
}

void sy_topology_release_cached(void)
{
    pthread_mutex_lock(&cache_lock);
    if (cached != NULL && cached_owned) {
        hwloc_topology_destroy(cached);
    }
    if (io_cached != NULL) {
        hwloc_topology_destroy(io_cached);
    }
    io_cached = NULL;
    cached = NULL;
    cached_owned = false;
    pthread_mutex_unlock(&cache_lock);
}

/* A requested source names us if it is "hwloc" or a prefix of our
 * "hwloc:<version>" (a caller may pin the version). */
static bool source_matches(const char *want)
{
    size_t n = strlen(want);
    return sy_from_hwloc(want) && n <= strlen(SY_TOPOLOGY_SOURCE) &&
           strncasecmp(want, SY_TOPOLOGY_SOURCE, n) == 0;
}

PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo)
{
    if (topo == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (topo->topology != NULL) {
        return PMIX_SUCCESS;
    }
    if (topo->source != NULL && !source_matches(topo->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    hwloc_topology_t t;
    pmix_status_t rc = sy_topology_get(&t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (topo->source == NULL && (topo->source = strdup(SY_TOPOLOGY_SOURCE)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    topo->topology = t;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref)
{
    int flag;
    if (cpuset == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (ref == PMIX_CPUBIND_PROCESS) {
        flag = HWLOC_CPUBIND_PROCESS;
    } else if (ref == PMIX_CPUBIND_THREAD) {
        flag = HWLOC_CPUBIND_THREAD;
    } else {
        return PMIX_ERR_BAD_PARAM;
    }
    if (cpuset->source != NULL && !sy_from_hwloc(cpuset->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    hwloc_topology_t t;
    pmix_status_t rc = sy_topology_get(&t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    hwloc_bitmap_t bm = hwloc_bitmap_alloc();
    if (bm == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (hwloc_get_cpubind(t, bm, flag) != 0) {
        hwloc_bitmap_free(bm);
        return PMIX_ERR_NOT_FOUND;
    }
    if (cpuset->source == NULL && (cpuset->source = strdup("hwloc")) == NULL) {
        hwloc_bitmap_free(bm);
        return PMIX_ERR_NOMEM;
    }
    /* A bitmap the caller left in the struct is theirs to release: it is
     * overwritten, as with any output argument. */
    cpuset->bitmap = bm;
    return PMIX_SUCCESS;
}
