/* PMIx_Get of PMIX_FABRIC_DEVICE (Chap_API_Fabric.tex): one device of a
 * node, named by PMIX_DEVICE_ID ("<host>:<osname>", the host part names
 * the node) or by PMIX_FABRIC_DEVICE_NAME with PMIX_HOSTNAME.  Answered
 * from the node's PMIX_FABRIC_DEVICES. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/store.h"

static const char *str(const pmix_info_t *i)
{
    return i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static bool matches(const pmix_info_t *dev, const char *id, const char *name)
{
    if (dev->value.type != PMIX_DATA_ARRAY || dev->value.data.darray == NULL ||
        dev->value.data.darray->type != PMIX_INFO)
        return false;
    const pmix_data_array_t *a = dev->value.data.darray;
    for (size_t i = 0; i < a->size; i++) {
        const pmix_info_t *e = &((const pmix_info_t *)a->array)[i];
        const char *s = str(e);
        if (s == NULL)
            continue;
        if (id != NULL && PMIX_CHECK_KEY(e, PMIX_DEVICE_ID) && strcmp(s, id) == 0)
            return true;
        if (id == NULL && PMIX_CHECK_KEY(e, PMIX_FABRIC_DEVICE_NAME) && strcmp(s, name) == 0)
            return true;
    }
    return false;
}

pmix_status_t sy_store_fabric_device(const pmix_proc_t *proc, const pmix_info_t info[],
                                     size_t ninfo, pmix_value_t **out)
{
    const char *id = NULL, *name = NULL, *host = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_ID))
            id = str(&info[i]);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_DEVICE_NAME))
            name = str(&info[i]);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_HOSTNAME))
            host = str(&info[i]);
    }
    if (id == NULL && (name == NULL || host == NULL))
        return PMIX_ERR_BAD_PARAM;
    char *h = NULL;
    if (host == NULL) {
        const char *colon = strchr(id, ':');
        if (colon == NULL)
            return PMIX_ERR_NOT_FOUND;
        h = strndup(id, (size_t)(colon - id));
        if (h == NULL)
            return PMIX_ERR_NOMEM;
        host = h;
    }
    pmix_info_t q[2];
    bool yes = true;
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, host, PMIX_STRING);
    pmix_value_t *devs = NULL;
    pmix_status_t rc = sy_store_get(proc, PMIX_FABRIC_DEVICES, q, 2, &devs);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    free(h);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIX_ERR_NOT_FOUND;
    if (devs->type == PMIX_DATA_ARRAY && devs->data.darray != NULL &&
        devs->data.darray->type == PMIX_INFO) {
        pmix_info_t *d = devs->data.darray->array;
        for (size_t i = 0; i < devs->data.darray->size && rc == PMIX_ERR_NOT_FOUND; i++) {
            if (!matches(&d[i], id, name))
                continue;
            pmix_value_t *v = calloc(1, sizeof(*v));
            rc = v == NULL ? PMIX_ERR_NOMEM : PMIx_Value_xfer(v, &d[i].value);
            if (rc == PMIX_SUCCESS)
                *out = v;
            else
                free(v);
        }
    }
    PMIX_VALUE_RELEASE(devs);
    return rc;
}
