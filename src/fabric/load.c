/* Front end of the readers: format detection and file loading. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabric/read_util.h"

static bool starts_word(const char *p, size_t n, const char *w, bool nocase)
{
    size_t k = strlen(w);
    if (n < k || (nocase ? strncasecmp(p, w, k) : strncmp(p, w, k)) != 0) {
        return false;
    }
    return n == k || isspace((unsigned char)p[k]) || w[k - 1] == '=';
}

/* Decided by the first line that is neither blank nor a comment: each
 * format's first statement has a distinctive first word. */
const char *sy_topo_detect_format(const char *buf, size_t len)
{
    size_t pos = 0;
    while (buf != NULL && pos < len) {
        const char *p = buf + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        while (n > 0 && isspace((unsigned char)*p)) {
            p++;
            n--;
        }
        if (n == 0 || '#' == *p) {
            continue;
        }
        if (starts_word(p, n, "SwitchName=", true)) {
            return "slurm";
        }
        static const char *const native[] = {"device", "switch", "link", "plane"};
        for (size_t i = 0; i < 4; i++) {
            if (starts_word(p, n, native[i], false)) {
                return "native";
            }
        }
        static const char *const ib[] = {"vendid=", "devid=",      "sysimgguid=", "switchguid=",
                                         "caguid=", "routerguid=", "Switch",      "Ca",
                                         "Rt",      "CA",          "SW",          "RT"};
        for (size_t i = 0; i < sizeof(ib) / sizeof(ib[0]); i++) {
            if (starts_word(p, n, ib[i], false)) {
                return "ibnet";
            }
        }
        return NULL;
    }
    return NULL;
}

pmix_status_t sy_topo_load_buffer(const char *buf, size_t len, const char *name, const char *format,
                                  const sy_topo_limits_t *lim, sy_topo_t **out, char **errmsg)
{
    if (out == NULL || (buf == NULL && len != 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (format == NULL) {
        format = sy_topo_detect_format(buf, len);
        if (format == NULL) {
            return sy_read_error(errmsg, name, 0,
                                 "unknown topology format (expected Slurm topology.conf, "
                                 "ibnetdiscover output or the native format)");
        }
    }
    if (strcmp(format, "slurm") == 0) {
        return sy_topo_read_slurm_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "ibnet") == 0 || strcmp(format, "ibnet-ports") == 0) {
        return sy_topo_read_ibnet_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "native") == 0) {
        return sy_topo_read_native_buffer(buf, len, name, lim, out, errmsg);
    }
    return sy_read_error(errmsg, NULL, 0,
                         "unknown format '%.64s' (expected slurm, ibnet or native)", format);
}

pmix_status_t sy_topo_load(const char *path, const char *format, sy_topo_t **out, char **errmsg)
{
    if (path == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        sy_read_error(errmsg, path, 0, "cannot open: %s", strerror(errno));
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    char *buf;
    size_t len;
    pmix_status_t rc = sy_read_stream(f, &buf, &len);
    if (rc == PMIX_ERR_OUT_OF_RESOURCE) {
        sy_read_error(errmsg, path, 0, "file larger than %u bytes", SY_TOPO_MAX_FILE);
        rc = PMIX_ERR_FILE_READ_FAILURE;
    } else if (rc == PMIX_ERR_FILE_READ_FAILURE) {
        sy_read_error(errmsg, path, 0, "read error: %s", strerror(errno));
    } else if (rc != PMIX_SUCCESS) {
        sy_read_error(errmsg, path, 0, "out of memory");
    }
    fclose(f);
    if (rc == PMIX_SUCCESS) {
        rc = sy_topo_load_buffer(buf, len, path, format, NULL, out, errmsg);
    }
    free(buf);
    return rc;
}
