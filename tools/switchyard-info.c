/*
 * switchyard-info: print what this libpmix is, how it was built and which
 * PMIx data types it knows.  Like OpenPMIx's pmix_info, it is the quickest
 * check that the installed library loads and answers.
 *
 * Uses only the public API (it links libpmix.so.2, not the internal
 * convenience library); the build facts come from config.h, which configure
 * fills from the compiler and `pkg-config --modversion`.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <pmix.h>

static void print_build(void)
{
    printf("Build:\n");
    printf("  %-18s %s\n", "compiler", SWITCHYARD_CC);
    printf("  %-18s %s\n", "compiler version", SWITCHYARD_CC_VERSION);
    printf("  %-18s %s\n", "CFLAGS", SWITCHYARD_CFLAGS);
    printf("  %-18s %s\n", "sanitizers", SWITCHYARD_SANITIZERS);
    printf("Dependencies (pkg-config --modversion at configure time):\n");
    printf("  %-18s %s\n", "hwloc", SWITCHYARD_HWLOC_VERSION);
    printf("  %-18s %s\n", "libfabric", SWITCHYARD_LIBFABRIC_VERSION);
    printf("  %-18s %s\n", "libevent_core", SWITCHYARD_LIBEVENT_CORE_VERSION);
    printf("  %-18s %s\n", "libevent_pthreads", SWITCHYARD_LIBEVENT_PTHREADS_VERSION);
    printf("  %-18s %s\n", "igraph", SWITCHYARD_IGRAPH_VERSION);
    printf("  %-18s %s\n", "zlib", SWITCHYARD_ZLIB_VERSION);
}

/* Every numeric value from PMIX_BOOL to PMIX_STOR_ACCESS_TYPE, named by the
 * library itself; gaps in the numbering show up as whatever the library
 * says for an unknown type. */
static void print_types(void)
{
    printf("Data types (%d..%d):\n", (int)PMIX_BOOL, (int)PMIX_STOR_ACCESS_TYPE);
    for (int t = PMIX_BOOL; t <= PMIX_STOR_ACCESS_TYPE; t++) {
        const char *name = PMIx_Data_type_string((pmix_data_type_t)t);
        printf("  %3d  %s\n", t, name ? name : "(null)");
    }
}

int main(void)
{
    const char *version = PMIx_Get_version();

    printf("Switchyard %s\n", PACKAGE_VERSION);
    printf("PMIx_Get_version(): %s\n", version ? version : "(null)");
    /* OpenPMIx has the same SONAME and may be installed too: make sure the
     * dynamic linker gave us ours before describing it. */
    if (version == NULL || strstr(version, "Switchyard") == NULL) {
        fprintf(stderr, "switchyard-info: the libpmix.so.2 loaded is not Switchyard's "
                        "(check LD_LIBRARY_PATH / ldconfig)\n");
        return 1;
    }
    print_build();
    print_types();
    return 0;
}
