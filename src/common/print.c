/*
 * Switchyard -- human-readable renderings: PMIx_Data_print,
 * PMIx_Value_string, PMIx_Info_string.
 *
 * Output looks like "Data type: PMIX_INT\tValue: 42"; composite objects
 * (data arrays, apps, queries, node stats) continue on further lines, each
 * starting with the caller's prefix plus an indent.  The text is for people
 * and logs, not a format to parse.  Strings are built in an open_memstream
 * buffer, which is malloc'd and so free()-able by the caller.
 */
#include "common/datatype.h"

#include <hwloc.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <pmix.h>

#define MAX_DUMP 32 /* bytes of a byte object shown in hex */

static void put_value(FILE *f, const char *pfx, const pmix_value_t *v);
static void put_elem(FILE *f, const char *pfx, const void *elem, pmix_data_type_t type);

static const char *safe(const char *s)
{
    return s == NULL ? "NULL" : s;
}

static const char *type_name(pmix_data_type_t type)
{
    const char *s = PMIx_Data_type_string(type);
    return s == NULL ? "UNKNOWN" : s;
}

static void put_rank(FILE *f, pmix_rank_t r)
{
    switch (r) {
    case PMIX_RANK_UNDEF: fputs("PMIX_RANK_UNDEF", f); break;
    case PMIX_RANK_WILDCARD: fputs("PMIX_RANK_WILDCARD", f); break;
    case PMIX_RANK_LOCAL_NODE: fputs("PMIX_RANK_LOCAL_NODE", f); break;
    case PMIX_RANK_INVALID: fputs("PMIX_RANK_INVALID", f); break;
    case PMIX_RANK_LOCAL_PEERS: fputs("PMIX_RANK_LOCAL_PEERS", f); break;
    default: fprintf(f, "%" PRIu32, r); break;
    }
}

static void put_proc(FILE *f, const pmix_proc_t *p)
{
    fprintf(f, "%.*s:", (int)sizeof(p->nspace), p->nspace);
    put_rank(f, p->rank);
}

static void put_bytes(FILE *f, const char *bytes, size_t size)
{
    size_t n = size < MAX_DUMP ? size : MAX_DUMP;

    fprintf(f, "Size: %zu", bytes == NULL ? (size_t)0 : size);
    if (bytes == NULL || size == 0) {
        return;
    }
    fputs("\tBytes: ", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%02x", (unsigned char)bytes[i]);
    }
    if (n < size) {
        fputs("...", f);
    }
}

static void put_argv(FILE *f, char *const *v)
{
    if (v == NULL) {
        fputs("NULL", f);
        return;
    }
    for (size_t i = 0; v[i] != NULL; i++) {
        fprintf(f, "%s%s", i == 0 ? "" : " ", v[i]);
    }
}

static void put_coord(FILE *f, const pmix_coord_t *c)
{
    fprintf(f, "View: %s\tDims: %zu\tCoords: ",
            c->view == PMIX_COORD_LOGICAL_VIEW    ? "LOGICAL"
            : PMIX_COORD_PHYSICAL_VIEW == c->view ? "PHYSICAL"
                                                  : "UNDEF",
            c->dims);
    for (size_t i = 0; c->coord != NULL && i < c->dims; i++) {
        fprintf(f, "%s%" PRIu32, i == 0 ? "" : ",", c->coord[i]);
    }
}

/* An array's elements, one per line: "<pfx>  [i] <element>". */
static void put_array(FILE *f, const char *pfx, const void *array, size_t n, pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    size_t plen = strlen(pfx);
    char *inner;

    if (array == NULL || size == 0 || (inner = malloc(plen + 3)) == NULL) {
        return;
    }
    memcpy(inner, pfx, plen);
    memcpy(inner + plen, "  ", 3);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "\n%s[%zu] ", inner, i);
        put_elem(f, inner, (const char *)array + i * size, type);
    }
    free(inner);
}

static void put_info(FILE *f, const char *pfx, const pmix_info_t *i)
{
    char *dirs = PMIx_Info_directives_string(i->flags);

    fprintf(f, "Key: %.*s\tDirectives: %s\t", (int)sizeof(i->key), i->key, safe(dirs));
    free(dirs);
    put_value(f, pfx, &i->value);
}

static void put_topo(FILE *f, const pmix_topology_t *t)
{
    fprintf(f, "Source: %s", safe(t->source));
    if (t->topology != NULL && sy_from_hwloc(t->source)) {
        hwloc_topology_t h = t->topology;
        fprintf(
            f, "\tPackages: %d\tCores: %d\tPUs: %d", hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE),
            hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE), hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU));
    } else {
        fprintf(f, "\tTopology: %p", t->topology);
    }
}

static void put_cpuset(FILE *f, const pmix_cpuset_t *c)
{
    char *list = NULL;

    fprintf(f, "Source: %s\tBitmap: ", safe(c->source));
    if (c->bitmap != NULL && sy_from_hwloc(c->source) &&
        hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)c->bitmap) >= 0) {
        fputs(list, f);
        free(list);
    } else {
        fprintf(f, "%p", c->bitmap);
    }
}

static void put_tv(FILE *f, const struct timeval *tv)
{
    fprintf(f, "%ld.%06ld", (long)tv->tv_sec, (long)tv->tv_usec);
}

static void put_stats(FILE *f, const char *pfx, const void *elem, pmix_data_type_t type)
{
    switch (type) {
    case PMIX_PROC_STATS: {
        const pmix_proc_stats_t *p = elem;
        fprintf(f, "Node: %s\tProc: ", safe(p->node));
        put_proc(f, &p->proc);
        fprintf(f, "\tPID: %ld\tCmd: %s\tState: %c\tTime: ", (long)p->pid, safe(p->cmd),
                p->state ? p->state : '-');
        put_tv(f, &p->time);
        fprintf(f,
                "\tCPU: %f%%\tPriority: %" PRId32 "\tThreads: %u\tPSS: %f\tVSize: %f"
                "\tRSS: %f\tPeak VSize: %f\tProcessor: %u\tSampled: ",
                p->percent_cpu, p->priority, p->num_threads, p->pss, p->vsize, p->rss,
                p->peak_vsize, p->processor);
        put_tv(f, &p->sample_time);
        break;
    }
    case PMIX_DISK_STATS: {
        const pmix_disk_stats_t *d = elem;
        fprintf(f,
                "Disk: %s\tReads: %" PRIu64 "\tReads merged: %" PRIu64 "\tSectors read: %" PRIu64
                "\tms reading: %" PRIu64 "\tWrites: %" PRIu64 "\tWrites merged: %" PRIu64
                "\tSectors written: %" PRIu64 "\tms writing: %" PRIu64 "\tIOs in progress: %" PRIu64
                "\tms IO: %" PRIu64 "\tWeighted ms IO: %" PRIu64,
                safe(d->disk), d->num_reads_completed, d->num_reads_merged, d->num_sectors_read,
                d->milliseconds_reading, d->num_writes_completed, d->num_writes_merged,
                d->num_sectors_written, d->milliseconds_writing, d->num_ios_in_progress,
                d->milliseconds_io, d->weighted_milliseconds_io);
        break;
    }
    case PMIX_NET_STATS: {
        const pmix_net_stats_t *n = elem;
        fprintf(f,
                "Interface: %s\tBytes recvd: %" PRIu64 "\tPackets recvd: %" PRIu64
                "\tRecv errors: %" PRIu64 "\tBytes sent: %" PRIu64 "\tPackets sent: %" PRIu64
                "\tSend errors: %" PRIu64,
                safe(n->net_interface), n->num_bytes_recvd, n->num_packets_recvd, n->num_recv_errs,
                n->num_bytes_sent, n->num_packets_sent, n->num_send_errs);
        break;
    }
    default: {
        const pmix_node_stats_t *n = elem;
        fprintf(f,
                "Node: %s\tLoad: %f %f %f\tTotal mem: %f\tFree mem: %f\tBuffers: %f"
                "\tCached: %f\tSwap cached: %f\tSwap total: %f\tSwap free: %f\tMapped: %f"
                "\tSampled: ",
                safe(n->node), n->la, n->la5, n->la15, n->total_mem, n->free_mem, n->buffers,
                n->cached, n->swap_cached, n->swap_total, n->swap_free, n->mapped);
        put_tv(f, &n->sample_time);
        fprintf(f, "\tDisks: %zu\tNetworks: %zu", n->ndiskstats, n->nnetstats);
        put_array(f, pfx, n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
        put_array(f, pfx, n->netstats, n->nnetstats, PMIX_NET_STATS);
        break;
    }
    }
}

/* The "value" part of one element (no data type label). */
static void put_elem(FILE *f, const char *pfx, const void *elem, pmix_data_type_t type)
{
#define AS(ctype) (*(const ctype *)elem)
    switch (type) {
    case PMIX_BOOL: fputs(AS(bool) ? "True" : "False", f); break;
    case PMIX_BYTE: fprintf(f, "0x%02x", AS(uint8_t)); break;
    case PMIX_STRING:
    case PMIX_REGEX: fputs(safe(AS(char *)), f); break;
    case PMIX_SIZE: fprintf(f, "%zu", AS(size_t)); break;
    case PMIX_PID: fprintf(f, "%ld", (long)AS(pid_t)); break;
    case PMIX_INT: fprintf(f, "%d", AS(int)); break;
    case PMIX_INT8: fprintf(f, "%d", AS(int8_t)); break;
    case PMIX_INT16: fprintf(f, "%d", AS(int16_t)); break;
    case PMIX_INT32: fprintf(f, "%" PRId32, AS(int32_t)); break;
    case PMIX_INT64: fprintf(f, "%" PRId64, AS(int64_t)); break;
    case PMIX_UINT: fprintf(f, "%u", AS(unsigned int)); break;
    case PMIX_UINT8: fprintf(f, "%u", AS(uint8_t)); break;
    case PMIX_UINT16: fprintf(f, "%u", AS(uint16_t)); break;
    case PMIX_UINT32: fprintf(f, "%" PRIu32, AS(uint32_t)); break;
    case PMIX_UINT64: fprintf(f, "%" PRIu64, AS(uint64_t)); break;
    case PMIX_FLOAT: fprintf(f, "%f", AS(float)); break;
    case PMIX_DOUBLE: fprintf(f, "%f", AS(double)); break;
    case PMIX_TIMEVAL: put_tv(f, elem); break;
    case PMIX_TIME: fprintf(f, "%lld", (long long)AS(time_t)); break;
    case PMIX_STATUS:
        fprintf(f, "%s (%d)", safe(PMIx_Error_string(AS(pmix_status_t))), AS(pmix_status_t));
        break;
    case PMIX_PROC_RANK: put_rank(f, AS(pmix_rank_t)); break;
    case PMIX_PROC_NSPACE:
        fprintf(f, "%.*s", (int)sizeof(pmix_nspace_t), (const char *)elem);
        break;
    case PMIX_PROC: put_proc(f, elem); break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: {
        const pmix_byte_object_t *bo = elem;
        put_bytes(f, bo->bytes, bo->size);
        break;
    }
    case PMIX_PERSIST: fputs(safe(PMIx_Persistence_string(AS(pmix_persistence_t))), f); break;
    case PMIX_POINTER: fprintf(f, "%p", AS(void *)); break;
    case PMIX_SCOPE: fputs(safe(PMIx_Scope_string(AS(pmix_scope_t))), f); break;
    case PMIX_DATA_RANGE: fputs(safe(PMIx_Data_range_string(AS(pmix_data_range_t))), f); break;
    case PMIX_INFO_DIRECTIVES: {
        char *s = PMIx_Info_directives_string(AS(pmix_info_directives_t));
        fputs(safe(s), f);
        free(s);
        break;
    }
    case PMIX_DATA_TYPE: fputs(type_name(AS(pmix_data_type_t)), f); break;
    case PMIX_PROC_STATE: fputs(safe(PMIx_Proc_state_string(AS(pmix_proc_state_t))), f); break;
    case PMIX_JOB_STATE: fputs(safe(PMIx_Job_state_string(AS(pmix_job_state_t))), f); break;
    case PMIX_LINK_STATE: fputs(safe(PMIx_Link_state_string(AS(pmix_link_state_t))), f); break;
    case PMIX_ALLOC_DIRECTIVE:
        fputs(safe(PMIx_Alloc_directive_string(AS(pmix_alloc_directive_t))), f);
        break;
    case PMIX_IOF_CHANNEL: fputs(safe(PMIx_IOF_channel_string(AS(pmix_iof_channel_t))), f); break;
    case PMIX_DEVTYPE: fputs(safe(PMIx_Device_type_string(AS(pmix_device_type_t))), f); break;
    case PMIX_LOCTYPE: fprintf(f, "0x%04x", AS(pmix_locality_t)); break;
    case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS:
    case PMIX_STOR_PERSIST: fprintf(f, "0x%016" PRIx64, AS(uint64_t)); break;
    case PMIX_STOR_ACCESS_TYPE: fprintf(f, "0x%04x", AS(uint16_t)); break;
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *p = elem;
        fputs("Proc: ", f);
        put_proc(f, &p->proc);
        fprintf(f, "\tHost: %s\tExecutable: %s\tPID: %ld\tExit code: %d\tState: %s",
                safe(p->hostname), safe(p->executable_name), (long)p->pid, p->exit_code,
                safe(PMIx_Proc_state_string(p->state)));
        break;
    }
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *d = elem;
        fprintf(f, "Type: %s\tSize: %zu", type_name(d->type), d->size);
        put_array(f, pfx, d->array, d->size, d->type);
        break;
    }
    case PMIX_VALUE: put_value(f, pfx, elem); break;
    case PMIX_INFO: put_info(f, pfx, elem); break;
    case PMIX_PDATA: {
        const pmix_pdata_t *p = elem;
        fputs("Proc: ", f);
        put_proc(f, &p->proc);
        fprintf(f, "\tKey: %.*s\t", (int)sizeof(p->key), p->key);
        put_value(f, pfx, &p->value);
        break;
    }
    case PMIX_APP: {
        const pmix_app_t *a = elem;
        fprintf(f, "Cmd: %s\tArgv: ", safe(a->cmd));
        put_argv(f, a->argv);
        fputs("\tEnv: ", f);
        put_argv(f, a->env);
        fprintf(f, "\tCwd: %s\tMaxprocs: %d\tInfos: %zu", safe(a->cwd), a->maxprocs, a->ninfo);
        put_array(f, pfx, a->info, a->ninfo, PMIX_INFO);
        break;
    }
    case PMIX_QUERY: {
        const pmix_query_t *q = elem;
        fputs("Keys: ", f);
        put_argv(f, q->keys);
        fprintf(f, "\tQualifiers: %zu", q->nqual);
        put_array(f, pfx, q->qualifiers, q->nqual, PMIX_INFO);
        break;
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = elem;
        fprintf(f, "Name: %s\tString: %.*s\tType: %s\tDescription: ", safe(r->name),
                (int)sizeof(r->string), r->string, type_name(r->type));
        put_argv(f, r->description);
        break;
    }
    case PMIX_ENVAR: {
        const pmix_envar_t *e = elem;
        fprintf(f, "Name: %s\tValue: %s\tSeparator: %c", safe(e->envar), safe(e->value),
                e->separator ? e->separator : ' ');
        break;
    }
    case PMIX_COORD: put_coord(f, elem); break;
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = elem;
        fprintf(f, "Fabric: %zu\tUUID: %s\tOSname: %s\tCoordinates: %zu", g->fabric, safe(g->uuid),
                safe(g->osname), g->ncoords);
        put_array(f, pfx, g->coordinates, g->ncoords, PMIX_COORD);
        break;
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = elem;
        fprintf(f, "UUID: %s\tOSname: %s\tType: %s\tMinDist: %u\tMaxDist: %u", safe(d->uuid),
                safe(d->osname), safe(PMIx_Device_type_string(d->type)), d->mindist, d->maxdist);
        break;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *e = elem;
        fprintf(f, "UUID: %s\tOSname: %s\tEndpoint: ", safe(e->uuid), safe(e->osname));
        put_bytes(f, e->endpt.bytes, e->endpt.size);
        break;
    }
    case PMIX_TOPO: put_topo(f, elem); break;
    case PMIX_PROC_CPUSET: put_cpuset(f, elem); break;
    case PMIX_PROC_STATS:
    case PMIX_DISK_STATS:
    case PMIX_NET_STATS:
    case PMIX_NODE_STATS: put_stats(f, pfx, elem, type); break;
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *b = elem;
        size_t unread = 0;
        if (b->base_ptr != NULL && b->unpack_ptr != NULL && b->unpack_ptr >= b->base_ptr &&
            (size_t)(b->unpack_ptr - b->base_ptr) <= b->bytes_used) {
            unread = b->bytes_used - (size_t)(b->unpack_ptr - b->base_ptr);
        }
        fprintf(f, "Allocated: %zu\tUsed: %zu\tUnread: %zu", b->bytes_allocated, b->bytes_used,
                unread);
        break;
    }
    default: fprintf(f, "<unprintable type %u>", (unsigned)type); break;
    }
#undef AS
}

static void put_value(FILE *f, const char *pfx, const pmix_value_t *v)
{
    const void *elem = sy_value_elem(v);

    fprintf(f, "Data type: %s\tValue: ", type_name(v->type));
    if (v->type == PMIX_UNDEF) {
        fputs("UNDEF", f);
    } else if (v->type == PMIX_REGEX && v->data.bo.size > 0 && v->data.bo.bytes != NULL &&
               memchr(v->data.bo.bytes, '\0', v->data.bo.size) !=
                   v->data.bo.bytes + v->data.bo.size - 1) {
        /* a binary (e.g. compressed) regex, not one terminated string */
        put_bytes(f, v->data.bo.bytes, v->data.bo.size);
    } else if (elem == NULL) {
        fputs(sy_type_size(v->type) == 0 ? "<unprintable>" : "NULL", f);
    } else {
        put_elem(f, pfx, elem, v->type);
    }
}

/* Finish an open_memstream string; NULL if anything failed. */
static char *close_stream(FILE *f, char **buf)
{
    bool failed = ferror(f);

    if (fclose(f) != 0 || failed) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

PMIX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src,
                                          pmix_data_type_t type)
{
    const char *pfx = prefix == NULL ? "" : prefix;
    const void *elem = src;
    char *buf = NULL;
    size_t len;
    FILE *f;

    if (output == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *output = NULL;
    if (sy_type_size(type) == 0) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    /* strings and pointers are passed as themselves, the rest by address */
    if (type == PMIX_STRING || type == PMIX_REGEX || type == PMIX_POINTER) {
        elem = &src;
    } else if (src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((f = open_memstream(&buf, &len)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    fprintf(f, "%sData type: %s\tValue: ", pfx, type_name(type));
    put_elem(f, pfx, elem, type);
    *output = close_stream(f, &buf);
    return *output == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

PMIX_EXPORT char *PMIx_Value_string(const pmix_value_t *value)
{
    char *buf = NULL;
    size_t len;
    FILE *f;

    if ((f = open_memstream(&buf, &len)) == NULL) {
        return NULL;
    }
    if (value == NULL) {
        fputs("PMIX_VALUE: NULL", f);
    } else {
        fputs("PMIX_VALUE: ", f);
        put_value(f, "", value);
    }
    return close_stream(f, &buf);
}

PMIX_EXPORT char *PMIx_Info_string(const pmix_info_t *info)
{
    char *buf = NULL;
    size_t len;
    FILE *f;

    if ((f = open_memstream(&buf, &len)) == NULL) {
        return NULL;
    }
    if (info == NULL) {
        fputs("PMIX_INFO: NULL", f);
    } else {
        put_info(f, "", info);
    }
    return close_stream(f, &buf);
}
