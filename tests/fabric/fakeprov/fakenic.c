/*
 * Switchyard tests -- "fakenic", a libfabric provider that reports fully
 * populated NICs (device, PCI bus and link attributes) on machines without
 * HPC hardware.  Built as libfakenic-fi.so and loaded with
 *   FI_PROVIDER_PATH=<dir of the .so> FI_PROVIDER=fakenic
 *
 * Knobs (read at each getinfo):
 *   FAKENIC_COUNT   number of NICs, default 2 (0: no data)
 *   FAKENIC_PREFIX  NIC name prefix, default "fake" -> fake0, fake1, ...
 * NIC i: device_id 0x0501, device_version "2", vendor_id 0x17db, driver
 * "fakenic", firmware "1.5.41", PCI 0000:(0x21+i):00.0, link address
 * 0x(1000+i), mtu 2048, speed 200 Gb/s, up, "Ethernet".  Each NIC is
 * reported twice (an RDM and a DGRAM entry) so consumers must deduplicate.
 * Endpoints cannot be opened: fabric() answers -FI_ENOSYS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <rdma/providers/fi_prov.h>

#define FAKENIC_NAME "fakenic"

static int nic_close(struct fid *fid);
static int nic_control(struct fid *fid, int command, void *arg);
static int nic_tostr(const struct fid *fid, char *buf, size_t len);

static int no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    (void)fid;
    (void)bfid;
    (void)flags;
    return -FI_ENOSYS;
}

static int no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context)
{
    (void)fid;
    (void)name;
    (void)flags;
    (void)ops;
    (void)context;
    return -FI_ENOSYS;
}

static int no_ops_set(struct fid *fid, const char *name, uint64_t flags, void *ops, void *context)
{
    (void)fid;
    (void)name;
    (void)flags;
    (void)ops;
    (void)context;
    return -FI_ENOSYS;
}

static struct fi_ops nic_ops = {
    .size = sizeof(struct fi_ops),
    .close = nic_close,
    .bind = no_bind,
    .control = nic_control,
    .ops_open = no_ops_open,
    .tostr = nic_tostr,
    .ops_set = no_ops_set,
};

static void nic_free(struct fid_nic *nic)
{
    if (nic == NULL) {
        return;
    }
    if (nic->device_attr != NULL) {
        free(nic->device_attr->name);
        free(nic->device_attr->device_id);
        free(nic->device_attr->device_version);
        free(nic->device_attr->vendor_id);
        free(nic->device_attr->driver);
        free(nic->device_attr->firmware);
        free(nic->device_attr);
    }
    free(nic->bus_attr);
    if (nic->link_attr != NULL) {
        free(nic->link_attr->address);
        free(nic->link_attr->network_type);
        free(nic->link_attr);
    }
    free(nic);
}

static char *dupstr(const char *s)
{
    return (s == NULL) ? NULL : strdup(s);
}

static struct fid_nic *nic_alloc(void)
{
    struct fid_nic *nic = calloc(1, sizeof(*nic));

    if (nic == NULL) {
        return NULL;
    }
    nic->fid.fclass = FI_CLASS_NIC;
    nic->fid.ops = &nic_ops;
    nic->device_attr = calloc(1, sizeof(*nic->device_attr));
    nic->bus_attr = calloc(1, sizeof(*nic->bus_attr));
    nic->link_attr = calloc(1, sizeof(*nic->link_attr));
    if (nic->device_attr == NULL || nic->bus_attr == NULL || nic->link_attr == NULL) {
        nic_free(nic);
        return NULL;
    }
    return nic;
}

static struct fid_nic *nic_dup(const struct fid_nic *src)
{
    struct fid_nic *nic = nic_alloc();
    const struct fi_device_attr *sd = src->device_attr;
    struct fi_device_attr *dd;

    if (nic == NULL) {
        return NULL;
    }
    dd = nic->device_attr;
    if (sd != NULL) {
        dd->name = dupstr(sd->name);
        dd->device_id = dupstr(sd->device_id);
        dd->device_version = dupstr(sd->device_version);
        dd->vendor_id = dupstr(sd->vendor_id);
        dd->driver = dupstr(sd->driver);
        dd->firmware = dupstr(sd->firmware);
    }
    if (src->bus_attr != NULL) {
        *nic->bus_attr = *src->bus_attr;
    }
    if (src->link_attr != NULL) {
        *nic->link_attr = *src->link_attr;
        nic->link_attr->address = dupstr(src->link_attr->address);
        nic->link_attr->network_type = dupstr(src->link_attr->network_type);
    }
    return nic;
}

static int nic_close(struct fid *fid)
{
    nic_free((struct fid_nic *)fid);
    return 0;
}

static int nic_control(struct fid *fid, int command, void *arg)
{
    struct fid_nic *dup;

    if (FI_DUP != command || arg == NULL) {
        return -FI_ENOSYS;
    }
    dup = nic_dup((struct fid_nic *)fid);
    if (dup == NULL) {
        return -FI_ENOMEM;
    }
    *(struct fid_nic **)arg = dup;
    return 0;
}

/* fi_tostr() builds its text by concatenation: append, never overwrite. */
static int nic_tostr(const struct fid *fid, char *buf, size_t len)
{
    const struct fid_nic *nic = (const struct fid_nic *)fid;
    size_t used = strnlen(buf, len);
    const struct fi_device_attr *d = nic->device_attr;
    const struct fi_link_attr *l = nic->link_attr;
    const struct fi_pci_attr *p = &nic->bus_attr->attr.pci;

    if (used >= len) {
        return 0;
    }
    snprintf(buf + used, len - used,
             "fi_nic: name=%s device_id=%s device_version=%s vendor_id=%s driver=%s "
             "firmware=%s FI_BUS_PCI %04x:%02x:%02x.%x address=%s mtu=%zu speed=%zu "
             "state=%s network_type=%s\n",
             d->name, d->device_id, d->device_version, d->vendor_id, d->driver, d->firmware,
             p->domain_id, p->bus_id, p->device_id, p->function_id, l->address, l->mtu, l->speed,
             FI_LINK_UP == l->state ? "UP" : "DOWN", l->network_type);
    return 0;
}

static struct fid_nic *make_nic(const char *prefix, int i)
{
    struct fid_nic *nic = nic_alloc();
    char buf[256];

    if (nic == NULL) {
        return NULL;
    }
    snprintf(buf, sizeof(buf), "%s%d", prefix, i);
    nic->device_attr->name = strdup(buf);
    nic->device_attr->device_id = strdup("0x0501");
    nic->device_attr->device_version = strdup("2");
    nic->device_attr->vendor_id = strdup("0x17db");
    nic->device_attr->driver = strdup(FAKENIC_NAME);
    nic->device_attr->firmware = strdup("1.5.41");
    nic->bus_attr->bus_type = FI_BUS_PCI;
    nic->bus_attr->attr.pci.domain_id = 0;
    nic->bus_attr->attr.pci.bus_id = (uint8_t)(0x21 + i);
    nic->bus_attr->attr.pci.device_id = 0;
    nic->bus_attr->attr.pci.function_id = 0;
    snprintf(buf, sizeof(buf), "0x%x", 0x1000 + i);
    nic->link_attr->address = strdup(buf);
    nic->link_attr->mtu = 2048;
    nic->link_attr->speed = 200000000000ULL;
    nic->link_attr->state = FI_LINK_UP;
    nic->link_attr->network_type = strdup("Ethernet");
    if (nic->device_attr->name == NULL || nic->device_attr->firmware == NULL ||
        nic->link_attr->address == NULL || nic->link_attr->network_type == NULL) {
        nic_free(nic);
        return NULL;
    }
    return nic;
}

static struct fi_info *make_info(uint32_t version, const char *prefix, int i, enum fi_ep_type type)
{
    struct fi_info *fi = fi_allocinfo();
    char buf[256];

    if (fi == NULL) {
        return NULL;
    }
    fi->caps = FI_MSG | FI_SEND | FI_RECV;
    fi->addr_format = FI_FORMAT_UNSPEC;
    fi->ep_attr->type = type;
    fi->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    fi->fabric_attr->api_version = version;
    fi->fabric_attr->prov_version = FI_VERSION(1, 0);
    snprintf(buf, sizeof(buf), "%s%d", prefix, i);
    fi->domain_attr->name = strdup(buf);
    fi->fabric_attr->name = strdup("fakefabric");
    fi->nic = make_nic(prefix, i);
    if (fi->domain_attr->name == NULL || fi->fabric_attr->name == NULL || fi->nic == NULL) {
        fi_freeinfo(fi);
        return NULL;
    }
    return fi;
}

static int fake_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                        const struct fi_info *hints, struct fi_info **info)
{
    static const enum fi_ep_type types[2] = {FI_EP_RDM, FI_EP_DGRAM};
    const char *env = getenv("FAKENIC_COUNT");
    const char *prefix = getenv("FAKENIC_PREFIX");
    struct fi_info *head = NULL, **tail = &head;
    int count = (env != NULL) ? atoi(env) : 2;
    int i, t;

    (void)node;
    (void)service;
    (void)flags;
    *info = NULL;
    if (prefix == NULL || '\0' == prefix[0] || strlen(prefix) > 64) {
        prefix = "fake";
    }
    if (count <= 0 || count > 200) {
        return -FI_ENODATA;
    }
    for (i = 0; i < count; ++i) {
        for (t = 0; t < 2; ++t) {
            if (hints != NULL && hints->ep_attr != NULL && FI_EP_UNSPEC != hints->ep_attr->type &&
                hints->ep_attr->type != types[t]) {
                continue;
            }
            *tail = make_info(version, prefix, i, types[t]);
            if (*tail == NULL) {
                fi_freeinfo(head);
                return -FI_ENOMEM;
            }
            tail = &(*tail)->next;
        }
    }
    if (head == NULL) {
        return -FI_ENODATA;
    }
    *info = head;
    return 0;
}

static int fake_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    (void)attr;
    (void)fabric;
    (void)context;
    return -FI_ENOSYS;
}

static void fake_cleanup(void)
{
}

static struct fi_provider fake_prov = {
    .version = FI_VERSION(1, 0),
    .fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
    .name = FAKENIC_NAME,
    .getinfo = fake_getinfo,
    .fabric = fake_fabric,
    .cleanup = fake_cleanup,
};

FI_EXT_INI
{
    return &fake_prov;
}
