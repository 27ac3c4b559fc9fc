/* pmix-hello: the smallest PMIx client, used by the README's main job.
 * Each process initializes, reads what the launcher registered about it
 * and its job, and says so in one line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int get_u32(const pmix_proc_t *p, const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    if (PMIx_Get(p, key, NULL, 0, &v) != PMIX_SUCCESS)
        return -1;
    pmix_status_t st;
    PMIX_VALUE_GET_NUMBER(st, v, *out, uint32_t);
    int rc = st == PMIX_SUCCESS ? 0 : -1;
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static char *get_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    char *s = NULL;
    if (PMIx_Get(p, key, NULL, 0, &v) == PMIX_SUCCESS) {
        if (v->type == PMIX_STRING && v->data.string != NULL)
            s = strdup(v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    return s;
}

int main(void)
{
    pmix_proc_t me, wild;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pmix-hello: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0, napps = 0, appnum = 0, lsize = 0;
    get_u32(&wild, PMIX_JOB_SIZE, &size);
    get_u32(&wild, PMIX_JOB_NUM_APPS, &napps);
    get_u32(&me, PMIX_APPNUM, &appnum);
    get_u32(&wild, PMIX_LOCAL_SIZE, &lsize);
    pmix_value_t *v = NULL;
    unsigned lrank = 0;
    if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v) == PMIX_SUCCESS) {
        lrank = v->data.uint16;
        PMIX_VALUE_RELEASE(v);
    }
    char *host = get_str(&me, PMIX_HOSTNAME);
    char *loc = get_str(&me, PMIX_LOCALITY_STRING);
    char *peers = get_str(&wild, PMIX_LOCAL_PEERS);
    printf("hello from %s rank %u of %u: app %u of %u, local rank %u of %u (peers %s) on %s%s%s\n",
           me.nspace, me.rank, size, appnum, napps, lrank, lsize, peers ? peers : "?",
           host ? host : "?", loc ? ", bound to " : "", loc ? loc : "");
    /* the modex every MPI library runs: post, exchange, read a neighbour's */
    char card[300];
    snprintf(card, sizeof(card), "rank %u on %s", me.rank, host ? host : "?");
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, card, PMIX_STRING);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIx_Put(PMIX_GLOBAL, "hello.card", &val) == PMIX_SUCCESS &&
        PMIx_Commit() == PMIX_SUCCESS && PMIx_Fence(NULL, 0, &collect, 1) == PMIX_SUCCESS &&
        size > 1) {
        pmix_proc_t next;
        PMIX_LOAD_PROCID(&next, me.nspace, (me.rank + 1) % size);
        char *theirs = get_str(&next, "hello.card");
        printf("rank %u read its neighbour's card after the fence: \"%s\"\n", me.rank,
               theirs ? theirs : "(missing)");
        free(theirs);
    }
    PMIX_VALUE_DESTRUCT(&val);
    PMIX_INFO_DESTRUCT(&collect);
    free(host);
    free(loc);
    free(peers);
    rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
