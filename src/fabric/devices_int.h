/*
 * Switchyard -- shared between the device-inventory sources
 * (devices.c, devices_fi.c, devices_hwloc.c); not for other modules.
 */
#ifndef SWITCHYARD_FABRIC_DEVICES_INT_H
#define SWITCHYARD_FABRIC_DEVICES_INT_H

#include "fabric/devices.h"

/* How authoritative a device's OS name is: a higher rank replaces a lower
 * one.  The fabric's own NIC name beats hwloc's names, and an OpenFabrics
 * name beats the network interface of the same PCI function. */
enum { SY_NAME_FI_DOMAIN = 1, SY_NAME_HWLOC_NET = 2, SY_NAME_HWLOC_OFED = 3, SY_NAME_FI_NIC = 4 };

/* A growing device list.  Pointers into it are invalidated by the next
 * sy_devbuild_add(). */
typedef struct {
    sy_device_list_t list;
    size_t cap;
} sy_devbuild_t;

/* The device with PCI id `pci` (may be NULL) or known by one of `names`
 * (entries may be NULL); NULL when none. */
sy_device_t *sy_devbuild_find(sy_devbuild_t *b, const char *pci, const char *const *names,
                              size_t nnames);
/* Append a zeroed record; NULL when out of memory. */
sy_device_t *sy_devbuild_add(sy_devbuild_t *b);

/* Store a copy of val in *field: always when override, else only when
 * *field is NULL.  val NULL or "" changes nothing. */
pmix_status_t sy_device_put_str(char **field, const char *val, bool override);
/* Record `name` as an alias and make it the OS name when `rank` is
 * higher than the current name's. */
pmix_status_t sy_device_add_name(sy_device_t *d, const char *name, int rank);
bool sy_device_has_alias(const sy_device_t *d, const char *name);

/* "%04x:%02x:%02x:%02x" into buf (at least 16 bytes). */
void sy_pci_devid_format(char *buf, size_t len, unsigned domain, unsigned bus, unsigned dev,
                         unsigned func);

/* The sources: add or merge what each one sees into b. */
pmix_status_t sy_devices_from_hwloc(hwloc_topology_t topo, sy_devbuild_t *b);
pmix_status_t sy_devices_from_fabric(unsigned flags, sy_devbuild_t *b);

#endif /* SWITCHYARD_FABRIC_DEVICES_INT_H */
