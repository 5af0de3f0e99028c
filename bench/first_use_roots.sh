#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# First use, in instructions, against real rdma-core releases: each
# library's first use by build/oldest/bench/first_use (it runs in every
# release root, on that release's own glibc and loader) under callgrind,
# for rdma-core 33.2 and 44.0 by default.  Prints a markdown table: the
# raw dlopen, vs_library_load(), the difference, and of that the loader's
# table fill alone (callgrind collecting inside vs__LIB_fill); "absent"
# where the release does not ship the library.
#
#   bench/first_use_roots.sh [VERSION...]       (33.2 44.0; any of the nine:
#                                               scripts/rdma-core-releases.sh)
#   FIRST_USE=path/to/first_use bench/first_use_roots.sh
#                       another build of the bench (to compare two trees)
#
# Needs `make oldest` (or scripts/build-root.sh -- make BUILD=build/oldest
# build/oldest/bench/first_use) and valgrind.  Figures are printed, never
# judged.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FIRST_USE:-build/oldest/bench/first_use}
[ -x "$bin" ] || { echo "no $bin: run make oldest"; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --toggle-collect needs the symbol table only (valgrind 3.19 gives up on
# some DWARF 5).
cp "$bin" "$tmp/first_use" && objcopy --strip-debug "$tmp/first_use"
# The libraries, in VS_LIBRARIES' order (the rows of shim/loader/vs_shim.h).
libs=$(sed -n 's/^\tL(\([a-z0-9]*\), .*/\1/p' shim/loader/vs_shim.h)
[ -n "$libs" ] || { echo "no L(...) rows in shim/loader/vs_shim.h"; exit 1; }

# ROOT FUNCTION MODE LIB -> "IR SLOTS", "absent" or "failed"
count() {
	local root=$1 fn=$2 mode=$3 lib=$4 lp=$1/usr/lib/x86_64-linux-gnu rc=0 envs=() l
	# A library the release lacks is looked for where the root would
	# hold it: --library-path is no chroot, the default search would find
	# the host's copy.
	for l in $libs; do
		[ -e "$lp/lib$l.so.1" ] || [ -e "$lp/lib$l.so.3" ] ||
			envs+=("VERBSHIM_LIB${l^^}=$lp/lib$l.so.1")
	done
	env "${envs[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
		--toggle-collect="$fn" "$root/lib64/ld-linux-x86-64.so.2" --library-path "$lp" \
		"$tmp/first_use" --child "$mode" "$lib" >"$tmp/out" 2>"$tmp/err" || rc=$?
	case $rc in
	0) echo "$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$tmp/cg.out") $(awk '{print $2}' "$tmp/out")" ;;
	77) echo absent ;;
	*) echo failed; tail -n 3 "$tmp/err" >&2 ;;
	esac
}

echo "| library | rdma-core | raw dlopen | \`vs_library_load()\` | beyond dlopen | of which the table fill | slots resolved |"
echo "|---|---|---:|---:|---:|---:|---:|"
[ $# -gt 0 ] || set -- 33.2 44.0
for v in "$@"; do
	root=$(scripts/rdma-core-root.sh "$v")
	for lib in $libs; do
		# A library the release lacks is absent: the raw dlopen, no
		# chroot, would find the host's copy on the default path (39.0
		# loaded the host's libmana, whose IBVERBS_PRIVATE_34 it has).
		if [ ! -e "$root/usr/lib/x86_64-linux-gnu/lib$lib.so.1" ] && [ ! -e "$root/usr/lib/x86_64-linux-gnu/lib$lib.so.3" ]; then
			echo "| lib$lib | $v | absent | | | | |"
			continue
		fi
		raw=$(count "$root" vs_bench_timed_step raw "$lib")
		if [ "$raw" = absent ]; then
			echo "| lib$lib | $v | absent | | | | |"
			continue
		fi
		shim=$(count "$root" vs_bench_timed_step shim "$lib")
		fill=$(count "$root" "vs__${lib}_fill" shim "$lib")
		echo "| lib$lib | $v | ${raw%% *} | ${shim%% *} | $(( ${shim%% *} - ${raw%% *} )) | ${fill%% *} | ${shim#* } |"
	done
done
echo
echo "Instructions (callgrind Ir) of the timed step of \`$bin --child MODE LIB\`, run by each root's own loader."
