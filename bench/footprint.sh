#!/bin/sh
# SPDX-License-Identifier: MIT
#
# What a program carries when it links libverbshim.a, against the same
# program on rdma-core's shared libraries (-libverbs ...) and on rdma-core's
# static archives: prints a markdown table, ready for docs/bench.md.
#
#   bench/footprint.sh           from anywhere
#   CC=clang BUILD=build/clang bench/footprint.sh
#
# The programs (bench/footprint/*.c): ibv_only (ibv_get_device_list and
# ibv_free_device_list), cm (an event channel and an id), typed (a device,
# PD, MR and CQ through verbshim.h), every_lib (a function of each of the
# nine libraries).  Each is linked, stripped and measured with size(1);
# a cell is what the link adds to an empty program (int main(void) { return
# 0; }, linked and stripped alike): text+data and bss, then the stripped
# file.  The shim's links also say which libraries' rows they carry (nm:
# vs__<lib>_trows).  rdma-core's static archives are linked as their .pc
# files say (pkg-config --static), with every provider.  The shim's links use the pinned headers the archive
# is built with (scripts/rdma-headers.sh); the others the machine's own,
# and only the libraries the machine's rdma-core has (a library it lacks
# is left out of every_lib there, and said so).
#
# Figures are printed, never judged (test/shell/footprint.sh judges the
# ibv_only program): this exits non-zero only on errors.
# CFLAGS_FP, the -l lists and sizes' output are word lists, split on purpose
# shellcheck disable=SC2086,SC2046
set -eu

cd "$(dirname "$0")/.."
CC=${CC:-cc}
BUILD=${BUILD:-build}
export CC
ARCHIVE=lib/libverbshim.a
[ "$BUILD" = build ] || ARCHIVE=$BUILD/libverbshim.a
PROGS="ibv_only cm typed every_lib"
LIBS="ibverbs rdmacm efa mlx5 mlx4 ibumad hns mana ionic"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

die() {
	echo "bench/footprint.sh: $*" >&2
	exit 1
}

make -s BUILD="$BUILD" lib >&2
inc=$(scripts/rdma-headers.sh) || die "no pinned rdma-core headers"
CFLAGS_FP="-std=c11 -O2 -D_GNU_SOURCE"

# "TEXT+DATA BSS FILE" of a stripped copy of $1
sizes() {
	strip -o "$1.s" "$1"
	size "$1.s" | awk -v f="$(stat -c %s "$1.s")" 'NR == 2 { print $1 + $2, $3, f }'
}

# The libraries' -l flags for a program on rdma-core (dynamic or static).
ldflags_of() {
	case $1 in
	ibv_only) echo "-libverbs" ;;
	cm) echo "-lrdmacm -libverbs" ;;
	every_lib) echo "$every_l" ;;
	esac
}

# Which of the libraries the machine's rdma-core has (for every_lib).
every_l='' every_d='' missing=''
for l in $LIBS; do
	echo 'int main(void) { return 0; }' >"$tmp/probe.c"
	if $CC -o "$tmp/probe" "$tmp/probe.c" "-l$l" 2>/dev/null; then
		every_l="$every_l -l$l"
	else
		missing="$missing lib$l"
		L=$(echo "$l" | tr '[:lower:]' '[:upper:]')
		every_d="$every_d -DFP_NO_$L"
	fi
done
every_l="${every_l# }"

echo 'int main(void) { return 0; }' >"$tmp/empty.c"
$CC $CFLAGS_FP -o "$tmp/empty" "$tmp/empty.c"
set -- $(sizes "$tmp/empty")
e_td=$1 e_bss=$2

# "ADDED_TEXT+DATA ADDED_BSS FILE" as KB
cell() {
	set -- $(sizes "$1")
	awk -v td="$1" -v bss="$2" -v f="$3" -v etd="$e_td" -v ebss="$e_bss" \
		'BEGIN { printf "%.1f / %.1f (%.1f)", (td - etd) / 1024, (bss - ebss) / 1024, f / 1024 }'
}

static_libs() { # the static link line of rdma-core's archives for $1
	pc=
	for f in $(ldflags_of "$1"); do
		case $f in
		-libverbs) pc="$pc libibverbs" ;;
		-lrdmacm) pc="$pc librdmacm" ;;
		-libumad) pc="$pc libibumad" ;;
		*) pc="$pc lib${f#-l}" ;;
		esac
	done
	# rdma-core's own .pc files list the providers a static libibverbs
	# needs; libnl and libpthread stay shared
	flags=$(pkg-config --static --libs $pc 2>/dev/null) || return 1
	rdma=$(echo "$flags" | tr ' ' '\n' | grep -v -e '^-lnl' -e '^-lpthread$' | tr '\n' ' ')
	echo "-Wl,-Bstatic $rdma -Wl,-Bdynamic -lnl-route-3 -lnl-3 -lpthread"
}
have_static=1
for a in libibverbs.a librdmacm.a; do
	f=$($CC -print-file-name=$a)
	case $f in /*) [ -e "$f" ] || have_static=0 ;; *) have_static=0 ;; esac
done

echo "| program | libverbshim.a | libraries' rows linked | rdma-core, shared (\`-l\`) | rdma-core's static archives |"
echo "|---|---:|---|---:|---:|"
for p in $PROGS; do
	src=bench/footprint/$p.c
	# the shim: the archive, no rdma-core at link time
	$CC $CFLAGS_FP -Iinclude -I"$BUILD/gen" -isystem "$inc" -o "$tmp/$p-shim" \
		"$src" "$ARCHIVE" -ldl -lpthread || die "cannot link $p with $ARCHIVE"
	rows=$(nm "$tmp/$p-shim" | sed -n 's/.* vs__\([a-z0-9]*\)_trows$/\1/p' | sort | tr '\n' ' ')
	shim=$(cell "$tmp/$p-shim")
	dyn=n/a stat=n/a
	defs=
	[ "$p" = every_lib ] && defs=$every_d
	if [ "$p" != typed ]; then
		$CC $CFLAGS_FP $defs -o "$tmp/$p-dyn" "$src" $(ldflags_of "$p") 2>"$tmp/err" &&
			dyn=$(cell "$tmp/$p-dyn")
		# a static libibverbs with every provider, as the shim can open
		# any device (verbs.h: without RDMA_STATIC_PROVIDERS it links
		# none, and finds no device)
		if [ $have_static = 1 ] && sl=$(static_libs "$p") &&
			$CC $CFLAGS_FP $defs -DRDMA_STATIC_PROVIDERS=all \
				-o "$tmp/$p-static" "$src" $sl 2>"$tmp/err"; then
			stat=$(cell "$tmp/$p-static")
		fi
	fi
	echo "| \`$p\` | $shim | ${rows% } | $dyn | $stat |"
done
echo
printf '%s' "KB added to an empty program, stripped: text+data / bss (the stripped file). "
printf '%s\n' "$($CC --version | head -n 1); $(uname -m)."
[ -n "$missing" ] && echo "every_lib on rdma-core leaves out what the machine's rdma-core lacks:$missing."
if [ $have_static = 1 ]; then
	echo "The static archives are linked with every provider (RDMA_STATIC_PROVIDERS=all, verbs.h),"
	echo "libnl shared; without it a static libibverbs links no provider and finds no device."
else
	echo "No rdma-core static archives here (libibverbs.a, librdmacm.a): n/a."
fi
exit 0
