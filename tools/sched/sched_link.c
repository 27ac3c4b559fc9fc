/* The daemons' link (sched.h): framed messages over a UNIX socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sched.h"

static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int link_send_bytes(int fd, const pmix_byte_object_t *bo)
{
    uint32_t len = htonl((uint32_t)bo->size);
    pthread_mutex_lock(&send_lock);
    int rc = write_all(fd, &len, 4) == 0 && write_all(fd, bo->bytes, bo->size) == 0 ? 0 : -1;
    pthread_mutex_unlock(&send_lock);
    return rc;
}

int link_send(int fd, pmix_data_buffer_t *buf)
{
    pmix_byte_object_t bo = {0};
    if (PMIx_Data_unload(buf, &bo) != PMIX_SUCCESS)
        return -1;
    int rc = link_send_bytes(fd, &bo);
    free(bo.bytes);
    return rc;
}

int link_recv(int fd, pmix_data_buffer_t *buf)
{
    uint32_t len;
    PMIX_DATA_BUFFER_CONSTRUCT(buf);
    if (read_all(fd, &len, 4) != 0)
        return -1;
    len = ntohl(len);
    if (len == 0 || len > (1u << 30))
        return -1;
    char *data = malloc(len);
    if (data == NULL || read_all(fd, data, len) != 0) {
        free(data);
        return -1;
    }
    pmix_byte_object_t bo = {.bytes = data, .size = len};
    pmix_status_t rc = PMIx_Data_load(buf, &bo);
    if (rc != PMIX_SUCCESS)
        free(data);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

pmix_status_t link_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n)
{
    pmix_status_t rc = PMIx_Data_pack(NULL, b, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = PMIx_Data_pack(NULL, b, (void *)info, (int32_t)n, PMIX_INFO);
    return rc;
}

pmix_status_t link_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n)
{
    int32_t one = 1;
    *info = NULL;
    pmix_status_t rc = PMIx_Data_unpack(NULL, b, n, &one, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || *n == 0)
        return rc;
    if (*n > (1u << 24))
        return PMIX_ERR_UNPACK_FAILURE;
    PMIX_INFO_CREATE(*info, *n);
    if (*info == NULL)
        return PMIX_ERR_NOMEM;
    int32_t cnt = (int32_t)*n;
    rc = PMIx_Data_unpack(NULL, b, *info, &cnt, PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        PMIX_INFO_FREE(*info, *n);
        *n = 0;
    }
    return rc;
}

static int fill_addr(const char *path, struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a->sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(a->sun_path, path);
    return 0;
}

int link_listen(const char *path)
{
    struct sockaddr_un a;
    if (fill_addr(path, &a) != 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* a socket of ours left by a dead daemon goes; any other name there
     * (another user's, a file, a symlink) stays and bind fails on it */
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
        unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 16) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int link_connect(const char *path, double wait_seconds)
{
    struct sockaddr_un a;
    if (fill_addr(path, &a) != 0)
        return -1;
    /* the scheduler may still be starting */
    for (double waited = 0;; waited += 0.05) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
            return fd;
        close(fd);
        if (waited >= wait_seconds)
            return -1;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
}
