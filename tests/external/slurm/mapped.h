/* Which libpmix a process and its parent (slurmstepd, for a task of
 * srun) really mapped.  Under the bind mount of slurm.sh our library
 * shows at the path of Debian's file, so the file is named by its inode:
 * the script compares it with our build's and with Debian's. */
#ifndef SY_SLURM_MAPPED_H
#define SY_SLURM_MAPPED_H
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Print "<who> libpmix <inode> <path>" once per libpmix file mapped by pid
 * (0 = self), and "<who> openpmix-plugin <path>" for any of OpenPMIx's
 * plugins (which only OpenPMIx loads). */
static void sy_mapped(const char *who, pid_t pid)
{
    char path[64], line[4096], last[4096] = "";
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/maps");
    else
        snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        printf("%s maps unreadable\n", who);
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, '/');
        if (p == NULL)
            continue;
        p[strcspn(p, "\n")] = '\0';
        if (strcmp(p, last) == 0)
            continue;
        unsigned long long inode = 0;
        char addr[128], perms[8], off[32], dev[32];
        if (sscanf(line, "%127s %7s %31s %31s %llu", addr, perms, off, dev, &inode) != 5)
            continue;
        if (strstr(p, "/libpmix.so") != NULL) {
            printf("%s libpmix %llu %s\n", who, inode, p);
            snprintf(last, sizeof last, "%s", p);
        } else if (strstr(p, "/pmix_mca_") != NULL) {
            printf("%s openpmix-plugin %s\n", who, p);
            snprintf(last, sizeof last, "%s", p);
        }
    }
    fclose(f);
}
#endif
