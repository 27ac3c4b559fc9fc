/* A client that moves credentials through files, so that a script can
 * carry one from a job to another job, another server or another user:
 *   test_cred_file get FILE [KEY [TYPES]]
 *       PMIx_Get_credential (bound to KEY unless it is "-", PMIX_CRED_TYPE
 *       TYPES when given); writes the credential to FILE and prints
 *       "type=T size=N"
 *   test_cred_file validate FILE [KEY]
 *       PMIx_Validate_credential of FILE's bytes; prints
 *       "status=S" and, when valid, " uid=U gid=G proc=NS:RANK type=T"
 * Exit 0 when the calls behaved (whatever the validation's answer), 1
 * otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int get(const char *path, const char *key, const char *types)
{
    pmix_info_t info[2];
    size_t n = 0;
    pmix_byte_object_t bo = {.bytes = (char *)key, .size = key != NULL ? strlen(key) : 0};
    if (key != NULL && strcmp(key, "-") != 0)
        PMIX_INFO_LOAD(&info[n++], PMIX_CRYPTO_KEY, &bo, PMIX_BYTE_OBJECT);
    if (types != NULL)
        PMIX_INFO_LOAD(&info[n++], PMIX_CRED_TYPE, types, PMIX_STRING);
    pmix_byte_object_t cred = {0};
    pmix_status_t rc = PMIx_Get_credential(n > 0 ? info : NULL, n, &cred);
    if (rc != PMIX_SUCCESS) {
        printf("status=%s\n", PMIx_Error_string(rc));
        return 0;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(cred.bytes, 1, cred.size, f) != cred.size || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    /* the type travels in the credential's own form: native starts with
     * "SYC1", MUNGE's with "MUNGE:" */
    printf("type=%s size=%zu\n", strncmp(cred.bytes, "MUNGE:", 6) == 0 ? "munge" : "native",
           cred.size);
    free(cred.bytes);
    return 0;
}

static int validate(const char *path, const char *key)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    pmix_byte_object_t cred = {.bytes = buf, .size = len};
    pmix_byte_object_t bo = {.bytes = (char *)key, .size = key != NULL ? strlen(key) : 0};
    pmix_info_t info;
    if (key != NULL)
        PMIX_INFO_LOAD(&info, PMIX_CRYPTO_KEY, &bo, PMIX_BYTE_OBJECT);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Validate_credential(&cred, key != NULL ? &info : NULL,
                                                key != NULL ? 1 : 0, &res, &nres);
    printf("status=%s", PMIx_Error_string(rc));
    for (size_t i = 0; i < nres; i++) {
        const pmix_value_t *v = &res[i].value;
        if (PMIX_CHECK_KEY(&res[i], PMIX_USERID) && v->type == PMIX_UINT32)
            printf(" uid=%u", v->data.uint32);
        else if (PMIX_CHECK_KEY(&res[i], PMIX_GRPID) && v->type == PMIX_UINT32)
            printf(" gid=%u", v->data.uint32);
        else if (PMIX_CHECK_KEY(&res[i], PMIX_PROCID) && v->type == PMIX_PROC)
            printf(" proc=%s:%u", v->data.proc->nspace, v->data.proc->rank);
        else if (PMIX_CHECK_KEY(&res[i], PMIX_CRED_TYPE) && v->type == PMIX_STRING)
            printf(" type=%s", v->data.string);
    }
    printf("\n");
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s get|validate FILE [KEY [TYPES]]\n", argv[0]);
        return 2;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    int st = strcmp(argv[1], "get") == 0
                 ? get(argv[2], argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL)
                 : validate(argv[2], argc > 3 ? argv[3] : NULL);
    fflush(stdout);
    return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? st : 1;
}
