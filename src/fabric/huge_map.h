/* Anonymous memory in one mapping aligned to 2 MiB, so that the kernel can
 * back it with transparent huge pages: the first touch of a big buffer
 * (the cost matrix, a topology file's bytes) is then 2-3x faster. */
#ifndef SY_FABRIC_HUGE_MAP_H
#define SY_FABRIC_HUGE_MAP_H

#include <stddef.h>

/* At least `bytes` of zeroed read-write memory, or NULL; *len receives the
 * mapping's length (bytes rounded up to the page), for munmap(p, *len). */
void *sy_huge_map(size_t bytes, size_t *len);

#endif
