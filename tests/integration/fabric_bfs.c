/* Standard API only (no Switchyard header, no internal code): register the
 * default fabric and check PMIX_FABRIC_COST_MATRIX against a breadth-first
 * search of our own over the same topology file (the native format of
 * docs/fabric.md: "switch", "device", "link A B [state=down]" lines).
 * Rows and columns are the devices in the order the file declares them;
 * devices do not forward traffic; a down link does not exist; 65535 means
 * unreachable.  Exit 0 when every entry matches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    if (argc != 2 || load(argv[1]) != 0) {
        fprintf(stderr, "usage: fabric_bfs NATIVE-TOPOLOGY-FILE\n");
        return 2;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 1;
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    pmix_status_t rc = PMIx_Fabric_register(&fab, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fabric_bfs: PMIx_Fabric_register: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    size_t n = 0;
    const uint16_t *m = NULL;
    for (size_t i = 0; i < fab.ninfo; i++) {
        if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_NUM_DEVICES))
            n = fab.info[i].value.data.size;
        else if (PMIX_CHECK_KEY(&fab.info[i], PMIX_FABRIC_COST_MATRIX) &&
                 fab.info[i].value.type == PMIX_POINTER)
            m = fab.info[i].value.data.ptr;
    }
    int bad = 0;
    if (n != (size_t)ndev || m == NULL) {
        fprintf(stderr, "fabric_bfs: %zu devices (want %d), matrix %p\n", n, ndev, (void *)m);
        bad = 1;
    }
    static int dist[MAXV], queue[MAXV];
    for (int s = 0; !bad && s < nv; s++) {
        if (!is_dev[s])
            continue;
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
        for (int t = 0; t < nv; t++) {
            if (!is_dev[t])
                continue;
            unsigned want = dist[t] < 0 ? 65535u : (unsigned)dist[t];
            unsigned got = m[(size_t)devidx[s] * n + (size_t)devidx[t]];
            if (want != got && bad++ < 5)
                fprintf(stderr, "fabric_bfs: cost %s -> %s is %u, BFS says %u\n", names[s],
                        names[t], got, want);
        }
    }
    if (!bad)
        printf("ok cost matrix of %zu devices matches BFS\n", n);
    PMIx_Fabric_deregister(&fab);
    PMIx_Finalize(NULL, 0);
    return bad ? 1 : 0;
}
