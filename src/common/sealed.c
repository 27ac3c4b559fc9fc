/* Sealed memfds (sealed.h). */
#define _GNU_SOURCE
#include "config.h"
#include "common/sealed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What makes a mapping safe to read: the size can change no more (a shrink
 * would turn reads into SIGBUS) and neither can the bytes. */
#define SEALS_NEEDED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

int sy_sealed_export(const void *p, size_t n)
{
    if (p == NULL || n == 0 || n > (size_t)INT64_MAX) {
        errno = EINVAL;
        return -1;
    }
    int fd = memfd_create("switchyard-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    /* one copy, by the kernel: cheaper than faulting in a writable
     * mapping page by page, and no writable mapping can stay behind to
     * block F_SEAL_WRITE */
    const char *c = p;
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, c + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w == 0 ? ENOSPC : errno;
            close(fd);
            errno = e;
            return -1;
        }
        off += (size_t)w;
    }
    if (fcntl(fd, F_ADD_SEALS, SEALS_NEEDED | F_SEAL_SEAL) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

void *sy_sealed_map(int fd, size_t n, const char **why)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a shared-memory file";
        return NULL;
    }
    if (n == 0 || st.st_size < 0 || (uint64_t)st.st_size != (uint64_t)n) {
        *why = "its size is not the one announced";
        return NULL;
    }
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & SEALS_NEEDED) != SEALS_NEEDED) {
        *why = "not sealed against writes and resizing";
        return NULL;
    }
    /* read-only: the pages are the file's, shared with every other
     * mapping of it, and nothing is charged to this process's commit */
    void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        *why = "it cannot be mapped";
        return NULL;
    }
    return m;
}
