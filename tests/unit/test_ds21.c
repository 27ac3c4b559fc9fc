/* The ds21 writer (server_ds21_store.c) read back by a reader written
 * here from the layout an OpenPMIx 4.2.2 client reads
 * (docs/wire-protocol.md, ds21): the files by name, the lock file's
 * geometry and usable mutexes, the initial segment's entry, each rank's
 * chain from its meta slot (valid records counted, invalidated ones
 * skipped, extension slots followed), a key replaced in place and with
 * another size, data going on in new segments, a record too large left
 * out, and nothing left behind. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix.h>

#include "server/server_ds21_store.h"

static char dir[256];

static uint8_t *map_file(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    fstat(fd, &st);
    *size = (size_t)st.st_size;
    void *p = mmap(NULL, *size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static size_t word(const uint8_t *p)
{
    size_t w;
    memcpy(&w, p, sizeof(w));
    return w;
}

/* One rank's valid keys and values, by the reader's rules. */
typedef struct {
    char key[64];
    size_t len;
    uint8_t first;
} rec_t;

static size_t read_rank(const char *ns, size_t segsize, pmix_rank_t rank, rec_t *out, size_t max)
{
    char name[256];
    size_t sz;
    snprintf(name, sizeof(name), "initial-pmix_shared-segment-0");
    size_t isz;
    uint8_t *init = map_file(name, &isz);
    assert_non_null(init);
    assert_int_equal(word(init), 1);
    assert_string_equal((const char *)init + 16, ns);
    size_t ndata = word(init + 16 + 280);
    assert_int_equal(word(init + 16 + 272), 1);
    uint8_t *segs[16];
    assert_true(ndata <= 16);
    for (size_t i = 0; i < ndata; i++) {
        snprintf(name, sizeof(name), "smdataseg-%s-%zu", ns, i);
        size_t s2;
        segs[i] = map_file(name, &s2);
        assert_non_null(segs[i]);
        assert_int_equal(s2, segsize);
    }
    snprintf(name, sizeof(name), "smseg-%s-0", ns);
    uint8_t *meta = map_file(name, &sz);
    assert_non_null(meta);
    size_t k = rank == PMIX_RANK_WILDCARD ? 0 : (size_t)rank + 1;
    const uint8_t *slot = meta + 8 + 24 * k;
    size_t off = word(slot + 8), n = word(slot + 16), got = 0;
    while (off != 0 && n > 0) {
        assert_true(off / segsize < ndata);
        const uint8_t *p = segs[off / segsize] + off % segsize;
        size_t w = word(p), len = w & (((size_t)1 << 62) - 1);
        const char *key = (const char *)p + 16;
        if (w & ((size_t)1 << 62)) {
            off += len;
        } else if (w & ((size_t)1 << 63)) {
            assert_int_equal(len, 25);
            assert_string_equal(key, "");
            off = word(p + 17);
        } else {
            size_t h = 0;
            for (const char *c = key; *c != '\0'; c++)
                h += (size_t)*c;
            assert_int_equal(word(p + 8), h);
            assert_true(got < max);
            snprintf(out[got].key, sizeof(out[got].key), "%s", key);
            out[got].len = len - 16 - strlen(key) - 1;
            out[got].first = p[16 + strlen(key) + 1];
            got++;
            n--;
            off += len;
        }
    }
    assert_int_equal(n, 0);
    munmap(meta, sz);
    for (size_t i = 0; i < ndata; i++)
        munmap(segs[i], segsize);
    munmap(init, isz);
    return got;
}

static const rec_t *find(const rec_t *r, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, key) == 0)
            return &r[i];
    return NULL;
}

static void test_store(void **state)
{
    (void)state;
    char d[300];
    snprintf(d, sizeof(d), "%s/ns", dir);
    sy_ds21_t *s = NULL;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    sy_ds21_sizes_t sz = {.initial = 0, .meta = 0, .data = 2 * page};
    assert_int_equal(sy_ds21_create(d, "job.1", 4, 3, &sz, &s), PMIX_SUCCESS);
    if (snprintf(dir, sizeof(dir), "%s", d) >= (int)sizeof(dir))
        fail();
    /* a second store cannot take the same directory */
    sy_ds21_t *again = NULL;
    assert_int_not_equal(sy_ds21_create(d, "job.1", 4, 3, &sz, &again), PMIX_SUCCESS);
    /* the lock file: geometry, and every mutex usable */
    size_t lsz;
    uint8_t *lock = map_file("smlockseg-job.1", &lsz);
    assert_non_null(lock);
    assert_int_equal(word(lock), lsz);
    uint32_t nlocks;
    memcpy(&nlocks, lock + 8, 4);
    assert_int_equal(nlocks, 3);
    size_t stride = word(lock + 16), moff = word(lock + 24);
    assert_true(stride >= sizeof(pthread_mutex_t));
    assert_true(moff >= 32 + 4 * 3);
    assert_true(moff + 6 * stride <= lsz);
    munmap(lock, lsz);

    uint8_t small[40], big[3 * 4096];
    memset(small, 1, sizeof(small));
    memset(big, 2, sizeof(big));
    sy_ds21_kv_t kv[] = {{"a", small, 10}, {"b", small, 40}, {"c", small, 20}};
    assert_int_equal(sy_ds21_lock(s, 1000), PMIX_SUCCESS);
    assert_int_equal(sy_ds21_put(s, PMIX_RANK_WILDCARD, kv, 3), PMIX_SUCCESS);
    assert_int_equal(sy_ds21_put(s, 1, kv, 2), PMIX_SUCCESS);
    sy_ds21_unlock(s);
    rec_t r[64];
    assert_int_equal(read_rank("job.1", 2 * page, PMIX_RANK_WILDCARD, r, 64), 3);
    assert_int_equal(read_rank("job.1", 2 * page, 1, r, 64), 2);
    assert_int_equal(read_rank("job.1", 2 * page, 0, r, 64), 0);

    /* same size: in place; another size: invalidated and appended */
    uint8_t three[40];
    memset(three, 3, sizeof(three));
    sy_ds21_kv_t rep[] = {{"a", three, 10}, {"b", three, 7}, {"d", three, 5}};
    assert_int_equal(sy_ds21_lock(s, 1000), PMIX_SUCCESS);
    assert_int_equal(sy_ds21_put(s, 1, rep, 3), PMIX_SUCCESS);
    sy_ds21_unlock(s);
    size_t n = read_rank("job.1", 2 * page, 1, r, 64);
    assert_int_equal(n, 3);
    assert_int_equal(find(r, n, "a")->len, 10);
    assert_int_equal(find(r, n, "a")->first, 3);
    assert_int_equal(find(r, n, "b")->len, 7);
    assert_int_equal(find(r, n, "b")->first, 3);
    assert_non_null(find(r, n, "d"));

    /* more than a segment holds: new segments, the chain goes on; a
     * record larger than a segment is left out, its old value gone */
    assert_int_equal(sy_ds21_lock(s, 1000), PMIX_SUCCESS);
    for (int i = 0; i < 6; i++) {
        char key[16];
        snprintf(key, sizeof(key), "k%d", i);
        sy_ds21_kv_t one = {key, big, page / 2};
        assert_int_equal(sy_ds21_put(s, 2, &one, 1), PMIX_SUCCESS);
    }
    sy_ds21_kv_t huge = {"b", big, sizeof(big)};
    assert_int_equal(sy_ds21_put(s, 1, &huge, 1), PMIX_SUCCESS);
    sy_ds21_unlock(s);
    n = read_rank("job.1", 2 * page, 2, r, 64);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(r[i].len, page / 2);
    n = read_rank("job.1", 2 * page, 1, r, 64);
    assert_int_equal(n, 2);
    assert_null(find(r, n, "b"));
    assert_int_equal(read_rank("job.1", 2 * page, PMIX_RANK_WILDCARD, r, 64), 3);

    sy_ds21_destroy(s);
    struct stat st;
    assert_int_not_equal(stat(d, &st), 0); /* nothing left */
    *strrchr(dir, '/') = '\0';
}

/* A reader's mutex, taken in another process as an OpenPMIx client
 * takes it (its own mapping of the lock file). */
static pid_t hold_reader_mutex(int slot, bool die, int ready[2])
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    size_t lsz;
    uint8_t *lock = map_file("smlockseg-job.2", &lsz);
    char path[512];
    snprintf(path, sizeof(path), "%s/smlockseg-job.2", dir);
    int fd = open(path, O_RDWR);
    uint8_t *rw = mmap(NULL, lsz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    pthread_mutex_t *m =
        (pthread_mutex_t *)(rw + word(lock + 24) + word(lock + 16) * (2 * slot + 1));
    int rc = pthread_mutex_lock(m);
    if (write(ready[1], &rc, sizeof(rc)) != sizeof(rc))
        _exit(1);
    if (die)
        _exit(0); /* dies holding it */
    pause();
    _exit(0);
}

static void test_dead_and_stuck_readers(void **state)
{
    (void)state;
    char top[256], d[300];
    snprintf(top, sizeof(top), "%s", dir);
    snprintf(d, sizeof(d), "%s/ns2", top);
    sy_ds21_t *s = NULL;
    assert_int_equal(sy_ds21_create(d, "job.2", 2, 2, NULL, &s), PMIX_SUCCESS);
    assert_true(snprintf(dir, sizeof(dir), "%s", d) < (int)sizeof(dir));
    int ready[2], got = -1;
    assert_int_equal(pipe(ready), 0);
    /* a reader that died mid-read: the writer goes on */
    pid_t pid = hold_reader_mutex(0, true, ready);
    assert_int_equal(read(ready[0], &got, sizeof(got)), sizeof(got));
    assert_int_equal(got, 0);
    waitpid(pid, NULL, 0);
    assert_int_equal(sy_ds21_lock(s, 5000), PMIX_SUCCESS);
    sy_ds21_unlock(s);
    /* a live reader that keeps it: the writer gives up, the store takes
     * no more writes */
    pid = hold_reader_mutex(1, false, ready);
    assert_int_equal(read(ready[0], &got, sizeof(got)), sizeof(got));
    assert_int_equal(got, 0);
    assert_int_equal(sy_ds21_lock(s, 100), PMIX_ERR_TIMEOUT);
    assert_true(sy_ds21_broken(s));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    sy_ds21_destroy(s);
    snprintf(dir, sizeof(dir), "%s", top);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/sy-ds21.XXXXXX", t != NULL && t[0] == '/' ? t : "/tmp");
    if (mkdtemp(dir) == NULL)
        return 1;
    char top[256];
    snprintf(top, sizeof(top), "%s", dir);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_store),
                                       cmocka_unit_test(test_dead_and_stuck_readers)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(top);
    return rc;
}
