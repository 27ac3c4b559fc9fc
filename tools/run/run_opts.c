/* The command line of switchyard-run, shaped after mpirun/prterun:
 *   switchyard-run [options] -n N prog args [: -n M prog2 args ...] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

void run_usage(FILE *out)
{
    fprintf(out,
            "usage: switchyard-run [options] -n N program [args] [: -n M program2 [args] ...]\n"
            "       switchyard-run --system [options]\n"
            "\n"
            "Runs a PMIx job on this machine: embeds a PMIx server, registers the job,\n"
            "starts every process with the environment PMIx_Init needs, forwards their\n"
            "output and exits with the job's status.\n"
            "\n"
            "App context options (before each program; ':' starts the next context):\n"
            "  -n, -np, --np N        number of processes of this program (default 1)\n"
            "  --wdir DIR             working directory of this program's processes\n"
            "  --pset NAME            make this program's processes the process set NAME\n"
            "\n"
            "Job options:\n"
            "  --map-by core|package  place ranks on consecutive cores (default) or\n"
            "                         round-robin over packages\n"
            "  --bind-to core|package|none\n"
            "                         bind each process to its core or package (default:\n"
            "                         core when the job fits, none when oversubscribed)\n"
            "  --oversubscribe        allow more processes than cores (PMIx_Spawn'd jobs\n"
            "                         too: without it a spawn needs free cores)\n"
            "  --max-procs N          at most N processes at once, spawned ones included\n"
            "                         (default 4096): a larger PMIx_Spawn is refused\n"
            "  -x VAR[=VALUE]         export VAR (from our environment, or set to VALUE)\n"
            "  --env VAR=VALUE        set VAR in every process\n"
            "  --timeout SECONDS      kill the job after that long (exit status 124)\n"
            "  --tag-output           prefix each output line with [nspace,rank]<stream>:\n"
            "  --fabric FILE|SPEC     give the job a fabric: a topology file (Slurm,\n"
            "                         ibnetdiscover, native) or a generator spec\n"
            "                         (fattree:k=4, dragonfly:..., torus:4x4); the\n"
            "                         launcher becomes its scheduler\n"
            "  --output-dir DIR       also write each rank's output to\n"
            "                         DIR/<app>/rank.<rank>/{stdout,stderr}\n"
            "  --stdin inherit|tools|none\n"
            "                         rank 0's stdin: the launcher's own (default), what\n"
            "                         tools push with PMIx_IOF_push, or /dev/null\n"
            "  --system               also be the node's system server (pmix.sys.<host>\n"
            "                         in $TMPDIR): tools and launchers find it with\n"
            "                         PMIX_CONNECT_TO_SYSTEM and spawn jobs through it;\n"
            "                         with no program, it serves until SIGTERM/SIGINT\n"
            "  --verbose              say what the launcher does\n"
            "  -h, --help             this text\n"
            "\n"
            "Exit status: 0 when every process exited 0; otherwise the first failure's\n"
            "status (128+signal for a signal), with a line saying which rank and why.\n");
}

int run_opts_add_env(run_opts_t *o, const char *entry)
{
    char *copy = NULL;
    if (strchr(entry, '=') != NULL) {
        copy = strdup(entry);
    } else {
        const char *v = getenv(entry);
        if (v == NULL) {
            fprintf(stderr, "switchyard-run: -x %s: not set in our environment\n", entry);
            return 1;
        }
        if (asprintf(&copy, "%s=%s", entry, v) < 0)
            copy = NULL;
    }
    char **grown = copy != NULL ? realloc(o->env, (o->nenv + 2) * sizeof(char *)) : NULL;
    if (grown == NULL) {
        fprintf(stderr, "switchyard-run: out of memory\n");
        free(copy);
        return 1;
    }
    grown[o->nenv++] = copy;
    grown[o->nenv] = NULL;
    o->env = grown;
    return 0;
}

static int need_arg(int i, int argc, const char *opt)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "switchyard-run: %s needs a value\n", opt);
        return 1;
    }
    return 0;
}

int run_parse(int argc, char **argv, run_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->map_by = RUN_MAP_CORE;
    o->bind_to = RUN_BIND_CORE;
    o->max_procs = RUN_MAX_PROCS;
    int i = 1;
    while (i < argc) {
        run_app_t app = {.np = 1};
        /* options up to the program name */
        for (; i < argc && argv[i][0] == '-'; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                run_usage(stdout);
                return 2;
            } else if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np") ||
                       !strcmp(a, "-c")) {
                if (need_arg(i, argc, a))
                    return 1;
                char *end = NULL;
                long v = strtol(argv[++i], &end, 10);
                if (*end != '\0' || v < 1 || v > 65536) {
                    fprintf(stderr, "switchyard-run: %s %s: not a process count\n", a, argv[i]);
                    return 1;
                }
                app.np = (unsigned)v;
            } else if (!strcmp(a, "--wdir")) {
                if (need_arg(i, argc, a))
                    return 1;
                app.wdir = argv[++i];
            } else if (!strcmp(a, "--pset")) {
                if (need_arg(i, argc, a))
                    return 1;
                app.pset = argv[++i];
                if (app.pset[0] == '\0') {
                    fprintf(stderr, "switchyard-run: --pset needs a name\n");
                    return 1;
                }
            } else if (!strcmp(a, "--map-by")) {
                if (need_arg(i, argc, a))
                    return 1;
                const char *v = argv[++i];
                if (!strcmp(v, "core") || !strcmp(v, "slot"))
                    o->map_by = RUN_MAP_CORE;
                else if (!strcmp(v, "package") || !strcmp(v, "socket"))
                    o->map_by = RUN_MAP_PACKAGE;
                else {
                    fprintf(stderr, "switchyard-run: --map-by %s: use core or package\n", v);
                    return 1;
                }
            } else if (!strcmp(a, "--bind-to")) {
                if (need_arg(i, argc, a))
                    return 1;
                const char *v = argv[++i];
                o->bind_given = true;
                if (!strcmp(v, "core"))
                    o->bind_to = RUN_BIND_CORE;
                else if (!strcmp(v, "package") || !strcmp(v, "socket"))
                    o->bind_to = RUN_BIND_PACKAGE;
                else if (!strcmp(v, "none"))
                    o->bind_to = RUN_BIND_NONE;
                else {
                    fprintf(stderr, "switchyard-run: --bind-to %s: use core, package or none\n", v);
                    return 1;
                }
            } else if (!strcmp(a, "--oversubscribe")) {
                o->oversubscribe = true;
            } else if (!strcmp(a, "--max-procs")) {
                if (need_arg(i, argc, a))
                    return 1;
                char *end = NULL;
                unsigned long v = strtoul(argv[++i], &end, 10);
                if (*end != '\0' || v == 0 || v > 1000000) {
                    fprintf(stderr, "switchyard-run: --max-procs %s: not a count\n", argv[i]);
                    return 1;
                }
                o->max_procs = (unsigned)v;
            } else if (!strcmp(a, "-x")) {
                if (need_arg(i, argc, a) || run_opts_add_env(o, argv[++i]))
                    return 1;
            } else if (!strcmp(a, "--env")) {
                if (need_arg(i, argc, a))
                    return 1;
                if (strchr(argv[i + 1], '=') == NULL) {
                    fprintf(stderr, "switchyard-run: --env %s: use VAR=VALUE\n", argv[i + 1]);
                    return 1;
                }
                if (run_opts_add_env(o, argv[++i]))
                    return 1;
            } else if (!strcmp(a, "--timeout")) {
                if (need_arg(i, argc, a))
                    return 1;
                char *end = NULL;
                o->timeout = strtod(argv[++i], &end);
                if (*end != '\0' || o->timeout <= 0) {
                    fprintf(stderr, "switchyard-run: --timeout %s: not a duration\n", argv[i]);
                    return 1;
                }
            } else if (!strcmp(a, "--tag-output")) {
                o->tag_output = true;
            } else if (!strcmp(a, "--output-dir")) {
                if (need_arg(i, argc, a))
                    return 1;
                o->output_dir = argv[++i];
            } else if (!strcmp(a, "--stdin")) {
                if (need_arg(i, argc, a))
                    return 1;
                const char *v = argv[++i];
                if (!strcmp(v, "inherit"))
                    o->stdin_mode = RUN_STDIN_INHERIT;
                else if (!strcmp(v, "tools"))
                    o->stdin_mode = RUN_STDIN_TOOLS;
                else if (!strcmp(v, "none"))
                    o->stdin_mode = RUN_STDIN_NONE;
                else {
                    fprintf(stderr, "switchyard-run: --stdin %s: use inherit, tools or none\n", v);
                    return 1;
                }
            } else if (!strcmp(a, "--fabric")) {
                if (need_arg(i, argc, a))
                    return 1;
                o->fabric = argv[++i];
            } else if (!strcmp(a, "--system")) {
                o->system = true;
            } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
                o->verbose = true;
            } else {
                fprintf(stderr, "switchyard-run: unknown option %s (see --help)\n", a);
                return 1;
            }
        }
        if (i >= argc && o->system && o->napps == 0)
            break; /* a system server with no job of its own */
        if (i >= argc) {
            fprintf(stderr, "switchyard-run: no program to run (see --help)\n");
            return 1;
        }
        app.argv = &argv[i];
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        if (i < argc) {
            argv[i] = NULL; /* ends this context's argv */
            i++;
        }
        run_app_t *grown = realloc(o->apps, (o->napps + 1) * sizeof(*grown));
        if (grown == NULL)
            return 1;
        o->apps = grown;
        o->apps[o->napps++] = app;
    }
    if (o->napps == 0 && !o->system) {
        run_usage(stderr);
        return 1;
    }
    return 0;
}

void run_opts_free(run_opts_t *o)
{
    for (size_t i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    free(o->apps);
}
