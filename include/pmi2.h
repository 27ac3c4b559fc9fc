/* PMI-2 client API of Switchyard's libpmi2.so.0: the interface Slurm 22.05
 * ships (MPICH's plus PMI2_Job_GetRank, PMI2_Info_GetSize and PMIX_Ring),
 * implemented over the PMIx client API (docs/pmi.md). */
#ifndef PMI2_H_INCLUDED
#define PMI2_H_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif

#define PMI2_MAX_KEYLEN 64
#define PMI2_MAX_VALLEN 1024
#define PMI2_MAX_ATTRVALUE 1024
#define PMI2_ID_NULL -1

#define PMII_COMMANDLEN_SIZE 6
#define PMII_MAX_COMMAND_LEN (64 * 1024)

#define HAVE_PMIX_RING 1

#define PMI2_SUCCESS 0
#define PMI2_FAIL -1
#define PMI2_ERR_INIT 1
#define PMI2_ERR_NOMEM 2
#define PMI2_ERR_INVALID_ARG 3
#define PMI2_ERR_INVALID_KEY 4
#define PMI2_ERR_INVALID_KEY_LENGTH 5
#define PMI2_ERR_INVALID_VAL 6
#define PMI2_ERR_INVALID_VAL_LENGTH 7
#define PMI2_ERR_INVALID_LENGTH 8
#define PMI2_ERR_INVALID_NUM_ARGS 9
#define PMI2_ERR_INVALID_ARGS 10
#define PMI2_ERR_INVALID_NUM_PARSED 11
#define PMI2_ERR_INVALID_KEYVALP 12
#define PMI2_ERR_INVALID_SIZE 13
#define PMI2_ERR_OTHER 14

/* Slurm's layout (what Debian users compile against). */
typedef struct MPID_Info {
    int handle;
    int pobj_mutex;
    int ref_count;
    struct MPID_Info *next;
    char *key;
    char *value;
} MPID_Info;
#define PMI2U_Info MPID_Info

typedef struct PMI2_Connect_comm {
    int (*read)(void *buf, int maxlen, void *ctx);
    int (*write)(const void *buf, int len, void *ctx);
    void *ctx;
    int isMaster;
} PMI2_Connect_comm_t;

int PMI2_Init(int *spawned, int *size, int *rank, int *appnum);
int PMI2_Finalize(void);
int PMI2_Initialized(void);
int PMI2_Abort(int flag, const char msg[]);
int PMI2_Job_Spawn(int count, const char *cmds[], int argcs[], const char **argvs[],
                   const int maxprocs[], const int info_keyval_sizes[],
                   const struct MPID_Info *info_keyval_vectors[], int preput_keyval_size,
                   const struct MPID_Info *preput_keyval_vector[], char jobId[], int jobIdSize,
                   int errors[]);
int PMI2_Job_GetId(char jobid[], int jobid_size);
int PMI2_Job_GetRank(int *rank);
int PMI2_Info_GetSize(int *size);
int PMI2_Job_Connect(const char jobid[], PMI2_Connect_comm_t *conn);
int PMI2_Job_Disconnect(const char jobid[]);
int PMI2_KVS_Put(const char key[], const char value[]);
int PMI2_KVS_Fence(void);
int PMI2_KVS_Get(const char *jobid, int src_pmi_id, const char key[], char value[], int maxvalue,
                 int *vallen);
int PMI2_Info_GetNodeAttr(const char name[], char value[], int valuelen, int *found, int waitfor);
int PMI2_Info_GetNodeAttrIntArray(const char name[], int array[], int arraylen, int *outlen,
                                  int *found);
int PMI2_Info_PutNodeAttr(const char name[], const char value[]);
int PMI2_Info_GetJobAttr(const char name[], char value[], int valuelen, int *found);
int PMI2_Info_GetJobAttrIntArray(const char name[], int array[], int arraylen, int *outlen,
                                 int *found);
int PMI2_Nameserv_publish(const char service_name[], const struct MPID_Info *info_ptr,
                          const char port[]);
int PMI2_Nameserv_lookup(const char service_name[], const struct MPID_Info *info_ptr, char port[],
                         int portLen);
int PMI2_Nameserv_unpublish(const char service_name[], const struct MPID_Info *info_ptr);
int PMIX_Ring(const char value[], int *rank, int *ranks, char left[], char right[], int maxvalue);

#ifdef __cplusplus
}
#endif
#endif
