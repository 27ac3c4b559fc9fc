/* Standard API only (no Switchyard header, no internal code): register the
 * default fabric and check PMIX_FABRIC_COST_MATRIX against a breadth-first
 * search of our own over the same topology file (the native format of
 * docs/fabric.md: "switch", "device", "link A B [state=down]" lines).
 * Rows and columns are the devices in the order the file declares them;
 * devices do not forward traffic; a down link does not exist; 65535 means
 * unreachable.  Exit 0 when every entry matches.
 *
 * With ROWS ("3,0,17"), the registration asks for those devices only
 * (PMIX_FABRIC_DEVICE_INDEX): the matrix must be their square submatrix in
 * that order, and PMIX_FABRIC_DEVICE_INDEX must list them. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define MAXV 4096

static char names[MAXV][64];
static int is_dev[MAXV], devidx[MAXV], nv, ndev;
static int adj[MAXV][32], nadj[MAXV];

static int lookup(const char *n)
{
    for (int i = 0; i < nv; i++)
        if (strcmp(names[i], n) == 0)
            return i;
    return -1;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        char w0[64], w1[64], w2[64], rest[256] = "";
        int k = sscanf(line, "%63s %63s %63s %255[^\n]", w0, w1, w2, rest);
        if (k < 2 || w0[0] == '#')
            continue;
        if ((!strcmp(w0, "switch") || !strcmp(w0, "device")) && nv < MAXV) {
            strcpy(names[nv], w1);
            is_dev[nv] = !strcmp(w0, "device");
            devidx[nv] = is_dev[nv] ? ndev++ : -1;
            nv++;
        } else if (!strcmp(w0, "link") && k >= 3) {
            if (strstr(line, "state=down") != NULL)
                continue;
            int a = lookup(w1), b = lookup(w2);
            if (a < 0 || b < 0 || nadj[a] >= 32 || nadj[b] >= 32)
                return -1;
            adj[a][nadj[a]++] = b;
            adj[b][nadj[b]++] = a;
        }
    }
    fclose(f);
    return 0;
}

/* The registration's matrix against BFS; prints the digest line. */
static int verify(const pmix_fabric_t *fabp, int subset, const uint32_t *urows, int nrows,
                  const int *rows, const int *dev_vertex)
{
    const pmix_fabric_t fab = *fabp;
    size_t n = 0;
    const uint16_t *m = NULL;
    const pmix_data_array_t *got_rows = NULL;
    for (size_t i = 0; i < fab.ninfo; i++) {
        if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_NUM_DEVICES))
            n = fab.info[i].value.data.size;
        else if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_COST_MATRIX) &&
                 fab.info[i].value.type == PMIX_POINTER)
            m = fab.info[i].value.data.ptr;
        else if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_COST_MATRIX) &&
                 fab.info[i].value.type == PMIX_BYTE_OBJECT)
            m = (const uint16_t *)fab.info[i].value.data.bo.bytes;
        else if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_DEVICE_INDEX) &&
                 fab.info[i].value.type == PMIX_DATA_ARRAY)
            got_rows = fab.info[i].value.data.darray;
    }
    int bad = 0;
    if (n != (size_t)nrows || m == NULL) {
        fprintf(stderr, "fabric_bfs: %zu devices (want %d), matrix %p\n", n, nrows, (void *)m);
        bad = 1;
    }
    if (subset &&
        (got_rows == NULL || got_rows->type != PMIX_UINT32 || got_rows->size != (size_t)nrows ||
         memcmp(got_rows->array, urows, (size_t)nrows * sizeof(uint32_t)) != 0)) {
        fprintf(stderr, "fabric_bfs: PMIX_FABRIC_DEVICE_INDEX does not list the rows asked for\n");
        bad = 1;
    }
    static int dist[MAXV], queue[MAXV];
    for (int r = 0; !bad && r < nrows; r++) {
        int s = dev_vertex[rows[r]];
        for (int v = 0; v < nv; v++)
            dist[v] = -1;
        int head = 0, tail = 0;
        dist[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            int u = queue[head++];
            if (is_dev[u] && u != s)
                continue; /* devices end paths */
            for (int k = 0; k < nadj[u]; k++) {
                int w = adj[u][k];
                if (dist[w] < 0) {
                    dist[w] = dist[u] + 1;
                    queue[tail++] = w;
                }
            }
        }
        for (int c = 0; c < nrows; c++) {
            int t = dev_vertex[rows[c]];
            unsigned want = dist[t] < 0 ? 65535u : (unsigned)dist[t];
            unsigned got = m[(size_t)r * n + (size_t)c];
            if (want != got && bad++ < 5)
                fprintf(stderr, "fabric_bfs: cost %s -> %s is %u, BFS says %u\n", names[s],
                        names[t], got, want);
        }
    }
    /* a digest, so that two routes to the same matrix can be compared */
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *bytes = (const unsigned char *)m;
    for (size_t i = 0; !bad && i < n * n * sizeof(uint16_t); i++)
        h = (h ^ bytes[i]) * 1099511628211ULL;
    if (!bad)
        printf("ok cost matrix of %zu devices matches BFS (fnv1a %016llx)\n", n, h);
    return bad;
}

/* memfd entries in /proc/PID/{maps,fd} */
static int memfd_count(const char *pid, const char *what)
{
    char path[64], line[512];
    int n = 0;
    if (strcmp(what, "maps") == 0) {
        snprintf(path, sizeof(path), "/proc/%s/maps", pid);
        FILE *f = fopen(path, "r");
        while (f != NULL && fgets(line, sizeof(line), f) != NULL)
            if (strstr(line, "/memfd:") != NULL)
                n++;
        if (f != NULL)
            fclose(f);
        return n;
    }
    snprintf(path, sizeof(path), "/proc/%s/fd", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char link[600], target[256];
        snprintf(link, sizeof(link), "%s/%s", path, e->d_name);
        ssize_t k = readlink(link, target, sizeof(target) - 1);
        if (k > 0) {
            target[k] = '\0';
            if (strncmp(target, "/memfd:", 7) == 0)
                n++;
        }
    }
    if (d != NULL)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || load(argv[1]) != 0) {
        fprintf(stderr, "usage: fabric_bfs NATIVE-TOPOLOGY-FILE [ROWS]\n");
        return 2;
    }
    /* device index -> vertex, and the rows asked for (all by default) */
    static int dev_vertex[MAXV], rows[MAXV];
    int nrows = 0;
    for (int v = 0; v < nv; v++)
        if (is_dev[v])
            dev_vertex[devidx[v]] = v;
    if (argc == 3) {
        for (char *tok = strtok(argv[2], ","); tok != NULL && nrows < MAXV; tok = strtok(NULL, ","))
            rows[nrows++] = atoi(tok);
    } else {
        for (int d = 0; d < ndev; d++)
            rows[nrows++] = d;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    pmix_info_t dirs[2];
    size_t nd = 0;
    PMIX_INFO_CONSTRUCT(&dirs[0]);
    PMIX_INFO_CONSTRUCT(&dirs[1]);
    pmix_data_array_t want_rows = {.type = PMIX_UINT32, .size = (size_t)nrows};
    uint32_t urows[MAXV];
    for (int r = 0; r < nrows; r++)
        urows[r] = (uint32_t)rows[r];
    want_rows.array = urows;
    if (argc == 3)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_FABRIC_DEVICE_INDEX, &want_rows, PMIX_DATA_ARRAY);
    /* FABRIC_BFS_BYVALUE=1: Switchyard's "sy.fab.byval" (the matrix as a
     * byte object; any other library ignores it) */
    bool t = true;
    if (getenv("FABRIC_BFS_BYVALUE") != NULL)
        PMIX_INFO_LOAD(&dirs[nd++], "sy.fab.byval", &t, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fabric_register(&fab, nd > 0 ? dirs : NULL, nd);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fabric_bfs: PMIx_Fabric_register: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    int bad = verify(&fab, argc == 3, urows, nrows, rows, dev_vertex);
    /* FABRIC_BFS_SHM=1: the matrix must be a mapping of the server's
     * memfd; =0: it must not (by value) */
    const char *want_shm = getenv("FABRIC_BFS_SHM");
    if (!bad && want_shm != NULL) {
        int maps = memfd_count("self", "maps");
        if ((maps > 0) != (atoi(want_shm) != 0)) {
            fprintf(stderr, "fabric_bfs: %d memfd mappings, want %s\n", maps, want_shm);
            bad = 1;
        } else {
            printf("ok the matrix is %s\n",
                   maps > 0 ? "mapped from shared memory" : "a copy that came by value");
        }
    }
    /* FABRIC_BFS_UPDATE=K: K updates, the matrix checked after each, and
     * only the current one mapped */
    int updates = getenv("FABRIC_BFS_UPDATE") != NULL ? atoi(getenv("FABRIC_BFS_UPDATE")) : 0;
    for (int u = 0; !bad && u < updates; u++) {
        rc = PMIx_Fabric_update(&fab);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "fabric_bfs: PMIx_Fabric_update: %s\n", PMIx_Error_string(rc));
            bad = 1;
            break;
        }
        bad = verify(&fab, argc == 3, urows, nrows, rows, dev_vertex);
        if (!bad && want_shm != NULL && memfd_count("self", "maps") > (atoi(want_shm) ? 1 : 0)) {
            fprintf(stderr, "fabric_bfs: %d memfd mappings after update %d\n",
                    memfd_count("self", "maps"), u + 1);
            bad = 1;
        }
        if (!bad)
            printf("ok update %d\n", u + 1);
    }
    PMIx_Fabric_deregister(&fab);
    /* FABRIC_BFS_LEAKS=1: no memfd stays open or mapped here or in our
     * server (the parent: a node daemon), which closes its own once sent */
    if (!bad && getenv("FABRIC_BFS_LEAKS") != NULL) {
        char parent[32];
        snprintf(parent, sizeof(parent), "%d", (int)getppid());
        int left = 0;
        for (int i = 0; i < 50; i++) {
            left = memfd_count("self", "maps") + memfd_count("self", "fd") +
                   memfd_count(parent, "maps") + memfd_count(parent, "fd");
            if (left == 0)
                break;
            usleep(100000);
        }
        if (left != 0) {
            fprintf(stderr, "fabric_bfs: %d memfd descriptors or mappings left\n", left);
            bad = 1;
        } else {
            printf("ok no memfd open or mapped in the client or its server\n");
        }
    }
    PMIx_Finalize(NULL, 0);
    return bad ? 1 : 0;
}
