/* What dead servers of ours left in a shared directory: a server killed
 * with SIGKILL cannot remove its rendezvous files, its private tmpdir
 * (socket, segments) or a launcher's session directory.  A starting server
 * removes them (docs/security.md, "Litter"):
 *   - pmix.<host>.tool[.<x>] and pmix.sys.<host>: rendezvous files of this
 *     host whose server is dead (its pid is gone or now another process's:
 *     the file records the start time);
 *   - switchyard.<pid>.*, switchyard-run.<pid>.*, switchyard-singleton.<pid>.*
 *     directories whose process is dead (by the rendezvous file inside, or
 *     else by the pid in the name and the directory's time);
 *   - .sy-tmp.<pid>.* temporaries of dead processes.
 * Only what the effective uid owns, examined through descriptors opened
 * without following symlinks; entries of other users or of other hosts are
 * left alone. */
#ifndef SWITCHYARD_COMMON_SWEEP_H
#define SWITCHYARD_COMMON_SWEEP_H

/* Sweep `dir` (not recursively, except into the session directories it
 * removes).  `host` is this node's name as rendezvous files give it.
 * Returns how many entries were removed. */
int sy_sweep_dead(const char *dir, const char *host);

#endif
