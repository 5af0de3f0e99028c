#!/usr/bin/env bash
# One test binary, built once, run against the real libraries of the
# rdma-core releases of scripts/rdma-core-releases.sh check (make check's
# six: 17.1, 22.4 and Debian's four; make check-releases' nine), each on its own distribution's
# glibc (roots from scripts/rdma-core-root.sh, run through each root's own
# ld-linux).  What each must report (highest node, provider ABI, which
# name@node exist) is read from that release's libraries with objdump, not
# written down here; a library a release does not ship yet (libhns,
# libmana, libionic) must be reported not found, its calls answering their
# convention.
#
# Two builds: the one from the bullseye build root (`make oldest`: gcc 10,
# glibc 2.31, the pinned rdma-core headers) must run in every root; the one from
# today's toolchain runs in every root whose glibc is new enough, and in
# the others the root's loader must refuse it for that reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
oldest=$PWD/build/oldest/test/unit/release_probe
host=$PWD/build/test/unit/release_probe
[ -x "$host" ] || { echo "no $host: run make tests"; exit 1; }
[ -x "$oldest" ] || { echo "no $oldest: run make oldest"; exit 1; }
releases=$(scripts/rdma-core-releases.sh check)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "lib NAME NODE ABI" and "sym NAME NODE" lines for one root.
expectations() {
	local root=$1 lib prefix path
	# lib:FAMILY:the rdma-core release that first shipped it (libefa came
	# with rdma-core 24, libmana 41, libhns 51, libionic 59: absent from
	# older roots; the rest are in 17.1 already).  The root's release:
	# its .verbshim-root's first line.
	local ver first
	ver=$(sed -n '1s/^rdma-core \([0-9]*\)[. ].*/\1/p' "$root/.verbshim-root")
	[ -n "$ver" ] || { echo "$root/.verbshim-root names no release" >&2; return 1; }
	for lib in libibverbs.so.1:IBVERBS:0 libefa.so.1:EFA:24 librdmacm.so.1:RDMACM:0 \
		libmlx5.so.1:MLX5:0 libmlx4.so.1:MLX4:0 libibumad.so.3:IBUMAD:0 \
		libhns.so.1:HNS:51 libmana.so.1:MANA:41 libionic.so.1:IONIC:59; do
		IFS=: read -r lib prefix first <<<"$lib"
		path=$root/usr/lib/x86_64-linux-gnu/$lib
		if [ ! -e "$path" ]; then
			[ "$ver" -lt "$first" ] || { echo "missing $path (rdma-core $ver, which ships it since $first)" >&2; return 1; }
			echo "nolib ${lib%%.so.*}"
			continue
		fi
		objdump -T "$path" | awk '$3 == "DF" && $4 == ".text" {print "sym", $NF, $(NF-1)}' | tr -d '()'
		node=$(objdump -p "$path" | awk -v p="${prefix}_1." 'index($NF, p) == 1 {print $NF}' |
			sort -V | tail -n 1)
		abi=$(objdump -p "$path" | sed -n "s/.*${prefix}_PRIVATE_\([0-9]*\).*/\1/p" | sort -n | tail -n 1)
		echo "lib ${lib%%.so.*} $node ${abi:--1}"
	done
}

# The newest GLIBC_ node a binary needs, or a libc defines.
glibc_needs() { objdump -T "$1" | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p' | sort -V | tail -n 1; }
glibc_has() { objdump -p "$1" | sed -n 's/.*[[:space:]]GLIBC_\([0-9.]*\)$/\1/p' | sort -V | tail -n 1; }
host_needs=$(glibc_needs "$host")

# One release: its expectations, then each binary through its loader.
check_release() {	# VER ROOT
	local ver=$1 root=$2 ldso has bin label status=0
	expectations "$root" >"$tmp/expect.$ver"
	echo "== rdma-core $ver ($(awk '$1 == "lib" {printf "%s %s abi %s; ", $2, $3, $4} $1 == "nolib" {printf "no %s; ", $2}' "$tmp/expect.$ver"))"
	ldso=$root/lib64/ld-linux-x86-64.so.2
	# A library the release lacks is looked for where the root would
	# hold it: --library-path is no chroot, and the default search would
	# find the host's own copy (which needs the host's libibverbs).  The
	# VM's roots are chroots, and search by soname.
	local absent=() lib
	for lib in $(awk '$1 == "nolib" {print $2}' "$tmp/expect.$ver"); do
		absent+=("VERBSHIM_$(tr '[:lower:]' '[:upper:]' <<<"$lib")=$root/usr/lib/x86_64-linux-gnu/$lib.so.1")
	done
	has=$(glibc_has "$root/usr/lib/x86_64-linux-gnu/libc.so.6")
	for bin in "$oldest" "$host"; do
		label="${bin#"$PWD"/} (needs GLIBC_$(glibc_needs "$bin"); the root's libc goes up to GLIBC_$has)"
		if [ "$bin" = "$host" ] && [ "$(printf '%s\n' "$host_needs" "$has" | sort -V | tail -n 1)" != "$has" ]; then
			# Too new for this root: its loader must say so, by name.
			if "$ldso" --library-path "$root/usr/lib/x86_64-linux-gnu" "$bin" >"$tmp/out.$ver" 2>&1 ||
				! grep -q "GLIBC_$host_needs' not found" "$tmp/out.$ver"; then
				cat "$tmp/out.$ver"
				echo "rdma-core $ver: $label: expected the loader to refuse it for GLIBC_$host_needs"
				status=1
			else
				echo "-- $label: refused as expected: $(grep -o "version .GLIBC_$host_needs' not found" "$tmp/out.$ver" | head -n 1)"
			fi
			continue
		fi
		echo "-- $label"
		if ! env "${absent[@]}" VS_EXPECT_FILE=$tmp/expect.$ver VS_EXPECT_ROOT=$root \
			"$ldso" --library-path "$root/usr/lib/x86_64-linux-gnu" "$bin"; then
			echo "rdma-core $ver: $label: FAILED"
			status=1
		fi
	done
	return $status
}

# The roots one after the other (a cold cache downloads: apt's cache is
# shared), then the releases side by side, each printed whole, in order.
status=0
pids=() vers=()
for ver in $releases; do
	if ! root=$(scripts/rdma-core-root.sh "$ver" 2>"$tmp/fetch.log"); then
		cat "$tmp/fetch.log"
		echo "rdma-core $ver: could not build its root (see above)"
		status=1
		continue
	fi
	check_release "$ver" "$root" >"$tmp/report.$ver" 2>&1 &
	pids+=($!) vers+=("$ver")
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || status=1
	cat "$tmp/report.${vers[$i]}"
done
exit $status
