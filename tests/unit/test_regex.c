/* Unit test: node/process map generation (PMIx_generate_regex/ppn) and
 * expansion (sy_regex_parse_nodes/procs), including the strings OpenPMIx
 * 4.2.2's own generators were observed to produce. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <pmix_server.h>

#include "common/regex.h"

/* ------------------------------------------------------------ helpers */

static void argv_release(char **argv)
{
    if (argv == NULL) {
        return;
    }
    for (size_t i = 0; argv[i] != NULL; i++) {
        free(argv[i]);
    }
    free(argv);
}

static size_t argv_len(char **argv)
{
    size_t n = 0;
    while (argv[n] != NULL) {
        n++;
    }
    return n;
}

static char *argv_join(char **argv, char sep)
{
    size_t total = 1;
    for (size_t i = 0; argv[i] != NULL; i++) {
        total += strlen(argv[i]) + 1;
    }
    char *s = malloc(total);
    assert_non_null(s);
    size_t at = 0;
    for (size_t i = 0; argv[i] != NULL; i++) {
        if (i > 0) {
            s[at++] = sep;
        }
        size_t n = strlen(argv[i]);
        memcpy(s + at, argv[i], n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

/* Every generated map is printable ASCII, '*'-free, and says its method. */
static void assert_well_formed(const char *out)
{
    assert_non_null(out);
    assert_true(strncmp(out, "pmix:", 5) == 0 || strncmp(out, "raw:", 4) == 0);
    for (const char *p = out; *p; p++) {
        assert_true(*p >= 0x20 && *p < 0x7f);
        assert_true(*p != '*');
    }
}

/* Generate, check the form, expand, and compare with the input; returns
 * the generated string (caller frees) for further checks. */
static char *nodes_round_trip(const char *input)
{
    char *regex = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_regex(input, &regex));
    assert_well_formed(regex);
    char **names = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes(regex, &names));
    char *joined = argv_join(names, ',');
    if (strcmp(joined, input) != 0) {
        fprintf(stderr, "round trip failed\n in:  %.200s\n out: %.200s\n got: %.200s\n", input,
                regex, joined);
    }
    assert_string_equal(joined, input);
    free(joined);
    argv_release(names);
    return regex;
}

static void nodes_expect(const char *input, const char *expected)
{
    char *regex = nodes_round_trip(input);
    assert_string_equal(expected, regex);
    free(regex);
}

/* Expand a node map and compare with a comma-separated expectation. */
static void parse_nodes_expect(const char *regex, const char *expected)
{
    char **names = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes(regex, &names));
    char *joined = argv_join(names, ',');
    assert_string_equal(expected, joined);
    free(joined);
    argv_release(names);
}

static void parse_procs_expect(const char *regex, const char *expected)
{
    char **nodes = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_procs(regex, &nodes));
    char *joined = argv_join(nodes, ';');
    assert_string_equal(expected, joined);
    free(joined);
    argv_release(nodes);
}

static void ppn_expect(const char *input, const char *expected, const char *expanded)
{
    char *ppn = NULL;
    assert_int_equal(PMIX_SUCCESS, PMIx_generate_ppn(input, &ppn));
    assert_well_formed(ppn);
    if (expected != NULL) {
        assert_string_equal(expected, ppn);
    }
    parse_procs_expect(ppn, expanded);
    free(ppn);
}

/* "PREFIX<index(i), zero-padded to WIDTH>SUFFIX" for i < n, comma-separated */
static char *make_list(size_t n, const char *prefix, int width, const char *suffix,
                       size_t (*index)(size_t))
{
    size_t cap = n * 32 + 1, at = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            s[at++] = ',';
        }
        at += (size_t)snprintf(s + at, cap - at, "%s%0*zu%s", prefix, width, index(i), suffix);
    }
    return s;
}

static size_t ident(size_t i)
{
    return i;
}

static size_t plus_one(size_t i)
{
    return i + 1;
}

/* A permutation of 0..99999 (multiplier coprime with 100000). */
static size_t scrambled(size_t i)
{
    return (i * 7919 + 13) % 100000;
}

/* ------------------------------------------------------------ node maps */

static void test_nodes_shapes(void **state)
{
    (void)state;
    nodes_expect("node001,node002,node003", "pmix:node[3:1-3]");
    nodes_expect("node001,node002,node003,node005", "pmix:node[3:1-3,5]");
    /* unpadded numbers crossing digit widths stay one item */
    nodes_expect("n9,n10,n11", "pmix:n[9-11]");
    nodes_expect("n1,n2,n3,n4,m1,m2,m3", "pmix:n[1-4],m[1-3]");
    /* a tie goes to raw */
    nodes_expect("n1,n2,n3,m1,m2", "raw:n1,n2,n3,m1,m2");
    nodes_expect("10.0.0.1,10.0.0.2,10.0.0.3", "pmix:10.0.0.[1-3]");
    nodes_expect("n01-ib,n02-ib,n03-ib", "pmix:n[2:1-3]-ib");
    nodes_expect("a1b2,a1b3,a1b4", "pmix:a1b[2-4]");
    nodes_expect("123,124,125", "pmix:[123-125]");
    nodes_expect("n3,n2,n1", "pmix:n[3-1]");
    nodes_expect("n100,n099,n098", "pmix:n[3:100-98]");
    nodes_expect("n0,n00,n000", "raw:n0,n00,n000");
    /* no compression possible or worthwhile: raw, verbatim */
    nodes_expect("a,b,c", "raw:a,b,c");
    nodes_expect("vm", "raw:vm");
    nodes_expect("n1", "raw:n1");
    nodes_expect("n1,n2", "raw:n1,n2");
    nodes_expect("", "raw:");
}

static void test_nodes_round_trips(void **state)
{
    (void)state;
    static const char *inputs[] = {
        "n1,n1,n2",
        "n5,n5,n5,n5,n5",
        "n1,m1,n2,m2",
        "n001,n2,n003",
        "node1a,node2a,node3a",
        "c1-1,c1-2,c1-3,c2-1,c2-2",
        "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n100",
        "n07,n08,n09,n10,n11",
        "n7,n08,n09",
        "n1.a.b,n2.a.b,n3.a.b",
        "node-1,node-2,node-3",
        "fe80::1,fe80::2,fe80::3",
        "nodeA01,nodeA02,nodeB01,nodeB02",
        "n12345678901234567890,n12345678901234567891,n12345678901234567892",
        "n2147483647,n2147483648,n2147483649",
        "n0,n1,n2,n0,n1,n2",
        "a,n1,n2,n3,b,c,n4",
        "host_1,host_2,host_3",
        "r1n1,r1n2,r2n1,r2n2,r3n1",
        "000,001,002,1000",
        "n9,n8,n7,n10,n11",
        "x1y1z,x1y2z,x1y3z",
        "n1,n2,n3,n2,n1",
    };
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        free(nodes_round_trip(inputs[i]));
    }
}

static void test_nodes_padding_widths(void **state)
{
    (void)state;
    /* width 3 covers 007..999 and keeps covering 1000, 1001 */
    char *in = make_list(995, "n", 3, "", ident);
    char *regex = nodes_round_trip(in);
    assert_string_equal("pmix:n[3:0-994]", regex);
    free(regex);
    free(in);
    in = strdup("n998,n999,n1000,n1001");
    regex = nodes_round_trip(in);
    assert_string_equal("pmix:n[998-1001]", regex);
    free(regex);
    free(in);
    in = strdup("n098,n099,n100,n101");
    regex = nodes_round_trip(in);
    assert_string_equal("pmix:n[3:98-101]", regex);
    free(regex);
    free(in);
}

static void test_nodes_escapes(void **state)
{
    (void)state;
    /* '*' must never reach the output, even though raw would be shorter */
    char *regex = nodes_round_trip("a*1,a*2,a*3");
    assert_null(strchr(regex, '*'));
    assert_non_null(strstr(regex, "%2A"));
    free(regex);
    free(nodes_round_trip("a%1,a%2,a%3"));
    free(nodes_round_trip("a[1],a[2],a[3]"));
    free(nodes_round_trip("x]1,x]2"));
    free(nodes_round_trip("sp ace1,sp ace2,sp ace3"));
    free(nodes_round_trip("\x01n1,\x01n2"));
    free(nodes_round_trip("caf\xc3\xa9"
                          "1,caf\xc3\xa9"
                          "2"));
    free(nodes_round_trip("*"));
    parse_nodes_expect("pmix:a%2a[1-2]", "a*1,a*2");
    parse_nodes_expect("pmix:%5Bx%5D", "[x]");
}

static void test_nodes_large(void **state)
{
    (void)state;
    size_t (*shapes[])(size_t) = {plus_one, scrambled, ident};
    const char *prefixes[] = {"node", "node", "h"};
    const int widths[] = {6, 0, 0};
    const char *suffixes[] = {"", "", ".x.y"};
    for (size_t s = 0; s < 3; s++) {
        char *in = make_list(100000, prefixes[s], widths[s], suffixes[s], shapes[s]);
        char *regex = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_generate_regex(in, &regex));
        char **names = NULL;
        assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes(regex, &names));
        assert_int_equal(100000, argv_len(names));
        char *joined = argv_join(names, ',');
        assert_string_equal(in, joined);
        assert_well_formed(regex);
        if (s == 0) {
            assert_string_equal("pmix:node[6:1-100000]", regex);
        }
        free(joined);
        argv_release(names);
        free(regex);
        free(in);
    }
    /* incompressible names: the raw form */
    char *in = make_list(100000, "h", 0, "x", scrambled);
    for (char *p = in; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            *p = (char)('a' + (*p - '0'));
        }
    }
    char *regex = nodes_round_trip(in);
    assert_int_equal(0, strncmp(regex, "raw:", 4));
    free(regex);
    free(in);
}

static void test_nodes_generate_bad(void **state)
{
    (void)state;
    char *regex = (char *)0x1;
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_generate_regex(NULL, &regex));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_generate_regex("n1", NULL));
    static const char *bad[] = {"n1,,n2", "n1,", ",n1", ","};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        regex = NULL;
        assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_generate_regex(bad[i], &regex));
        assert_null(regex);
    }
}

/* The node maps OpenPMIx 4.2.2's PMIx_generate_regex produced for the
 * inputs on the right (observed with its library). */
static void test_nodes_openpmix_forms(void **state)
{
    (void)state;
    static const char *cases[][2] = {
        {"pmix[n[1:1-2]]", "n1,n2"},
        {"pmix[vm]", "vm"},
        {"pmix[node[3:1-3]]", "node001,node002,node003"},
        {"pmix[node[3:1-3,5]]", "node001,node002,node003,node005"},
        {"pmix[n[1:9],n[2:10-11]]", "n9,n10,n11"},
        {"pmix[n[1:1-3],m[1:1-2]]", "n1,n2,n3,m1,m2"},
        {"pmix[n[1:1],m[1:1],n[1:2],m[1:2]]", "n1,m1,n2,m2"},
        {"pmix[a,b,c]", "a,b,c"},
        {"pmix[10.0.0.1,10.0.0.2,10.0.0.3]", "10.0.0.1,10.0.0.2,10.0.0.3"},
        {"pmix[n01-ib,n02-ib,n03-ib]", "n01-ib,n02-ib,n03-ib"},
        {"pmix[n[1:1,1-2]]", "n1,n1,n2"},
        {"pmix[n[1:3,2,1]]", "n3,n2,n1"},
        {"pmix[n[1:1-2,4-5,7]]", "n1,n2,n4,n5,n7"},
        {"pmix[n[3:1],n[1:2],n[3:3]]", "n001,n2,n003"},
        {"pmix[node[1:1-2]a]", "node1a,node2a"},
        {"pmix[[3:123-125]]", "123,124,125"},
        {"pmix[c1-1,c1-2,c2-1]", "c1-1,c1-2,c2-1"},
        {"pmix[x[2:1-2],y[2:1-2],x[2:3]]", "x01,x02,y01,y02,x03"},
        {"pmix[n[2:7-11]]", "n07,n08,n09,n10,n11"},
        {"pmix[n[1:0],n[2:0],n[3:0]]", "n0,n00,n000"},
        {"pmix[a[1:1]b2,a[1:1]b3,a[1:1]b4]", "a1b2,a1b3,a1b4"},
        {"pmix[nodeA[2:1-2],nodeB[2:1]]", "nodeA01,nodeA02,nodeB01"},
        {"pmix[n[1:1]x,n[1:2]y]", "n1x,n2y"},
        {"pmix[n[1:5,5,5]]", "n5,n5,n5"},
        {"pmix[n[1:1-9],n[2:10-12],n[3:100]]", "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n100"},
        /* "raw:" and plain lists (OpenPMIx's compress-only setting returns
         * the input itself) */
        {"raw:n1,n2", "n1,n2"},
        {"n1,n2", "n1,n2"},
        {"raw:", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        parse_nodes_expect(cases[i][0], cases[i][1]);
    }
    char **names = NULL;
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes("pmix[node[4:1-2000]]", &names));
    assert_int_equal(2000, argv_len(names));
    assert_string_equal("node0001", names[0]);
    assert_string_equal("node2000", names[1999]);
    argv_release(names);
    /* OpenPMIx's overflowed or empty-name outputs are malformed */
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes("pmix[n[20:-1],n[1:1]]", &names));
    assert_int_equal(PMIX_ERR_BAD_PARAM,
                     sy_regex_parse_nodes("pmix[n[10:2147483647--2147483648]]", &names));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes("pmix[n[1:1-2],]", &names));
    /* for input "n[1],n2": its brackets were not escaped */
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes("pmix[n[1],n[1:2]]", &names));
}

static void test_nodes_parse_malformed(void **state)
{
    (void)state;
    static const char *bad[] = {
        "pmix:n[1-3",
        "pmix:n1-3]",
        "pmix:n[[1]]",
        "pmix:n[]",
        "pmix:n[1-]",
        "pmix:n[-1]",
        "pmix:n[1,]",
        "pmix:n[,1]",
        "pmix:n[a]",
        "pmix:n1,",
        "pmix:,n1",
        "pmix:n1,,n2",
        "pmix:n[1]x[2]",
        "pmix:n[1]]",
        "pmix:n%4",
        "pmix:n%zz",
        "pmix:n%00",
        "pmix:n[2:1",
        "pmix:n[:1]",
        "pmix:n[70:1]",
        "pmix:n[1:2:3]",
        "pmix[n1",
        "pmix[",
        "pmix[]x",
        "raw:n1,,n2",
        "n1,",
        ",",
        "raw:,",
        "pmix:n[1-999999999999]",
        "pmix:n[1-9999999],m[1-9999999]",
        "pmix:n[1234567890123456789]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char **names = (char **)0x1;
        if (sy_regex_parse_nodes(bad[i], &names) != PMIX_ERR_BAD_PARAM) {
            fail_msg("accepted malformed node map \"%s\"", bad[i]);
        }
        assert_ptr_equal((char **)0x1, names);
    }
    char **names = NULL;
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes(NULL, &names));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes("n1", NULL));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_regex_parse_nodes("blob:", &names));
    /* within the entry limit but over the byte limit: long prefix */
    char big[200];
    memset(big, 'p', sizeof(big));
    strcpy(big, "pmix:");
    memset(big + 5, 'p', 150);
    strcpy(big + 155, "[1-5000000]");
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_nodes(big, &names));
    /* empty maps are a valid zero-node list */
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes("pmix:", &names));
    assert_null(names[0]);
    argv_release(names);
    assert_int_equal(PMIX_SUCCESS, sy_regex_parse_nodes("", &names));
    assert_null(names[0]);
    argv_release(names);
}

/* ------------------------------------------------------------ proc maps */

static void test_ppn_round_trips(void **state)
{
    (void)state;
    ppn_expect("0,1,2;3,4,5", "pmix:0-2;3-5", "0,1,2;3,4,5");
    ppn_expect("0,1;2,3", "raw:0,1;2,3", "0,1;2,3");
    ppn_expect("0", "raw:0", "0");
    ppn_expect("0;1;2;3", "raw:0;1;2;3", "0;1;2;3");
    ppn_expect("0,2,4;1,3,5", "raw:0,2,4;1,3,5", "0,2,4;1,3,5");
    ppn_expect("1-4;2-5;8,10,11,12;6,7,9", "pmix:1-4;2-5;8,10-12;6-7,9",
               "1,2,3,4;2,3,4,5;8,10,11,12;6,7,9");
    ppn_expect("0,1,2,3,4-6;7,8,9,10", "pmix:0-6;7-10", "0,1,2,3,4,5,6;7,8,9,10");
    ppn_expect("3,2,1,0;4,5,6,7", "pmix:3-0;4-7", "3,2,1,0;4,5,6,7");
    ppn_expect("0,1,2,3,10,11,12;4,5,6", "pmix:0-3,10-12;4-6", "0,1,2,3,10,11,12;4,5,6");
    ppn_expect("0,1,2,3;;4,5,6,7", "pmix:0-3;;4-7", "0,1,2,3;;4,5,6,7");
    ppn_expect("5,5,5,5", NULL, "5,5,5,5");
    ppn_expect("", "raw:", "");

    /* "0,1,...,63;64,...,127" */
    char in[1024];
    size_t at = 0;
    for (int r = 0; r < 128; r++) {
        at += (size_t)snprintf(in + at, sizeof(in) - at, "%s%d",
                               r == 0 ? "" : (r == 64 ? ";" : ","), r);
    }
    ppn_expect(in, "pmix:0-63;64-127", in);
}

static void test_ppn_large(void **state)
{
    (void)state;
    /* 100 000 nodes x 8 ranks, block and round-robin placement */
    for (int rr = 0; rr < 2; rr++) {
        size_t nodes = 100000, cap = nodes * 8 * 8 + 1, at = 0;
        char *in = malloc(cap);
        assert_non_null(in);
        for (size_t n = 0; n < nodes; n++) {
            for (size_t j = 0; j < 8; j++) {
                size_t r = rr ? n + nodes * j : n * 8 + j;
                at += (size_t)snprintf(in + at, cap - at, "%s%zu", j ? "," : (n ? ";" : ""), r);
            }
        }
        char *ppn = NULL;
        assert_int_equal(PMIX_SUCCESS, PMIx_generate_ppn(in, &ppn));
        char **per = NULL;
        assert_int_equal(PMIX_SUCCESS, sy_regex_parse_procs(ppn, &per));
        assert_well_formed(ppn);
        assert_int_equal(nodes, argv_len(per));
        char *joined = argv_join(per, ';');
        assert_string_equal(in, joined);
        free(joined);
        argv_release(per);
        free(ppn);
        free(in);
    }
}

static void test_ppn_bad(void **state)
{
    (void)state;
    static const char *bad[] = {"0,,1",          "a",          "0-",     "-1",         "0;1,",
                                "1 2",           ",0",         "0,1;2,", "4294967295", "4294967245",
                                "0-99999999999", "0-20000000", "0;1;x",  "0--1",       "1-2-3"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *ppn = NULL;
        if (PMIx_generate_ppn(bad[i], &ppn) != PMIX_ERR_BAD_PARAM) {
            fail_msg("generate_ppn accepted \"%s\"", bad[i]);
        }
        assert_null(ppn);
        char **per = NULL;
        if (sy_regex_parse_procs(bad[i], &per) != PMIX_ERR_BAD_PARAM) {
            fail_msg("parse_procs accepted \"%s\"", bad[i]);
        }
        assert_null(per);
    }
    char *ppn = NULL;
    char **per = NULL;
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_generate_ppn(NULL, &ppn));
    assert_int_equal(PMIX_ERR_BAD_PARAM, PMIx_generate_ppn("0", NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_procs(NULL, &per));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_procs("0", NULL));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_procs("pmix:0-9999999;0-9999999", &per));
    assert_int_equal(PMIX_ERR_BAD_PARAM, sy_regex_parse_procs("pmix[0-3", &per));
    assert_int_equal(PMIX_ERR_NOT_SUPPORTED, sy_regex_parse_procs("blob:", &per));
    /* the largest valid rank is accepted */
    parse_procs_expect("4294967244", "4294967244");
}

/* Process maps as OpenPMIx 4.2.2's PMIx_generate_ppn produced them. */
static void test_ppn_openpmix_forms(void **state)
{
    (void)state;
    parse_procs_expect("pmix[0-3;4-7]", "0,1,2,3;4,5,6,7");
    parse_procs_expect("pmix[0-3,10-12;4-6]", "0,1,2,3,10,11,12;4,5,6");
    parse_procs_expect("pmix[0-3;4-7;8]", "0,1,2,3;4,5,6,7;8");
    parse_procs_expect("pmix[10-13]", "10,11,12,13");
    parse_procs_expect("pmix[0-4;7-10]", "0,1,2,3,4;7,8,9,10");
    parse_procs_expect("raw:0,1;2,3", "0,1;2,3");
    parse_procs_expect("raw:0-3;4-7", "0,1,2,3;4,5,6,7");
    parse_procs_expect("raw:3,2,1,0;4,5,6,7", "3,2,1,0;4,5,6,7");
    parse_procs_expect("raw:1-4;2-5;8,10,11,12;6,7,9", "1,2,3,4;2,3,4,5;8,10,11,12;6,7,9");
    parse_procs_expect("0,1;2,3", "0,1;2,3");
}

/* ------------------------------------------------------------ properties */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Random node lists round-trip exactly. */
static void test_random_round_trips(void **state)
{
    (void)state;
    static const char alpha[] = "ab0123456789.-_*%[]";
    uint32_t seed = 42;
    char in[512];
    for (int iter = 0; iter < 5000; iter++) {
        size_t nnames = 1 + lcg(&seed) % 12, at = 0;
        for (size_t k = 0; k < nnames; k++) {
            if (k > 0) {
                in[at++] = ',';
            }
            size_t len = 1 + lcg(&seed) % 8;
            /* bias towards shared prefixes with numeric tails */
            if (lcg(&seed) % 2) {
                at += (size_t)snprintf(in + at, sizeof(in) - at, "n%0*u", (int)(lcg(&seed) % 4),
                                       lcg(&seed) % 30);
            } else {
                for (size_t j = 0; j < len; j++) {
                    in[at++] = alpha[lcg(&seed) % (sizeof(alpha) - 1)];
                }
            }
        }
        in[at] = '\0';
        free(nodes_round_trip(in));

        /* the same digits as a process map */
        char ppnin[256];
        size_t pat = 0, nn = 1 + lcg(&seed) % 5;
        for (size_t n = 0; n < nn; n++) {
            size_t nr = lcg(&seed) % 5;
            if (n > 0) {
                ppnin[pat++] = ';';
            }
            for (size_t r = 0; r < nr; r++) {
                pat += (size_t)snprintf(ppnin + pat, sizeof(ppnin) - pat, "%s%u", r ? "," : "",
                                        lcg(&seed) % 12);
            }
        }
        ppnin[pat] = '\0';
        ppn_expect(ppnin, NULL, ppnin);
    }
}

/* Random garbage never crashes the parsers, and what they accept is a
 * proper argv. */
static void test_random_garbage(void **state)
{
    (void)state;
    static const char alpha[] = "pmix:raw[]0123456789,;-%aF";
    uint32_t seed = 7;
    char in[64];
    for (int iter = 0; iter < 50000; iter++) {
        size_t len = lcg(&seed) % (sizeof(in) - 1);
        for (size_t j = 0; j < len; j++) {
            in[j] = alpha[lcg(&seed) % (sizeof(alpha) - 1)];
        }
        in[len] = '\0';
        if (iter % 3 == 0) {
            memcpy(in, "pmix:", len < 5 ? len : 5);
        } else if (iter % 3 == 1) {
            memcpy(in, "pmix[", len < 5 ? len : 5);
        }
        char **out = NULL;
        pmix_status_t rc = sy_regex_parse_nodes(in, &out);
        assert_true(rc == PMIX_SUCCESS || rc == PMIX_ERR_BAD_PARAM);
        if (rc == PMIX_SUCCESS) {
            assert_true(argv_len(out) <= 10000000);
            argv_release(out);
        }
        out = NULL;
        rc = sy_regex_parse_procs(in, &out);
        assert_true(rc == PMIX_SUCCESS || rc == PMIX_ERR_BAD_PARAM);
        argv_release(out);
        char *gen = NULL;
        rc = PMIx_generate_ppn(in, &gen);
        assert_true(rc == PMIX_SUCCESS || rc == PMIX_ERR_BAD_PARAM);
        free(gen);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes_shapes),
        cmocka_unit_test(test_nodes_round_trips),
        cmocka_unit_test(test_nodes_padding_widths),
        cmocka_unit_test(test_nodes_escapes),
        cmocka_unit_test(test_nodes_large),
        cmocka_unit_test(test_nodes_generate_bad),
        cmocka_unit_test(test_nodes_openpmix_forms),
        cmocka_unit_test(test_nodes_parse_malformed),
        cmocka_unit_test(test_ppn_round_trips),
        cmocka_unit_test(test_ppn_large),
        cmocka_unit_test(test_ppn_bad),
        cmocka_unit_test(test_ppn_openpmix_forms),
        cmocka_unit_test(test_random_round_trips),
        cmocka_unit_test(test_random_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
