/* The pieces of the tool role that need no other process: rendezvous files,
 * the formatting of forwarded output and the directives that ask for it,
 * the attribute-support table and its answers, splitting a query between
 * the library and the host, and, in a server of this process,
 * PMIx_Register_attributes with PMIx_Query_info answered there. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "client/client_iof.h"
#include "common/attr_support.h"
#include "common/query_lib.h"
#include "common/rendezvous.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/sy-tooltest-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ---- rendezvous files ---- */

static void test_rendezvous(void **state)
{
    (void)state;
    make_dir();
    /* both files describe one server: one start time, even when the
     * clock ticks between writing them */
    long long started = (long long)time(NULL);
    char path[256], text[512];
    snprintf(path, sizeof path, "%s/pmix.h.tool.%ld", dir, (long)getpid());
    /* as the server writes it: OpenPMIx's five lines (URI, version, pid,
     * uid:gid, start), then ours, which are the ones read */
    snprintf(text, sizeof text,
             "srv.3;tcp4://127.0.0.1:4000\n4.2.2\n%ld\n1000:1000\n%lld\n"
             "version:4.2.2\npid:%ld\nstart:%lld\n"
             "usock:/x/pmix.sock\nnspace:srv\nrank:3\nhostname:h\ntoken:abc\n",
             (long)getpid(), started, (long)getpid(), started);
    write_file(path, text);
    sy_rndz_t r;
    assert_int_equal(sy_rndz_read(path, &r), PMIX_SUCCESS);
    assert_string_equal(r.uri, "srv.3;tcp4://127.0.0.1:4000");
    assert_string_equal(r.usock, "/x/pmix.sock");
    assert_string_equal(r.server.nspace, "srv");
    assert_int_equal(r.server.rank, 3);
    assert_string_equal(r.token, "abc");
    assert_int_equal(r.pid, getpid());
    assert_false(r.system);
    assert_true(sy_rndz_alive(&r));
    /* a server that started serving before this process existed: our pid
     * was its once, and this process is not it */
    long long serving = r.start;
    r.start = 100;
    assert_false(sy_rndz_alive(&r));
    r.start = serving;
    char host[64];
    int port = 0;
    assert_int_equal(sy_rndz_parse_uri(r.uri, host, sizeof host, &port), PMIX_SUCCESS);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 4000);
    sy_rndz_free(&r);

    /* no URI line, no nspace line: the identity is unknown, the socket is enough */
    char path2[256];
    snprintf(path2, sizeof path2, "%s/pmix.sys.h", dir);
    snprintf(text, sizeof text, "\nversion:4.2.2\npid:%ld\nstart:%lld\nusock:/y.sock\n",
             (long)getpid(), started);
    write_file(path2, text);
    assert_int_equal(sy_rndz_read(path2, &r), PMIX_SUCCESS);
    assert_null(r.uri);
    assert_true(r.system);
    sy_rndz_free(&r);

    /* one server, two files: scanned once, the system file preferred */
    sy_rndz_t *list = NULL;
    size_t n = 0;
    assert_int_equal(sy_rndz_scan(dir, &list, &n), PMIX_SUCCESS);
    assert_int_equal(n, 1);
    assert_true(list[0].system);
    sy_rndz_list_free(list, n);

    /* not ours: no pid, or nothing to connect to; a dead server is skipped */
    write_file(path2, "x.0;tcp4://127.0.0.1:1\nversion:4.2.2\n");
    assert_int_equal(sy_rndz_read(path2, &r), PMIX_ERR_BAD_PARAM);
    write_file(path2, "\npid:1\n");
    assert_int_equal(sy_rndz_read(path2, &r), PMIX_ERR_BAD_PARAM);
    unlink(path2);
    assert_int_equal(sy_rndz_read(path2, &r), PMIX_ERR_NOT_FOUND);
    snprintf(text, sizeof text, "x.0;tcp4://127.0.0.1:1\npid:%d\nstart:1\n", 999999999);
    write_file(path, text);
    assert_int_equal(sy_rndz_scan(dir, &list, &n), PMIX_SUCCESS);
    assert_int_equal(n, 0);
    free(list);
    assert_int_not_equal(sy_rndz_parse_uri("x.0;tcp4://127.0.0.1:0", host, sizeof host, &port),
                         PMIX_SUCCESS);
    assert_int_equal(sy_rndz_parse_uri("x.0;tcp6://[::1]:77", host, sizeof host, &port),
                     PMIX_SUCCESS);
    assert_string_equal(host, "::1");
    unlink(path);
    rmdir(dir);
}

/* An OpenPMIx server's file (URI, version, pid, uid:gid, date; no keys),
 * two directories down, found by its name. */
static void test_rendezvous_openpmix(void **state)
{
    (void)state;
    char top[] = "/tmp/sy-rndzopx-XXXXXX";
    assert_non_null(mkdtemp(top));
    char sub[300], sub2[320], path[400], text[512];
    snprintf(sub, sizeof sub, "%s/ompi.h.0", top);
    snprintf(sub2, sizeof sub2, "%s/pid.1", sub);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(mkdir(sub2, 0700), 0);
    snprintf(path, sizeof path, "%s/pmix.h.tool.%ld", sub2, (long)getpid());
    time_t now = time(NULL);
    snprintf(text, sizeof text, "4242.0;tcp4://127.0.0.1:5000\n4.2.2rc2\n%ld\n%lu:%lu\n%s\n",
             (long)getpid(), (unsigned long)geteuid(), (unsigned long)getegid(), ctime(&now));
    write_file(path, text);
    sy_rndz_t r;
    assert_int_equal(sy_rndz_read(path, &r), PMIX_SUCCESS);
    assert_true(r.openpmix);
    assert_string_equal(r.uri, "4242.0;tcp4://127.0.0.1:5000");
    assert_string_equal(r.version, "4.2.2rc2");
    assert_int_equal(r.pid, getpid());
    assert_string_equal(r.server.nspace, "4242");
    assert_int_equal(r.server.rank, 0);
    assert_null(r.token);
    assert_true(r.start > 0);
    assert_true(sy_rndz_alive(&r));
    sy_rndz_free(&r);
    char name[64];
    snprintf(name, sizeof name, "pmix.h.tool.%ld", (long)getpid());
    assert_int_equal(sy_rndz_find_named(top, name, &r), PMIX_SUCCESS);
    assert_true(r.openpmix);
    sy_rndz_free(&r);
    assert_int_equal(sy_rndz_find_named(top, "pmix.h.tool.1", &r), PMIX_ERR_NOT_FOUND);
    /* ours are never taken for OpenPMIx's */
    snprintf(text, sizeof text, "x.0;tcp4://127.0.0.1:1\nversion:4.2.2\npid:%ld\ntoken:ab\n",
             (long)getpid());
    write_file(path, text);
    assert_int_equal(sy_rndz_read(path, &r), PMIX_SUCCESS);
    assert_false(r.openpmix);
    sy_rndz_free(&r);
    unlink(path);
    rmdir(sub2);
    rmdir(sub);
    rmdir(top);
}

/* ---- output formatting ---- */

static void format(const sy_iof_opts_t *o, sy_bytes_t *partial, const char *in, bool flush,
                   char *out, size_t cap)
{
    sy_bytes_t b = {0};
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, "job", 2);
    sy_iof_format(o, &src, PMIX_FWD_STDERR_CHANNEL, partial, in, strlen(in), flush, &b);
    snprintf(out, cap, "%.*s", (int)b.len, b.data != NULL ? b.data : "");
    sy_bytes_free(&b);
}

static void test_iof_format(void **state)
{
    (void)state;
    char out[512];
    sy_bytes_t partial = {0};
    sy_iof_opts_t o = {0};
    /* no option: bytes as they come, nothing held */
    format(&o, &partial, "a\nb", false, out, sizeof out);
    assert_string_equal(out, "a\nb");
    o.tag = true;
    format(&o, &partial, "one\ntw", false, out, sizeof out);
    assert_string_equal(out, "[job,2]<stderr>: one\n");
    format(&o, &partial, "o\nthree", true, out, sizeof out);
    assert_string_equal(out, "[job,2]<stderr>: two\n[job,2]<stderr>: three\n");
    o.tag = false;
    o.rank = true;
    format(&o, &partial, "x\n", false, out, sizeof out);
    assert_string_equal(out, "[2] x\n");
    o.rank = false;
    o.xml = true;
    format(&o, &partial, "a<b&\"c\n", false, out, sizeof out);
    assert_string_equal(out, "<stderr nspace=\"job\" rank=\"2\">a&lt;b&amp;&quot;c</stderr>\n");
    o.xml = false;
    o.timestamp = true;
    format(&o, &partial, "t\n", false, out, sizeof out);
    /* "YYYY-MM-DDTHH:MM:SS.uuuuuu t" */
    assert_int_equal(strlen(out), 26 + 1 + 2);
    assert_int_equal(out[10], 'T');
    assert_string_equal(out + 27, "t\n");
    o.raw = true; /* raw wins over the line options */
    format(&o, &partial, "r", false, out, sizeof out);
    assert_string_equal(out, "r");
    sy_bytes_free(&partial);
}

static void test_iof_opts(void **state)
{
    (void)state;
    sy_iof_opts_t o;
    pmix_info_t d[3];
    uint32_t size = 10;
    PMIX_INFO_LOAD(&d[0], PMIX_IOF_BUFFERING_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&d[1], PMIX_IOF_TAG_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&d[2], PMIX_IOF_DROP_OLDEST, NULL, PMIX_BOOL);
    assert_int_equal(sy_iof_opts_parse(d, 3, false, &o), PMIX_SUCCESS);
    assert_int_equal(o.bsize, 10);
    assert_true(o.tag);
    /* tagging means nothing for stdin */
    assert_int_equal(sy_iof_opts_parse(d, 3, true, &o), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&d[1]);
    PMIX_INFO_LOAD(&d[1], PMIX_IOF_OUTPUT_TO_FILE, "/tmp/f", PMIX_STRING);
    assert_int_equal(sy_iof_opts_parse(d, 2, false, &o), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&d[1]);
    PMIX_INFO_LOAD(&d[1], PMIX_IOF_TAG_OUTPUT, "yes", PMIX_STRING);
    assert_int_equal(sy_iof_opts_parse(d, 2, false, &o), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[1]);
    PMIX_INFO_LOAD(&d[1], PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
    assert_int_equal(sy_iof_opts_parse(d, 2, true, &o), PMIX_SUCCESS);
    assert_true(o.push_stdin);
    assert_int_equal(sy_iof_opts_parse(d, 2, false, &o), PMIX_ERR_NOT_SUPPORTED);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&d[i]);
}

/* ---- the attribute-support table ---- */

static const pmix_info_t *level_of(const pmix_info_t *fn, const char *level)
{
    const pmix_data_array_t *d = fn->value.data.darray;
    for (size_t i = 0; i < d->size; i++)
        if (strcmp(((pmix_info_t *)d->array)[i].key, level) == 0)
            return &((pmix_info_t *)d->array)[i];
    return NULL;
}

static void test_support_table(void **state)
{
    (void)state;
    size_t n = 0;
    const sy_support_t *t = sy_support_table(&n);
    assert_true(n > 100);
    for (size_t i = 0; i < n; i++) {
        assert_true(strncmp(t[i].function, "PMIx_", 5) == 0);
        assert_true(t[i].level != SY_LEVEL_HOST);
        if (t[i].name != NULL) {
            assert_non_null(t[i].string);
            assert_non_null(t[i].note);
        }
    }
    assert_string_equal(sy_support_upcall_api("iof_pull"), "PMIx_IOF_pull");
    assert_string_equal(sy_support_upcall_api("PMIx_Get"), "PMIx_Get");
    assert_null(sy_support_upcall_api("nonsense"));

    /* PMIx_Get_nb at the client and host levels; the host registered two */
    char *names[] = {"PMIX_TIMEOUT", "sy.custom.key", NULL};
    sy_host_attrs_t host = {.api = "PMIx_Get", .names = names};
    char *keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Get_nb", NULL};
    pmix_info_t qual[2];
    PMIX_INFO_LOAD(&qual[0], PMIX_CLIENT_ATTRIBUTES, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&qual[1], PMIX_HOST_ATTRIBUTES, NULL, PMIX_BOOL);
    pmix_query_t q = {.keys = keys, .qualifiers = qual, .nqual = 2};
    sy_infos_t out = {0};
    size_t asked = 0, found = 0;
    assert_int_equal(sy_support_answer(&q, &host, 1, true, &out, &asked, &found), PMIX_SUCCESS);
    assert_int_equal(asked, 1);
    assert_int_equal(found, 1);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.info[0].key, "PMIx_Get_nb");
    const pmix_info_t *cl = level_of(&out.info[0], PMIX_CLIENT_ATTRIBUTES);
    assert_non_null(cl);
    assert_int_equal(cl->value.type, PMIX_DATA_ARRAY);
    assert_int_equal(cl->value.data.darray->type, PMIX_REGATTR);
    bool timeout = false;
    for (size_t i = 0; i < cl->value.data.darray->size; i++) {
        pmix_regattr_t *r = &((pmix_regattr_t *)cl->value.data.darray->array)[i];
        if (strcmp(r->name, "PMIX_TIMEOUT") == 0) {
            timeout = true;
            assert_string_equal(r->string, PMIX_TIMEOUT);
            assert_int_equal(r->type, PMIX_INT);
            assert_non_null(r->description);
        }
    }
    assert_true(timeout);
    const pmix_info_t *ho = level_of(&out.info[0], PMIX_HOST_ATTRIBUTES);
    assert_non_null(ho);
    assert_int_equal(ho->value.data.darray->size, 2);
    pmix_regattr_t *custom = &((pmix_regattr_t *)ho->value.data.darray->array)[1];
    assert_string_equal(custom->string, "sy.custom.key");
    assert_int_equal(custom->type, PMIX_UNDEF);
    sy_infos_free(&out);

    /* no server here: the host level is unknown, PMIX_UNDEF */
    asked = found = 0;
    assert_int_equal(sy_support_answer(&q, NULL, 0, false, &out, &asked, &found), PMIX_SUCCESS);
    assert_int_equal(level_of(&out.info[0], PMIX_HOST_ATTRIBUTES)->value.type, PMIX_UNDEF);
    sy_infos_free(&out);
    PMIX_INFO_DESTRUCT(&qual[0]);
    PMIX_INFO_DESTRUCT(&qual[1]);

    /* which queries a client answers itself */
    sy_query_ctx_t none = {0};
    assert_false(sy_query_local_only(&q, 1, &none)); /* host level wanted */
    char *k2[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Init", NULL};
    pmix_info_t tool;
    PMIX_INFO_LOAD(&tool, PMIX_TOOL_ATTRIBUTES, NULL, PMIX_BOOL);
    pmix_query_t q2 = {.keys = k2, .qualifiers = &tool, .nqual = 1};
    assert_true(sy_query_local_only(&q2, 1, &none));
    char *k3[] = {PMIX_QUERY_NAMESPACES, PMIX_SERVER_URI, NULL};
    pmix_query_t q3 = {.keys = k3};
    assert_false(sy_query_local_only(&q3, 1, &none));
    /* a server answers its URI and leaves the namespaces to its host */
    sy_query_ctx_t srv = {.server_uri = "s.0;tcp4://127.0.0.1:9", .have_host = true};
    pmix_query_t *rest = NULL;
    size_t nrest = 0;
    asked = found = 0;
    assert_int_equal(sy_query_split(&q3, 1, &srv, &out, &asked, &found, &rest, &nrest),
                     PMIX_SUCCESS);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.info[0].key, PMIX_SERVER_URI);
    assert_int_equal(nrest, 1);
    assert_string_equal(rest[0].keys[0], PMIX_QUERY_NAMESPACES);
    assert_null(rest[0].keys[1]);
    PMIX_QUERY_FREE(rest, nrest);
    sy_infos_free(&out);
    PMIX_INFO_DESTRUCT(&tool);

    assert_int_equal(sy_query_status(2, 2, false, 0, 0), PMIX_SUCCESS);
    assert_int_equal(sy_query_status(2, 0, false, 0, 0), PMIX_ERR_NOT_FOUND);
    assert_int_equal(sy_query_status(1, 1, true, PMIX_ERR_NOT_FOUND, 0), PMIX_ERR_PARTIAL_SUCCESS);
    assert_int_equal(sy_query_status(0, 0, true, PMIX_ERR_NOT_SUPPORTED, 0),
                     PMIX_ERR_NOT_SUPPORTED);
    assert_int_equal(sy_query_status(1, 0, true, PMIX_ERR_NOT_SUPPORTED, 0), PMIX_ERR_NOT_FOUND);
    assert_int_equal(sy_query_status(1, 1, true, PMIX_SUCCESS, 3), PMIX_SUCCESS);
}

/* ---- a server of this process: registrations and its own queries ---- */

static bool host_asked_right;

static pmix_status_t host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct;
    /* answers PMIX_QUERY_NAMESPACES only; the library must not pass on
     * what it answers itself (checked on the test's thread) */
    host_asked_right = nqueries == 1 && strcmp(queries[0].keys[0], PMIX_QUERY_NAMESPACES) == 0 &&
                       queries[0].keys[1] == NULL;
    static pmix_info_t answer;
    PMIX_INFO_LOAD(&answer, PMIX_QUERY_NAMESPACES, "a,b", PMIX_STRING);
    cbfunc(PMIX_SUCCESS, &answer, 1, cbdata, NULL, NULL);
    PMIX_INFO_DESTRUCT(&answer);
    return PMIX_SUCCESS;
}

static void test_server_side(void **state)
{
    (void)state;
    char *attrs[] = {"PMIX_QUERY_NAMESPACES", NULL};
    assert_int_equal(PMIx_Register_attributes("query", attrs), PMIX_ERR_INIT);
    make_dir();
    pmix_server_module_t m;
    memset(&m, 0, sizeof m);
    m.query = host_query;
    pmix_info_t info[1];
    PMIX_INFO_LOAD(&info[0], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    assert_int_equal(PMIx_server_init(&m, info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    assert_int_equal(PMIx_Register_attributes("query", attrs), PMIX_SUCCESS);
    assert_int_equal(PMIx_Register_attributes("query", attrs), PMIX_ERR_REPEAT_ATTR_REGISTRATION);
    assert_int_equal(PMIx_Register_attributes("no_such_upcall", attrs), PMIX_ERR_BAD_PARAM);
    assert_int_equal(PMIx_Register_attributes("abort", NULL), PMIX_SUCCESS);

    /* the host asks its own server: library keys here, the rest upcalled */
    char *keys[] = {PMIX_QUERY_NAMESPACES, PMIX_SERVER_URI, NULL};
    pmix_query_t q = {.keys = keys};
    pmix_info_t *res = NULL;
    size_t n = 0;
    assert_int_equal(PMIx_Query_info(&q, 1, &res, &n), PMIX_SUCCESS);
    assert_int_equal(n, 2);
    bool uri = false, ns = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].key, PMIX_SERVER_URI) == 0)
            uri = strstr(res[i].value.data.string, ";tcp4://127.0.0.1:") != NULL;
        if (strcmp(res[i].key, PMIX_QUERY_NAMESPACES) == 0)
            ns = strcmp(res[i].value.data.string, "a,b") == 0;
    }
    assert_true(uri && ns);
    assert_true(host_asked_right);
    PMIX_INFO_FREE(res, n);

    char *ak[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Query_info", NULL};
    pmix_info_t host;
    PMIX_INFO_LOAD(&host, PMIX_HOST_ATTRIBUTES, NULL, PMIX_BOOL);
    pmix_query_t aq = {.keys = ak, .qualifiers = &host, .nqual = 1};
    assert_int_equal(PMIx_Query_info(&aq, 1, &res, &n), PMIX_SUCCESS);
    assert_int_equal(n, 1);
    const pmix_info_t *ho = level_of(&res[0], PMIX_HOST_ATTRIBUTES);
    assert_non_null(ho);
    assert_int_equal(ho->value.data.darray->size, 1);
    pmix_regattr_t *r = ho->value.data.darray->array;
    assert_string_equal(r->name, "PMIX_QUERY_NAMESPACES");
    assert_string_equal(r->string, PMIX_QUERY_NAMESPACES);
    PMIX_INFO_FREE(res, n);
    char *fk[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    PMIX_INFO_DESTRUCT(&host);
    PMIX_INFO_LOAD(&host, PMIX_HOST_FUNCTIONS, NULL, PMIX_BOOL);
    pmix_query_t fq = {.keys = fk, .qualifiers = &host, .nqual = 1};
    assert_int_equal(PMIx_Query_info(&fq, 1, &res, &n), PMIX_SUCCESS);
    assert_int_equal(n, 1);
    assert_string_equal(res[0].value.data.string, "PMIx_Query_info,PMIx_Abort");
    PMIX_INFO_FREE(res, n);
    PMIX_INFO_DESTRUCT(&host);

    /* IOF from the host: bad input refused, good input taken */
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, "job", 0);
    pmix_byte_object_t bo = {.bytes = "x", .size = 1};
    assert_int_equal(
        PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
        PMIX_ERR_BAD_PARAM);
    assert_int_equal(
        PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, 0, NULL, NULL),
        PMIX_ERR_BAD_PARAM);
    assert_int_equal(
        PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
        PMIX_SUCCESS);
    assert_int_equal(PMIx_server_finalize(), PMIX_SUCCESS);
    assert_int_equal(
        PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
        PMIX_ERR_INIT);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rendezvous),    cmocka_unit_test(test_rendezvous_openpmix),
        cmocka_unit_test(test_iof_format),    cmocka_unit_test(test_iof_opts),
        cmocka_unit_test(test_support_table), cmocka_unit_test(test_server_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
