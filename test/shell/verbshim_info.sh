#!/usr/bin/env bash
# verbshim-info on a host without RDMA in its kernel: the introspection of
# all three libraries against objdump's view of the real files, the
# diagnosis chain (on a fake sysfs/dev/etc tree, VERBSHIM_INFO_ROOT), the
# JSON, a library override that points nowhere, usage errors, the EFA
# caps (fake provider and libefa), an InfiniBand port (fake provider),
# valgrind.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
bin=${VERBSHIM_INFO_BIN:-build/bin/verbshim-info}
[ -x "$bin" ] || { echo "skip: $bin not built (run make)"; exit 77; }
command -v objdump >/dev/null || { echo "skip: objdump not installed (binutils)"; exit 77; }
py=$(command -v python3 || true)
[ -n "$py" ] || { echo "skip: python3 not installed"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

# The highest public node and IBVERBS_PRIVATE_N of a library file, from
# the symbol versions objdump lists (independent of the shim's loader).
highest_node() {
	objdump -T "$1" | grep -v '\*UND\*' | grep -oE "\b$2_[0-9]+\.[0-9]+\b" |
		sort -u -V | tail -n 1
}

# 1. Text: exit 2 here, the nine libraries, the kernel diagnosis.
host_rdma=0
[ -e /sys/class/infiniband ] && host_rdma=1
run text 2 "$bin"
[ $host_rdma -eq 1 ] && echo "note: this host has /sys/class/infiniband; host diagnosis checks skipped"
for lib in libibverbs librdmacm libefa libmlx5 libmlx4 libibumad; do
	grep -qE "^  $lib +/" "$tmp/text.out" || fail "text: no loaded path for $lib"
done
# Newer than some releases (libmana 41, libhns 51, libionic 59): loaded
# where the machine has one, else not found, with the package to install.
for lib in libhns libmana libionic; do
	if /sbin/ldconfig -p | grep -qE "^\s+$lib\.so\.1 "; then
		grep -qE "^  $lib +/" "$tmp/text.out" || fail "text: no loaded path for $lib"
	else
		grep -qE "^  $lib +not loaded: absent \(not installed\)" "$tmp/text.out" &&
			grep -q "error: .*$lib not found (Debian package ibverbs-providers)" "$tmp/text.out" ||
			fail "text: $lib is not on this machine, and not reported not found"
	fi
done
grep -q 'version node:  IBVERBS_1\.[0-9]* (rdma-core [0-9]* or later)' "$tmp/text.out" ||
	fail "text: no IBVERBS version node line"
grep -q 'provider ABI:  [0-9]* (IBVERBS_PRIVATE_[0-9]*)' "$tmp/text.out" ||
	fail "text: no provider ABI line"
if [ $host_rdma -eq 0 ]; then
	grep -q '^Diagnosis: no /sys/class/infiniband: ' "$tmp/text.out" ||
		fail "text: diagnosis is not 'no /sys/class/infiniband'"
fi
grep -q . "$tmp/text.err" && fail "text: stderr not empty: $(head -c 200 "$tmp/text.err")"

# 1b. The knobs of docs/trace.md: shown as set, and this program (linked
# with the archive like any) traced by them: the help names them too.
VERBSHIM_TRACE=failed,ibverbs VERBSHIM_STATS=1 "$bin" --json >"$tmp/knobs.out" 2>"$tmp/knobs.err"
"$py" -c 'import json,sys
k = json.load(open(sys.argv[1]))["knobs"]
assert k == {"VERBSHIM_TRACE": "failed,ibverbs", "VERBSHIM_STATS": "1",
             "VERBSHIM_FAULT": None, "VERBSHIM_TRACE_FILE": None}, k' "$tmp/knobs.out" ||
	fail "json: knobs not as set"
grep -q '^verbshim: calls through the shim (VERBSHIM_STATS)' "$tmp/knobs.err" ||
	fail "VERBSHIM_STATS=1: no counters at exit on stderr"
if [ $host_rdma -eq 0 ]; then
	grep -q '^verbshim: \[[0-9]*\] ibv_get_device_list(num_devices=0x[0-9a-f]*) = NULL ENOSYS' "$tmp/knobs.err" ||
		fail "VERBSHIM_TRACE=failed: no line of the failed ibv_get_device_list: $(head -c 300 "$tmp/knobs.err")"
fi
"$bin" --help | grep -q 'VERBSHIM_FAULT=FUNCTION:ERRNO:N' || fail "--help does not name VERBSHIM_FAULT"

# 2. JSON: parses, has the stable keys, agrees with objdump.
run json 2 "$bin" --json
"$py" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/json.out" || fail "json: does not parse"
for lib in ibverbs rdmacm efa mlx5 mlx4 ibumad hns mana ionic; do
	path=$("$py" -c 'import json,sys
d = json.load(open(sys.argv[1]))
l = [x for x in d["libraries"] if x["name"] == "lib" + sys.argv[2]][0]
print(l["path"] or "")' "$tmp/json.out" "$lib") || { fail "json: no lib$lib"; continue; }
	case $lib in hns | mana | ionic)
		if [ -z "$path" ] && ! /sbin/ldconfig -p | grep -qE "^\s+lib$lib\.so\.1 "; then
			"$py" -c 'import json,sys
l = [x for x in json.load(open(sys.argv[1]))["libraries"] if x["name"] == sys.argv[2]][0]
assert l["loaded"] is False and l["absent"] is True and "not found" in l["error"] and l["symbols_resolved"] == 0, l' \
				"$tmp/json.out" "lib$lib" || fail "json: lib$lib absent, not reported so"
			continue
		fi ;;
	esac
	[ -n "$path" ] || { fail "json: lib$lib has no path"; continue; }
	prefix=$(echo "$lib" | tr '[:lower:]' '[:upper:]')
	want=$(highest_node "$path" "$prefix")
	abi=
	[ $lib = ibverbs ] && abi=$(objdump -T "$path" | grep -v '\*UND\*' |
		grep -oE "\bIBVERBS_PRIVATE_[0-9]+\b" | sort -u | sed 's/.*_//' | tail -n 1)
	echo "objdump: $path: highest $want${abi:+, provider ABI $abi}"
	"$py" - "$tmp/json.out" "lib$lib" "$want" "${abi:-null}" "$host_rdma" <<'EOF' || fail "json: lib$lib"
import json, sys
d = json.load(open(sys.argv[1]))
name, want, abi, host_rdma = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] == "1"
assert list(d) == ["build", "knobs", "libraries", "features", "devices", "diagnosis"], list(d)
assert list(d["knobs"]) == ["VERBSHIM_TRACE", "VERBSHIM_STATS", "VERBSHIM_FAULT",
                            "VERBSHIM_TRACE_FILE"], d["knobs"]
assert list(d["build"]) == ["nodes_in", "nodes_out"], d["build"]
assert d["build"]["nodes_in"].startswith("IBVERBS_1.0-"), d["build"]
keys = ["name", "loaded", "absent", "path", "error", "highest_node", "nodes_compiled_in",
        "nodes_here", "min_release", "provider_abi", "symbols_resolved", "symbols_known"]
assert [list(l) for l in d["libraries"]] == [keys] * 9, d["libraries"]
assert [l["name"] for l in d["libraries"]] == ["libibverbs", "librdmacm", "libefa",
                                            "libmlx5", "libmlx4", "libibumad",
                                            "libhns", "libmana", "libionic"]
l = [x for x in d["libraries"] if x["name"] == name][0]
assert l["loaded"] is True and l["error"] is None, l
assert l["highest_node"] == want, (l["highest_node"], want)
# the nodes here end at the highest one; those compiled in are the build's
prefix = want.split("_1.")[0]
last = l["nodes_here"].split()[-1]
assert l["nodes_here"].startswith(prefix + "_1."), l
assert (prefix + "_" + last.split("-")[1] if "-" in last else last) == want, l
assert l["nodes_compiled_in"] and all(r.startswith(prefix + "_")
    for r in l["nodes_compiled_in"].split()), l
assert set(l["nodes_compiled_in"].split()) <= set(d["build"]["nodes_in"].split()), l
assert [list(f) for f in d["features"]] == [["name", "verb", "node", "release",
    "compiled_in", "available"]] * len(d["features"]) and len(d["features"]) >= 13, d["features"]
assert isinstance(l["min_release"], int) and l["min_release"] >= 13, l
if name == "libibverbs":
    assert l["provider_abi"] == int(abi), (l["provider_abi"], abi)
else:
    assert l["provider_abi"] is None, l
assert 0 < l["symbols_resolved"] <= l["symbols_known"], l
if not host_rdma:
    assert d["devices"] == [], d["devices"]
    assert d["diagnosis"].startswith("no /sys/class/infiniband: "), d["diagnosis"]
print("json ok:", name, l["highest_node"], "rdma-core >=", l["min_release"])
EOF
done
grep -q '"highest_node": "IBVERBS_' "$tmp/json.out" || fail "json: no IBVERBS highest_node"

# The build's version nodes: the same in text and JSON, and, for the
# build's own binary, those its feature configuration recorded.
conf=build/gen/vs_config.h
for key in in out; do
	KEY=$(echo "$key" | tr '[:lower:]' '[:upper:]')
	j=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["build"]["nodes_" + sys.argv[2]])' \
		"$tmp/json.out" "$key") || { fail "json: no build.nodes_$key"; continue; }
	label=$([ $key = in ] && echo 'compiled in' || echo 'left out')
	t=$(sed -n "s/^  $label *//p" "$tmp/text.out")
	[ "$t" = "${j:-none}" ] || fail "build nodes $key: text '$t', json '$j'"
	if [ -z "${VERBSHIM_INFO_BIN:-}" ] && [ -f "$conf" ]; then
		c=$(sed -n "s/^#define VS_CONFIG_NODES_$KEY \"\(.*\)\"$/\1/p" "$conf")
		[ "$j" = "$c" ] || fail "build nodes $key: verbshim-info '$j', $conf '$c'"
	fi
	ok "build nodes $key: ${j:-none}"
done

# 3. An override that points nowhere: reported, no crash, still exit 2.
bad=/nonexistent/libibverbs.so.1
run override 2 env VERBSHIM_LIBIBVERBS=$bad "$bin"
grep -qE "^  libibverbs +not loaded" "$tmp/override.out" || fail "override: libibverbs not reported as not loaded"
grep -q "error: .*$bad" "$tmp/override.out" || fail "override: error does not name $bad"
grep -q "^Diagnosis: libibverbs did not load (.*$bad" "$tmp/override.out" || fail "override: diagnosis"
run override_json 2 env VERBSHIM_LIBIBVERBS=$bad "$bin" --json
"$py" - "$tmp/override_json.out" "$bad" <<'EOF' || fail "override: json"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["libraries"][0]
assert l["name"] == "libibverbs" and l["loaded"] is False, l
assert l["path"] is None and l["highest_node"] is None and l["provider_abi"] is None, l
assert sys.argv[2] in l["error"], l["error"]
assert l["symbols_resolved"] == 0 and l["symbols_known"] > 0, l
assert d["devices"] == [] and d["diagnosis"].startswith("libibverbs did not load"), d
print("override json ok:", l["error"])
EOF

# 4. Escaping: quotes, backslash, a tab and invalid UTF-8 in a path.
weird=$(printf '/nonexistent/q"b\\t\tx\xffy.so')
run escape 2 env VERBSHIM_LIBIBVERBS="$weird" "$bin" --json
"$py" - "$tmp/escape.out" <<'EOF' || fail "escape: json"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
e = d["libraries"][0]["error"]
assert 'q"b\\t\tx\ufffdy.so' in e, repr(e)
print("escape ok:", repr(e))
EOF

# 5. Usage.
run help 0 "$bin" --help
grep -q '^usage: verbshim-info' "$tmp/help.out" || fail "help: no usage"
run badopt 1 "$bin" --bogus
run extra 1 "$bin" extra-arg
run noarg 1 "$bin" -d

# 6. The diagnosis chain on a fake tree (only meaningful where libibverbs
#    lists no device, as here).
if [ $host_rdma -eq 0 ]; then
	root=$tmp/root
	lib=	# VERBSHIM_LIBIBVERBS for the next checks, when set
	diag() {
		env VERBSHIM_INFO_ROOT="$root" ${lib:+VERBSHIM_LIBIBVERBS="$lib"} \
			"$bin" "$@" | sed -n 's/^Diagnosis: //p'
	}
	# expect WHAT DIAGNOSIS-PREFIX [ARGS...]
	expect() {
		local what=$1 want=$2 got
		shift 2
		got=$(diag "$@")
		case $got in
		"$want"*) ok "diagnosis: $what" ;;
		*) fail "diagnosis: $what: got '$got', want '$want...'" ;;
		esac
	}
	mkdir -p "$root/sys/class/infiniband"
	expect "empty sysfs" "$root/sys/class/infiniband is empty"
	mkdir "$root/sys/class/infiniband/rxe0"
	expect "no uverbs" "no $root/dev/infiniband/uverbs*: the kernel has RDMA device rxe0"
	expect "-d unknown" "no device named foo" -d foo
	mkdir -p "$root/dev/infiniband" && touch "$root/dev/infiniband/uverbs0"
	expect "no config dir" "no provider for driver rxe (device rxe0): no \"driver rxe\" line in $root/etc/libibverbs.d (no such directory)"
	mkdir -p "$root/etc/libibverbs.d"
	echo "driver mlx4" >"$root/etc/libibverbs.d/mlx4.driver"
	expect "no rxe provider" "no provider for driver rxe (device rxe0)"
	printf '# SoftRoCE\ndriver rxe\n' >"$root/etc/libibverbs.d/rxe.driver"
	expect "provider present" "the kernel has device rxe0 and its provider is installed"
	# A copy of libibverbs with its own provider dir, to vary the ABI.
	mkdir -p "$tmp/lib/libibverbs"
	real=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["libraries"][0]["path"])' "$tmp/json.out")
	cp "$real" "$tmp/lib/libibverbs.so.1"
	lib=$tmp/lib/libibverbs.so.1
	expect "provider file missing" "no provider library for driver rxe (device rxe0): $tmp/lib/libibverbs/librxe-rdmav"
	touch "$tmp/lib/libibverbs/librxe-rdmav1.so"
	expect "ABI mismatch" "provider ABI mismatch for driver rxe (device rxe0): $lib needs provider ABI"
	mkdir -p "$root/sys/class/infiniband/mlx5_0/device"
	ln -s ../../../../bus/pci/drivers/mlx5_core "$root/sys/class/infiniband/mlx5_0/device/driver"
	expect "driver link" "no provider for driver mlx5_core (device mlx5_0): no \"driver mlx5\" line"
	lib=
	expect "-d restricts" "the kernel has device rxe0" -d rxe0
fi

# 6b. EFA caps: on the fake provider with the fake libefa declaring fake0
# an EFA device (VS_FAKE_EFA=1), the device shows its SRD caps in both
# outputs; without that, no EFA section (a non-EFA device).
fake=build/stubs/fake
if [ -r $fake/libibverbs.so.1 ] && [ -r $fake/libefa.so.1 ]; then
	fenv=(env VERBSHIM_LIBIBVERBS=$fake/libibverbs.so.1 VERBSHIM_LIBEFA=$fake/libefa.so.1)
	run efa_text 0 "${fenv[@]}" VS_FAKE_EFA=1 "$bin"
	grep -q "EFA (SRD):   send/recv, RDMA read, RDMA write, RNR retry" "$tmp/efa_text.out" &&
		grep -q "send queue:  512 WRs x 2 SGEs" "$tmp/efa_text.out" &&
		grep -q "max RDMA:    1073741824 bytes" "$tmp/efa_text.out" &&
		grep -q "kind:        EFA" "$tmp/efa_text.out" &&
		ok "efa: text shows the caps and the kind" || fail "efa: text lacks the EFA caps or kind"
	run efa_json 0 "${fenv[@]}" VS_FAKE_EFA=1 "$bin" --json
	"$py" -c 'import json,sys
e = json.load(open(sys.argv[1]))["devices"][0]["efa"]
assert e == {"max_sq_wr": 512, "max_rq_wr": 256, "max_sq_sge": 2, "max_rq_sge": 3,
	"inline_buf_size": 32, "max_rdma_size": 1 << 30, "device_caps": 11,
	"rdma_read": True, "rdma_write": True, "rnr_retry": True}, e' "$tmp/efa_json.out" &&
		ok "efa: json caps" || fail "efa: json caps"
	run not_efa_text 0 "${fenv[@]}" "$bin"
	grep -q "EFA (SRD)" "$tmp/not_efa_text.out" && fail "not EFA: an EFA section" || ok "not EFA: no EFA section"
	run not_efa_json 0 "${fenv[@]}" "$bin" --json
	grep -q '"efa": null' "$tmp/not_efa_json.out" && ok "not EFA: json efa null" || fail "not EFA: json efa not null"

	# 6c. InfiniBand: the fake provider's IB port (VS_FAKE_LINK=ib, LID
	# 17, SM LID 1) shows its LIDs, and nothing says RoCE; a port no
	# subnet manager configured (VS_FAKE_LID=0: INIT) is diagnosed as
	# such, without RoCE or netdev advice.
	run ib_text 0 "${fenv[@]}" VS_FAKE_LINK=ib "$bin"
	grep -q "link_layer:  InfiniBand" "$tmp/ib_text.out" &&
		grep -q "lid:         17 (SM lid 1)" "$tmp/ib_text.out" &&
		grep -q "GID\[   0\]:   fe80::2:c903:11:2233 *IB " "$tmp/ib_text.out" &&
		ok "ib: text shows the LIDs and the port GID" || fail "ib: text lacks the LIDs or the port GID"
	grep -qi "roce\|Diagnosis" "$tmp/ib_text.out" && fail "ib: RoCE or a diagnosis on an active IB port" ||
		ok "ib: no RoCE, no diagnosis"
	grep -q "lid:" "$tmp/not_efa_text.out" && fail "RoCE: a lid line" || ok "RoCE: no lid line"
	run ib_json 0 "${fenv[@]}" VS_FAKE_LINK=ib "$bin" --json
	"$py" -c 'import json,sys
d = json.load(open(sys.argv[1]))
p = d["devices"][0]["ports"][0]
assert (p["link_layer"], p["lid"], p["sm_lid"]) == ("InfiniBand", 17, 1), p
assert [g["type"] for g in p["gids"]] == ["IB", "IB"], p
assert d["diagnosis"] is None, d["diagnosis"]
p = json.load(open(sys.argv[2]))["devices"][0]["ports"][0]
assert (p["link_layer"], p["lid"], p["sm_lid"]) == ("Ethernet", None, None), p' \
		"$tmp/ib_json.out" "$tmp/not_efa_json.out" && ok "ib: json lids" || fail "ib: json lids"
	run ib_nosm 2 "${fenv[@]}" VS_FAKE_LINK=ib VS_FAKE_LID=0 "$bin"
	d=$(sed -n 's/^Diagnosis: //p' "$tmp/ib_nosm.out")
	case $d in
	"port down: fake0 port 1 (InfiniBand) is INIT, no LID. "*"subnet manager runs"*)
		case $d in
		*RoCE* | *netdev*) fail "ib: no-SM diagnosis gives RoCE advice: $d" ;;
		*) ok "ib: no-SM diagnosis" ;;
		esac ;;
	*) fail "ib: no-SM diagnosis: got '$d'" ;;
	esac
else
	fail "the fake provider and libefa are not built (make tests)"
fi

# 7. valgrind: no error, no leak, in both outputs and without a library.
if command -v valgrind >/dev/null; then
	vg=(valgrind -q --leak-check=full --error-exitcode=9)
	run valgrind_text 2 "${vg[@]}" "$bin"
	run valgrind_json 2 "${vg[@]}" "$bin" --json
	run valgrind_override 2 env VERBSHIM_LIBIBVERBS=$bad "${vg[@]}" "$bin" --json
else
	echo "note: valgrind not installed, leak check skipped"
fi

if [ $fails -ne 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "verbshim-info: all checks passed"
