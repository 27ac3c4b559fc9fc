/* Test helper: sample elements of every data type (see value_samples.h). */
#include "config.h"

#include "value_samples.h"

#include <stdlib.h>
#include <string.h>

#include "common/datatype.h"

const pmix_data_type_t sample_types[] = {
    PMIX_BOOL,
    PMIX_BYTE,
    PMIX_STRING,
    PMIX_SIZE,
    PMIX_PID,
    PMIX_INT,
    PMIX_INT8,
    PMIX_INT16,
    PMIX_INT32,
    PMIX_INT64,
    PMIX_UINT,
    PMIX_UINT8,
    PMIX_UINT16,
    PMIX_UINT32,
    PMIX_UINT64,
    PMIX_FLOAT,
    PMIX_DOUBLE,
    PMIX_TIMEVAL,
    PMIX_TIME,
    PMIX_STATUS,
    PMIX_VALUE,
    PMIX_PROC,
    PMIX_APP,
    PMIX_INFO,
    PMIX_PDATA,
    PMIX_BYTE_OBJECT,
    PMIX_PERSIST,
    PMIX_POINTER,
    PMIX_SCOPE,
    PMIX_DATA_RANGE,
    PMIX_INFO_DIRECTIVES,
    PMIX_DATA_TYPE,
    PMIX_PROC_STATE,
    PMIX_PROC_INFO,
    PMIX_DATA_ARRAY,
    PMIX_PROC_RANK,
    PMIX_QUERY,
    PMIX_COMPRESSED_STRING,
    PMIX_ALLOC_DIRECTIVE,
    PMIX_IOF_CHANNEL,
    PMIX_ENVAR,
    PMIX_COORD,
    PMIX_REGATTR,
    PMIX_REGEX,
    PMIX_JOB_STATE,
    PMIX_LINK_STATE,
    PMIX_PROC_CPUSET,
    PMIX_GEOMETRY,
    PMIX_DEVICE_DIST,
    PMIX_ENDPOINT,
    PMIX_TOPO,
    PMIX_DEVTYPE,
    PMIX_LOCTYPE,
    PMIX_COMPRESSED_BYTE_OBJECT,
    PMIX_PROC_NSPACE,
    PMIX_PROC_STATS,
    PMIX_DISK_STATS,
    PMIX_NET_STATS,
    PMIX_NODE_STATS,
    PMIX_DATA_BUFFER,
    PMIX_STOR_MEDIUM,
    PMIX_STOR_ACCESS,
    PMIX_STOR_PERSIST,
    PMIX_STOR_ACCESS_TYPE,
};
const size_t sample_ntypes = sizeof(sample_types) / sizeof(sample_types[0]);

static hwloc_topology_t topology;
/* Targets of PMIX_POINTER samples: never freed by the library. */
static int pointees[2];

hwloc_topology_t sample_topology(void)
{
    if (topology == NULL) {
        if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
            abort();
        }
    }
    return topology;
}

void sample_topology_release(void)
{
    if (topology != NULL) {
        hwloc_topology_destroy(topology);
        topology = NULL;
    }
}

static char *sdup(const char *s)
{
    char *d = strdup(s);
    if (d == NULL) {
        abort();
    }
    return d;
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        abort();
    }
    return p;
}

static char **argv2(const char *a, const char *b)
{
    char **v = zalloc(3, sizeof(char *));
    v[0] = sdup(a);
    v[1] = sdup(b);
    return v;
}

static void bytes(pmix_byte_object_t *bo, int k)
{
    /* embedded NULs: byte objects are not strings */
    static const char raw[] = {'a', 0, 'b', 0, 'c', 'd'};
    bo->size = sizeof(raw) - (size_t)k;
    bo->bytes = malloc(bo->size);
    memcpy(bo->bytes, raw, bo->size);
}

static void coord(pmix_coord_t *c, int k)
{
    c->view = PMIX_COORD_LOGICAL_VIEW;
    c->dims = 3;
    c->coord = zalloc(3, sizeof(uint32_t));
    c->coord[0] = 1;
    c->coord[1] = 2;
    c->coord[2] = 3 + (uint32_t)k;
}

static void info(pmix_info_t *i, const char *key, int k)
{
    char val[32];

    snprintf(val, sizeof(val), "value-%d", k);
    PMIX_INFO_LOAD(i, key, val, PMIX_STRING);
}

static void disk(pmix_disk_stats_t *d, int k)
{
    d->disk = sdup(k ? "sdb" : "sda");
    d->num_reads_completed = 10 + (uint64_t)k;
    d->weighted_milliseconds_io = 99;
}

static void net(pmix_net_stats_t *n, int k)
{
    n->net_interface = sdup(k ? "eth1" : "eth0");
    n->num_bytes_sent = 1000 + (uint64_t)k;
}

void sample_fill(void *elem, pmix_data_type_t type, int k)
{
#define SET(ctype, v) (*(ctype *)elem = (ctype)(v))
    switch (type) {
    case PMIX_BOOL: SET(bool, k == 0); break;
    case PMIX_BYTE: SET(uint8_t, 0x10 + k); break;
    case PMIX_STRING: SET(char *, sdup(k ? "beta" : "alpha")); break;
    case PMIX_REGEX: SET(char *, sdup(k ? "pmix[n[1-8]]" : "pmix[n[1-4]]")); break;
    case PMIX_SIZE: SET(size_t, 1000 + k); break;
    case PMIX_PID: SET(pid_t, 4242 + k); break;
    case PMIX_INT: SET(int, -7 + k); break;
    case PMIX_INT8: SET(int8_t, -8 + k); break;
    case PMIX_INT16: SET(int16_t, -16 + k); break;
    case PMIX_INT32: SET(int32_t, -32 + k); break;
    case PMIX_INT64: SET(int64_t, -64 + k); break;
    case PMIX_UINT: SET(unsigned int, 7 + k); break;
    case PMIX_UINT8: SET(uint8_t, 8 + k); break;
    case PMIX_UINT16: SET(uint16_t, 16 + k); break;
    case PMIX_UINT32: SET(uint32_t, 32 + k); break;
    case PMIX_UINT64: SET(uint64_t, 64 + k); break;
    case PMIX_FLOAT: SET(float, 1.5f + (float)k); break;
    case PMIX_DOUBLE: SET(double, 2.25 + k); break;
    case PMIX_TIMEVAL: {
        struct timeval *tv = elem;
        tv->tv_sec = 100 + k;
        tv->tv_usec = 5;
        break;
    }
    case PMIX_TIME: SET(time_t, 1700000000 + k); break;
    case PMIX_STATUS: SET(pmix_status_t, PMIX_ERR_NOT_FOUND + k); break;
    case PMIX_VALUE: {
        pmix_value_t *v = elem;
        v->type = PMIX_STRING;
        v->data.string = sdup(k ? "inner-1" : "inner-0");
        break;
    }
    case PMIX_PROC: PMIX_LOAD_PROCID((pmix_proc_t *)elem, "ns.sample", (pmix_rank_t)k); break;
    case PMIX_APP: {
        pmix_app_t *a = elem;
        a->cmd = sdup("/bin/true");
        a->argv = argv2("true", k ? "-x" : "-v");
        a->env = argv2("A=1", "B=2");
        a->cwd = sdup("/tmp");
        a->maxprocs = 2 + k;
        PMIX_INFO_CREATE(a->info, 2);
        a->ninfo = 2;
        info(&a->info[0], "app.key0", k);
        info(&a->info[1], "app.key1", 0);
        break;
    }
    case PMIX_INFO: info(elem, "sample.key", k); break;
    case PMIX_PDATA: {
        pmix_pdata_t *p = elem;
        PMIX_LOAD_PROCID(&p->proc, "ns.pub", 3);
        PMIX_LOAD_KEY(p->key, "published");
        p->value.type = PMIX_INT;
        p->value.data.integer = 10 + k;
        break;
    }
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: bytes(elem, k); break;
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_PROC_STATE:
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_JOB_STATE:
    case PMIX_LINK_STATE: SET(uint8_t, 1 + k); break;
    case PMIX_POINTER: SET(void *, &pointees[k]); break;
    case PMIX_INFO_DIRECTIVES: SET(pmix_info_directives_t, PMIX_INFO_REQD << k); break;
    case PMIX_DATA_TYPE: SET(pmix_data_type_t, PMIX_INT + k); break;
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *p = elem;
        PMIX_LOAD_PROCID(&p->proc, "ns.pinfo", 1);
        p->hostname = sdup("node01");
        p->executable_name = sdup(k ? "/bin/b" : "/bin/a");
        p->pid = 1234;
        p->exit_code = k;
        p->state = PMIX_PROC_STATE_RUNNING;
        break;
    }
    case PMIX_DATA_ARRAY: {
        pmix_data_array_t *d = elem;
        pmix_proc_t *procs;
        PMIX_PROC_CREATE(procs, 2);
        PMIX_LOAD_PROCID(&procs[0], "ns.da", 0);
        PMIX_LOAD_PROCID(&procs[1], "ns.da", 1 + (pmix_rank_t)k);
        d->type = PMIX_PROC;
        d->size = 2;
        d->array = procs;
        break;
    }
    case PMIX_PROC_RANK: SET(pmix_rank_t, 5 + k); break;
    case PMIX_QUERY: {
        pmix_query_t *q = elem;
        q->keys = argv2("pmix.qry.ns", k ? "pmix.qry.b" : "pmix.qry.a");
        PMIX_INFO_CREATE(q->qualifiers, 1);
        q->nqual = 1;
        info(&q->qualifiers[0], "qual", k);
        break;
    }
    case PMIX_IOF_CHANNEL: SET(pmix_iof_channel_t, PMIX_FWD_STDOUT_CHANNEL << k); break;
    case PMIX_ENVAR: {
        pmix_envar_t *e = elem;
        e->envar = sdup("PATH");
        e->value = sdup(k ? "/usr/bin" : "/bin");
        e->separator = ':';
        break;
    }
    case PMIX_COORD: coord(elem, k); break;
    case PMIX_REGATTR: {
        pmix_regattr_t *r = elem;
        r->name = sdup("PMIX_SAMPLE");
        PMIX_LOAD_KEY(r->string, "pmix.sample");
        r->type = k ? PMIX_STRING : PMIX_INT;
        r->description = argv2("a sample", "attribute");
        break;
    }
    case PMIX_PROC_CPUSET: {
        pmix_cpuset_t *c = elem;
        c->source = sdup("hwloc");
        c->bitmap = hwloc_bitmap_alloc();
        hwloc_bitmap_set_range(c->bitmap, 0, 1 + k);
        break;
    }
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = elem;
        g->fabric = 1;
        g->uuid = sdup("fab-uuid");
        g->osname = sdup(k ? "ib1" : "ib0");
        g->coordinates = zalloc(2, sizeof(pmix_coord_t));
        g->ncoords = 2;
        coord(&g->coordinates[0], 0);
        coord(&g->coordinates[1], k);
        break;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = elem;
        d->uuid = sdup("dev-uuid");
        d->osname = sdup("mlx5_0");
        d->type = PMIX_DEVTYPE_NETWORK;
        d->mindist = 10;
        d->maxdist = (uint16_t)(20 + k);
        break;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *e = elem;
        e->uuid = sdup("ep-uuid");
        e->osname = sdup("hfi1_0");
        bytes(&e->endpt, k);
        break;
    }
    case PMIX_TOPO: {
        pmix_topology_t *t = elem;
        hwloc_topology_t copy;
        if (hwloc_topology_dup(&copy, sample_topology()) != 0) {
            abort();
        }
        t->source = sdup(k ? "hwloc:2" : "hwloc");
        t->topology = copy;
        break;
    }
    case PMIX_DEVTYPE: SET(pmix_device_type_t, PMIX_DEVTYPE_GPU << k); break;
    case PMIX_LOCTYPE: SET(pmix_locality_t, PMIX_LOCALITY_SHARE_NODE + k); break;
    case PMIX_PROC_NSPACE: PMIX_LOAD_NSPACE((char *)elem, k ? "nspace-1" : "nspace-0"); break;
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *p = elem;
        p->node = sdup("node01");
        PMIX_LOAD_PROCID(&p->proc, "ns.stats", 2);
        p->pid = 999;
        p->cmd = sdup(k ? "b.out" : "a.out");
        p->state = 'R';
        p->percent_cpu = 12.5f;
        p->num_threads = 4;
        p->rss = 100.f + (float)k;
        p->sample_time.tv_sec = 7;
        break;
    }
    case PMIX_DISK_STATS: disk(elem, k); break;
    case PMIX_NET_STATS: net(elem, k); break;
    case PMIX_NODE_STATS: {
        pmix_node_stats_t *n = elem;
        n->node = sdup("node01");
        n->la = 0.5f + (float)k;
        n->total_mem = 64.f;
        n->diskstats = zalloc(2, sizeof(pmix_disk_stats_t));
        n->ndiskstats = 2;
        disk(&n->diskstats[0], 0);
        disk(&n->diskstats[1], 1);
        n->netstats = zalloc(1, sizeof(pmix_net_stats_t));
        n->nnetstats = 1;
        net(&n->netstats[0], k);
        break;
    }
    case PMIX_DATA_BUFFER: {
        pmix_data_buffer_t *b = elem;
        b->base_ptr = malloc(16);
        memcpy(b->base_ptr, "0123456789abcdef", 16);
        b->base_ptr[3] = (char)('A' + k);
        b->bytes_allocated = 16;
        b->bytes_used = 10;
        b->pack_ptr = b->base_ptr + 10;
        b->unpack_ptr = b->base_ptr + 2;
        break;
    }
    case PMIX_STOR_MEDIUM: SET(uint64_t, PMIX_STORAGE_MEDIUM_SSD << k); break;
    case PMIX_STOR_ACCESS: SET(uint64_t, PMIX_STORAGE_ACCESSIBILITY_NODE << k); break;
    case PMIX_STOR_PERSIST: SET(uint64_t, PMIX_STORAGE_PERSISTENCE_JOB << k); break;
    case PMIX_STOR_ACCESS_TYPE: SET(uint16_t, PMIX_STORAGE_ACCESS_RD << k); break;
    default: abort();
    }
#undef SET
}

void *sample_new(pmix_data_type_t type, int k)
{
    void *elem = zalloc(1, sy_type_size(type));
    sample_fill(elem, type, k);
    return elem;
}

void sample_free(void *elem, pmix_data_type_t type)
{
    sy_elem_destruct(elem, type);
    free(elem);
}

const void *sample_data(const void *elem, pmix_data_type_t type)
{
    if (type == PMIX_STRING || type == PMIX_REGEX || type == PMIX_POINTER) {
        return *(void *const *)elem;
    }
    return elem;
}

bool sample_comparable(pmix_data_type_t type)
{
    return type != PMIX_TOPO;
}

bool sample_variants_differ(pmix_data_type_t type)
{
    (void)type;
    return true;
}
