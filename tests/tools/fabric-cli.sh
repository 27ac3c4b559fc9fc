#!/bin/sh
# Shell test of tools/switchyard-fabric: summary numbers, exports (CSV and
# binary matrix, groups, JSON, DOT, PNG) and exit statuses, on the files in
# tests/fabric/data and on generator specs.  Run by `make check` (with
# top_srcdir/top_builddir set) or by hand from the source tree.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
F="$top_builddir/tools/switchyard-fabric"
D="$top_srcdir/tests/fabric/data"
if test ! -x "$F"; then
    echo "switchyard-fabric not built: $F"
    exit 99
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 missing"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-fabric-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
n=0

ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}
bad() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
}
check() {
    desc=$1
    shift
    if "$@"; then ok "$desc"; else bad "$desc"; fi
}
has_line() { grep -qx -- "$2" "$1"; }
# status CMD...: run, keep stdout/stderr in $T/out $T/err, print exit status
status() {
    "$@" >"$T/out" 2>"$T/err"
    echo $?
}

# ---- summary of the 2-leaf Slurm file --------------------------------------
check "slurm summary exits 0" test 0 = "$(status "$F" --load "$D/slurm_2leaf.conf")"
cp "$T/out" "$T/sum"
check "devices: 12" has_line "$T/sum" "devices: 12"
check "switches: 3" has_line "$T/sum" "switches: 3"
check "links: 15" has_line "$T/sum" "links: 15 (0 down)"
check "planes: 1" has_line "$T/sum" "planes: 1"
check "plane shape" has_line "$T/sum" "  plane0: 12 devices, dims 3, shape 2x1x8"
check "groups: 2" has_line "$T/sum" "groups: 2 (leaf)"
check "group sizes" has_line "$T/sum" "group sizes: 8 4"
check "diameter: 4" has_line "$T/sum" "diameter: 4"
check "histogram 0" has_line "$T/sum" "  0: 12"
check "histogram 2" has_line "$T/sum" "  2: 76"
check "histogram 4" has_line "$T/sum" "  4: 56"
check "generation: 1" has_line "$T/sum" "generation: 1"
check "algorithm and time" grep -q '^cost: 12x12, metric hops, algorithm .*, [0-9.]* s$' "$T/sum"

# ---- CSV matrix: expected values written out by hand -----------------------
# Device order node001..node004 tux1 tux2 tux3 tux5 (leaf0) then
# node005..node008 (leaf1); node001 is on both leaves.
python3 - "$T/expect.csv" <<'PY'
import sys
leaf0, leaf1 = set(range(0, 8)), set(range(8, 12))
rows = []
for i in range(12):
    row = []
    for j in range(12):
        if i == j:
            c = 0
        elif {i, j} <= leaf0 or {i, j} <= leaf1 or 0 in (i, j):
            c = 2
        else:
            c = 4
        row.append(str(c))
    rows.append(",".join(row))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
check "csv export exits 0" test 0 = "$(status "$F" --load "$D/slurm_2leaf.conf" --quiet \
    --matrix-csv "$T/m.csv" --matrix-bin "$T/m.bin" --groups "$T/groups" \
    --coords-json "$T/c.json" --dot "$T/g.dot" --png "$T/m.png")"
check "--quiet prints nothing" test ! -s "$T/out"
check "csv matrix values" cmp -s "$T/expect.csv" "$T/m.csv"
check "groups string" has_line "$T/groups" \
    "0:node001,node002,node003,node004,tux1,tux2,tux3,tux5;1:node005,node006,node007,node008"

# ---- binary matrix: header and size, same values as the CSV -----------------
check_bin() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic, version, n = struct.unpack_from("<4sIQ", data, 0)
assert magic == b"SYCM", magic
assert version == 1, version
assert len(data) == 16 + 2 * n * n, (len(data), n)
vals = struct.unpack_from("<%dH" % (n * n), data, 16)
csv = [int(x) for line in open(sys.argv[2]) for x in line.strip().split(",")]
assert list(vals) == csv
PY
}
check "binary header, size and values" check_bin "$T/m.bin" "$T/m.csv"

# ---- JSON, DOT ------------------------------------------------------------
check "coords json is valid" python3 -m json.tool "$T/c.json" "$T/c.pretty"
check_json() {
    python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = j["devices"]
assert len(d) == 12
assert d[0]["name"] == "node001" and d[0]["index"] == 0
assert d[0]["switches"] == ["leaf0", "leaf1"], d[0]["switches"]
assert all(len(x["coordinates"]) == j["dims"] for x in d)
assert len({tuple(x["coordinates"]) for x in d}) == 12
assert [x["group"] for x in d] == [0] * 8 + [1] * 4
PY
}
check "coords json content" check_json "$T/c.json"
check "dot starts with graph" test "graph fabric {" = "$(head -n 1 "$T/g.dot")"
check "dot has switches as boxes" grep -q '^  "spine" \[shape=box\];$' "$T/g.dot"
check "dot has devices as ellipses" grep -q '^  "tux5" \[shape=ellipse\];$' "$T/g.dot"

status "$F" --load "$D/native_2plane.topo" --quiet --dot "$T/n.dot" >/dev/null
check "dot: down link dashed with speed" grep -q '^  "sw1" -- "n1-r1" \[label="25Gb/s", style=dashed\];$' "$T/n.dot"

# ---- PNG ------------------------------------------------------------------
check_png() {
    python3 - "$1" "$2" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
side = int(sys.argv[2])
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, types = 8, b"", []
while pos < len(data):
    ln, typ = struct.unpack_from(">I4s", data, pos)
    body = data[pos + 8:pos + 8 + ln]
    crc, = struct.unpack_from(">I", data, pos + 8 + ln)
    assert crc == zlib.crc32(typ + body) & 0xffffffff, typ
    types.append(typ)
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack_from(">IIBB", body)
        assert (w, h, depth, ctype) == (side, side, 8, 2), (w, h, depth, ctype)
    if typ == b"IDAT":
        idat += body
    pos += 12 + ln
assert types[0] == b"IHDR" and types[-1] == b"IEND"
raw = zlib.decompress(idat)
assert len(raw) == side * (1 + 3 * side)
PY
}
check "png signature, IHDR 12x12, CRCs, IDAT" check_png "$T/m.png" 12
check "file(1) agrees" sh -c "! command -v file >/dev/null || file '$T/m.png' | grep -q 'PNG image data, 12 x 12'"

# ---- generators -----------------------------------------------------------
check "fattree summary" test 0 = "$(status "$F" --generate fattree:k=4 --threads 2)"
check "fattree devices" has_line "$T/out" "devices: 16"
check "fattree switches" has_line "$T/out" "switches: 20"
check "fattree links" has_line "$T/out" "links: 48 (0 down)"
check "fattree pod groups" has_line "$T/out" "groups: 4 (pod)"
check "fattree diameter" has_line "$T/out" "diameter: 6"
check "fattree leaf groups" test 0 = "$(status "$F" --generate fattree:k=4 --group-mode leaf)"
check "fattree leaf group count" has_line "$T/out" "groups: 8 (leaf)"
check "torus summary" test 0 = "$(status "$F" --generate torus:4x4x8 --cost-metric speed)"
check "torus shape" has_line "$T/out" "  plane0: 128 devices, dims 3, shape 4x4x8"
check "torus metric" grep -q '^cost: 128x128, metric speed' "$T/out"
# Above 4096 devices the heatmap is downsampled: 4394 devices, blocks of 2.
check "large png" test 0 = "$(status "$F" --generate fattree:k=26 --quiet --png "$T/big.png")"
check "large png side 2197" check_png "$T/big.png" 2197

# ---- errors ----------------------------------------------------------------
check "no source: exit 2" test 2 = "$(status "$F")"
check "two sources: exit 2" test 2 = "$(status "$F" --load "$D/slurm_2leaf.conf" --generate fattree:k=2)"
check "unknown option: exit 2" test 2 = "$(status "$F" --bogus)"
check "missing argument: exit 2" test 2 = "$(status "$F" --load)"
check "bad metric: exit 2" test 2 = "$(status "$F" --generate fattree:k=2 --cost-metric far)"
check "bad threads: exit 2" test 2 = "$(status "$F" --generate fattree:k=2 --threads 0)"
check "bad group mode: exit 2" test 2 = "$(status "$F" --generate fattree:k=2 --group-mode x)"
check "bad format: exit 2" test 2 = "$(status "$F" --load "$D/slurm_2leaf.conf" --format xml)"
check "stray argument: exit 2" test 2 = "$(status "$F" --generate fattree:k=2 extra)"
printf 'SwitchName=s0 Nodes=a1\n\nSwitchName=\n' >"$T/bad.conf"
check "malformed file: exit 1" test 1 = "$(status "$F" --load "$T/bad.conf" --format slurm)"
check "message has file:line" grep -q "bad.conf:3:" "$T/err"
check "message is one line" test 1 = "$(wc -l <"$T/err")"
check "missing file: exit 1" test 1 = "$(status "$F" --load "$T/nonexistent")"
check "bad spec: exit 1" test 1 = "$(status "$F" --generate fattree:k=3)"
check "matrix above cap: exit 1" test 1 = "$(status "$F" --generate fattree:k=4 --max-matrix-bytes 8 --quiet --matrix-csv "$T/x.csv")"
check "help: exit 0" test 0 = "$(status "$F" --help)"
for o in --load --format --generate --discover --cost-metric --threads --group-mode \
         --matrix-bin --matrix-csv --groups --coords-json --dot --png --json --quiet --help; do
    check "help mentions $o" grep -q -- "$o" "$T/out"
done

# ---- other formats: OpenSM subnet.lst, ibsim net, a -v capture ---------------
# the same 4-host fabric as ibnet_ports.txt, in each of its descriptions
check "subnet.lst with --format osm-lst: exit 0" \
    test 0 = "$(status "$F" --load "$D/osm_subnet.lst" --format osm-lst)"
check "subnet.lst: format osm-lst" grep -q '^source: .*(osm-lst)$' "$T/out"
cp "$T/out" "$T/osm"
check "ibnetdiscover -p: exit 0" test 0 = "$(status "$F" --load "$D/ibnet_ports.txt")"
check "subnet.lst: the same devices and links as ibnetdiscover -p" \
    test "$(grep -E '^(devices|switches|links):' "$T/osm" | tr '\n' ' ')" = \
    "$(grep -E '^(devices|switches|links):' "$T/out" | tr '\n' ' ')" -a \
    "$(grep -c '^devices: 4$' "$T/osm")" = 1
check "ibsim net with --format ibsim: exit 0" \
    test 0 = "$(status "$F" --load "$D/ibsim_2leaf.net" --format ibsim)"
check "ibsim: format ibsim" grep -q '^source: .*(ibsim)$' "$T/out"
check "-v capture with DR path and ibwarn lines: exit 0" \
    test 0 = "$(status "$F" --load "$D/ibnet_ports_verbose.txt")"
check "-v capture: the note says what was passed over" \
    grep -q '^note: .*lines that are not ibnetdiscover topology passed over' "$T/out"
check "--format bogus: usage error 2" test 2 = "$(status "$F" --load "$D/ibsim_2leaf.net" --format bogus)"
check "--format bogus: the message lists osm-lst and ibsim" grep -q 'osm-lst, ibsim' "$T/err"

# ---- discover ---------------------------------------------------------------
check "discover --json: exit 0" test 0 = "$(status "$F" --discover --json)"
check "discover json is valid" python3 -m json.tool "$T/out" /dev/null
check "discover table: exit 0" test 0 = "$(status "$F" --discover)"

echo "1..$n"
test 0 = "$fails"
