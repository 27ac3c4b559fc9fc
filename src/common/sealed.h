/* Read-only bytes handed to a process on this host (docs/security.md,
 * "Shared memory"): a memfd that holds a copy of them, sealed so that
 * nobody, its maker included, can write, shrink or grow it any more.  The
 * descriptor travels with a frame (SCM_RIGHTS, frame.h); the receiver
 * checks it before mapping (a peer may pass any descriptor at all).  No
 * name appears in any directory: it lives while a descriptor or a mapping
 * of it does. */
#ifndef SWITCHYARD_COMMON_SEALED_H
#define SWITCHYARD_COMMON_SEALED_H

#include <stddef.h>

/* A sealed memfd holding the n bytes at p (n > 0): the descriptor
 * (close-on-exec), or -1 with errno set. */
int sy_sealed_export(const void *p, size_t n);

/* Map what `fd` holds, read-only: it must be a regular
 * (memfd or tmpfs) file of exactly n bytes sealed against writes, shrinking
 * and growing.  The mapping (munmap(p, n) releases it), or NULL with *why
 * saying what was wrong.  fd stays the caller's to close. */
void *sy_sealed_map(int fd, size_t n, const char **why);

#endif
