/* Attribute-support answers in OpenPMIx 4.2.2's shape (opx_attrs.h). */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/opx_attrs.h"

/* pattrs prints a description line from column 86 of a 141-byte line and
 * copies it without a bound: longer lines overflow its stack. */
#define OPX_DESCR_WIDTH 54

static const char *const levels[] = {PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES,
                                     PMIX_TOOL_ATTRIBUTES, PMIX_HOST_ATTRIBUTES};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

static int level_of(const char *key)
{
    for (size_t l = 0; l < NLEVELS; l++)
        if (strncmp(key, levels[l], PMIX_MAX_KEYLEN) == 0)
            return (int)l;
    return -1;
}

/* function -> info per level -> pmix_regattr_t array (or nothing). */
static bool is_support_entry(const pmix_info_t *in)
{
    if (in->value.type != PMIX_DATA_ARRAY || in->value.data.darray == NULL)
        return false;
    const pmix_data_array_t *da = in->value.data.darray;
    if (da->type != PMIX_INFO || da->size == 0 || da->array == NULL)
        return false;
    const pmix_info_t *lv = da->array;
    for (size_t i = 0; i < da->size; i++) {
        if (level_of(lv[i].key) < 0)
            return false;
        if (lv[i].value.type == PMIX_UNDEF)
            continue;
        if (lv[i].value.type != PMIX_DATA_ARRAY || lv[i].value.data.darray == NULL ||
            lv[i].value.data.darray->type != PMIX_REGATTR)
            return false;
    }
    return true;
}

/* The regattr array of level l in a support entry, or NULL. */
static const pmix_data_array_t *level_attrs(const pmix_info_t *in, int l)
{
    const pmix_data_array_t *da = in->value.data.darray;
    const pmix_info_t *lv = da->array;
    for (size_t i = 0; i < da->size; i++)
        if (level_of(lv[i].key) == l && lv[i].value.type == PMIX_DATA_ARRAY &&
            lv[i].value.data.darray->size > 0 && lv[i].value.data.darray->array != NULL)
            return lv[i].value.data.darray;
    return NULL;
}

static bool argv_push(char ***v, size_t *n, char *s)
{
    char **g = s != NULL ? realloc(*v, (*n + 2) * sizeof(char *)) : NULL;
    if (g == NULL) {
        free(s);
        return false;
    }
    g[(*n)++] = s;
    g[*n] = NULL;
    *v = g;
    return true;
}

/* The description in lines of at most OPX_DESCR_WIDTH, cut at spaces
 * where there is one; at least one line (pattrs prints an attribute only
 * with its description lines). */
static char **wrap(char *const *descr)
{
    char **v = NULL;
    size_t n = 0;
    for (size_t i = 0; descr != NULL && descr[i] != NULL; i++) {
        const char *s = descr[i];
        do {
            size_t len = strlen(s), cut = len;
            if (len > OPX_DESCR_WIDTH) {
                cut = OPX_DESCR_WIDTH;
                while (cut > 0 && s[cut] != ' ')
                    cut--;
                if (cut == 0)
                    cut = OPX_DESCR_WIDTH;
            }
            if (!argv_push(&v, &n, strndup(s, cut)))
                goto fail;
            s += cut;
            while (*s == ' ')
                s++;
        } while (*s != '\0');
    }
    if (n == 0 && !argv_push(&v, &n, strdup("")))
        goto fail;
    return v;
fail:
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return NULL;
}

static pmix_status_t copy_regattrs(const pmix_data_array_t *src, pmix_info_t *out, const char *fn)
{
    pmix_data_array_t *da;
    PMIX_DATA_ARRAY_CREATE(da, src->size, PMIX_REGATTR);
    if (da == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_KEY(out->key, fn);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = da;
    const pmix_regattr_t *in = src->array;
    pmix_regattr_t *ra = da->array;
    for (size_t i = 0; i < src->size; i++) {
        PMIX_LOAD_KEY(ra[i].string, in[i].string);
        ra[i].name = strdup(in[i].name != NULL ? in[i].name : in[i].string);
        ra[i].type = in[i].type;
        ra[i].description = wrap(in[i].description);
        if (ra[i].name == NULL || ra[i].description == NULL)
            return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

typedef struct {
    const char *fn;
    const pmix_data_array_t *attrs;
    bool done;
} fn_attrs_t;

/* One head per level and array length: pattrs reads every function of a
 * head with the count of the head's first function. */
static pmix_status_t add_heads(const pmix_info_t *const *all, size_t nall, fn_attrs_t *fa,
                               pmix_info_t *out, size_t *k, bool count_only)
{
    for (size_t l = 0; l < NLEVELS; l++) {
        size_t n = 0;
        for (size_t i = 0; i < nall; i++) {
            const pmix_data_array_t *a = level_attrs(all[i], (int)l);
            if (a != NULL)
                fa[n++] = (fn_attrs_t){all[i]->key, a, false};
        }
        for (size_t i = 0; i < n; i++) {
            if (fa[i].done)
                continue;
            size_t members = 0;
            for (size_t j = i; j < n; j++)
                if (!fa[j].done && fa[j].attrs->size == fa[i].attrs->size)
                    members++;
            if (count_only) {
                for (size_t j = i; j < n; j++)
                    if (fa[j].attrs->size == fa[i].attrs->size)
                        fa[j].done = true;
                (*k)++;
                continue;
            }
            pmix_info_t *head = &out[(*k)++];
            pmix_data_array_t *da;
            PMIX_DATA_ARRAY_CREATE(da, members, PMIX_INFO);
            if (da == NULL)
                return PMIX_ERR_NOMEM;
            PMIX_LOAD_KEY(head->key, PMIX_QUERY_ATTRIBUTE_SUPPORT);
            head->value.type = PMIX_DATA_ARRAY;
            head->value.data.darray = da;
            pmix_info_t *fns = da->array;
            size_t m = 0, size = fa[i].attrs->size;
            for (size_t j = i; j < n; j++) {
                if (fa[j].done || fa[j].attrs->size != size)
                    continue;
                fa[j].done = true;
                pmix_status_t rc = copy_regattrs(fa[j].attrs, &fns[m++], fa[j].fn);
                if (rc != PMIX_SUCCESS)
                    return rc;
            }
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_attrs_reshape(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
                                   size_t *nout, bool *reshaped)
{
    *out = NULL;
    *nout = 0;
    *reshaped = false;
    size_t nsup = 0;
    for (size_t i = 0; info != NULL && i < ninfo; i++)
        if (is_support_entry(&info[i]))
            nsup++;
    if (nsup == 0)
        return PMIX_SUCCESS;
    /* the support entries, and a scratch list per level */
    const pmix_info_t **all = calloc(nsup, sizeof(*all));
    fn_attrs_t *fa = calloc(nsup, sizeof(*fa));
    if (all == NULL || fa == NULL) {
        free(all);
        free(fa);
        return PMIX_ERR_NOMEM;
    }
    size_t s = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (is_support_entry(&info[i]))
            all[s++] = &info[i];
    size_t nheads = 0;
    add_heads(all, nsup, fa, NULL, &nheads, true);
    size_t n = nheads + (ninfo - nsup);
    pmix_info_t *o = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    if (n > 0) {
        PMIX_INFO_CREATE(o, n);
        if (o == NULL)
            rc = PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    if (rc == PMIX_SUCCESS)
        rc = add_heads(all, nsup, fa, o, &k, false);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < ninfo; i++)
        if (!is_support_entry(&info[i]))
            rc = PMIx_Info_xfer(&o[k++], &info[i]);
    free(all);
    free(fa);
    if (rc != PMIX_SUCCESS) {
        if (o != NULL)
            PMIX_INFO_FREE(o, n);
        return rc;
    }
    /* o is NULL when no function asked for has an attribute: an empty
     * answer, not the standard one (pattrs would read its levels as
     * arrays) */
    *out = o;
    *nout = n;
    *reshaped = true;
    return PMIX_SUCCESS;
}
