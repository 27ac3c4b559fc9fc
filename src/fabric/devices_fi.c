/*
 * Switchyard -- fabric devices seen by libfabric.
 *
 * The first fi_getinfo() costs 130-160 ms (every provider probes), so it is
 * made once per process and its result kept until
 * sy_devices_cache_release().  libfabric also reads its FI_* environment
 * only once, so a later change of FI_PROVIDER is not seen either way.
 */
#include "fabric/devices_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fi_info *cache_info; /* guarded by cache_lock */
static bool cache_valid;           /* guarded by cache_lock */

void sy_devices_cache_release(void)
{
    pthread_mutex_lock(&cache_lock);
    if (cache_info != NULL) {
        fi_freeinfo(cache_info);
    }
    cache_info = NULL;
    cache_valid = false;
    pthread_mutex_unlock(&cache_lock);
}

/* Providers whose "domain" is shared memory, not a device. */
static bool memory_provider(const struct fi_info *fi)
{
    const char *p = (fi->fabric_attr != NULL) ? fi->fabric_attr->prov_name : NULL;
    size_t len;

    if (p == NULL) {
        return false;
    }
    len = strcspn(p, ";");
    return (len == 3 && strncmp(p, "shm", 3) == 0) || (len == 3 && strncmp(p, "sm2", 3) == 0);
}

static pmix_status_t put_nic(sy_device_t *d, const struct fid_nic *nic)
{
    pmix_status_t rc = PMIX_SUCCESS;
    char buf[32];

    if (nic->device_attr != NULL) {
        const struct fi_device_attr *da = nic->device_attr;

        rc = sy_device_put_str(&d->vendorid, da->vendor_id, true);
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->driver, da->driver, true);
        }
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->firmware, da->firmware, true);
        }
    }
    if (rc == PMIX_SUCCESS && nic->bus_attr != NULL && FI_BUS_PCI == nic->bus_attr->bus_type) {
        const struct fi_pci_attr *pa = &nic->bus_attr->attr.pci;

        sy_pci_devid_format(buf, sizeof(buf), pa->domain_id, pa->bus_id, pa->device_id,
                            pa->function_id);
        rc = sy_device_put_str(&d->pci_devid, buf, true);
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->bus_type, "PCI", true);
        }
    }
    if (rc == PMIX_SUCCESS && nic->link_attr != NULL) {
        const struct fi_link_attr *la = nic->link_attr;

        rc = sy_device_put_str(&d->address, la->address, true);
        if (rc == PMIX_SUCCESS) {
            rc = sy_device_put_str(&d->type, la->network_type, true);
        }
        if (la->mtu != 0) {
            d->mtu = la->mtu;
            d->has |= SY_DEV_HAS_MTU;
        }
        if (la->speed != 0) {
            d->speed = la->speed;
            d->has |= SY_DEV_HAS_SPEED;
        }
        /* libfabric and PMIx number the link states alike */
        switch (la->state) {
        case FI_LINK_UP: d->state = PMIX_LINK_UP; break;
        case FI_LINK_DOWN: d->state = PMIX_LINK_DOWN; break;
        default: d->state = PMIX_LINK_STATE_UNKNOWN; break;
        }
        d->has |= SY_DEV_HAS_STATE;
    }
    return rc;
}

static pmix_status_t add_entry(const struct fi_info *fi, unsigned flags, sy_devbuild_t *b)
{
    const struct fid_nic *nic = fi->nic;
    const char *names[2] = {NULL, NULL};
    char pcibuf[32];
    const char *pci = NULL;
    sy_device_t *d;
    pmix_status_t rc;

    if (fi->domain_attr == NULL || fi->domain_attr->name == NULL || memory_provider(fi)) {
        return PMIX_SUCCESS;
    }
    if (nic == NULL && (flags & SY_DEVICES_NIC_ONLY)) {
        return PMIX_SUCCESS;
    }
    names[0] = fi->domain_attr->name;
    if (nic != NULL && nic->device_attr != NULL) {
        names[1] = nic->device_attr->name;
    }
    if (nic != NULL && nic->bus_attr != NULL && FI_BUS_PCI == nic->bus_attr->bus_type) {
        const struct fi_pci_attr *pa = &nic->bus_attr->attr.pci;

        sy_pci_devid_format(pcibuf, sizeof(pcibuf), pa->domain_id, pa->bus_id, pa->device_id,
                            pa->function_id);
        pci = pcibuf;
    }
    d = sy_devbuild_find(b, pci, names, 2);
    if (d == NULL && (d = sy_devbuild_add(b)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    d->sources |= SY_DEV_SRC_FABRIC;
    if (d->devtype == PMIX_DEVTYPE_UNKNOWN) {
        d->devtype = PMIX_DEVTYPE_NETWORK;
    }
    rc = sy_device_add_name(d, names[0], SY_NAME_FI_DOMAIN);
    if (rc == PMIX_SUCCESS) {
        rc = sy_device_add_name(d, names[1], SY_NAME_FI_NIC);
    }
    if (rc == PMIX_SUCCESS && d->provider == NULL && fi->fabric_attr != NULL &&
        fi->fabric_attr->prov_name != NULL) {
        /* the core provider: "tcp" of "tcp;ofi_rxm" */
        d->provider = strndup(fi->fabric_attr->prov_name, strcspn(fi->fabric_attr->prov_name, ";"));
        rc = (d->provider == NULL) ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS && nic != NULL) {
        rc = put_nic(d, nic);
    }
    return rc;
}

pmix_status_t sy_devices_from_fabric(unsigned flags, sy_devbuild_t *b)
{
    const struct fi_info *fi;
    pmix_status_t rc = PMIX_SUCCESS;

    if (b == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&cache_lock);
    if (!cache_valid) {
        struct fi_info *info = NULL;
        int ret =
            fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, NULL, &info);

        /* no provider (or no usable one) is a machine without fabric
         * devices, not an error; it is cached like a success */
        cache_info = (ret == 0) ? info : NULL;
        cache_valid = true;
    }
    for (fi = cache_info; rc == PMIX_SUCCESS && fi != NULL; fi = fi->next) {
        rc = add_entry(fi, flags, b);
    }
    pthread_mutex_unlock(&cache_lock);
    return rc;
}
