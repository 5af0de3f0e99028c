#!/usr/bin/env bash
# A program carries what it calls (docs/bench.md, "Footprint"): the
# ibv_*-only program bench/footprint/ibv_only.c linked with libverbshim.a
# - links libibverbs' table, trace rows and wrappers (nm: vs__ibverbs_*)
#   and no other library's: no vs__<lib>_* symbol of another row of
#   VS_LIBRARIES, no wrapper of another library's function (vs_tw_NAME),
#   and none of their function names among its strings (the rows'
#   descriptions);
# - adds at most 128 KB of text+data and 32 KB of bss to an empty program,
#   stripped (issue 51's targets; the figures are printed);
# - traces, counts and fails its own calls on the stub libibverbs, takes a
#   VERBSHIM_TRACE pattern of a library it does not link (it selects
#   nothing there) and still refuses a misspelt ibv_* name.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
archive=lib/libverbshim.a
[ -f "$archive" ] || { echo "skip: $archive not built (run make)"; exit 77; }
stub=$PWD/build/stubs/v44/libibverbs.so.1
[ -f "$stub" ] || { echo "skip: $stub not built (run make tests)"; exit 77; }
inc=$(scripts/rdma-headers.sh 2>/dev/null) ||
	{ echo "skip: the pinned rdma-core headers are not there (scripts/rdma-headers.sh)"; exit 77; }
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

prog=$tmp/ibv_only
if ! $cc -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Ibuild/gen -isystem "$inc" -o "$prog" \
	bench/footprint/ibv_only.c "$archive" -ldl -lpthread 2>"$tmp/ld.err"; then
	cat "$tmp/ld.err"
	echo "FAIL: cannot link bench/footprint/ibv_only.c with $archive"
	exit 1
fi

# 1. its own rows, no other library's
libs=$(sed -n 's/^[[:space:]]*L(\([a-z0-9_]*\),.*/\1/p' shim/loader/vs_shim.h)
[ "$(echo "$libs" | wc -l)" -ge 9 ] || { echo "FAIL: could not read VS_LIBRARIES"; exit 1; }
nm "$prog" >"$tmp/nm"
strings -n 4 "$prog" | sort -u >"$tmp/strings"
for s in vs__ibverbs_trows vs__ibverbs_twraps vs__ibverbs_desc vs_tw_ibv_get_device_list; do
	if grep -q " $s$" "$tmp/nm"; then
		ok "links $s"
	else
		fail "does not link $s (the nm check would see nothing)"
	fi
done
for lib in $libs; do
	[ "$lib" = ibverbs ] && continue
	# the library's own symbols, and its functions' names (syms_<file>.h)
	file=$(grep -l "VS_${lib^^}_SYMBOLS(X)" shim/loader/syms_*.h | head -n 1)
	[ -n "$file" ] || { fail "no symbol list of lib$lib"; continue; }
	sed -n 's/^[[:space:]]*X([A-Z0-9_]*, \([A-Za-z0-9_]*\),.*/\1/p' "$file" | sort -u >"$tmp/names"
	[ -s "$tmp/names" ] || { fail "no rows read from $file"; continue; }
	syms=$(grep -E " vs__${lib}(_[a-z_]*)?$" "$tmp/nm" | awk '{ print $NF }' | tr '\n' ' ')
	wraps=$(awk '{ print $NF }' "$tmp/nm" | sed -n 's/^vs_tw_//p' | sort -u | comm -12 - "$tmp/names" | tr '\n' ' ')
	texts=$(comm -12 "$tmp/strings" "$tmp/names" | head -n 5 | tr '\n' ' ')
	if [ -n "$syms$wraps$texts" ]; then
		fail "links lib$lib's rows:${syms:+ symbols $syms}${wraps:+ wrappers of $wraps}${texts:+ names $texts}"
	else
		ok "no row of lib$lib ($(wc -l <"$tmp/names") rows in $file)"
	fi
done

# 2. the size it adds, stripped
echo 'int main(void) { return 0; }' >"$tmp/empty.c"
$cc -std=c11 -O2 -o "$tmp/empty" "$tmp/empty.c"
strip -o "$tmp/empty.s" "$tmp/empty"
strip -o "$prog.s" "$prog"
read -r p_td p_bss < <(size "$prog.s" | awk 'NR == 2 { print $1 + $2, $3 }')
read -r e_td e_bss < <(size "$tmp/empty.s" | awk 'NR == 2 { print $1 + $2, $3 }')
td=$((p_td - e_td)) bss=$((p_bss - e_bss))
what="adds $((td / 1024)) KB text+data, $((bss / 1024)) KB bss to an empty program, stripped ($(stat -c %s "$prog.s") bytes)"
if [ "$td" -le $((128 * 1024)) ] && [ "$bss" -le $((32 * 1024)) ]; then
	ok "$what: within 128 KB and 32 KB"
else
	fail "$what: more than 128 KB text+data or 32 KB bss (bench/footprint.sh shows which program carries what)"
fi

# 3. the trace on its own rows, on the stub libibverbs
export VERBSHIM_LIBIBVERBS=$stub
if run traced 0 env VERBSHIM_TRACE=ibv_get_device_list,rdma_resolve_addr,raccept VERBSHIM_STATS=1 "$prog"; then
	if grep -q '^verbshim: \[[0-9]*\] ibv_get_device_list(num_devices=.* = 0x' "$tmp/traced.err" &&
		grep -q '^verbshim: ibv_free_device_list  *1 ' "$tmp/traced.err" &&
		grep -q '^verbshim: total  *2  *0$' "$tmp/traced.err" &&
		! grep -q 'tracing is off\|names no function' "$tmp/traced.err"; then
		ok "traced and counted; rdma_resolve_addr and raccept taken (librdmacm not linked)"
	else
		fail "the trace of the ibv_* calls:"
		sed 's/^/    | /' "$tmp/traced.err"
	fi
fi
if run misspelt 0 env VERBSHIM_TRACE=ibv_get_devce_list "$prog"; then
	if grep -q 'VERBSHIM_TRACE=ibv_get_devce_list has "ibv_get_devce_list", which names no function this build knows; tracing is off' \
		"$tmp/misspelt.err"; then
		ok "a misspelt ibv_* name refused"
	else
		fail "the misspelt name was not refused:"
		sed 's/^/    | /' "$tmp/misspelt.err"
	fi
fi
if run fault 1 env VERBSHIM_FAULT=ibv_get_device_list:ENOMEM:1 "$prog"; then
	if grep -q 'ibv_get_device_list: Cannot allocate memory' "$tmp/fault.err"; then
		ok "VERBSHIM_FAULT fails its call"
	else
		fail "no injected ENOMEM:"
		sed 's/^/    | /' "$tmp/fault.err"
	fi
fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "the ibv_*-only program carries libibverbs' rows alone: $what"
