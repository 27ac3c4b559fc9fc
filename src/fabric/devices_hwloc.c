/*
 * Switchyard -- fabric devices seen by hwloc: network and OpenFabrics OS
 * devices, grouped by their PCI function (an InfiniBand HCA shows up as
 * both "mlx5_0" and "ib0").
 */
#include "fabric/devices_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hwloc_obj_t pci_parent(hwloc_obj_t obj)
{
    for (obj = obj->parent; obj != NULL; obj = obj->parent) {
        if (HWLOC_OBJ_PCI_DEVICE == obj->type) {
            return obj;
        }
        if (HWLOC_OBJ_OS_DEVICE != obj->type) {
            return NULL;
        }
    }
    return NULL;
}

/* hwloc prints GUIDs as "f452:1403:0009:6fd0"; ibnetdiscover names them
 * "0xf452140300096fd0".  Use the latter so records match topology files. */
static void guid_normalize(const char *in, char *buf, size_t len)
{
    char hex[17];
    size_t n = 0;

    buf[0] = '\0';
    for (; '\0' != *in; ++in) {
        if (':' == *in) {
            continue;
        }
        if (!isxdigit((unsigned char)*in) || n == 16) {
            return;
        }
        hex[n++] = (char)tolower((unsigned char)*in);
    }
    if (n == 0) {
        return;
    }
    hex[n] = '\0';
    snprintf(buf, len, "0x%016llx", strtoull(hex, NULL, 16));
}

/* PCI class -> link type, for devices libfabric says nothing about. */
static const char *class_type(unsigned class_id)
{
    switch (class_id) {
    case 0x0200: return "Ethernet";
    case 0x0207: return "InfiniBand";
    default: return NULL;
    }
}

static pmix_status_t add_osdev(hwloc_obj_t os, sy_devbuild_t *b)
{
    hwloc_obj_t pci = pci_parent(os);
    char pcibuf[32], buf[64];
    const char *pciid = NULL, *names[1] = {os->name}, *v;
    bool ofed = (HWLOC_OBJ_OSDEV_OPENFABRICS == os->attr->osdev.type);
    sy_device_t *d;
    pmix_status_t rc;

    if (pci != NULL) {
        struct hwloc_pcidev_attr_s *pa = &pci->attr->pcidev;

        sy_pci_devid_format(pcibuf, sizeof(pcibuf), pa->domain, pa->bus, pa->dev, pa->func);
        pciid = pcibuf;
    }
    d = sy_devbuild_find(b, pciid, names, 1);
    if (d == NULL && (d = sy_devbuild_add(b)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    d->sources |= SY_DEV_SRC_HWLOC;
    if (ofed || d->devtype == PMIX_DEVTYPE_UNKNOWN) {
        d->devtype = ofed ? PMIX_DEVTYPE_OPENFABRICS : PMIX_DEVTYPE_NETWORK;
    }
    rc = sy_device_add_name(d, os->name, ofed ? SY_NAME_HWLOC_OFED : SY_NAME_HWLOC_NET);
    if (rc == PMIX_SUCCESS && pci != NULL) {
        struct hwloc_pcidev_attr_s *pa = &pci->attr->pcidev;

        rc = sy_device_put_str(&d->pci_devid, pciid, false);
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->bus_type, "PCI", false);
        }
        if (rc == PMIX_SUCCESS) {
            snprintf(buf, sizeof(buf), "0x%04x", (unsigned)pa->vendor_id);
            rc = sy_device_put_str(&d->vendorid, buf, false);
        }
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->vendor, hwloc_obj_get_info_by_name(pci, "PCIVendor"), false);
        }
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->type, class_type(pa->class_id), false);
        }
    }
    /* a network interface's Address is its MAC (or IPoIB hardware address) */
    v = hwloc_obj_get_info_by_name(os, "Address");
    if (rc == PMIX_SUCCESS && v != NULL && !ofed) {
        rc = sy_device_put_str(&d->address, v, false);
    }
    v = hwloc_obj_get_info_by_name(os, "NodeGUID");
    if (rc == PMIX_SUCCESS && v != NULL) {
        guid_normalize(v, buf, sizeof(buf));
        rc = sy_device_put_str(&d->guid, buf, false);
    }
    return rc;
}

pmix_status_t sy_devices_from_hwloc(hwloc_topology_t topo, sy_devbuild_t *b)
{
    hwloc_obj_t os = NULL;
    pmix_status_t rc = PMIX_SUCCESS;

    if (topo == NULL || b == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    while (rc == PMIX_SUCCESS && (os = hwloc_get_next_osdev(topo, os)) != NULL) {
        if (os->name == NULL || os->attr == NULL) {
            continue;
        }
        if (HWLOC_OBJ_OSDEV_NETWORK == os->attr->osdev.type ||
            HWLOC_OBJ_OSDEV_OPENFABRICS == os->attr->osdev.type) {
            rc = add_osdev(os, b);
        }
    }
    return rc;
}
