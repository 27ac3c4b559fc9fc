/* Shared-memory matrices (sched_shm.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched_shm.h"

/* What makes a mapping safe to read: the size can change no more (a
 * shrink would turn reads into SIGBUS) and neither can the bytes. */
#define SHM_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

int shm_export(const void *p, size_t n)
{
    int fd = memfd_create("switchyard-fabric-cost", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    /* one copy, by the kernel, into pages nobody else maps yet */
    const char *c = p;
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, c + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return -1;
        }
        off += (size_t)w;
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
    void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        *why = "cannot be mapped";
        return NULL;
    }
    return m;
}
