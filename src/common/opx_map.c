/* OpenPMIx's node and process maps as its servers send them (its "preg"
 * encodings): "pmix[...]" and "raw:" strings, which our regex parsers
 * read as they are, and the zlib "blob:", decoded here into the plain
 * list it compresses (docs/wire-protocol.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/opx_client.h"

#define BLOB_TAG "blob:"
#define BLOB_COMPONENT "component=zlib:"
#define BLOB_SIZE "size="
/* no real map expands beyond this: a hostile length is refused */
#define MAX_PLAIN ((size_t)256 << 20)

/* "blob:\0component=zlib:\0size=<n>:\0" then n bytes: a u32 in the
 * sender's (host) order giving the plain length, then the zlib stream. */
static pmix_status_t decode_blob(const uint8_t *in, size_t len, char **out)
{
    size_t off = sizeof(BLOB_TAG); /* the tag and its NUL */
    if (len < off || in[off - 1] != '\0' || len < off + sizeof(BLOB_COMPONENT) ||
        memcmp(in + off, BLOB_COMPONENT, sizeof(BLOB_COMPONENT)) != 0)
        return PMIX_ERR_BAD_PARAM;
    off += sizeof(BLOB_COMPONENT);
    if (len < off + strlen(BLOB_SIZE) + 2 || memcmp(in + off, BLOB_SIZE, strlen(BLOB_SIZE)) != 0)
        return PMIX_ERR_BAD_PARAM;
    off += strlen(BLOB_SIZE);
    size_t n = 0, digits = 0;
    while (off < len && in[off] >= '0' && in[off] <= '9' && digits < 12) {
        n = n * 10 + (size_t)(in[off++] - '0');
        digits++;
    }
    if (digits == 0 || off + 2 > len || in[off] != ':' || in[off + 1] != '\0')
        return PMIX_ERR_BAD_PARAM;
    off += 2;
    if (n < 4 || n > len - off)
        return PMIX_ERR_BAD_PARAM;
    uint32_t plain;
    memcpy(&plain, in + off, 4);
    if (plain == 0 || plain > MAX_PLAIN)
        return PMIX_ERR_BAD_PARAM;
    char *s = malloc((size_t)plain + 1);
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    uLongf got = plain;
    if (uncompress((Bytef *)s, &got, in + off + 4, (uLong)(n - 4)) != Z_OK || got != plain) {
        free(s);
        return PMIX_ERR_BAD_PARAM;
    }
    s[plain] = '\0';
    if (strlen(s) != plain) {
        free(s);
        return PMIX_ERR_BAD_PARAM;
    }
    *out = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_map_decode(const void *bytes, size_t len, char **out)
{
    const uint8_t *in = bytes;
    *out = NULL;
    if (in == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (len >= strlen(BLOB_TAG) && memcmp(in, BLOB_TAG, strlen(BLOB_TAG)) == 0)
        return decode_blob(in, len, out);
    /* a string form: up to its NUL (or the end) */
    size_t n = strnlen((const char *)in, len);
    char *s = malloc(n + 1);
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(s, in, n);
    s[n] = '\0';
    *out = s;
    return PMIX_SUCCESS;
}
