/* sched-client: an example scheduler client, standard PMIx API only.
 * It registers the fabric, prints statistics of the cost matrix and the
 * groups, and, with --updates K, waits for K fabric updates, printing the
 * new statistics after each PMIX_FABRIC_UPDATED.
 *
 *   switchyard-sched --listen /tmp/s.sock --generate fattree:k=4 -- \
 *       ./sched-client --updates 1 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

static pmix_fabric_t fabric;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int updates;

static const pmix_value_t *find(const char *key)
{
    for (size_t i = 0; i < fabric.ninfo; i++)
        if (PMIX_CHECK_KEY(&fabric.info[i], key))
            return &fabric.info[i].value;
    return NULL;
}

static void print_stats(void)
{
    const pmix_value_t *v = find(PMIX_FABRIC_VENDOR), *id = find(PMIX_FABRIC_IDENTIFIER);
    const pmix_value_t *nv = find(PMIX_FABRIC_NUM_DEVICES), *cm = find(PMIX_FABRIC_COST_MATRIX);
    const pmix_value_t *g = find(PMIX_FABRIC_GROUPS);
    size_t n = nv != NULL ? nv->data.size : 0;
    printf("fabric %zu: vendor %s, identifier %s, %zu devices\n", fabric.index,
           v != NULL ? v->data.string : "?", id != NULL ? id->data.string : "?", n);
    if (cm != NULL && cm->type == PMIX_POINTER && n > 0) {
        const uint16_t *m = cm->data.ptr;
        uint64_t sum = 0, pairs = 0, unreachable = 0, hist[8] = {0};
        uint16_t diameter = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                uint16_t c = m[i * n + j];
                if (i == j)
                    continue;
                if (c == UINT16_MAX) {
                    unreachable++;
                    continue;
                }
                sum += c;
                pairs++;
                diameter = c > diameter ? c : diameter;
                hist[c < 7 ? c : 7]++;
            }
        printf("cost matrix: diameter %u, mean %.3f, %llu unreachable pairs\n", diameter,
               pairs ? (double)sum / (double)pairs : 0.0, (unsigned long long)unreachable);
        for (int c = 0; c < 8; c++)
            if (hist[c] > 0)
                printf("  cost %s%d: %llu pairs\n", c == 7 ? ">=" : "", c,
                       (unsigned long long)hist[c]);
    } else {
        printf("cost matrix: not provided\n");
    }
    if (g != NULL && g->type == PMIX_STRING) {
        size_t ngroups = 0;
        printf("groups:\n");
        const char *s = g->data.string;
        while (*s) {
            const char *end = strchr(s, ';');
            size_t len = end != NULL ? (size_t)(end - s) : strlen(s);
            size_t members = 1;
            for (size_t k = 0; k < len; k++)
                members += s[k] == ',';
            printf("  %.*s (%zu members)\n", (int)(len > 60 ? 60 : len), s, members);
            ngroups++;
            s += len + (end != NULL);
        }
        printf("%zu groups\n", ngroups);
    }
    fflush(stdout);
}

static void on_event(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (status == PMIX_FABRIC_UPDATE_PENDING) {
        /* stop using the fabric's data until PMIX_FABRIC_UPDATED */
        printf("fabric update pending\n");
    } else {
        printf("fabric updated\n");
        print_stats();
        pthread_mutex_lock(&lock);
        updates++;
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&lock);
    }
    fflush(stdout);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    int want = 0;
    const char *plane = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--updates") && i + 1 < argc)
            want = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--plane") && i + 1 < argc)
            plane = argv[++i];
        else {
            fprintf(stderr, "usage: sched-client [--updates K] [--plane ID]\n");
            return 2;
        }
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "sched-client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t codes[2] = {PMIX_FABRIC_UPDATE_PENDING, PMIX_FABRIC_UPDATED};
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    pmix_info_t dir;
    PMIX_INFO_CONSTRUCT(&dir);
    if (plane != NULL)
        PMIX_INFO_LOAD(&dir, PMIX_FABRIC_PLANE, plane, PMIX_STRING);
    PMIX_FABRIC_CONSTRUCT(&fabric);
    rc = PMIx_Fabric_register(&fabric, plane != NULL ? &dir : NULL, plane != NULL ? 1 : 0);
    PMIX_INFO_DESTRUCT(&dir);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "sched-client: PMIx_Fabric_register: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    print_stats();
    printf("ready\n");
    fflush(stdout);
    int ret = 0;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 120;
    pthread_mutex_lock(&lock);
    while (updates < want && ret == 0)
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0)
            ret = 1;
    pthread_mutex_unlock(&lock);
    if (ret != 0)
        fprintf(stderr, "sched-client: no fabric update came\n");
    PMIx_Fabric_deregister(&fabric);
    PMIx_Finalize(NULL, 0);
    return ret;
}
