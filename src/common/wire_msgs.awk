# Generate the wire messages from src/common/wire_msgs.txt (its header
# says the format).  Modes:
#   awk -v mode=h   -f wire_msgs.awk wire_msgs.txt > wire_msgs.h    enums, structs, typed functions
#   awk -v mode=inc -f wire_msgs.awk wire_msgs.txt > wire_msgs.inc  field descriptors (wire_codec.c)
#   awk -v mode=md  -f wire_msgs.awk wire_msgs.txt                  the tables of docs/wire-protocol.md
# Any malformed line stops the generation with a message and status 1.

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

function ctype(t) {
    if (t in CTYPE)
        return CTYPE[t]
    fail("unknown type " t)
}

# Parse fields $first..(before "--") into F_* arrays under key k.
function parse_fields(k, first,    i, n, name, type, kind, parts) {
    n = 0
    for (i = first; i <= NF; i++) {
        if ($i == "--")
            break
        if ($i == "-" && n == 0)
            continue
        if (split($i, parts, ":") != 2 || parts[1] !~ /^[a-z_][a-z0-9_]*$/)
            fail("bad field " $i " (name:TYPE)")
        name = parts[1]
        type = parts[2]
        kind = "ONE"
        if (type ~ /\[\]$/) {
            type = substr(type, 1, length(type) - 2)
            kind = (type in REC) ? "RECORDS" : "ARRAY"
        }
        if (kind != "RECORDS")
            ctype(type)
        n++
        F_NAME[k, n] = name
        F_TYPE[k, n] = type
        F_KIND[k, n] = kind
    }
    NFIELD[k] = n
    DESC[k] = ""
    for (i++; i <= NF; i++)
        DESC[k] = DESC[k] (DESC[k] == "" ? "" : " ") $i
}

BEGIN {
    CTYPE["UINT8"] = "uint8_t"; CTYPE["UINT16"] = "uint16_t"; CTYPE["UINT32"] = "uint32_t"
    CTYPE["UINT64"] = "uint64_t"; CTYPE["INT"] = "int"; CTYPE["INT32"] = "int32_t"
    CTYPE["STATUS"] = "pmix_status_t"; CTYPE["SIZE"] = "size_t"; CTYPE["PID"] = "pid_t"
    CTYPE["BOOL"] = "bool"; CTYPE["PROC"] = "pmix_proc_t"; CTYPE["STRING"] = "char *"
    CTYPE["VALUE"] = "pmix_value_t"; CTYPE["BYTE_OBJECT"] = "pmix_byte_object_t"
    CTYPE["INFO"] = "pmix_info_t"; CTYPE["APP"] = "pmix_app_t"
    SUFFIX["request"] = "req"; SUFFIX["reply"] = "rep"; SUFFIX["message"] = "msg"
    PARTNAME["request"] = "SY_WIRE_REQUEST"; PARTNAME["reply"] = "SY_WIRE_REPLY"
    PARTNAME["message"] = "SY_WIRE_MESSAGE"
}

/^[ \t]*(#|$)/ { next }

$1 == "record" {
    if (NF < 3 || $2 !~ /^[a-z][a-z0-9_]*$/)
        fail("record NAME FIELD...")
    if ($2 in REC)
        fail("record " $2 " twice")
    parse_fields("rec:" $2, 3)
    REC[$2] = 1
    nrec++
    RECORDS[nrec] = $2
    next
}

{
    if (NF < 5 || $1 !~ /^[A-Z][A-Z0-9_]*$/ || $2 !~ /^[0-9]+$/ || $2 + 0 > 255)
        fail("COMMAND NUMBER FROM PART FIELD...")
    if ($3 != "client" && $3 != "server")
        fail("FROM is client or server, not " $3)
    if (!($4 in SUFFIX))
        fail("PART is request, reply or message, not " $4)
    if (($3 == "server") != ($4 == "message"))
        fail("the server sends messages, clients requests and replies")
    space = $4 == "message" ? "MSG" : "CMD"
    if ((space, $1) in NUMBER && NUMBER[space, $1] != $2 + 0)
        fail($1 " has two numbers")
    if ((space, $2 + 0) in OWNER && OWNER[space, $2 + 0] != $1)
        fail("number " $2 " is " OWNER[space, $2 + 0] "'s already")
    k = $1 ":" $4
    if (k in SEEN)
        fail($1 " " $4 " twice")
    SEEN[k] = 1
    if (!((space, $1) in NUMBER)) {
        ncmd[space]++
        CMDS[space, ncmd[space]] = $1
    }
    NUMBER[space, $1] = $2 + 0
    OWNER[space, $2 + 0] = $1
    parse_fields(k, 5)
    nmsg++
    MSGS[nmsg] = k
    M_CMD[k] = $1
    M_PART[k] = $4
    M_SPACE[k] = space
    next
}

function lower(s) { return tolower(s) }
function struct_name(k) {
    if (k ~ /^rec:/)
        return "sy_wire_" substr(k, 5) "_t"
    return "sy_wire_" lower(M_CMD[k]) "_" SUFFIX[M_PART[k]] "_t"
}
function msg_id(k) { return "SY_WMSG_" M_CMD[k] "_" toupper(SUFFIX[M_PART[k]]) }

function emit_struct(k,    i, t) {
    printf "typedef struct {\n"
    for (i = 1; i <= NFIELD[k]; i++) {
        t = F_TYPE[k, i]
        if (F_KIND[k, i] == "ONE")
            printf "    %s%s%s;\n", ctype(t), (ctype(t) ~ /\*$/ ? "" : " "), F_NAME[k, i]
        else {
            t = F_KIND[k, i] == "RECORDS" ? struct_name("rec:" t) : ctype(t)
            printf "    %s%s*%s;\n", t, (t ~ /\*$/ ? "" : " "), F_NAME[k, i]
            printf "    size_t n%s;\n", F_NAME[k, i]
        }
    }
    printf "} %s;\n", struct_name(k)
}

function emit_header(    i, j, k, s, sn, fn, id, space, what) {
    print "/* Generated from src/common/wire_msgs.txt by src/common/wire_msgs.awk:"
    print " * do not edit.  The table's header says what the fields mean. */"
    print "#ifndef SWITCHYARD_COMMON_WIRE_MSGS_H"
    print "#define SWITCHYARD_COMMON_WIRE_MSGS_H"
    print ""
    print "#include <stdbool.h>"
    print "#include <stddef.h>"
    print "#include <stdint.h>"
    print "#include <sys/types.h>"
    print ""
    print "#include <pmix_common.h>"
    print ""
    print "#include \"common/wire_codec.h\""
    print ""
    split("CMD MSG", spaces, " ")
    for (j = 1; j <= 2; j++) {
        space = spaces[j]
        print "typedef enum {"
        for (i = 1; i <= ncmd[space]; i++)
            printf "    SY_%s_%s = %d,\n", space, CMDS[space, i], NUMBER[space, CMDS[space, i]]
        printf "} sy_%s_t;\n\n", lower(space)
    }
    print "/* Every request, reply and unsolicited message. */"
    print "typedef enum {"
    for (i = 1; i <= nmsg; i++)
        printf "    %s,\n", msg_id(MSGS[i])
    print "    SY_WMSG_COUNT"
    print "} sy_wire_msg_t;"
    print ""
    print "/* The reply of a request (the table puts it on the next line). */"
    print "#define sy_wire_reply_of(req_id) ((sy_wire_msg_id_t)(req_id) + 1u)"
    print ""
    for (i = 1; i <= nrec; i++) {
        k = "rec:" RECORDS[i]
        printf "/* record %s%s */\n", RECORDS[i], DESC[k] != "" ? ": " DESC[k] : ""
        emit_struct(k)
        print ""
    }
    for (i = 1; i <= nmsg; i++) {
        k = MSGS[i]
        if (NFIELD[k] == 0)
            continue
        s = struct_name(k)
        sn = substr(s, 1, length(s) - 2)
        id = msg_id(k)
        printf "/* %s %s%s */\n", M_CMD[k], M_PART[k], DESC[k] != "" ? ": " DESC[k] : ""
        emit_struct(k)
        fn = M_PART[k] == "request" ? "sy_wire_pack_request" : "sy_wire_pack"
        what = M_PART[k] == "request" ? "the command byte and the fields" : "the fields"
        printf "/* %s into b (%s). */\n", what, M_PART[k] == "request" ? "initialised here" : "appended"
        printf "static inline pmix_status_t %s_pack(const sy_wire_codec_t *c, pmix_data_buffer_t *b,\n", sn
        printf "                                    const %s *m)\n{\n    return %s(c, b, %s, m);\n}\n", s, fn, id
        printf "static inline pmix_status_t %s_unpack(const sy_wire_codec_t *c, pmix_data_buffer_t *b,\n", sn
        printf "                                    %s *m)\n{\n    return sy_wire_unpack(c, b, %s, m);\n}\n", s, id
        printf "static inline void %s_free(%s *m)\n{\n    sy_wire_free(%s, m);\n}\n\n", sn, s, id
    }
    print "#endif"
}

function emit_fields(k, var,    i, s, kind, type, rec) {
    if (NFIELD[k] == 0)
        return
    s = struct_name(k)
    printf "static const sy_wire_field_t %s[] = {\n", var
    for (i = 1; i <= NFIELD[k]; i++) {
        kind = F_KIND[k, i]
        type = kind == "RECORDS" ? "PMIX_UNDEF" : "PMIX_" F_TYPE[k, i]
        rec = kind == "RECORDS" ? "&sy_wire_rec_" F_TYPE[k, i] : "NULL"
        printf "    {\"%s\", SY_WIRE_%s, %s, offsetof(%s, %s), %s, %s},\n", F_NAME[k, i], kind, type,
            s, F_NAME[k, i], kind == "ONE" ? "0" : "offsetof(" s ", n" F_NAME[k, i] ")", rec
    }
    print "};"
}

function emit_inc(    i, k, var) {
    print "/* Generated from src/common/wire_msgs.txt by src/common/wire_msgs.awk:"
    print " * do not edit.  Included by wire_codec.c only. */"
    for (i = 1; i <= nrec; i++) {
        k = "rec:" RECORDS[i]
        for (j = 1; j <= NFIELD[k]; j++)
            if (F_KIND[k, j] == "RECORDS")
                fail("record " RECORDS[i] " nests a record")
        emit_fields(k, "sy_wire_f_rec_" RECORDS[i])
        printf "static const sy_wire_desc_t sy_wire_rec_%s = {\"%s record\", 0, SY_WIRE_RECORD, sizeof(%s), %d, sy_wire_f_rec_%s};\n",
            RECORDS[i], RECORDS[i], struct_name(k), NFIELD[k], RECORDS[i]
    }
    for (i = 1; i <= nmsg; i++) {
        k = MSGS[i]
        emit_fields(k, "sy_wire_f_" i)
    }
    print "static const sy_wire_desc_t sy_wire_descs[SY_WMSG_COUNT] = {"
    for (i = 1; i <= nmsg; i++) {
        k = MSGS[i]
        printf "    [%s] = {\"%s %s\", SY_%s_%s, %s, %s, %d, %s},\n", msg_id(k), M_CMD[k], M_PART[k],
            M_SPACE[k], M_CMD[k], PARTNAME[M_PART[k]], NFIELD[k] ? "sizeof(" struct_name(k) ")" : "0",
            NFIELD[k], NFIELD[k] ? "sy_wire_f_" i : "NULL"
    }
    print "};"
}

function md_fields(k,    i, out, f, t) {
    if (NFIELD[k] == 0)
        return "nothing"
    out = ""
    for (i = 1; i <= NFIELD[k]; i++) {
        t = F_TYPE[k, i]
        if (F_KIND[k, i] == "ONE")
            f = "`PMIX_" t "` " F_NAME[k, i]
        else if (F_KIND[k, i] == "ARRAY")
            f = "`PMIX_SIZE` n, n `PMIX_" t "` " F_NAME[k, i]
        else
            f = "`PMIX_SIZE` n, n × " t " " F_NAME[k, i]
        out = out (i > 1 ? ", " : "") f
    }
    return out
}

function md_desc(k,    d) {
    if (!(k in SEEN) || DESC[k] == "")
        return ""
    d = DESC[k]
    sub(/^\(hand\) ?/, "", d)
    return d
}

function emit_md(    i, c, rq, rp, d, k, n) {
    print "<!-- BEGIN wire-msgs (generated from src/common/wire_msgs.txt: make update-wire-doc) -->"
    print "| command | request after the command byte | reply after the status | notes |"
    print "|---|---|---|---|"
    for (i = 1; i <= ncmd["CMD"]; i++) {
        c = CMDS["CMD", i]
        rq = c ":request"
        rp = c ":reply"
        d = md_desc(rq)
        if (md_desc(rp) != "")
            d = d (d != "" ? "; reply: " : "reply: ") md_desc(rp)
        printf "| `SY_CMD_%s` (%d) | %s | %s | %s |\n", c, NUMBER["CMD", c],
            (rq in SEEN) ? md_fields(rq) : "—", (rp in SEEN) ? md_fields(rp) : "no reply", d
    }
    print ""
    print "Unsolicited messages (tag 0), after their `PMIX_UINT8` kind:"
    print ""
    print "| message | fields | notes |"
    print "|---|---|---|"
    for (i = 1; i <= ncmd["MSG"]; i++) {
        c = CMDS["MSG", i]
        k = c ":message"
        printf "| `SY_MSG_%s` (%d) | %s | %s |\n", c, NUMBER["MSG", c], md_fields(k), md_desc(k)
    }
    print ""
    print "Records (the elements of a counted array of them):"
    print ""
    print "| record | fields | |"
    print "|---|---|---|"
    for (i = 1; i <= nrec; i++) {
        k = "rec:" RECORDS[i]
        printf "| %s | %s | %s |\n", RECORDS[i], md_fields(k), DESC[k]
    }
    print "<!-- END wire-msgs -->"
}

END {
    if (failed)
        exit 1
    for (i = 1; i <= nmsg; i++) {
        k = MSGS[i]
        # a reply's id is its request's + 1 (sy_wire_reply_of)
        if (M_PART[k] == "reply" && (i == 1 || MSGS[i - 1] != M_CMD[k] ":request"))
            fail(M_CMD[k] " reply does not follow its request line")
        if (M_PART[k] == "request" && !((M_CMD[k] ":reply") in SEEN))
            fail(M_CMD[k] " has a request but no reply")
    }
    if (mode == "h")
        emit_header()
    else if (mode == "inc")
        emit_inc()
    else if (mode == "md")
        emit_md()
    else
        fail("mode is h, inc or md")
}
