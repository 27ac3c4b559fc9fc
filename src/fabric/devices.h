/*
 * Switchyard -- local fabric device inventory.
 *
 * Devices come from two sources, merged into one record per physical
 * device: libfabric (fi_getinfo, with the fid_nic device/bus/link
 * attributes when the provider fills them) and hwloc I/O objects (network
 * and OpenFabrics OS devices with their PCI parent).  Every field of a
 * record is optional; docs/fabric.md ("Devices") gives the merge rules,
 * the device id and the PCI id format.
 */
#ifndef SWITCHYARD_FABRIC_DEVICES_H
#define SWITCHYARD_FABRIC_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>
#include <pmix_common.h>

/* sy_device_t.has: which of the non-pointer fields hold a value. */
#define SY_DEV_HAS_MTU 0x1u
#define SY_DEV_HAS_SPEED 0x2u
#define SY_DEV_HAS_STATE 0x4u
#define SY_DEV_HAS_INDEX 0x8u

/* sy_device_t.sources */
#define SY_DEV_SRC_FABRIC 0x1u /* seen by libfabric */
#define SY_DEV_SRC_HWLOC 0x2u  /* seen by hwloc */

/* One device.  Strings are malloc'ed and may be NULL (= not known). */
typedef struct {
    char *id;                   /* PMIX_DEVICE_ID: "<hostname>:<osname>" */
    char *osname;               /* PMIX_FABRIC_DEVICE_NAME */
    char *vendor;               /* PMIX_FABRIC_DEVICE_VENDOR */
    char *vendorid;             /* PMIX_FABRIC_DEVICE_VENDORID, "0x%04x" */
    char *bus_type;             /* PMIX_FABRIC_DEVICE_BUS_TYPE, "PCI" */
    char *pci_devid;            /* PMIX_FABRIC_DEVICE_PCI_DEVID, "%04x:%02x:%02x:%02x" */
    char *driver;               /* PMIX_FABRIC_DEVICE_DRIVER */
    char *firmware;             /* PMIX_FABRIC_DEVICE_FIRMWARE */
    char *address;              /* PMIX_FABRIC_DEVICE_ADDRESS */
    char *type;                 /* PMIX_FABRIC_DEVICE_TYPE ("Ethernet", "InfiniBand", ...) */
    char *guid;                 /* hwloc NodeGUID as "0x" + 16 hex digits; not published */
    char *provider;             /* core libfabric provider that first reported it; not published */
    size_t mtu;                 /* PMIX_FABRIC_DEVICE_MTU, bytes */
    size_t speed;               /* PMIX_FABRIC_DEVICE_SPEED, bit/s */
    pmix_link_state_t state;    /* PMIX_FABRIC_DEVICE_STATE */
    uint32_t index;             /* PMIX_FABRIC_DEVICE_INDEX (set by the caller) */
    pmix_device_type_t devtype; /* PMIX_DEVTYPE_OPENFABRICS / _NETWORK / _UNKNOWN */
    unsigned has;               /* SY_DEV_HAS_* */
    unsigned sources;           /* SY_DEV_SRC_* */
    /* every OS name the device is known by (domain names, hwloc OS
     * devices); used to merge the sources */
    char **aliases;
    size_t naliases;
    int name_rank; /* private: how authoritative osname is */
} sy_device_t;

typedef struct {
    sy_device_t *devs;
    size_t n;
} sy_device_list_t;

/* sy_devices_opts_t.flags */
#define SY_DEVICES_NO_FABRIC 0x1u /* do not ask libfabric */
#define SY_DEVICES_NO_HWLOC 0x2u  /* do not ask hwloc */
#define SY_DEVICES_NIC_ONLY 0x4u  /* ignore libfabric entries without fid_nic */

typedef struct {
    const char *hostname;      /* for device ids; NULL: gethostname() */
    hwloc_topology_t topology; /* NULL: load this machine's, with I/O devices */
    unsigned flags;            /* SY_DEVICES_* */
} sy_devices_opts_t;

/* Collect the local fabric devices into *out (opts may be NULL for the
 * defaults).  Devices are ordered by PCI id, then OS name.  On failure
 * *out is empty.  Release with sy_device_list_free(). */
pmix_status_t sy_devices_gather(const sy_devices_opts_t *opts, sy_device_list_t *out);

/* Drop the cached fi_getinfo() result (call at finalize).  The next
 * gather queries libfabric again. */
void sy_devices_cache_release(void);

void sy_device_destruct(sy_device_t *dev);
void sy_device_list_free(sy_device_list_t *list);

/* The device as the Standard's PMIX_FABRIC_DEVICE value: *out becomes a
 * PMIX_INFO data array whose first element is PMIX_DEVICE_ID, followed by
 * each known attribute.  Release with PMIx_Data_array_destruct(out). */
pmix_status_t sy_device_to_info(const sy_device_t *dev, pmix_data_array_t *out);

/* The PMIX_FABRIC_DEVICES value: a PMIX_INFO data array with one
 * PMIX_FABRIC_DEVICE entry (a data array as above) per device. */
pmix_status_t sy_devices_to_info(const sy_device_list_t *list, pmix_data_array_t *out);

/* "<hostname>:<osname>" (hostname NULL: this host's name), malloc'ed;
 * NULL when out of memory or osname is NULL. */
char *sy_device_make_id(const char *hostname, const char *osname);

#endif /* SWITCHYARD_FABRIC_DEVICES_H */
