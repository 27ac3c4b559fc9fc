/* PMIx_Compute_distances for tests/external/interop.sh, built against
 * OpenPMIx 4.2.2 and against ours, run side by side under our server.
 * Both pass the same topology (this machine, discovered here with its I/O
 * devices) and cpuset (argv[1], an hwloc list) and ask for block devices.
 * 4.2.2's client cannot measure those itself (its distances skip them), so
 * when the cpuset is one its library can pack, which in 4.2.2 means an
 * empty one (docs/wire-protocol.md), it sends COMPUTE_DEVICE_DISTANCES to
 * the server; ours computes them in the process.  Prints "DIST <rank> rc
 * <status> n <count>" then per device "DIST <rank> <osname> <uuid> <type>
 * <min> <max>".  argv[2], if given: ask for that device id only. */
#include <stdio.h>
#include <stdlib.h>

#include <hwloc.h>
#include <pmix.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "usage: opx_dist CPULIST [DEVICE-ID], under a PMIx server\n");
        return 1;
    }
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0 ||
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
        hwloc_topology_load(t) != 0) {
        fprintf(stderr, "opx_dist: hwloc cannot load this machine\n");
        return 1;
    }
    pmix_topology_t topo = {.source = "hwloc", .topology = t};
    pmix_cpuset_t cpus = {.source = "hwloc", .bitmap = hwloc_bitmap_alloc()};
    hwloc_bitmap_list_sscanf(cpus.bitmap, argv[1]);
    pmix_info_t info[2];
    pmix_device_type_t block = PMIX_DEVTYPE_BLOCK;
    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_TYPE, &block, PMIX_DEVTYPE);
    size_t ninfo = 1;
    if (argc > 2)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_DEVICE_ID, argv[2], PMIX_STRING);
    pmix_device_distance_t *d = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Compute_distances(&topo, &cpus, info, ninfo, &d, &n);
    printf("DIST %u rc %s n %zu\n", me.rank, PMIx_Error_string(rc), n);
    for (size_t i = 0; i < n; i++)
        printf("DIST %u %s %s %llu %u %u\n", me.rank, d[i].osname, d[i].uuid,
               (unsigned long long)d[i].type, d[i].mindist, d[i].maxdist);
    fflush(stdout);
    if (d != NULL)
        PMIX_DEVICE_DIST_FREE(d, n);
    hwloc_bitmap_free(cpus.bitmap);
    hwloc_topology_destroy(t);
    PMIx_Finalize(NULL, 0);
    return 0;
}
