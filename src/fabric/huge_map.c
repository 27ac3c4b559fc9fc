#include "fabric/huge_map.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_ALIGN ((size_t)2 << 20)

void *sy_huge_map(size_t bytes, size_t *len)
{
    if (bytes > SIZE_MAX - 2 * HUGE_ALIGN)
        return NULL;
    size_t keep = (bytes + 4095) & ~(size_t)4095, maplen = keep + HUGE_ALIGN;
    char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* map one alignment more than needed, then give back both ends */
    char *a = (char *)(((uintptr_t)p + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
    size_t head = (size_t)(a - p);
    if (head > 0)
        munmap(p, head);
    if (maplen - head > keep)
        munmap(a + keep, maplen - head - keep);
#ifdef MADV_HUGEPAGE
    (void)madvise(a, keep, MADV_HUGEPAGE); /* THP off or an old kernel: harmless */
#endif
    *len = keep;
    return a;
}
