# Turn src/common/attr_support.txt into one of its three forms:
#
#   awk -v mode=lib  -f attr_support.awk attr_support.txt > attr_support.inc
#       the library's table (levels client, server, tool), one line each
#           SY_SUPPORT("PMIx_Get", SY_LEVEL_CLIENT, PMIX_TIMEOUT, "note")
#       or, for a function with no attribute,
#           SY_SUPPORT_FN("PMIx_Put", SY_LEVEL_CLIENT)
#       Each attribute is named by its macro, so a name <pmix_attributes.h>
#       lacks is a compile error.
#   awk -v mode=host -f attr_support.awk attr_support.txt > run_attrs.inc
#       switchyard-run's registrations (level host):
#           RUN_ATTR("query", "PMIX_QUERY_NAMESPACES")   or   RUN_FN("abort")
#   awk -v mode=md   -f attr_support.awk attr_support.txt
#       the generated section of docs/attributes.md (between its markers).

function esc(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/"/, "\\\"", s)
    return s
}

function mdesc(s) {
    gsub(/\|/, "\\|", s)
    gsub(/</, "\\&lt;", s)
    gsub(/>/, "\\&gt;", s)
    return s
}

BEGIN {
    nfn = 0
    lv["client"] = "SY_LEVEL_CLIENT"
    lv["server"] = "SY_LEVEL_SERVER"
    lv["tool"] = "SY_LEVEL_TOOL"
    lv["host"] = "host"
    title["client"] = "client library"
    title["server"] = "server library"
    title["tool"] = "tool library"
    title["host"] = "switchyard-run (host)"
    bad = 0
}

/^[ \t]*#/ || /^[ \t]*$/ { next }

{
    fn = $1
    level = $2
    attr = $3
    if (NF < 3 || !(level in lv) || (attr != "-" && attr !~ /^(PMIX|SWITCHYARD)_[A-Z0-9_]+$/)) {
        printf("attr_support.txt:%d: malformed line: %s\n", NR, $0) > "/dev/stderr"
        bad = 1
        next
    }
    note = $0
    sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*/, "", note)
    if (attr == "-" && note != "") {
        printf("attr_support.txt:%d: a function without attribute takes no note\n", NR) > "/dev/stderr"
        bad = 1
    }
    if (attr != "-" && note == "") {
        printf("attr_support.txt:%d: %s needs a note saying what it does\n", NR, attr) > "/dev/stderr"
        bad = 1
    }
    k = fn SUBSEP level SUBSEP attr
    if (k in seen) {
        printf("attr_support.txt:%d: %s %s %s listed twice\n", NR, fn, level, attr) > "/dev/stderr"
        bad = 1
    }
    seen[k] = 1
    if (mode == "lib" && level != "host") {
        if (attr == "-")
            printf("SY_SUPPORT_FN(\"%s\", %s)\n", fn, lv[level])
        else
            printf("SY_SUPPORT(\"%s\", %s, %s, \"%s\")\n", fn, lv[level], attr, esc(note))
    } else if (mode == "host" && level == "host") {
        if (attr == "-")
            printf("RUN_FN(\"%s\")\n", fn)
        else
            printf("RUN_ATTR(\"%s\", \"%s\")\n", fn, attr)
    } else if (mode == "md") {
        if (!(fn SUBSEP level in fnseen)) {
            fnseen[fn SUBSEP level] = 1
            order[level, ++count[level]] = fn
        }
        if (attr == "-") {
            bare[fn SUBSEP level] = 1
        } else {
            rows[fn SUBSEP level] = rows[fn SUBSEP level] sprintf("| `%s` | `%s` | %s |\n", fn, attr, mdesc(note))
        }
    }
}

END {
    if (bad)
        exit 1
    if (mode != "md")
        exit 0
    print "<!-- BEGIN attr-support: generated from src/common/attr_support.txt by"
    print "     src/common/attr_support.awk (make update-attr-doc); do not edit by hand -->"
    split("client server tool host", levels, " ")
    for (li = 1; li <= 4; li++) {
        level = levels[li]
        printf("\n### %s\n\n", title[level])
        plain = ""
        table = ""
        for (i = 1; i <= count[level]; i++) {
            fn = order[level, i]
            if (fn SUBSEP level in rows)
                table = table rows[fn SUBSEP level]
            else
                plain = plain (plain == "" ? "" : ", ") "`" fn "`"
        }
        if (table != "") {
            printf("| function | attribute | effect |\n|---|---|---|\n%s", table)
        }
        if (plain != "")
            printf("\n%s with no attribute of %s: %s.\n",
                   level == "host" ? "Upcalls served" : "Functions",
                   level == "host" ? "their own" : "this level", plain)
    }
    print ""
    print "<!-- END attr-support -->"
}
