/*
 * Switchyard -- numeric constants of the PMIx Standard v5.0 API.
 *
 * Names follow the PMIx Standard; the values are those of OpenPMIx 4.2.2,
 * which compiled programs (Open MPI, Slurm, python3-pmix) carry in their
 * binaries.  tests/abi compares every one of them against OpenPMIx 4.2.2.
 * Include <pmix_common.h> rather than this file.
 */
#ifndef PMIX_CONSTANTS_H
#define PMIX_CONSTANTS_H

/* Sizes of the fixed-length name strings */
#define PMIX_MAX_NSLEN   255
#define PMIX_MAX_KEYLEN  511

/* Rank sentinels (pmix_rank_t) and the application wildcard */
#define PMIX_RANK_VALID        (UINT32_MAX - 50)
#define PMIX_RANK_LOCAL_PEERS  (UINT32_MAX - 4)
#define PMIX_RANK_INVALID      (UINT32_MAX - 3)
#define PMIX_RANK_LOCAL_NODE   (UINT32_MAX - 2)
#define PMIX_RANK_WILDCARD     (UINT32_MAX - 1)
#define PMIX_APP_WILDCARD      UINT32_MAX
#define PMIX_RANK_UNDEF        UINT32_MAX

/* pmix_info_t flags and reserved directive bits (pmix_info_directives_t) */
#define PMIX_INFO_REQD            0x00000001
#define PMIX_INFO_ARRAY_END       0x00000002
#define PMIX_INFO_REQD_PROCESSED  0x00000004
#define PMIX_INFO_QUALIFIER       0x00000008
#define PMIX_INFO_PERSISTENT      0x00000010
#define PMIX_INFO_DIR_RESERVED    0xffff0000

/* Data scope for PMIx_Put (pmix_scope_t) */
#define PMIX_SCOPE_UNDEF  0
#define PMIX_LOCAL        1
#define PMIX_REMOTE       2
#define PMIX_GLOBAL       3
#define PMIX_INTERNAL     4

/* Data ranges (pmix_data_range_t) */
#define PMIX_RANGE_UNDEF       0
#define PMIX_RANGE_RM          1
#define PMIX_RANGE_LOCAL       2
#define PMIX_RANGE_NAMESPACE   3
#define PMIX_RANGE_SESSION     4
#define PMIX_RANGE_GLOBAL      5
#define PMIX_RANGE_CUSTOM      6
#define PMIX_RANGE_PROC_LOCAL  7
#define PMIX_RANGE_INVALID     255

/* Persistence of published data (pmix_persistence_t) */
#define PMIX_PERSIST_INDEF       0
#define PMIX_PERSIST_FIRST_READ  1
#define PMIX_PERSIST_PROC        2
#define PMIX_PERSIST_APP         3
#define PMIX_PERSIST_SESSION     4
#define PMIX_PERSIST_INVALID     255

/* Allocation directives (pmix_alloc_directive_t) */
#define PMIX_ALLOC_NEW       1
#define PMIX_ALLOC_EXTEND    2
#define PMIX_ALLOC_RELEASE   3
#define PMIX_ALLOC_REAQUIRE  4
#define PMIX_ALLOC_EXTERNAL  128

/* I/O forwarding channels (pmix_iof_channel_t) */
#define PMIX_FWD_NO_CHANNELS      0x0000
#define PMIX_FWD_STDIN_CHANNEL    0x0001
#define PMIX_FWD_STDOUT_CHANNEL   0x0002
#define PMIX_FWD_STDERR_CHANNEL   0x0004
#define PMIX_FWD_STDDIAG_CHANNEL  0x0008
#define PMIX_FWD_ALL_CHANNELS     0x00ff

/* Process states (pmix_proc_state_t) */
#define PMIX_PROC_STATE_UNDEF                  0
#define PMIX_PROC_STATE_PREPPED                1
#define PMIX_PROC_STATE_LAUNCH_UNDERWAY        2
#define PMIX_PROC_STATE_RESTART                3
#define PMIX_PROC_STATE_TERMINATE              4
#define PMIX_PROC_STATE_RUNNING                5
#define PMIX_PROC_STATE_CONNECTED              6
#define PMIX_PROC_STATE_UNTERMINATED           15
#define PMIX_PROC_STATE_TERMINATED             20
#define PMIX_PROC_STATE_ERROR                  50
#define PMIX_PROC_STATE_KILLED_BY_CMD          51
#define PMIX_PROC_STATE_ABORTED                52
#define PMIX_PROC_STATE_FAILED_TO_START        53
#define PMIX_PROC_STATE_ABORTED_BY_SIG         54
#define PMIX_PROC_STATE_TERM_WO_SYNC           55
#define PMIX_PROC_STATE_COMM_FAILED            56
#define PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED  57
#define PMIX_PROC_STATE_CALLED_ABORT           58
#define PMIX_PROC_STATE_HEARTBEAT_FAILED       59
#define PMIX_PROC_STATE_MIGRATING              60
#define PMIX_PROC_STATE_CANNOT_RESTART         61
#define PMIX_PROC_STATE_TERM_NON_ZERO          62
#define PMIX_PROC_STATE_FAILED_TO_LAUNCH       63

/* Job states (pmix_job_state_t) */
#define PMIX_JOB_STATE_UNDEF                  0
#define PMIX_JOB_STATE_AWAITING_ALLOC         1
#define PMIX_JOB_STATE_PREPPED                1
#define PMIX_JOB_STATE_LAUNCH_UNDERWAY        2
#define PMIX_JOB_STATE_RUNNING                3
#define PMIX_JOB_STATE_SUSPENDED              4
#define PMIX_JOB_STATE_CONNECTED              5
#define PMIX_JOB_STATE_UNTERMINATED           15
#define PMIX_JOB_STATE_TERMINATED             20
#define PMIX_JOB_STATE_TERMINATED_WITH_ERROR  50

/* Fabric link states (pmix_link_state_t) */
#define PMIX_LINK_STATE_UNKNOWN  0
#define PMIX_LINK_DOWN           1
#define PMIX_LINK_UP             2

/* Coordinate views (pmix_coord_view_t) */
#define PMIX_COORD_VIEW_UNDEF     0x00
#define PMIX_COORD_LOGICAL_VIEW   0x01
#define PMIX_COORD_PHYSICAL_VIEW  0x02

/* Relative locality bits (pmix_locality_t) */
#define PMIX_LOCALITY_UNKNOWN         0x0000
#define PMIX_LOCALITY_SHARE_HWTHREAD  0x0001
#define PMIX_LOCALITY_SHARE_CORE      0x0002
#define PMIX_LOCALITY_SHARE_L1CACHE   0x0004
#define PMIX_LOCALITY_SHARE_L2CACHE   0x0008
#define PMIX_LOCALITY_SHARE_L3CACHE   0x0010
#define PMIX_LOCALITY_SHARE_PACKAGE   0x0020
#define PMIX_LOCALITY_SHARE_NUMA      0x0040
#define PMIX_LOCALITY_SHARE_NODE      0x4000
#define PMIX_LOCALITY_NONLOCAL        0x8000

/* Device types (pmix_device_type_t) */
#define PMIX_DEVTYPE_UNKNOWN      0x00
#define PMIX_DEVTYPE_BLOCK        0x01
#define PMIX_DEVTYPE_GPU          0x02
#define PMIX_DEVTYPE_NETWORK      0x04
#define PMIX_DEVTYPE_OPENFABRICS  0x08
#define PMIX_DEVTYPE_DMA          0x10
#define PMIX_DEVTYPE_COPROC       0x20

/* Binding envelopes (pmix_bind_envelope_t) */
#define PMIX_CPUBIND_PROCESS  0
#define PMIX_CPUBIND_THREAD   1

/* Storage media, accessibility, persistence and access types */
#define PMIX_STORAGE_ACCESSIBILITY_NODE     0x0000000000000001
#define PMIX_STORAGE_ACCESSIBILITY_SESSION  0x0000000000000002
#define PMIX_STORAGE_ACCESSIBILITY_JOB      0x0000000000000004
#define PMIX_STORAGE_ACCESSIBILITY_RACK     0x0000000000000008
#define PMIX_STORAGE_ACCESSIBILITY_CLUSTER  0x0000000000000010
#define PMIX_STORAGE_ACCESSIBILITY_REMOTE   0x0000000000000020
#define PMIX_STORAGE_ACCESS_RD              0x0001
#define PMIX_STORAGE_ACCESS_WR              0x0002
#define PMIX_STORAGE_ACCESS_RDWR            0x0003
#define PMIX_STORAGE_MEDIUM_UNKNOWN         0x0000000000000001
#define PMIX_STORAGE_MEDIUM_TAPE            0x0000000000000002
#define PMIX_STORAGE_MEDIUM_HDD             0x0000000000000004
#define PMIX_STORAGE_MEDIUM_SSD             0x0000000000000008
#define PMIX_STORAGE_MEDIUM_NVME            0x0000000000000010
#define PMIX_STORAGE_MEDIUM_PMEM            0x0000000000000020
#define PMIX_STORAGE_MEDIUM_RAM             0x0000000000000040
#define PMIX_STORAGE_PERSISTENCE_TEMPORARY  0x0000000000000001
#define PMIX_STORAGE_PERSISTENCE_NODE       0x0000000000000002
#define PMIX_STORAGE_PERSISTENCE_SESSION    0x0000000000000004
#define PMIX_STORAGE_PERSISTENCE_JOB        0x0000000000000008
#define PMIX_STORAGE_PERSISTENCE_SCRATCH    0x0000000000000010
#define PMIX_STORAGE_PERSISTENCE_PROJECT    0x0000000000000020
#define PMIX_STORAGE_PERSISTENCE_ARCHIVE    0x0000000000000040

/* Data types (pmix_data_type_t) */
#define PMIX_UNDEF                   0
#define PMIX_BOOL                    1
#define PMIX_BYTE                    2
#define PMIX_STRING                  3
#define PMIX_SIZE                    4
#define PMIX_PID                     5
#define PMIX_INT                     6
#define PMIX_INT8                    7
#define PMIX_INT16                   8
#define PMIX_INT32                   9
#define PMIX_INT64                   10
#define PMIX_UINT                    11
#define PMIX_UINT8                   12
#define PMIX_UINT16                  13
#define PMIX_UINT32                  14
#define PMIX_UINT64                  15
#define PMIX_FLOAT                   16
#define PMIX_DOUBLE                  17
#define PMIX_TIMEVAL                 18
#define PMIX_TIME                    19
#define PMIX_STATUS                  20
#define PMIX_VALUE                   21
#define PMIX_PROC                    22
#define PMIX_APP                     23
#define PMIX_INFO                    24
#define PMIX_PDATA                   25
#define PMIX_BUFFER                  26
#define PMIX_BYTE_OBJECT             27
#define PMIX_KVAL                    28
#define PMIX_PERSIST                 30
#define PMIX_POINTER                 31
#define PMIX_SCOPE                   32
#define PMIX_DATA_RANGE              33
#define PMIX_COMMAND                 34
#define PMIX_INFO_DIRECTIVES         35
#define PMIX_DATA_TYPE               36
#define PMIX_PROC_STATE              37
#define PMIX_PROC_INFO               38
#define PMIX_DATA_ARRAY              39
#define PMIX_PROC_RANK               40
#define PMIX_QUERY                   41
#define PMIX_COMPRESSED_STRING       42
#define PMIX_ALLOC_DIRECTIVE         43
#define PMIX_IOF_CHANNEL             45
#define PMIX_ENVAR                   46
#define PMIX_COORD                   47
#define PMIX_REGATTR                 48
#define PMIX_REGEX                   49
#define PMIX_JOB_STATE               50
#define PMIX_LINK_STATE              51
#define PMIX_PROC_CPUSET             52
#define PMIX_GEOMETRY                53
#define PMIX_DEVICE_DIST             54
#define PMIX_ENDPOINT                55
#define PMIX_TOPO                    56
#define PMIX_DEVTYPE                 57
#define PMIX_LOCTYPE                 58
#define PMIX_COMPRESSED_BYTE_OBJECT  59
#define PMIX_PROC_NSPACE             60
#define PMIX_PROC_STATS              61
#define PMIX_DISK_STATS              62
#define PMIX_NET_STATS               63
#define PMIX_NODE_STATS              64
#define PMIX_DATA_BUFFER             65
#define PMIX_STOR_MEDIUM             66
#define PMIX_STOR_ACCESS             67
#define PMIX_STOR_PERSIST            68
#define PMIX_STOR_ACCESS_TYPE        69
#define PMIX_DATA_TYPE_MAX           500

/* Status and event codes (pmix_status_t) */
#define PMIX_SUCCESS                             0
#define PMIX_ERROR                               (-1)
#define PMIX_ERR_SILENT                          (-2)
#define PMIX_DEBUGGER_RELEASE                    (-3)
#define PMIX_ERR_DEBUGGER_RELEASE                (-3)
#define PMIX_ERR_PROC_RESTART                    (-4)
#define PMIX_ERR_PROC_CHECKPOINT                 (-5)
#define PMIX_ERR_PROC_MIGRATE                    (-6)
#define PMIX_ERR_PROC_ABORTED                    (-7)
#define PMIX_ERR_PROC_REQUESTED_ABORT            (-8)
#define PMIX_ERR_PROC_ABORTING                   (-9)
#define PMIX_ERR_SERVER_FAILED_REQUEST           (-10)
#define PMIX_ERR_EXISTS                          (-11)
#define PMIX_EXISTS                              (-11)
#define PMIX_ERR_INVALID_CRED                    (-12)
#define PMIX_ERR_HANDSHAKE_FAILED                (-13)
#define PMIX_ERR_READY_FOR_HANDSHAKE             (-14)
#define PMIX_ERR_WOULD_BLOCK                     (-15)
#define PMIX_ERR_UNKNOWN_DATA_TYPE               (-16)
#define PMIX_ERR_PROC_ENTRY_NOT_FOUND            (-17)
#define PMIX_ERR_TYPE_MISMATCH                   (-18)
#define PMIX_ERR_UNPACK_INADEQUATE_SPACE         (-19)
#define PMIX_ERR_UNPACK_FAILURE                  (-20)
#define PMIX_ERR_PACK_FAILURE                    (-21)
#define PMIX_ERR_PACK_MISMATCH                   (-22)
#define PMIX_ERR_NO_PERMISSIONS                  (-23)
#define PMIX_ERR_TIMEOUT                         (-24)
#define PMIX_ERR_UNREACH                         (-25)
#define PMIX_ERR_IN_ERRNO                        (-26)
#define PMIX_ERR_BAD_PARAM                       (-27)
#define PMIX_ERR_RESOURCE_BUSY                   (-28)
#define PMIX_ERR_OUT_OF_RESOURCE                 (-29)
#define PMIX_ERR_DATA_VALUE_NOT_FOUND            (-30)
#define PMIX_ERR_INIT                            (-31)
#define PMIX_ERR_NOMEM                           (-32)
#define PMIX_ERR_INVALID_ARG                     (-33)
#define PMIX_ERR_INVALID_KEY                     (-34)
#define PMIX_ERR_INVALID_KEY_LENGTH              (-35)
#define PMIX_ERR_INVALID_VAL                     (-36)
#define PMIX_ERR_INVALID_VAL_LENGTH              (-37)
#define PMIX_ERR_INVALID_LENGTH                  (-38)
#define PMIX_ERR_INVALID_NUM_ARGS                (-39)
#define PMIX_ERR_INVALID_ARGS                    (-40)
#define PMIX_ERR_INVALID_NUM_PARSED              (-41)
#define PMIX_ERR_INVALID_KEYVALP                 (-42)
#define PMIX_ERR_INVALID_SIZE                    (-43)
#define PMIX_ERR_INVALID_NAMESPACE               (-44)
#define PMIX_ERR_SERVER_NOT_AVAIL                (-45)
#define PMIX_ERR_NOT_FOUND                       (-46)
#define PMIX_ERR_NOT_SUPPORTED                   (-47)
#define PMIX_ERR_NOT_IMPLEMENTED                 (-48)
#define PMIX_ERR_COMM_FAILURE                    (-49)
#define PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER  (-50)
#define PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES  (-51)
#define PMIX_ERR_PARTIAL_SUCCESS                 (-52)
#define PMIX_ERR_DUPLICATE_KEY                   (-53)
#define PMIX_PROCESS_SET_DEFINE                  (-55)
#define PMIX_PROCESS_SET_DELETE                  (-56)
#define PMIX_DEBUG_WAITING_FOR_NOTIFY            (-58)
#define PMIX_READY_FOR_DEBUG                     (-58)
#define PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED       (-59)
#define PMIX_ERR_EMPTY                           (-60)
#define PMIX_ERR_LOST_CONNECTION                 (-61)
#define PMIX_ERR_EXISTS_OUTSIDE_SCOPE            (-62)
#define PMIX_ERR_FATAL                           (-63)
#define PMIX_ERR_NOT_AVAILABLE                   (-64)
#define PMIX_ERR_VALUE_OUT_OF_BOUNDS             (-65)
#define PMIX_ERR_FILE_OPEN_FAILURE               (-67)
#define PMIX_ERR_FILE_READ_FAILURE               (-68)
#define PMIX_ERR_FILE_WRITE_FAILURE              (-69)
#define PMIX_ERR_SYS_LIMITS_PIPES                (-70)
#define PMIX_ERR_SYS_LIMITS_CHILDREN             (-71)
#define PMIX_ERR_PIPE_SETUP_FAILURE              (-72)
#define PMIX_ERR_EXE_NOT_ACCESSIBLE              (-73)
#define PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE         (-74)
#define PMIX_ERR_SYS_LIMITS_FILES                (-75)
#define PMIX_ERR_LOST_CONNECTION_TO_SERVER       (-101)
#define PMIX_ERR_LOST_PEER_CONNECTION            (-102)
#define PMIX_ERR_LOST_CONNECTION_TO_CLIENT       (-103)
#define PMIX_QUERY_PARTIAL_SUCCESS               (-104)
#define PMIX_NOTIFY_ALLOC_COMPLETE               (-105)
#define PMIX_JCTRL_CHECKPOINT                    (-106)
#define PMIX_JCTRL_CHECKPOINT_COMPLETE           (-107)
#define PMIX_JCTRL_PREEMPT_ALERT                 (-108)
#define PMIX_MONITOR_HEARTBEAT_ALERT             (-109)
#define PMIX_MONITOR_FILE_ALERT                  (-110)
#define PMIX_PROC_TERMINATED                     (-111)
#define PMIX_ERR_INVALID_TERMINATION             (-112)
#define PMIX_FABRIC_UPDATE_ENDPOINTS             (-113)
#define PMIX_ERR_EVENT_REGISTRATION              (-144)
#define PMIX_ERR_JOB_TERMINATED                  (-145)
#define PMIX_EVENT_JOB_END                       (-145)
#define PMIX_ERR_UPDATE_ENDPOINTS                (-146)
#define PMIX_MODEL_DECLARED                      (-147)
#define PMIX_GDS_ACTION_COMPLETE                 (-148)
#define PMIX_PROC_HAS_CONNECTED                  (-149)
#define PMIX_CONNECT_REQUESTED                   (-150)
#define PMIX_MODEL_RESOURCES                     (-151)
#define PMIX_OPENMP_PARALLEL_ENTERED             (-152)
#define PMIX_OPENMP_PARALLEL_EXITED              (-153)
#define PMIX_LAUNCHER_READY                      (-155)
#define PMIX_OPERATION_IN_PROGRESS               (-156)
#define PMIX_OPERATION_SUCCEEDED                 (-157)
#define PMIX_ERR_INVALID_OPERATION               (-158)
#define PMIX_GROUP_INVITED                       (-159)
#define PMIX_GROUP_LEFT                          (-160)
#define PMIX_GROUP_INVITE_ACCEPTED               (-161)
#define PMIX_GROUP_INVITE_DECLINED               (-162)
#define PMIX_GROUP_INVITE_FAILED                 (-163)
#define PMIX_GROUP_MEMBERSHIP_UPDATE             (-164)
#define PMIX_GROUP_CONSTRUCT_ABORT               (-165)
#define PMIX_GROUP_CONSTRUCT_COMPLETE            (-166)
#define PMIX_GROUP_LEADER_SELECTED               (-167)
#define PMIX_GROUP_LEADER_FAILED                 (-168)
#define PMIX_GROUP_CONTEXT_ID_ASSIGNED           (-169)
#define PMIX_GROUP_MEMBER_FAILED                 (-170)
#define PMIX_ERR_REPEAT_ATTR_REGISTRATION        (-171)
#define PMIX_ERR_IOF_FAILURE                     (-172)
#define PMIX_ERR_IOF_COMPLETE                    (-173)
#define PMIX_LAUNCH_COMPLETE                     (-174)
#define PMIX_FABRIC_UPDATED                      (-175)
#define PMIX_FABRIC_UPDATE_PENDING               (-176)
#define PMIX_ERR_JOB_APP_NOT_EXECUTABLE          (-177)
#define PMIX_ERR_JOB_NO_EXE_SPECIFIED            (-178)
#define PMIX_ERR_JOB_FAILED_TO_MAP               (-179)
#define PMIX_ERR_JOB_CANCELED                    (-180)
#define PMIX_ERR_JOB_FAILED_TO_LAUNCH            (-181)
#define PMIX_ERR_JOB_ABORTED                     (-182)
#define PMIX_ERR_JOB_KILLED_BY_CMD               (-183)
#define PMIX_ERR_JOB_ABORTED_BY_SIG              (-184)
#define PMIX_ERR_JOB_TERM_WO_SYNC                (-185)
#define PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED       (-186)
#define PMIX_ERR_JOB_NON_ZERO_TERM               (-187)
#define PMIX_ERR_JOB_ALLOC_FAILED                (-188)
#define PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT        (-189)
#define PMIX_ERR_JOB_EXE_NOT_FOUND               (-190)
#define PMIX_EVENT_JOB_START                     (-191)
#define PMIX_EVENT_SESSION_START                 (-192)
#define PMIX_EVENT_SESSION_END                   (-193)
#define PMIX_ERR_PROC_TERM_WO_SYNC               (-200)
#define PMIX_EVENT_PROC_TERMINATED               (-201)
#define PMIX_ERR_SYS_BASE                        (-230)
#define PMIX_EVENT_SYS_BASE                      (-230)
#define PMIX_ERR_NODE_DOWN                       (-231)
#define PMIX_EVENT_NODE_DOWN                     (-231)
#define PMIX_ERR_NODE_OFFLINE                    (-232)
#define PMIX_EVENT_NODE_OFFLINE                  (-232)
#define PMIX_ERR_JOB_WDIR_NOT_FOUND              (-233)
#define PMIX_ERR_JOB_INSUFFICIENT_RESOURCES      (-234)
#define PMIX_ERR_JOB_SYS_OP_FAILED               (-235)
#define PMIX_ERR_SYS_OTHER                       (-330)
#define PMIX_EVENT_SYS_OTHER                     (-330)
#define PMIX_EVENT_NO_ACTION_TAKEN               (-331)
#define PMIX_EVENT_PARTIAL_ACTION_TAKEN          (-332)
#define PMIX_EVENT_ACTION_DEFERRED               (-333)
#define PMIX_EVENT_ACTION_COMPLETE               (-334)
#define PMIX_ERR_PROC_KILLED_BY_CMD              (-400)
#define PMIX_ERR_PROC_FAILED_TO_START            (-401)
#define PMIX_ERR_PROC_ABORTED_BY_SIG             (-402)
#define PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED      (-403)
#define PMIX_ERR_EXIT_NONZERO_TERM               (-404)
#define PMIX_EXTERNAL_ERR_BASE                   (-3000)

#endif /* PMIX_CONSTANTS_H */
