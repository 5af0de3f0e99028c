#!/usr/bin/env bash
# The archive adds no glibc floor: every libc symbol its objects reference
# binds to a version node at or below the documented floor (README,
# "Shipping a binary"), and to the oldest node the linking glibc defines for
# it (shim/glibc_floor.h pins them).  No getrandom, no __isoc23_*.
#
# How: a shared object linked from the whole archive (and nothing else)
# needs exactly what the archive's objects need; objdump -T lists each
# undefined symbol with its node.  Every archive that is built is checked:
# lib/libverbshim.a (today's toolchain) and build/oldest/libverbshim.a
# (bullseye's, `make oldest`).  VS_GLIBC_FLOOR_ARCHIVES overrides the list.
set -euo pipefail
cd "$(dirname "$0")/../.."
floor=2.17
case $(uname -m) in
x86_64 | aarch64) ;;
*) echo "skip: the floor is pinned on x86_64 and aarch64 only, this is $(uname -m)"; exit 77 ;;
esac
grep -q "GLIBC_$floor" README.md || { echo "README.md does not state the floor GLIBC_$floor"; exit 1; }

# Nodes older than the newest one have a different ABI for these: the
# default node is the oldest one a program may use.
abi_changed='^(pthread_cond_[a-z]+|pthread_condattr_[a-z]+|realpath|timer_[a-z]+|sched_[a-z]+affinity|posix_spawnp?|glob|globfree|regexec)$'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
older() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }

archives=${VS_GLIBC_FLOOR_ARCHIVES:-lib/libverbshim.a}
[ -n "${VS_GLIBC_FLOOR_ARCHIVES:-}" ] || [ ! -f build/oldest/libverbshim.a ] || archives+=" build/oldest/libverbshim.a"
status=0
for archive in $archives; do
	[ -f "$archive" ] || { echo "no $archive: run make"; exit 1; }
	echo 'int glibc_floor_probe(void) { return 0; }' >"$tmp/probe.c"
	${CC:-cc} -shared -fPIC -o "$tmp/probe.so" "$tmp/probe.c" \
		-Wl,--whole-archive "$archive" -Wl,--no-whole-archive -ldl -lpthread
	# "NODE SYMBOL" per undefined reference to glibc.
	objdump -T "$tmp/probe.so" | awk 'NF >= 4 && $0 ~ /\*UND\*/ && $(NF-1) ~ /GLIBC_/ {
		v = $(NF-1); gsub(/[()]/, "", v); print v, $NF }' | sort -u >"$tmp/refs"
	# Every node each symbol has in the glibc we link against (libdl and
	# libpthread separate before 2.34).
	: >"$tmp/defs"
	for so in libc.so.6 libdl.so.2 libpthread.so.0; do
		f=$(${CC:-cc} -print-file-name="$so")
		[ -e "$f" ] || f=$(ldconfig -p | awk -v n="$so" '$1 == n {print $NF; exit}')
		[ -n "$f" ] && [ -e "$f" ] || continue
		objdump -T "$f" | awk 'NF >= 4 && $0 !~ /\*UND\*/ && $(NF-1) ~ /GLIBC_2/ {
			v = $(NF-1); gsub(/[()]/, "", v); print $NF, v }' >>"$tmp/defs"
	done
	echo "== $archive: glibc nodes needed (floor GLIBC_$floor)"
	awk '{n[$1] = n[$1] " " $2} END {for (v in n) print "  " v ":" n[v]}' "$tmp/refs" | sort -t: -k1,1V
	while read -r node sym; do
		v=${node#GLIBC_}
		if older "$floor" "$v"; then
			echo "FAIL: $sym@$node is above the floor GLIBC_$floor"
			status=1
		fi
		case $sym in
		getrandom | __isoc23_*) echo "FAIL: $sym@$node: a new-glibc-only symbol"; status=1 ;;
		esac
		oldest=$(awk -v s="$sym" '$1 == s {sub(/^GLIBC_/, "", $2); print $2}' "$tmp/defs" | sort -V | head -n 1)
		if [ -n "$oldest" ] && older "$oldest" "$v" && ! [[ $sym =~ $abi_changed ]]; then
			echo "FAIL: $sym@$node: glibc also has $sym@GLIBC_$oldest (pin it in shim/glibc_floor.h)"
			status=1
		fi
	done <"$tmp/refs"
	[ -s "$tmp/refs" ] || { echo "FAIL: no glibc reference found at all (objdump?)"; status=1; }
done
[ $status -eq 0 ] && echo "every glibc reference of the archive is at or below GLIBC_$floor, at its oldest node"
exit $status
