/* Which libpmix.so.2 a process really mapped: the scenarios of
 * openmpi.sh must run on ours, never on OpenPMIx's, in the ranks and in
 * the daemon that started them (mpirun/orted, our parent). */
#ifndef SY_MAPCHECK_H
#define SY_MAPCHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Print "<who> libpmix <path>" for every libpmix file mapped by pid (0 =
 * self); returns how many mapped files are not under $SY_EXPECT_LIBDIR. */
static int sy_mapcheck(const char *who, pid_t pid)
{
    char path[64], line[4096], last[4096] = "";
    const char *want = getenv("SY_EXPECT_LIBDIR");
    int bad = 0;
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/maps");
    else
        snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, '/');
        if (p == NULL || strstr(p, "/libpmix.so") == NULL)
            continue;
        p[strcspn(p, "\n")] = '\0';
        if (strcmp(p, last) == 0)
            continue;
        snprintf(last, sizeof last, "%s", p);
        printf("%s libpmix %s\n", who, p);
        if (want != NULL && strncmp(p, want, strlen(want)) != 0)
            bad++;
    }
    fclose(f);
    return bad;
}
#endif
