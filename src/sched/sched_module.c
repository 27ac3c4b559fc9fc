/* Loading the fabric engine module (fabmod.h) on first use: dlopen with
 * RTLD_LOCAL, so that nothing the module contains (its own copies of our
 * data helpers among them) can shadow a symbol of libpmix or the program.
 * The module stays loaded once loaded: the libraries it brings in
 * (libfabric and its providers, igraph) keep allocations made by their
 * constructors and register exit handlers, which an unload would turn into
 * leaks or calls into unmapped code.  Finalize releases what we hold in it
 * (the cached libfabric device list). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/log.h"
#include "fabmod/fabmod.h"
#include "sched/sched.h"
#include "switchyard.h"

#define MODULE_FILE "libswitchyard-fabric.so"

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static const sy_fabmod_ops_t *mod_ops;

/* why the last attempt failed, for the warning */
static char why[512];

static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(why, sizeof(why), "%s", e != NULL ? e : path);
        sy_log(SY_LOG_DEBUG, "fabric module %s: %s", path, why);
    }
    return h;
}

/* The environment's choice, then next to libpmix (the build tree's .libs),
 * then libpmix's directory's switchyard/, then the configured pkglibdir. */
static void *open_module(void)
{
    const char *env = getenv(SWITCHYARD_FABRIC_MODULE_ENV);
    if (env != NULL && env[0] != '\0')
        return try_open(env);
    Dl_info di;
    char path[PATH_MAX];
    void *h = NULL;
    if (dladdr((void *)sy_fabmod_load, &di) != 0 && di.dli_fname != NULL) {
        const char *slash = strrchr(di.dli_fname, '/');
        int dlen = slash != NULL ? (int)(slash - di.dli_fname) : 1;
        const char *dir = slash != NULL ? di.dli_fname : ".";
        if (snprintf(path, sizeof(path), "%.*s/%s", dlen, dir, MODULE_FILE) < (int)sizeof(path))
            h = try_open(path);
        if (h == NULL && snprintf(path, sizeof(path), "%.*s/switchyard/%s", dlen, dir,
                                  MODULE_FILE) < (int)sizeof(path))
            h = try_open(path);
    }
    if (h == NULL)
        h = try_open(SY_PKGLIBDIR "/" MODULE_FILE);
    return h;
}

pmix_status_t sy_fabmod_load(const sy_fabmod_ops_t **ops)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&mod_lock);
    if (mod_ops == NULL) {
        void *h = open_module();
        const sy_fabmod_ops_t *o = h != NULL ? dlsym(h, SY_FABMOD_SYMBOL) : NULL;
        if (h != NULL && o == NULL)
            snprintf(why, sizeof(why), "no %s in it", SY_FABMOD_SYMBOL);
        else if (o != NULL && o->abi != SY_FABMOD_ABI)
            snprintf(why, sizeof(why), "ABI %u, not %u", o->abi, SY_FABMOD_ABI);
        if (o == NULL || o->abi != SY_FABMOD_ABI) {
            sy_log(SY_LOG_WARN, "the fabric engine module (%s) cannot be loaded: %s; set %s",
                   MODULE_FILE, why, SWITCHYARD_FABRIC_MODULE_ENV);
            if (h != NULL)
                dlclose(h);
            rc = PMIX_ERR_NOT_AVAILABLE;
        } else {
            mod_ops = o; /* h stays open for good (above) */
        }
    }
    *ops = mod_ops;
    pthread_mutex_unlock(&mod_lock);
    return rc;
}

void sy_fabmod_unload(void)
{
    pthread_mutex_lock(&mod_lock);
    if (mod_ops != NULL)
        mod_ops->cleanup();
    pthread_mutex_unlock(&mod_lock);
}
