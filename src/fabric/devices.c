/*
 * Switchyard -- device records: merging the sources, ids, release, and
 * conversion to the Standard's PMIX_FABRIC_DEVICE info arrays.
 */
#include "fabric/devices_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

/* ---- builder ------------------------------------------------------------ */

bool sy_device_has_alias(const sy_device_t *d, const char *name)
{
    size_t i;

    if (name == NULL) {
        return false;
    }
    for (i = 0; i < d->naliases; ++i) {
        if (strcmp(d->aliases[i], name) == 0) {
            return true;
        }
    }
    return false;
}

sy_device_t *sy_devbuild_find(sy_devbuild_t *b, const char *pci, const char *const *names,
                              size_t nnames)
{
    size_t i, k;

    for (i = 0; i < b->list.n; ++i) {
        sy_device_t *d = &b->list.devs[i];

        if (pci != NULL && d->pci_devid != NULL && strcmp(pci, d->pci_devid) == 0) {
            return d;
        }
    }
    for (i = 0; i < b->list.n; ++i) {
        sy_device_t *d = &b->list.devs[i];

        /* two different PCI functions are two devices even if a name
         * happens to repeat */
        if (pci != NULL && d->pci_devid != NULL) {
            continue;
        }
        for (k = 0; k < nnames; ++k) {
            if (sy_device_has_alias(d, names[k])) {
                return d;
            }
        }
    }
    return NULL;
}

sy_device_t *sy_devbuild_add(sy_devbuild_t *b)
{
    if (b->list.n == b->cap) {
        size_t ncap = (b->cap == 0) ? 8 : 2 * b->cap;
        sy_device_t *nd = realloc(b->list.devs, ncap * sizeof(*nd));

        if (nd == NULL) {
            return NULL;
        }
        b->list.devs = nd;
        b->cap = ncap;
    }
    memset(&b->list.devs[b->list.n], 0, sizeof(sy_device_t));
    b->list.devs[b->list.n].devtype = PMIX_DEVTYPE_UNKNOWN;
    return &b->list.devs[b->list.n++];
}

pmix_status_t sy_device_put_str(char **field, const char *val, bool override)
{
    char *copy;

    if (val == NULL || val[0] == '\0' || (*field != NULL && !override)) {
        return PMIX_SUCCESS;
    }
    if (*field != NULL && strcmp(*field, val) == 0) {
        return PMIX_SUCCESS;
    }
    copy = strdup(val);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    free(*field);
    *field = copy;
    return PMIX_SUCCESS;
}

pmix_status_t sy_device_add_name(sy_device_t *d, const char *name, int rank)
{
    pmix_status_t rc;

    if (name == NULL || '\0' == name[0]) {
        return PMIX_SUCCESS;
    }
    if (!sy_device_has_alias(d, name)) {
        char **na = realloc(d->aliases, (d->naliases + 1) * sizeof(*na));

        if (na == NULL) {
            return PMIX_ERR_NOMEM;
        }
        d->aliases = na;
        na[d->naliases] = strdup(name);
        if (na[d->naliases] == NULL) {
            return PMIX_ERR_NOMEM;
        }
        d->naliases++;
    }
    if (rank > d->name_rank) {
        rc = sy_device_put_str(&d->osname, name, true);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        d->name_rank = rank;
    }
    return PMIX_SUCCESS;
}

void sy_pci_devid_format(char *buf, size_t len, unsigned domain, unsigned bus, unsigned dev,
                         unsigned func)
{
    snprintf(buf, len, "%04x:%02x:%02x:%02x", domain & 0xffffu, bus & 0xffu, dev & 0xffu,
             func & 0xffu);
}

/* ---- release -------------------------------------------------------------- */

void sy_device_destruct(sy_device_t *dev)
{
    size_t i;

    if (dev == NULL) {
        return;
    }
    free(dev->id);
    free(dev->osname);
    free(dev->vendor);
    free(dev->vendorid);
    free(dev->bus_type);
    free(dev->pci_devid);
    free(dev->driver);
    free(dev->firmware);
    free(dev->address);
    free(dev->type);
    free(dev->guid);
    free(dev->provider);
    for (i = 0; i < dev->naliases; ++i) {
        free(dev->aliases[i]);
    }
    free(dev->aliases);
    memset(dev, 0, sizeof(*dev));
}

void sy_device_list_free(sy_device_list_t *list)
{
    size_t i;

    if (list == NULL) {
        return;
    }
    for (i = 0; i < list->n; ++i) {
        sy_device_destruct(&list->devs[i]);
    }
    free(list->devs);
    list->devs = NULL;
    list->n = 0;
}

/* ---- ids, vendors, order -------------------------------------------------- */

/* sy_device_make_id is in distances.c, which libpmix also holds. */

/* Vendor names for the PCI vendor ids of common fabric hardware, used
 * when hwloc did not name the vendor (e.g. a libfabric-only NIC). */
static const char *vendor_name(const char *vendorid)
{
    static const struct {
        unsigned long id;
        const char *name;
    } known[] = {
        {0x15b3, "Mellanox Technologies"},
        {0x17db, "Hewlett Packard Enterprise"},
        {0x1d0f, "Amazon.com, Inc."},
        {0x8086, "Intel Corporation"},
        {0x1077, "QLogic Corp."},
        {0x14e4, "Broadcom Inc."},
        {0x1924, "Solarflare Communications"},
        {0x1af4, "Red Hat, Inc."},
    };
    char *end;
    unsigned long v;
    size_t i;

    if (vendorid == NULL) {
        return NULL;
    }
    v = strtoul(vendorid, &end, 16);
    if (end == vendorid || '\0' != *end) {
        return NULL;
    }
    for (i = 0; i < sizeof(known) / sizeof(known[0]); ++i) {
        if (known[i].id == v) {
            return known[i].name;
        }
    }
    return NULL;
}

static int cmp_str_nullable(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return (a == NULL) - (b == NULL);
    }
    return strcmp(a, b);
}

/* PCI devices first in PCI order, then the rest by name. */
static int cmp_device(const void *pa, const void *pb)
{
    const sy_device_t *a = pa, *b = pb;
    int c = cmp_str_nullable(a->pci_devid, b->pci_devid);

    return (c != 0) ? c : cmp_str_nullable(a->osname, b->osname);
}

/* ---- gather --------------------------------------------------------------- */

/* hwloc topology with the I/O objects that matter for devices. */
static pmix_status_t load_local_topology(hwloc_topology_t *topo)
{
    if (hwloc_topology_init(topo) != 0) {
        return PMIX_ERR_NOMEM;
    }
    if (hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
        hwloc_topology_load(*topo) != 0) {
        hwloc_topology_destroy(*topo);
        return PMIX_ERROR;
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_devices_gather(const sy_devices_opts_t *opts, sy_device_list_t *out)
{
    static const sy_devices_opts_t defaults = {NULL, NULL, 0};
    sy_devbuild_t b = {{NULL, 0}, 0};
    hwloc_topology_t topo = NULL;
    bool own_topo = false;
    pmix_status_t rc = PMIX_SUCCESS;
    size_t i;

    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    out->devs = NULL;
    out->n = 0;
    if (opts == NULL) {
        opts = &defaults;
    }
    /* hwloc first: it groups the OS names of one PCI function, so that the
     * libfabric entries of several providers land on the same record */
    if (!(opts->flags & SY_DEVICES_NO_HWLOC)) {
        topo = opts->topology;
        if (topo == NULL) {
            rc = load_local_topology(&topo);
            own_topo = (rc == PMIX_SUCCESS);
            /* no hwloc view is not fatal: libfabric may still answer */
            rc = PMIX_SUCCESS;
        }
        if (topo != NULL) {
            rc = sy_devices_from_hwloc(topo, &b);
        }
        if (own_topo) {
            hwloc_topology_destroy(topo);
        }
    }
    if (rc == PMIX_SUCCESS && !(opts->flags & SY_DEVICES_NO_FABRIC)) {
        rc = sy_devices_from_fabric(opts->flags, &b);
    }
    for (i = 0; rc == PMIX_SUCCESS && i < b.list.n; ++i) {
        sy_device_t *d = &b.list.devs[i];

        rc = sy_device_put_str(&d->vendor, vendor_name(d->vendorid), false);
        if (rc == PMIX_SUCCESS && d->pci_devid != NULL) {
            rc = sy_device_put_str(&d->bus_type, "PCI", false);
        }
    }
    if (rc == PMIX_SUCCESS && b.list.n > 1) {
        qsort(b.list.devs, b.list.n, sizeof(sy_device_t), cmp_device);
    }
    for (i = 0; rc == PMIX_SUCCESS && i < b.list.n; ++i) {
        sy_device_t *d = &b.list.devs[i];

        d->id = sy_device_make_id(opts->hostname, d->osname);
        if (d->id == NULL) {
            rc = PMIX_ERR_NOMEM;
        }
    }
    if (rc != PMIX_SUCCESS) {
        sy_device_list_free(&b.list);
        return rc;
    }
    *out = b.list;
    return PMIX_SUCCESS;
}

/* ---- conversion ----------------------------------------------------------- */

pmix_status_t sy_device_to_info(const sy_device_t *dev, pmix_data_array_t *out)
{
    struct {
        const char *key;
        const void *data;
        pmix_data_type_t type;
        bool present;
    } f[15];
    size_t nf = 0, n = 0, i;
    pmix_info_t *info;
    pmix_status_t rc = PMIX_SUCCESS;

    if (dev == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    PMIX_DATA_ARRAY_INIT(out, PMIX_INFO);
    if (dev->id == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
#define SY_F(k, d, t, p)                                                                           \
    do {                                                                                           \
        f[nf].key = (k);                                                                           \
        f[nf].data = (d);                                                                          \
        f[nf].type = (t);                                                                          \
        f[nf].present = (p);                                                                       \
        n += (p) ? 1 : 0;                                                                          \
        nf++;                                                                                      \
    } while (0)
    /* the Standard requires PMIX_DEVICE_ID first */
    SY_F(PMIX_DEVICE_ID, dev->id, PMIX_STRING, true);
    SY_F(PMIX_FABRIC_DEVICE_NAME, dev->osname, PMIX_STRING, dev->osname != NULL);
    SY_F(PMIX_FABRIC_DEVICE_VENDOR, dev->vendor, PMIX_STRING, dev->vendor != NULL);
    SY_F(PMIX_FABRIC_DEVICE_VENDORID, dev->vendorid, PMIX_STRING, dev->vendorid != NULL);
    SY_F(PMIX_FABRIC_DEVICE_BUS_TYPE, dev->bus_type, PMIX_STRING, dev->bus_type != NULL);
    SY_F(PMIX_FABRIC_DEVICE_PCI_DEVID, dev->pci_devid, PMIX_STRING, dev->pci_devid != NULL);
    SY_F(PMIX_FABRIC_DEVICE_DRIVER, dev->driver, PMIX_STRING, dev->driver != NULL);
    SY_F(PMIX_FABRIC_DEVICE_FIRMWARE, dev->firmware, PMIX_STRING, dev->firmware != NULL);
    SY_F(PMIX_FABRIC_DEVICE_ADDRESS, dev->address, PMIX_STRING, dev->address != NULL);
    SY_F(PMIX_FABRIC_DEVICE_MTU, &dev->mtu, PMIX_SIZE, (dev->has & SY_DEV_HAS_MTU) != 0);
    SY_F(PMIX_FABRIC_DEVICE_SPEED, &dev->speed, PMIX_SIZE, (dev->has & SY_DEV_HAS_SPEED) != 0);
    SY_F(PMIX_FABRIC_DEVICE_STATE, &dev->state, PMIX_LINK_STATE,
         (dev->has & SY_DEV_HAS_STATE) != 0);
    SY_F(PMIX_FABRIC_DEVICE_TYPE, dev->type, PMIX_STRING, dev->type != NULL);
    SY_F(PMIX_FABRIC_DEVICE_INDEX, &dev->index, PMIX_UINT32, (dev->has & SY_DEV_HAS_INDEX) != 0);
#undef SY_F
    PMIX_DATA_ARRAY_CONSTRUCT(out, n, PMIX_INFO);
    if (out->array == NULL) {
        return PMIX_ERR_NOMEM;
    }
    info = out->array;
    for (i = 0, n = 0; rc == PMIX_SUCCESS && i < nf; ++i) {
        if (f[i].present) {
            rc = PMIx_Info_load(&info[n++], f[i].key, f[i].data, f[i].type);
        }
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Data_array_destruct(out);
    }
    return rc;
}

pmix_status_t sy_devices_to_info(const sy_device_list_t *list, pmix_data_array_t *out)
{
    pmix_info_t *info;
    pmix_status_t rc = PMIX_SUCCESS;
    size_t i;

    if (list == NULL || out == NULL || (list->n > 0 && list->devs == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    PMIX_DATA_ARRAY_INIT(out, PMIX_INFO);
    if (list->n == 0) {
        return PMIX_SUCCESS;
    }
    PMIX_DATA_ARRAY_CONSTRUCT(out, list->n, PMIX_INFO);
    if (out->array == NULL) {
        return PMIX_ERR_NOMEM;
    }
    info = out->array;
    for (i = 0; rc == PMIX_SUCCESS && i < list->n; ++i) {
        pmix_data_array_t one;

        rc = sy_device_to_info(&list->devs[i], &one);
        if (rc == PMIX_SUCCESS) {
            rc = PMIx_Info_load(&info[i], PMIX_FABRIC_DEVICE, &one, PMIX_DATA_ARRAY);
            PMIx_Data_array_destruct(&one);
        }
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Data_array_destruct(out);
    }
    return rc;
}
