#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The drop-in = stock on the releases built from their tags (issue 49,
# item 3): each release's own example programs (libibverbs/examples,
# librdmacm/examples), linked twice from the objects its root was built
# from (scripts/roots/source-root.bash keeps them: ROOT.build/b):
#   stock  rdma-core's own link line (the release's libibverbs and
#          librdmacm; NEEDED libibverbs.so.1 ...), less the build tree's
#          rpath;
#   shim   the same line with the in-tree rdma-core libraries replaced by
#          -libverbs -lrdmacm and -L the compat directory of the Debian 11
#          build (scripts/build/compat-dir.sh over build/oldest): every
#          -l resolves to libverbshim.a, no rdma-core library NEEDED.
# Linked in the Debian 11 build root, where the objects were compiled, into
# build/release-examples/VER/{stock,shim}.  test/vm/release_examples.sh
# runs them pairwise on rxe, in each release's boot (make check-releases)
# or, with --boot, in one boot chrooted into each root.
#
#   test/shell/release_examples.sh              link and check (the product)
#   test/shell/release_examples.sh --boot [VER...]   then one VM boot that
#                                  runs every release's pairs (default: all
#                                  the releases built from tags)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/release-examples
oldest=build/oldest
rdma_core='lib(ibverbs|rdmacm|mlx5|mlx4|ibumad|efa)\.so'

# In the build root: link_all B DIR COMPAT, every example program of the
# build tree B twice into DIR/stock and DIR/shim.
if [ "${1:-}" = --link ]; then
	b=$2 dir=$3 compat=$4
	n=0
	for l in "$b"/libibverbs/examples/CMakeFiles/*.dir/link.txt "$b"/librdmacm/examples/CMakeFiles/*.dir/link.txt; do
		cmd=$(cat "$l")
		# (the static helper libraries' `ar` lines)
		[[ $cmd == */gcc\ * || $cmd == gcc\ * || $cmd == */cc\ * ]] || continue
		name=$(sed -n 's#.* -o \([^ ]*/\)\{0,1\}\([^ /]*\) .*#\2#p' <<<"$cmd")
		[ -n "$name" ] || { echo "release_examples.sh: no -o in $l" >&2; exit 1; }
		cmd=$(sed -E 's# -Wl,-rpath,[^ ]*##g; s# -o [^ ]*# -o @OUT@#' <<<"$cmd")
		shim=$(sed -E 's# ([^ ]*/)?lib/libibverbs\.so[^ ]*# -libverbs#g; s# ([^ ]*/)?lib/librdmacm\.so[^ ]*# -lrdmacm#g' <<<"$cmd")
		exdir=$(dirname "$(dirname "$(dirname "$l")")")
		(cd "$exdir" && eval "${cmd/@OUT@/$dir/stock/$name}") ||
			{ echo "release_examples.sh: linking $name stock failed" >&2; exit 1; }
		(cd "$exdir" && eval "${shim/@OUT@/$dir/shim/$name}" "-L$compat") ||
			{ echo "release_examples.sh: linking $name through the compat directory failed" >&2; exit 1; }
		n=$((n + 1))
	done
	echo "$n"
	exit 0
fi

# The releases built from source (scripts/rdma-core-releases.sh: the one list).
releases=$(scripts/rdma-core-releases.sh source)
boot=0
if [ "${1:-}" = --boot ]; then
	boot=1
	shift
	[ $# -eq 0 ] || releases="$*"
fi

[ -f "$oldest/libverbshim.a" ] && [ -f "$oldest/gen/vs_config.h" ] ||
	{ echo "no $oldest/libverbshim.a: run make oldest"; exit 1; }
mkdir -p "$out/stamps"
rm -rf "$out/compat"
scripts/build/compat-dir.sh --libdir "$repo/$oldest" "$repo" "$oldest/gen/vs_config.h" "$out/compat" >/dev/null
status=0
for v in $releases; do
	root=$(scripts/rdma-core-root.sh "$v")
	b=$root.build/b
	[ -d "$b/libibverbs/examples/CMakeFiles" ] ||
		{ echo "FAIL: rdma-core $v: no build tree $b (scripts/rdma-core-root.sh --rebuild $v keeps it)"; status=1; continue; }
	dir=$repo/$out/$v
	rm -rf "$dir" "$out/stamps/$v"
	mkdir -p "$dir/stock" "$dir/shim"
	n=$(scripts/build-root.sh --bind "$root.build" -- \
		bash -c 'cd "$1" && exec test/shell/release_examples.sh --link "$2" "$3" "$4"' - \
		"$repo" "$b" "$dir" "$repo/$out/compat") || { echo "FAIL: rdma-core $v: linking failed"; status=1; continue; }
	bad=0
	for f in "$dir"/shim/*; do
		if readelf -d "$f" | grep -qE "NEEDED.*$rdma_core"; then
			echo "FAIL: rdma-core $v: ${f#"$repo"/} needs rdma-core: $(readelf -d "$f" | grep -oE "${rdma_core}[^]]*" | tr '\n' ' ')"
			bad=1
		fi
	done
	for f in "$dir"/stock/*; do
		readelf -d "$f" | grep -qE 'NEEDED.*lib(ibverbs|rdmacm)\.so\.1' ||
			{ echo "FAIL: rdma-core $v: ${f#"$repo"/} (stock) needs neither libibverbs nor librdmacm"; bad=1; }
	done
	[ $bad -eq 0 ] || { status=1; continue; }
	# what the root's copies were made of: the same objects (the stock
	# link is rdma-core's, so the installed program is the stock one's twin)
	echo "$root" >"$dir/root"
	echo "rdma-core $v: $n programs linked stock and through verbshim ($(ls "$dir/shim" | tr '\n' ' ')); no rdma-core NEEDED in the shim ones"
	touch "$out/stamps/$v"
done
[ $status -eq 0 ] || exit 1
[ $boot -eq 1 ] || exit 0
scripts/vm-run.sh --timeout "${VS_RELEASE_EXAMPLES_BOOT_TIMEOUT:-5400}" -- \
	test/vm/release_examples.sh --roots "$releases"
