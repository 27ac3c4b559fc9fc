# Generate src/common/attr_table.inc from include/pmix_attributes.h.
#
# Every object-like `#define PMIX_NAME value` becomes
#     SY_ATTR(PMIX_NAME, PMIX_<type>)
# so that attr_table.c takes the key string from the macro itself (through
# the preprocessor) and only the value type comes from here, read off the
# trailing `/* type */` comment.  Running this at build time keeps the table
# from ever drifting away from the header.
#
# It also defines SY_ATTR_UNMAPPED_TYPES, the number of type comments it
# could not map (they get PMIX_UNDEF); the unit test requires 0.
#
# Usage: awk -f attr_table.awk include/pmix_attributes.h > attr_table.inc

BEGIN {
    # C type named in the header comment -> pmix_data_type_t constant.
    # Types with no PMIx data type of their own (void, "varies", NULL)
    # map to PMIX_UNDEF, meaning "not fixed by the attribute".
    t["bool"] = "PMIX_BOOL"
    t["char*"] = "PMIX_STRING"
    t["string"] = "PMIX_STRING"
    t["size_t"] = "PMIX_SIZE"
    t["pid_t"] = "PMIX_PID"
    t["int"] = "PMIX_INT"
    t["int8_t"] = "PMIX_INT8"
    t["int16_t"] = "PMIX_INT16"
    t["int32_t"] = "PMIX_INT32"
    t["int64_t"] = "PMIX_INT64"
    t["unsignedint"] = "PMIX_UINT"
    t["uint8_t"] = "PMIX_UINT8"
    t["uint16_t"] = "PMIX_UINT16"
    t["uint32_t"] = "PMIX_UINT32"
    t["uint64_t"] = "PMIX_UINT64"
    t["float"] = "PMIX_FLOAT"
    t["double"] = "PMIX_DOUBLE"
    t["structtimeval"] = "PMIX_TIMEVAL"
    t["time_t"] = "PMIX_TIME"
    t["pmix_status_t"] = "PMIX_STATUS"
    t["pmix_value_t"] = "PMIX_VALUE"
    t["pmix_value_t*"] = "PMIX_VALUE"
    t["pmix_proc_t"] = "PMIX_PROC"
    t["pmix_proc_t*"] = "PMIX_PROC"
    t["pmix_app_t"] = "PMIX_APP"
    t["pmix_info_t"] = "PMIX_INFO"
    t["pmix_info_t*"] = "PMIX_INFO"
    t["pmix_byte_object_t"] = "PMIX_BYTE_OBJECT"
    t["pmix_persistence_t"] = "PMIX_PERSIST"
    t["void*"] = "PMIX_POINTER"
    t["pointer"] = "PMIX_POINTER"
    t["hwloc_topology_t"] = "PMIX_POINTER"
    t["pmix_scope_t"] = "PMIX_SCOPE"
    t["pmix_data_range_t"] = "PMIX_DATA_RANGE"
    t["pmix_info_directives_t"] = "PMIX_INFO_DIRECTIVES"
    t["pmix_data_type_t"] = "PMIX_DATA_TYPE"
    t["pmix_proc_state_t"] = "PMIX_PROC_STATE"
    t["pmix_proc_info_t"] = "PMIX_PROC_INFO"
    t["pmix_data_array_t"] = "PMIX_DATA_ARRAY"
    t["pmix_data_array_t*"] = "PMIX_DATA_ARRAY"
    t["array"] = "PMIX_DATA_ARRAY"
    t["pmix_proc_tarray"] = "PMIX_DATA_ARRAY"
    t["pmix_rank_t"] = "PMIX_PROC_RANK"
    t["pmix_query_t"] = "PMIX_QUERY"
    t["pmix_alloc_directive_t"] = "PMIX_ALLOC_DIRECTIVE"
    t["pmix_iof_channel_t"] = "PMIX_IOF_CHANNEL"
    t["pmix_envar_t"] = "PMIX_ENVAR"
    t["pmix_envar_t*"] = "PMIX_ENVAR"
    t["pmix_coord_t"] = "PMIX_COORD"
    t["pmix_coord_t*"] = "PMIX_COORD"
    t["pmix_regattr_t"] = "PMIX_REGATTR"
    t["pmix_job_state_t"] = "PMIX_JOB_STATE"
    t["pmix_link_state_t"] = "PMIX_LINK_STATE"
    t["pmix_cpuset_t"] = "PMIX_PROC_CPUSET"
    t["pmix_cpuset_t*"] = "PMIX_PROC_CPUSET"
    t["pmix_geometry_t"] = "PMIX_GEOMETRY"
    t["pmix_device_distance_t"] = "PMIX_DEVICE_DIST"
    t["pmix_endpoint_t"] = "PMIX_ENDPOINT"
    t["pmix_topology_t"] = "PMIX_TOPO"
    t["pmix_topology_t*"] = "PMIX_TOPO"
    t["pmix_device_type_t"] = "PMIX_DEVTYPE"
    t["pmix_locality_t"] = "PMIX_LOCTYPE"
    t["pmix_nspace_t"] = "PMIX_PROC_NSPACE"
    t["pmix_proc_stats_t"] = "PMIX_PROC_STATS"
    t["pmix_disk_stats_t"] = "PMIX_DISK_STATS"
    t["pmix_net_stats_t"] = "PMIX_NET_STATS"
    t["pmix_node_stats_t"] = "PMIX_NODE_STATS"
    t["pmix_data_buffer_t"] = "PMIX_DATA_BUFFER"
    t["pmix_storage_medium_t"] = "PMIX_STOR_MEDIUM"
    t["pmix_storage_accessibility_t"] = "PMIX_STOR_ACCESS"
    t["pmix_storage_persistence_t"] = "PMIX_STOR_PERSIST"
    t["pmix_storage_access_type_t"] = "PMIX_STOR_ACCESS_TYPE"
    t["void"] = "PMIX_UNDEF"
    t["varies"] = "PMIX_UNDEF"
    t["NULL"] = "PMIX_UNDEF"
    unmapped = 0
}

# Object-like defines with a value; skips the include guard and any
# function-like macro.
/^[ \t]*#[ \t]*define[ \t]+PMIX_[A-Za-z0-9_]+[ \t]+[^ \t]/ {
    line = $0
    sub(/^[ \t]*#[ \t]*define[ \t]+/, "", line)
    name = line
    sub(/[ \t].*$/, "", name)
    type = "PMIX_UNDEF"
    if (match(line, /\/\*.*\*\//)) {
        c = substr(line, RSTART + 2, RLENGTH - 4)
        # "refstruct{T}" (a Standard cross-reference) means T.
        gsub(/refstruct\{|\}/, "", c)
        gsub(/[ \t]/, "", c)
        if (c in t) {
            type = t[c]
        } else {
            # Not fatal, so a new type in the header cannot break everyone's
            # build; tests/unit/test_strings fails on the count instead.
            printf("attr_table.awk: warning: %s: unknown type comment '%s'\n", name, c) > "/dev/stderr"
            unmapped++
        }
    }
    printf("SY_ATTR(%s, %s)\n", name, type)
}

END { printf("#define SY_ATTR_UNMAPPED_TYPES %d\n", unmapped) }
