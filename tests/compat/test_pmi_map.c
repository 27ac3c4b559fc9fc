/* PMI_process_mapping strings (src/common/pmi_map.c) for placements whose
 * MPICH reading is known (docs/pmi.md), and a buffer too small. */
#include <stdio.h>
#include <string.h>

#include "common/pmi_map.h"

static int fails;

static void check(const unsigned *nodes, int n, const char *want)
{
    char buf[256];
    sy_pmi_map_t m;
    sy_pmi_map_begin(&m, buf, sizeof(buf));
    for (int i = 0; i < n; i++)
        sy_pmi_map_add(&m, nodes[i]);
    if (!sy_pmi_map_end(&m) || strcmp(buf, want) != 0) {
        fprintf(stderr, "got %s, expected %s\n", buf, want);
        fails++;
    }
}

int main(void)
{
    const unsigned one[] = {0, 0, 0, 0}, block[] = {0, 0, 1, 1}, rr[] = {0, 1, 0, 1},
                   uneven[] = {0, 0, 0, 1}, each[] = {0, 1, 2, 3}, wrap[] = {0, 0, 1, 1, 2, 0};
    check(one, 4, "(vector,(0,1,4))");
    check(block, 4, "(vector,(0,2,2))");
    check(rr, 4, "(vector,(0,2,1),(0,2,1))");
    check(uneven, 4, "(vector,(0,1,3),(1,1,1))");
    check(each, 4, "(vector,(0,4,1))");
    check(wrap, 6, "(vector,(0,2,2),(2,1,1),(0,1,1))");
    check(one, 1, "(vector,(0,1,1))");
    char small[12];
    sy_pmi_map_t m;
    sy_pmi_map_begin(&m, small, sizeof(small));
    sy_pmi_map_add(&m, 0);
    if (sy_pmi_map_end(&m) || strlen(small) >= sizeof(small)) {
        fprintf(stderr, "a too small buffer was not reported\n");
        fails++;
    }
    printf("%s\n", fails == 0 ? "ok" : "FAILED");
    return fails != 0;
}
