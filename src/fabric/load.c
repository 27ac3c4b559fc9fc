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

static bool blank(char ch)
{
    return ' ' == ch || '\t' == ch;
}

/* "Switch 36 "S-0000000000200003"" (ibnetdiscover) or "Switch 24 "leaf0""
 * (ibsim): the word, blanks, a number, blanks, a quoted id.  NULL when the
 * line is not such a header, else the format its id says. */
static const char *header_format(const char *p, size_t n, size_t w)
{
    size_t i = w;
    if (i >= n || !blank(p[i])) {
        return NULL;
    }
    while (i < n && blank(p[i])) {
        i++;
    }
    size_t d = i;
    while (i < n && isdigit((unsigned char)p[i])) {
        i++;
    }
    if (i == d) {
        return NULL;
    }
    while (i < n && blank(p[i])) {
        i++;
    }
    if (i >= n || '"' != p[i]) {
        return NULL;
    }
    i++;
    size_t q = i;
    while (i < n && '"' != p[i]) {
        i++;
    }
    size_t len = i - q;
    bool guid_id =
        len >= 3 && len <= 18 && (p[q] == 'S' || p[q] == 'H' || p[q] == 'R') && p[q + 1] == '-';
    for (size_t k = q + 2; guid_id && k < i; k++) {
        guid_id = isxdigit((unsigned char)p[k]);
    }
    return guid_id ? "ibnet" : "ibsim";
}

/* What the line starts, or NULL when no format starts that way: decided
 * by the first line that says, so that tool chatter before the topology
 * ("DR path ...", warnings) does not hide it. */
static const char *line_format(const char *p, size_t n, bool *ib_attr)
{
    if (starts_word(p, n, "SwitchName=", true)) {
        return "slurm";
    }
    static const char *const native[] = {"device", "switch", "link", "plane"};
    for (size_t i = 0; i < 4; i++) {
        if (starts_word(p, n, native[i], false)) {
            return "native";
        }
    }
    if ('{' == p[0]) {
        size_t i = 1;
        while (i < n && blank(p[i])) {
            i++;
        }
        while (i < n && !blank(p[i])) {
            i++;
        }
        while (i < n && blank(p[i])) {
            i++;
        }
        if (n - i >= 6 && strncmp(p + i, "Ports:", 6) == 0) {
            return "osm-lst";
        }
        return NULL;
    }
    if (starts_word(p, n, "Hca", false)) {
        return "ibsim";
    }
    static const char *const headers[] = {"Switch", "Ca", "Rt"};
    for (size_t i = 0; i < 3; i++) {
        size_t w = strlen(headers[i]);
        if (n > w && strncmp(p, headers[i], w) == 0) {
            const char *f = header_format(p, n, w);
            if (f != NULL) {
                return f;
            }
        }
    }
    static const char *const ports[] = {"CA", "SW", "RT"};
    for (size_t i = 0; i < 3; i++) {
        if (n > 3 && strncmp(p, ports[i], 2) == 0 && blank(p[2])) {
            size_t k = 2;
            while (k < n && blank(p[k])) {
                k++;
            }
            if (k < n && isdigit((unsigned char)p[k])) {
                return "ibnet";
            }
        }
    }
    /* GUID attributes start both ibnetdiscover records and ibsim files:
     * they decide only when nothing else does */
    static const char *const attrs[] = {
        "vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "routerguid="};
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        if (starts_word(p, n, attrs[i], false)) {
            *ib_attr = true;
        }
    }
    return NULL;
}

const char *sy_topo_detect_format(const char *buf, size_t len)
{
    size_t pos = 0;
    bool ib_attr = false;
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
        const char *f = line_format(p, n, &ib_attr);
        if (f != NULL) {
            return f;
        }
    }
    return ib_attr ? "ibnet" : NULL;
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
                                 "ibnetdiscover output, OpenSM subnet.lst, an ibsim net file "
                                 "or the native format)");
        }
    }
    if (strcmp(format, "slurm") == 0) {
        return sy_topo_read_slurm_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "ibnet") == 0 || strcmp(format, "ibnet-ports") == 0) {
        return sy_topo_read_ibnet_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "osm-lst") == 0 || strcmp(format, "subnet.lst") == 0) {
        return sy_topo_read_osm_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "ibsim") == 0) {
        return sy_topo_read_ibsim_buffer(buf, len, name, lim, out, errmsg);
    }
    if (strcmp(format, "native") == 0) {
        return sy_topo_read_native_buffer(buf, len, name, lim, out, errmsg);
    }
    return sy_read_error(errmsg, NULL, 0,
                         "unknown format '%.64s' (expected slurm, ibnet, osm-lst, ibsim or "
                         "native)",
                         format);
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
    sy_big_free(buf);
    return rc;
}
