/* Hydra's PMI_PORT mode (server_pmi.h): a TCP listener on 127.0.0.1 for
 * PMI clients that have no PMI_FD.  Hydra lets such a client name its
 * own rank (PMI_ID); here PMI_ID is a random secret setup_fork made for
 * one process, used up by the one connection that presents it (PMI-1
 * `cmd=initack pmiid=`, PMI-2 `fullinit` `pmirank=`), so a peer never
 * chooses its identity.  Loop only. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_pmi.h"

typedef struct port_id {
    uint32_t id;
    pmix_proc_t proc;
    struct port_id *next;
} port_id_t;

static port_id_t *ids;
static int listen_fd = -1;
static int listen_port;
static struct event *listen_ev;
static bool listen_failed; /* logged once */

/* Connections not identified yet, at most: anyone on the host can
 * connect, and must not fill our descriptor table. */
#define MAX_UNIDENTIFIED 64

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    (void)arg;
    int s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (s < 0)
        return; /* EAGAIN, or out of descriptors: the client's connect fails */
    size_t n = 0;
    for (const sy_pmi_conn_t *c = sy_pmi_conns(); c != NULL; c = c->next)
        n += c->job == NULL;
    if (n >= MAX_UNIDENTIFIED) {
        sy_log(SY_LOG_WARN, "pmi: %d PMI_PORT connections not identified yet; refused one",
               MAX_UNIDENTIFIED);
        close(s);
        return;
    }
    if (sy_pmi_conn_new(s, NULL, NULL) == NULL)
        close(s);
}

static bool listen_open(void)
{
    if (listen_fd >= 0)
        return true;
    if (listen_failed)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0 ||
        (listen_ev = event_new(sy_progress_base(sy_srv->progress), fd, EV_READ | EV_PERSIST,
                               on_accept, NULL)) == NULL ||
        event_add(listen_ev, NULL) != 0) {
        sy_log(SY_LOG_WARN, "pmi: no PMI_PORT listener: %s", strerror(errno));
        if (listen_ev != NULL)
            event_free(listen_ev);
        listen_ev = NULL;
        if (fd >= 0)
            close(fd);
        listen_failed = true;
        return false;
    }
    listen_fd = fd;
    listen_port = ntohs(a.sin_port);
    return true;
}

uint32_t sy_pmi_port_id(const pmix_proc_t *proc, int *port)
{
    if (!listen_open())
        return 0;
    port_id_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return 0;
    /* positive as an int (MPICH reads it with atoi), never 0, unique */
    for (int tries = 0; tries < 8 && p->id == 0; tries++) {
        uint32_t v = 0;
        if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
            break;
        v &= 0x7fffffffu;
        for (port_id_t *x = ids; x != NULL && v != 0; x = x->next)
            if (x->id == v)
                v = 0;
        p->id = v;
    }
    if (p->id == 0) {
        free(p);
        return 0;
    }
    /* a process forked again (a restart) gets a new one: the old goes */
    for (port_id_t **pp = &ids; *pp != NULL; pp = &(*pp)->next)
        if (PMIX_CHECK_PROCID(&(*pp)->proc, proc)) {
            port_id_t *old = *pp;
            *pp = old->next;
            free(old);
            break;
        }
    p->proc = *proc;
    p->next = ids;
    ids = p;
    *port = listen_port;
    return p->id;
}

bool sy_pmi_port_identify(sy_pmi_conn_t *c, const char *id)
{
    char *end;
    errno = 0;
    unsigned long v = id != NULL ? strtoul(id, &end, 10) : 0;
    if (id == NULL || errno != 0 || end == id || *end != '\0' || v == 0 || v > 0x7fffffffUL)
        return false;
    for (port_id_t **pp = &ids; *pp != NULL; pp = &(*pp)->next) {
        port_id_t *p = *pp;
        if (p->id != (uint32_t)v)
            continue;
        sy_pmi_job_t *j = sy_pmi_job_get(p->proc.nspace);
        if (j == NULL)
            return false;
        c->proc = p->proc;
        c->job = j;
        *pp = p->next;
        free(p);
        return true;
    }
    return false;
}

void sy_pmi_port_forget(const char *nspace)
{
    for (port_id_t **pp = &ids; *pp != NULL;) {
        port_id_t *p = *pp;
        if (PMIX_CHECK_NSPACE(p->proc.nspace, nspace)) {
            *pp = p->next;
            free(p);
        } else {
            pp = &p->next;
        }
    }
}

void sy_pmi_port_finalize(void)
{
    while (ids != NULL) {
        port_id_t *p = ids;
        ids = p->next;
        free(p);
    }
    if (listen_ev != NULL)
        event_free(listen_ev);
    listen_ev = NULL;
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    listen_failed = false;
}
