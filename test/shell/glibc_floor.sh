#!/usr/bin/env bash
# The archive adds no glibc floor: every libc symbol its objects reference
# binds to a version node at or below the documented floor (docs/shipping.md,
# "Shipping a binary"), and to the oldest node the linking glibc defines for
# it (shim/loader/glibc_floor.h pins them).  No getrandom, no __isoc23_*.
#
# How: a shared object linked from the whole archive (and nothing else)
# needs exactly what the archive's objects need; objdump -T lists each
# undefined symbol with its node.  Checked: lib/libverbshim.a (today's
# toolchain), build/oldest/libverbshim.a (Debian 11's, `make oldest`), and
# the archive compiled against the newest glibc there is, sid's (2.43:
# dlopen@@GLIBC_2.34, strtol redirected to __isoc23_strtol by its
# headers), linked against sid's libc.so.6.  VS_GLIBC_FLOOR_ARCHIVES
# checks those archives only; with CC and OBJDUMP of a cross toolchain,
# another architecture's (make check-arm64: aarch64-linux-gnu-gcc and
# aarch64-linux-gnu-objdump, build/arm64 and build/arm64/oldest).
set -euo pipefail
cd "$(dirname "$0")/../.."
floor=2.17
case $(uname -m) in
x86_64 | aarch64) ;;
*) echo "skip: the floor is pinned on x86_64 and aarch64 only, this is $(uname -m)"; exit 77 ;;
esac
grep -q "GLIBC_$floor" docs/shipping.md || { echo "docs/shipping.md does not state the floor GLIBC_$floor"; exit 1; }

# Nodes older than the newest one have a different ABI for these: the
# default node is the oldest one a program may use.
abi_changed='^(pthread_cond_[a-z]+|pthread_condattr_[a-z]+|realpath|timer_[a-z]+|sched_[a-z]+affinity|posix_spawnp?|glob|globfree|regexec)$'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
older() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }

status=0
# check ARCHIVE [LIBC_ROOT]: linked against LIBC_ROOT's libc (default: the
# toolchain's).
check() {
	local archive=$1 libroot=${2:-} f so node sym v oldest
	[ -f "$archive" ] || { echo "no $archive: run make"; status=1; return; }
	echo 'int glibc_floor_probe(void) { return 0; }' >"$tmp/probe.c"
	if [ -z "$libroot" ]; then
		${CC:-cc} -shared -fPIC -o "$tmp/probe.so" "$tmp/probe.c" \
			-Wl,--whole-archive "$archive" -Wl,--no-whole-archive -ldl -lpthread
	else
		${CC:-cc} -shared -fPIC -nostdlib -o "$tmp/probe.so" "$tmp/probe.c" \
			-Wl,--whole-archive "$archive" -Wl,--no-whole-archive \
			"$libroot/usr/lib/x86_64-linux-gnu/libc.so.6" "$libroot/lib64/ld-linux-x86-64.so.2"
	fi
	# "NODE SYMBOL" per undefined reference to glibc.
	${OBJDUMP:-objdump} -T "$tmp/probe.so" | awk 'NF >= 4 && $0 ~ /\*UND\*/ && $(NF-1) ~ /GLIBC_/ {
		v = $(NF-1); gsub(/[()]/, "", v); print v, $NF }' | sort -u >"$tmp/refs"
	# Every node each symbol has in the glibc we link against (libdl and
	# libpthread separate before 2.34).
	: >"$tmp/defs"
	for so in libc.so.6 libdl.so.2 libpthread.so.0; do
		if [ -n "$libroot" ]; then
			f=$libroot/usr/lib/x86_64-linux-gnu/$so
		else
			f=$(${CC:-cc} -print-file-name="$so")
			[ -e "$f" ] || f=$(ldconfig -p | awk -v n="$so" '$1 == n {print $NF; exit}')
		fi
		[ -n "$f" ] && [ -e "$f" ] || continue
		${OBJDUMP:-objdump} -T "$f" | awk 'NF >= 4 && $0 !~ /\*UND\*/ && $(NF-1) ~ /GLIBC_2/ {
			v = $(NF-1); gsub(/[()]/, "", v); print $NF, v }' >>"$tmp/defs"
	done
	local against=
	[ -z "$libroot" ] || against=" (linked against the libc of ${libroot##*/})"
	echo "== $archive$against: glibc nodes needed (floor GLIBC_$floor)"
	awk '{n[$1] = n[$1] " " $2} END {for (v in n) print "  " v ":" n[v]}' "$tmp/refs" | sort -t: -k1,1V
	# One pass: the oldest node glibc has per symbol (version compare by
	# sort -V, so "2.3.3" < "2.17"), joined with what is referenced.
	sort -k2,2V "$tmp/defs" | awk '!($1 in o) {o[$1] = $2} END {for (s in o) print s, o[s]}' >"$tmp/oldest"
	while read -r node sym; do
		v=${node#GLIBC_}
		if older "$floor" "$v"; then
			echo "FAIL: $sym@$node is above the floor GLIBC_$floor"
			status=1
		fi
		case $sym in
		getrandom | __isoc23_*) echo "FAIL: $sym@$node: a new-glibc-only symbol"; status=1 ;;
		esac
		oldest=$(awk -v s="$sym" '$1 == s {sub(/^GLIBC_/, "", $2); print $2}' "$tmp/oldest")
		if [ -n "$oldest" ] && [ "$oldest" != "$v" ] && ! [[ $sym =~ $abi_changed ]]; then
			echo "FAIL: $sym@$node: glibc also has $sym@GLIBC_$oldest (pin it in shim/loader/glibc_floor.h)"
			status=1
		fi
	done <"$tmp/refs"
	[ -s "$tmp/refs" ] || { echo "FAIL: no glibc reference found at all (objdump?)"; status=1; }
}

if [ -n "${VS_GLIBC_FLOOR_ARCHIVES:-}" ]; then
	for a in $VS_GLIBC_FLOOR_ARCHIVES; do check "$a"; done
	exit $status
fi
check lib/libverbshim.a
[ ! -f build/oldest/libverbshim.a ] || check build/oldest/libverbshim.a

# The newest glibc: sid's libc6-dev headers (and rdma-core 65 headers) with
# this compiler's own, nothing from /usr/include.
if [ "$(uname -m)" = x86_64 ]; then
	cache=${VERBSHIM_CACHE:-$PWD/.cache}
	sid=$cache/headers/glibc-sid
	pkgs="libc6-dev linux-libc-dev libibverbs-dev librdmacm-dev ibverbs-providers libibumad-dev"
	# Remade when the package list changes (a header the shim includes joined).
	if [ "$(cat "$sid/.done" 2>/dev/null)" != "$pkgs" ]; then
		# shellcheck disable=SC2086 # (list)
		debs=$(scripts/roots/apt-fetch.sh sid $pkgs) ||
			{ echo "FAIL: cannot fetch sid's libc6-dev"; exit 1; }
		rm -rf "$sid" && mkdir -p "$sid"
		for deb in $debs; do dpkg-deb -x "$deb" "$sid"; done
		echo "$pkgs" >"$sid/.done"
	fi
	root=$(scripts/rdma-core-root.sh 65.0) || { echo "FAIL: no sid root"; exit 1; }
	gccinc=$(${CC:-cc} -print-file-name=include)
	newest=build/glibc-newest
	if make -s -j"$(nproc)" BUILD=$newest CC="${CC:-cc} -nostdinc -isystem $gccinc -isystem $sid/usr/include -isystem $sid/usr/include/x86_64-linux-gnu" \
		"$newest/libverbshim.a" >"$tmp/make.log" 2>&1; then
		echo "-- built against $(sed -n 's/.*define[[:space:]]*__GLIBC_MINOR__[[:space:]]*\([0-9]*\).*/glibc 2.\1/p' "$sid/usr/include/features.h") headers"
		check "$newest/libverbshim.a" "$root"
	else
		cat "$tmp/make.log"; echo "FAIL: the archive does not build against sid's glibc headers"; status=1
	fi
fi
[ $status -eq 0 ] && echo "every glibc reference of the archive is at or below GLIBC_$floor, at its oldest node"
exit $status
