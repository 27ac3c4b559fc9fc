/* Files in shared directories (/tmp, $TMPDIR, a system tmpdir), where any
 * local user may have made a name first (docs/security.md):
 *   - what we create there is created exclusively (mkstemp) and checked
 *     with fstat (a regular file of ours, one link) before a byte goes in;
 *   - it is published by rename from that private temporary, so readers
 *     see all of it or nothing;
 *   - a name that exists and is not a regular file of ours is left alone
 *     and reported in one log line, never written through or followed.
 * The process-identity helpers tell a live process from a dead one whose
 * pid was given to another (the start time is part of the identity). */
#ifndef SWITCHYARD_COMMON_SAFEFILE_H
#define SWITCHYARD_COMMON_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <pmix_common.h>

/* Prefix of the temporaries sy_safe_publish makes: ".sy-tmp.<pid>.XXXXXX"
 * (a leading dot: directory scans skip them; the pid: the sweep removes
 * those of dead processes). */
#define SY_SAFE_TMP_PREFIX ".sy-tmp."

/* `name` is usable as one path component: not empty, not "." or "..",
 * no '/', no control characters, at most 255 bytes.  Names that come
 * from peers or hosts (namespaces, hostnames) are checked with it before
 * they become part of a path. */
bool sy_safe_name(const char *name);

/* fd (from an open that did not follow symlinks) is a regular file
 * (a directory when dir) owned by the effective uid, with a single link
 * for a file, and none of the mode bits in `forbidden`.  false and a
 * reason in why (may be NULL) otherwise. */
bool sy_safe_fd_ours(int fd, bool dir, mode_t forbidden, const char **why);

/* Publish len bytes as dir/name with `mode`: write them into a private
 * temporary in dir, check it, rename it onto the name.  PMIX_EXISTS when
 * the name exists and is not a regular file of ours (left untouched, one
 * warning logged); PMIX_ERR_BAD_PARAM when name is not one component;
 * other errors when the directory refuses us. */
pmix_status_t sy_safe_publish(const char *dir, const char *name, const void *data, size_t len,
                              mode_t mode);

/* When the process `pid` started, in clock ticks since boot
 * (/proc/<pid>/stat); 0 when it does not exist or cannot be read. */
unsigned long long sy_proc_start_ticks(pid_t pid);

/* The same, in seconds since the epoch (boot time + ticks); 0 if unknown. */
long long sy_proc_start_epoch(pid_t pid);

/* The process that recorded itself as `pid` still runs: a process with
 * that pid exists and, when the record has its start time (ticks since
 * boot, 0 if not recorded), started at that time; with only the wall
 * clock time of the record (`since`, seconds, 0 if none), it did not
 * start after it.  A pid given to a newer process is a dead one. */
bool sy_proc_alive(pid_t pid, unsigned long long start_ticks, long long since);

#endif
