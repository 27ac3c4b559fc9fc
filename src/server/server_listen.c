/* The server's listeners (a UNIX socket in the tmpdir, TCP on loopback or,
 * with PMIX_SERVER_REMOTE_CONNECTIONS, on an allowed interface) and the
 * rendezvous files that let clients and tools find it
 * (docs/wire-protocol.md, "Finding a server"). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_version.h>

#include "common/log.h"
#include "common/rendezvous.h"
#include "common/safefile.h"
#include "common/usock.h"
#include "server/server_internal.h"
#include "server/server_listen.h"
#include "server/server_peer.h"

void sy_srv_remember_file(sy_srv_t *s, const char *path)
{
    char **grown = realloc(s->made_files, (s->nmade_files + 1) * sizeof(char *));
    if (grown == NULL)
        return;
    s->made_files = grown;
    char *copy = strdup(path);
    if (copy != NULL)
        s->made_files[s->nmade_files++] = copy;
}

void sy_srv_remove_files(sy_srv_t *s)
{
    for (size_t i = 0; i < s->nmade_files; i++) {
        if (unlink(s->made_files[i]) != 0 && errno != ENOENT)
            sy_log(SY_LOG_WARN, "server: cannot remove %s: %s", s->made_files[i], strerror(errno));
        free(s->made_files[i]);
    }
    free(s->made_files);
    s->made_files = NULL;
    s->nmade_files = 0;
}

/* ---- accepting, and backing off when accept fails ----
 *
 * A listener stays readable while a connection waits, so an accept that
 * fails (EMFILE/ENFILE at the descriptor limit, ENOMEM/ENOBUFS) would
 * bring us straight back: a spin that also floods the log.  Instead every
 * listener is paused, one line is logged for the whole episode, and
 * listening resumes when one of our connections closes (a descriptor is
 * free) or after SY_ACCEPT_RETRY seconds (the host may free one). Connected
 * peers are served meanwhile; waiting connections stay in the backlog. */
#define SY_ACCEPT_RETRY 1.0

static void listeners_arm(sy_srv_t *s, bool on)
{
    struct event *evs[] = {s->usock_ev, s->tcp4_ev, s->tcp6_ev};
    for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
        if (evs[i] == NULL)
            continue;
        if (on)
            event_add(evs[i], NULL);
        else
            event_del(evs[i]);
    }
}

static void accept_retry(void *arg)
{
    sy_srv_t *s = arg;
    if (s->accept_timer != NULL) {
        sy_timer_cancel(s->accept_timer);
        s->accept_timer = NULL;
    }
    sy_srv_accept_resume(s);
}

static void accept_pause(sy_srv_t *s)
{
    if (!s->accept_starved)
        sy_log(SY_LOG_WARN,
               "server: accept failed: %s; not accepting connections until a descriptor is "
               "free (connected clients are still served)",
               sy_usock_error());
    s->accept_starved = true;
    if (s->accept_paused)
        return;
    s->accept_paused = true;
    listeners_arm(s, false);
    if (s->accept_timer == NULL && sy_progress_timer(s->progress, SY_ACCEPT_RETRY, accept_retry, s,
                                                     &s->accept_timer) != PMIX_SUCCESS)
        s->accept_timer = NULL;
}

void sy_srv_accept_resume(sy_srv_t *s)
{
    if (s == NULL || !s->accept_paused)
        return;
    s->accept_paused = false;
    listeners_arm(s, true);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    sy_srv_t *s = sy_srv;
    bool tcp = (arg != NULL);
    if (s == NULL || s->accept_paused)
        return;
    for (int i = 0; i < 64; i++) {
        int fd = -1;
        pmix_status_t rc = sy_usock_accept(lfd, &fd);
        if (rc == PMIX_ERR_WOULD_BLOCK) {
            /* every waiting connection taken: the episode is over */
            if (s->accept_starved) {
                s->accept_starved = false;
                sy_log(SY_LOG_INFO, "server: accepting connections again");
            }
            return;
        }
        if (rc != PMIX_SUCCESS) {
            accept_pause(s);
            return;
        }
        sy_srv_peer_accept(s, fd, tcp);
    }
}

static pmix_status_t watch(sy_srv_t *s, int fd, bool tcp, struct event **ev)
{
    static char tcp_marker;
    *ev = event_new(sy_progress_base(s->progress), fd, EV_READ | EV_PERSIST, on_accept,
                    tcp ? &tcp_marker : NULL);
    if (*ev == NULL || event_add(*ev, NULL) != 0)
        return PMIX_ERR_OUT_OF_RESOURCE;
    return PMIX_SUCCESS;
}

static bool name_in(char **list, const char *name)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        if (fnmatch(list[i], name, 0) == 0)
            return true;
    return false;
}

/* With remote connections: the first up, non-loopback IPv4 interface that
 * PMIX_TCP_IF_INCLUDE names (any, if absent) and PMIX_TCP_IF_EXCLUDE does
 * not; "0.0.0.0" when no list narrows the choice. */
static pmix_status_t remote_address(sy_srv_t *s, char *addr, size_t len)
{
    if (s->if_include == NULL && s->if_exclude == NULL) {
        snprintf(addr, len, "0.0.0.0");
        return PMIX_SUCCESS;
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return PMIX_ERR_NOT_AVAILABLE;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        if (s->if_include != NULL && !name_in(s->if_include, i->ifa_name))
            continue;
        if (name_in(s->if_exclude, i->ifa_name))
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, addr, (socklen_t)len);
        rc = PMIX_SUCCESS;
        break;
    }
    freeifaddrs(ifs);
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_WARN, "server: no interface matches PMIX_TCP_IF_INCLUDE/EXCLUDE");
    return rc;
}

/* The address a client on this node should dial for a listener bound to
 * `bound`. */
static const char *dial_address(const char *bound)
{
    return strcmp(bound, "0.0.0.0") == 0 ? "127.0.0.1" : bound;
}

pmix_status_t sy_srv_listen_start(sy_srv_t *s)
{
    pmix_status_t rc;
    if (!s->usock_disable) {
        if (asprintf(&s->usock_path, "%s/pmix-%ld.sock", s->tmpdir, (long)getpid()) < 0) {
            s->usock_path = NULL;
            return PMIX_ERR_NOMEM;
        }
        rc = sy_usock_listen(s->usock_path, s->sock_mode, &s->usock_fd);
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "server: UNIX listener at %s: %s", s->usock_path, sy_usock_error());
            free(s->usock_path);
            s->usock_path = NULL;
            return rc;
        }
        sy_srv_remember_file(s, s->usock_path);
        if ((rc = watch(s, s->usock_fd, false, &s->usock_ev)) != PMIX_SUCCESS)
            return rc;
    }
    bool more = !(s->single_listener && s->usock_fd >= 0);
    if (more && !s->tcp4_disable) {
        char addr[INET_ADDRSTRLEN] = "127.0.0.1";
        if (s->remote && (rc = remote_address(s, addr, sizeof(addr))) != PMIX_SUCCESS)
            return rc;
        int port = 0;
        rc = sy_tcp_listen(addr, s->tcp4_port, &s->tcp4_fd, &port);
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "server: TCP listener on %s:%d: %s", addr, s->tcp4_port,
                   sy_usock_error());
            return rc;
        }
        if (asprintf(&s->uri, "%s.%u;tcp4://%s:%d", s->me.nspace, s->me.rank, dial_address(addr),
                     port) < 0) {
            s->uri = NULL;
            return PMIX_ERR_NOMEM;
        }
        if ((rc = watch(s, s->tcp4_fd, true, &s->tcp4_ev)) != PMIX_SUCCESS)
            return rc;
        more = !s->single_listener;
    }
    if (more && !s->tcp6_disable && s->tcp6_port >= 0) {
        int port = 0;
        rc = sy_tcp_listen(s->remote ? "::" : "::1", s->tcp6_port, &s->tcp6_fd, &port);
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "server: TCP IPv6 listener: %s", sy_usock_error());
            return rc;
        }
        if (s->uri == NULL &&
            asprintf(&s->uri, "%s.%u;tcp6://[::1]:%d", s->me.nspace, s->me.rank, port) < 0) {
            s->uri = NULL;
            return PMIX_ERR_NOMEM;
        }
        if ((rc = watch(s, s->tcp6_fd, true, &s->tcp6_ev)) != PMIX_SUCCESS)
            return rc;
    }
    return PMIX_SUCCESS;
}

static void unwatch(struct event **ev, int *fd)
{
    if (*ev != NULL) {
        event_free(*ev);
        *ev = NULL;
    }
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

void sy_srv_listen_stop(sy_srv_t *s)
{
    if (s->accept_timer != NULL) {
        sy_timer_cancel(s->accept_timer);
        s->accept_timer = NULL;
    }
    unwatch(&s->usock_ev, &s->usock_fd);
    unwatch(&s->tcp4_ev, &s->tcp4_fd);
    unwatch(&s->tcp6_ev, &s->tcp6_fd);
}

/* A system server already announced on this node, and still alive?  Only
 * a file of ours or root's counts: anyone can make that name in /tmp. */
static bool system_server_running(const char *path)
{
    sy_rndz_t r;
    if (sy_rndz_read(path, &r) != PMIX_SUCCESS)
        return false;
    bool alive = sy_rndz_alive(&r);
    sy_rndz_free(&r);
    return alive;
}

/* Publish the rendezvous file as dir/name (safefile.h: a private
 * temporary renamed into place; a name someone else made first is left
 * alone and logged, PMIX_EXISTS). */
static pmix_status_t write_rendezvous(sy_srv_t *s, const char *dir, const char *name)
{
    char *path = NULL, *text = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < s->nmade_files; i++)
        if (strcmp(s->made_files[i], path) == 0) {
            free(path);
            return PMIX_SUCCESS;
        }
    /* who the server is, and the secret a tool shows over TCP (the file is
     * readable by the server's user only); pstart tells a later reader a
     * reused pid from this process.  The first five lines are OpenPMIx's
     * (URI, bare version, pid, uid:gid, start), so that its tools find us
     * too; our keyed lines follow (docs/wire-protocol.md). */
    int len =
        asprintf(&text,
                 "%s\n%ld.%ld.%ld\n%ld\n%lu:%lu\n%lld\n"
                 "version:%ld.%ld.%ld\npid:%ld\nstart:%lld\npstart:%llu\nusock:%s\n"
                 "nspace:%s\nrank:%u\nhostname:%s\ntoken:%s\n",
                 s->uri != NULL ? s->uri : "", PMIX_VERSION_MAJOR, PMIX_VERSION_MINOR,
                 PMIX_VERSION_RELEASE, (long)getpid(), (unsigned long)geteuid(),
                 (unsigned long)getegid(), (long long)s->start_time, PMIX_VERSION_MAJOR,
                 PMIX_VERSION_MINOR, PMIX_VERSION_RELEASE, (long)getpid(), (long long)s->start_time,
                 sy_proc_start_ticks(getpid()), s->usock_path != NULL ? s->usock_path : "",
                 s->me.nspace, s->me.rank, s->hostname, s->tool_token);
    if (len < 0) {
        free(path);
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = sy_safe_publish(dir, name, text, (size_t)len, 0600);
    /* the token is a secret: no copy lingers in freed memory */
    explicit_bzero(text, (size_t)len);
    free(text);
    if (rc == PMIX_SUCCESS)
        sy_srv_remember_file(s, path);
    free(path);
    return rc;
}

/* A name someone else holds (or one that is no file name) is skipped:
 * it was logged, and the server is found through its other names. */
static pmix_status_t write_or_skip(sy_srv_t *s, const char *dir, const char *name)
{
    pmix_status_t rc = write_rendezvous(s, dir, name);
    return rc == PMIX_EXISTS || rc == PMIX_ERR_BAD_PARAM ? PMIX_SUCCESS : rc;
}

/* The standard's three names in dir: pmix.<host>.tool.<pid>,
 * pmix.<host>.tool.<nspace> (when the nspace makes a file name) and, in a
 * directory of this server's own, pmix.<host>.tool. */
static pmix_status_t write_tool_files(sy_srv_t *s, const char *dir, bool own_dir)
{
    char *name = NULL;
    if (asprintf(&name, "pmix.%s.tool.%ld", s->hostname, (long)getpid()) < 0)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = write_or_skip(s, dir, name);
    free(name);
    if (rc == PMIX_SUCCESS && sy_safe_name(s->me.nspace) && s->me.nspace[0] != '.') {
        if (asprintf(&name, "pmix.%s.tool.%s", s->hostname, s->me.nspace) < 0)
            return PMIX_ERR_NOMEM;
        rc = write_or_skip(s, dir, name);
        free(name);
    }
    if (rc == PMIX_SUCCESS && own_dir) {
        if (asprintf(&name, "pmix.%s.tool", s->hostname) < 0)
            return PMIX_ERR_NOMEM;
        rc = write_or_skip(s, dir, name);
        free(name);
    }
    return rc;
}

pmix_status_t sy_srv_rendezvous_write(sy_srv_t *s)
{
    char *name = NULL, *path = NULL;
    pmix_status_t rc;
    if (s->system_support) {
        if (asprintf(&name, "pmix.sys.%s", s->hostname) < 0)
            return PMIX_ERR_NOMEM;
        if (asprintf(&path, "%s/%s", s->system_tmpdir, name) < 0) {
            free(name);
            return PMIX_ERR_NOMEM;
        }
        bool running = system_server_running(path);
        free(path);
        if (running) {
            sy_log(SY_LOG_WARN, "PMIx_server_init: a system server already runs (%s/%s)",
                   s->system_tmpdir, name);
            free(name);
            return PMIX_ERR_INIT;
        }
        rc = write_or_skip(s, s->system_tmpdir, name);
        free(name);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    rc = write_tool_files(s, s->tmpdir, strcmp(s->tmpdir, s->system_tmpdir) != 0);
    if (rc != PMIX_SUCCESS || !(s->tool_support || s->session_support))
        return rc;
    return write_tool_files(s, s->system_tmpdir, false);
}
