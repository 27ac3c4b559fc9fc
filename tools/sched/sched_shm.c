/* Shared-memory matrices (sched_shm.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched_shm.h"

/* What makes a mapping safe to read: the size can change no more (a
 * shrink would turn reads into SIGBUS) and neither can the bytes. */
#define SHM_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

bool shm_fast(void)
{
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "re");
    if (f == NULL)
        return false;
    size_t k = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[k] = '\0';
    /* the mode in force is the bracketed word */
    const char *open = strchr(buf, '['), *close = open != NULL ? strchr(open, ']') : NULL;
    if (close == NULL)
        return false;
    size_t len = (size_t)(close - open - 1);
    return !(len == 5 && strncmp(open + 1, "never", 5) == 0) &&
           !(len == 4 && strncmp(open + 1, "deny", 4) == 0);
}

/* Through a mapping advised for huge pages, when the host gives them to
 * shared memory: a few hundred 2 MiB pages instead of 4 KiB ones.  -1 when
 * that cannot be done (the caller writes instead). */
static int fill_huge(int fd, const void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (ftruncate(fd, (off_t)n) != 0)
        return -1;
    void *w = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (w == MAP_FAILED)
        return -1;
    (void)madvise(w, n, MADV_HUGEPAGE);
    memcpy(w, p, n);
    /* no writable mapping may stay for F_SEAL_WRITE */
    munmap(w, n);
    return 0;
#else
    (void)fd;
    (void)p;
    (void)n;
    return -1;
#endif
}

/* One copy, by the kernel: without huge pages much cheaper than faulting
 * in a writable mapping page by page.  0, or -1 with errno set. */
static int fill_write(int fd, const void *p, size_t n)
{
    if (ftruncate(fd, 0) != 0)
        return -1;
    const char *c = p;
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, c + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int shm_export(const void *p, size_t n)
{
    int fd = memfd_create("switchyard-fabric-cost", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    if ((!shm_fast() || fill_huge(fd, p, n) != 0) && fill_write(fd, p, n) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (fcntl(fd, F_ADD_SEALS, SHM_SEALS | F_SEAL_SEAL) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

const void *shm_map(int fd, size_t n, const char **why)
{
    struct stat st;
    if (fd < 0 || n == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a shared-memory file";
        return NULL;
    }
    if ((uint64_t)st.st_size != (uint64_t)n) {
        *why = "its size is not the matrix's";
        return NULL;
    }
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & SHM_SEALS) != SHM_SEALS) {
        *why = "not sealed against writes and resizing";
        return NULL;
    }
    /* all page table entries at once, not one fault per page */
    void *m = mmap(NULL, n, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) {
        *why = "cannot be mapped";
        return NULL;
    }
    return m;
}
