/* A cost matrix handed to a requester on the same host through shared
 * memory instead of the link (docs/fabric.md, "Big fabrics"): the
 * scheduler copies it into a sealed memfd, passes the descriptor over the
 * UNIX socket (SCM_RIGHTS) and closes its own; the requester checks and
 * maps it read-only.  A memfd has no name in any file system, so there is
 * nothing another user could have created or could open, and nothing to
 * remove: the memory goes with the last descriptor or mapping. */
#ifndef SWITCHYARD_TOOLS_SCHED_SHM_H
#define SWITCHYARD_TOOLS_SCHED_SHM_H

#include <stdbool.h>
#include <stddef.h>

/* Whether shared memory gets transparent huge pages on this host
 * (/sys/kernel/mm/transparent_hugepage/shmem_enabled not "never" or
 * "deny").  Without them a big matrix costs one 4 KiB page table entry
 * per page on each side, which on a virtual machine made shared memory
 * ten times slower than the socket (docs/performance.md). */
bool shm_fast(void);
/* A sealed (no write, shrink or grow) memfd holding p[0..n), or -1 with
 * errno set. */
int shm_export(const void *p, size_t n);
/* fd mapped read-only when it is a sealed file of exactly n bytes, else
 * NULL (why says what was wrong).  fd stays open; munmap(ptr, n). */
const void *shm_map(int fd, size_t n, const char **why);

#endif
