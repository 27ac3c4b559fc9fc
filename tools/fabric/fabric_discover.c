/* switchyard-fabric --discover: this machine's fabric devices (libfabric
 * and hwloc, src/fabric/devices.c) as a table, or as JSON. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <pmix.h>

#include "fabric/devices.h"
#include "fabric.h"

typedef struct {
    const char *title;
    char *(*get)(const sy_device_t *d);
} column_t;

static char *fmt_u(unsigned long long v)
{
    char b[32];
    snprintf(b, sizeof(b), "%llu", v);
    return strdup(b);
}

static char *dup_or_null(const char *s)
{
    return s == NULL ? NULL : strdup(s);
}
static char *c_id(const sy_device_t *d)
{
    return dup_or_null(d->id);
}
static char *c_osname(const sy_device_t *d)
{
    return dup_or_null(d->osname);
}
static char *c_type(const sy_device_t *d)
{
    return dup_or_null(d->type);
}
static char *c_vendor(const sy_device_t *d)
{
    return dup_or_null(d->vendor);
}
static char *c_vendorid(const sy_device_t *d)
{
    return dup_or_null(d->vendorid);
}
static char *c_bus(const sy_device_t *d)
{
    return dup_or_null(d->bus_type);
}
static char *c_pci(const sy_device_t *d)
{
    return dup_or_null(d->pci_devid);
}
static char *c_driver(const sy_device_t *d)
{
    return dup_or_null(d->driver);
}
static char *c_fw(const sy_device_t *d)
{
    return dup_or_null(d->firmware);
}
static char *c_addr(const sy_device_t *d)
{
    return dup_or_null(d->address);
}
static char *c_guid(const sy_device_t *d)
{
    return dup_or_null(d->guid);
}
static char *c_prov(const sy_device_t *d)
{
    return dup_or_null(d->provider);
}
static char *c_mtu(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_MTU) ? fmt_u(d->mtu) : NULL;
}
static char *c_speed(const sy_device_t *d)
{
    if (!(d->has & SY_DEV_HAS_SPEED)) {
        return NULL;
    }
    char b[32];
    speed_text(d->speed, b, sizeof(b));
    return strdup(b);
}
static char *c_state(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_STATE) ? strdup(PMIx_Link_state_string(d->state)) : NULL;
}
static char *c_index(const sy_device_t *d)
{
    return (d->has & SY_DEV_HAS_INDEX) ? fmt_u(d->index) : NULL;
}
static char *c_devtype(const sy_device_t *d)
{
    return strdup(PMIx_Device_type_string(d->devtype));
}
static char *c_sources(const sy_device_t *d)
{
    const char *s = (d->sources & SY_DEV_SRC_FABRIC)
                        ? ((d->sources & SY_DEV_SRC_HWLOC) ? "libfabric+hwloc" : "libfabric")
                        : ((d->sources & SY_DEV_SRC_HWLOC) ? "hwloc" : "");
    return strdup(s);
}

static const column_t columns[] = {
    {"id", c_id},         {"name", c_osname},       {"type", c_type},    {"devtype", c_devtype},
    {"vendor", c_vendor}, {"vendorid", c_vendorid}, {"bus", c_bus},      {"pci", c_pci},
    {"driver", c_driver}, {"firmware", c_fw},       {"address", c_addr}, {"mtu", c_mtu},
    {"speed", c_speed},   {"state", c_state},       {"index", c_index},  {"guid", c_guid},
    {"provider", c_prov}, {"sources", c_sources}};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

/* {"devices": [{"title": "value", ...}, ...]}: a device's columns that
 * have a value. */
static int print_json(char **cell, size_t n)
{
    json_t *devs = json_array();
    json_t *root = json_pack("{s:o}", "devices", devs);
    if (root == NULL) {
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        json_t *dev = json_object();
        bad = json_array_append_new(devs, dev);
        for (size_t c = 0; c < NCOLS && !bad; c++) {
            const char *v = cell[i * NCOLS + c];
            if (v != NULL) {
                bad = json_object_set_new(dev, columns[c].title, json_string(v));
            }
        }
    }
    if (!bad) {
        bad = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        putchar('\n');
    }
    json_decref(root);
    return bad ? -1 : 0;
}

int discover(bool json)
{
    int status = 0;
    sy_device_list_t list = {0};
    pmix_status_t rc = sy_devices_gather(NULL, &list);
    if (rc != PMIX_SUCCESS) {
        return fail("device discovery failed: %s", PMIx_Error_string(rc));
    }
    size_t n = list.n;
    char **cell = calloc(n * NCOLS + 1, sizeof(*cell));
    if (cell == NULL) {
        sy_device_list_free(&list);
        return fail("out of memory");
    }
    size_t width[NCOLS] = {0};
    bool used[NCOLS] = {false};
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < NCOLS; c++) {
            char *v = columns[c].get(&list.devs[i]);
            if (v != NULL && '\0' != *v) {
                cell[i * NCOLS + c] = v;
                used[c] = true;
                size_t l = strlen(v);
                width[c] = l > width[c] ? l : width[c];
            } else {
                free(v);
            }
        }
    }
    if (json) {
        if (print_json(cell, n) != 0) {
            status = fail("out of memory");
        }
    } else if (n == 0) {
        printf("no fabric devices found\n");
    } else {
        for (size_t c = 0; c < NCOLS; c++) {
            size_t l = strlen(columns[c].title);
            width[c] = l > width[c] ? l : width[c];
        }
        size_t last = 0;
        for (size_t c = 0; c < NCOLS; c++) {
            last = used[c] ? c : last;
        }
        for (size_t row = 0; row <= n; row++) {
            bool first = true;
            for (size_t c = 0; c < NCOLS; c++) {
                if (!used[c]) {
                    continue;
                }
                const char *v = row == 0 ? columns[c].title : cell[(row - 1) * NCOLS + c];
                /* No padding after the last column. */
                printf("%s%-*s", first ? "" : "  ", c == last ? 0 : (int)width[c],
                       v == NULL ? "-" : v);
                first = false;
            }
            printf("\n");
        }
    }
    for (size_t i = 0; i < n * NCOLS; i++) {
        free(cell[i]);
    }
    free(cell);
    sy_device_list_free(&list);
    sy_devices_cache_release();
    return ferror(stdout) ? fail("write error") : status;
}
