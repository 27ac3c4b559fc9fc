/* PMIx_server_init's PMIX_SINGLETON and PMIX_HOMOGENEOUS_SYSTEM
 * (Chap_API_Server.tex), with a real client process:
 *   - a server started for the singleton "sy-single.3" registers it: the
 *     process given that identity (PMIx_server_setup_fork) connects, is
 *     rank 3 of a job of one, and reads PMIX_SINGLETON back;
 *   - PMIX_HOMOGENEOUS_SYSTEM reaches that job's clients as true;
 *   - a PMIX_SINGLETON that names no "nspace.rank" fails the init;
 *   - without PMIX_SERVER_ENABLE_MONITORING (and no host monitor upcall)
 *     heartbeat monitoring is PMIX_ERR_NOT_SUPPORTED (switchyard-run
 *     enables it: tests/tools/run.sh's heartbeat case is the library's).
 * Exit 0 when every check held. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static int child(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    EXPECT(rc == PMIX_SUCCESS, "PMIx_Init: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS)
        return 1;
    EXPECT(strcmp(me.nspace, "sy-single") == 0 && me.rank == 3, "identity %s:%u", me.nspace,
           me.rank);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    EXPECT(rc == PMIX_SUCCESS && v != NULL && v->data.uint32 == 1, "job size: %s",
           PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    rc = PMIx_Get(&job, PMIX_SINGLETON, NULL, 0, &v);
    EXPECT(rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING &&
               strcmp(v->data.string, "sy-single.3") == 0,
           "PMIX_SINGLETON: %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    v = NULL;
    rc = PMIx_Get(&job, PMIX_HOMOGENEOUS_SYSTEM, NULL, 0, &v);
    EXPECT(rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_BOOL && v->data.flag,
           "PMIX_HOMOGENEOUS_SYSTEM: %s", PMIx_Error_string(rc));
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    /* no PMIX_SERVER_ENABLE_MONITORING and no host monitor: not served */
    pmix_info_t mon;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
    rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, NULL, NULL);
    EXPECT(rc == PMIX_ERR_NOT_SUPPORTED, "heartbeat monitoring without the library's: %s",
           PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&mon);
    EXPECT(PMIx_Finalize(NULL, 0) == PMIX_SUCCESS, "PMIx_Finalize");
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    /* a name that is no "nspace.rank" */
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_info_t bad;
    PMIX_INFO_LOAD(&bad, PMIX_SINGLETON, "no-rank-here", PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, &bad, 1);
    EXPECT(rc == PMIX_ERR_BAD_PARAM, "PMIX_SINGLETON without a rank: %s", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS)
        PMIx_server_finalize();
    PMIX_INFO_DESTRUCT(&bad);

    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SINGLETON, "sy-single.3", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_HOMOGENEOUS_SYSTEM, NULL, PMIX_BOOL);
    rc = PMIx_server_init(&module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    EXPECT(rc == PMIX_SUCCESS, "PMIx_server_init: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS)
        return 1;
    pmix_proc_t single;
    PMIX_LOAD_PROCID(&single, "sy-single", 3);
    char **env = NULL;
    rc = PMIx_server_setup_fork(&single, &env);
    EXPECT(rc == PMIX_SUCCESS, "setup_fork: %s", PMIx_Error_string(rc));
    pid_t pid = rc == PMIX_SUCCESS ? fork() : -1;
    if (pid == 0) {
        for (size_t i = 0; env[i] != NULL; i++)
            putenv(env[i]);
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    EXPECT(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the singleton's process ended with status %d", status);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
    EXPECT(PMIx_server_finalize() == PMIX_SUCCESS, "PMIx_server_finalize");
    if (failures == 0)
        printf("singleton server: ok\n");
    return failures == 0 ? 0 : 1;
}
