#!/usr/bin/env bash
# The feature configuration (build/gen/vs_config.h) follows the rdma-core
# headers it reads, never needs `make clean`, and a build that cannot
# include them stops at once, saying which header and what to do.  In a
# temporary copy of the tree, on a system include tree of links to
# /usr/include, archive only, -O0:
#   1. without rdma-core's headers, then with libibverbs-dev but not
#      ibverbs-providers (no efadv.h), then with both: two one-line
#      failures that compile nothing, then (make -j1) an archive defining
#      every public function the installed rdma-core libraries export;
#   2. from a clean tree, make -j8 gives that archive byte for byte;
#   3. the header set loses a declaration (at its old mtime, as dpkg and
#      tar keep them), then gets it back: the archive follows both ways
#      (back to the same bytes), and so does verbshim-info linked with it.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=lib/exports.bash
. test/shell/lib/exports.bash
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 77; }
[ -f /usr/include/infiniband/efadv.h ] ||
	{ echo "skip: rdma-core headers not installed (./scripts/deps.sh)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

# What the archive and verbshim-info are built from.
src=$tmp/tree
mkdir -p "$src/test"
cp -r Makefile scripts include shim lib examples tools "$src/"
cp -r test/common "$src/test/"
# Not a sub-make of the caller (make -jN check would pass its jobserver).
# The system include tree, not the pinned set (RDMA_CORE_INCLUDE=system).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$src" -s OPT=-O0 RDMA_CORE_INCLUDE=system "$@"; }
nm_of() { nm -g --defined-only "$1" | sort; }

t0=$SECONDS

# 1. A system include tree without rdma-core's headers: gcc's own
# directory, then a farm of links to /usr/include minus infiniband/ and rdma/.
sys=$tmp/sys
mkdir -p "$sys"
for e in /usr/include/*; do
	case ${e##*/} in infiniband | rdma) ;; *) ln -s "$e" "$sys/" ;; esac
done
multiarch=$(gcc -print-multiarch)
cat >"$tmp/cc" <<EOF
#!/bin/sh
exec gcc -nostdinc -isystem "$(gcc -print-file-name=include)" -isystem "$sys/$multiarch" -isystem "$sys" "\$@"
EOF
chmod +x "$tmp/cc"
b=$src/bh

# expect_stop LABEL HEADER PACKAGE: the build fails, with one line naming
# HEADER, PACKAGE and the way out, having compiled nothing.
expect_stop() {
	local label=$1 hdr=$2 pkg=$3 rc=0 line
	mk -j2 CC="$tmp/cc" BUILD=bh bh/libverbshim.a >"$tmp/$label.log" 2>&1 || rc=$?
	line=$(grep 'feature-config' "$tmp/$label.log")
	if [ $rc -eq 0 ]; then
		fail "$label: the build succeeded"
	elif [ "$(echo "$line" | wc -l)" -ne 1 ] || ! echo "$line" | grep -q "error: cannot compile <$hdr>.*install $pkg (./scripts/deps.sh does), or build with RDMA_CORE_INCLUDE=DIR"; then
		fail "$label: not one line naming <$hdr>, $pkg and the way out:"
		sed 's/^/    | /' "$tmp/$label.log"
	elif [ -n "$(find "$b" -name '*.o' 2>/dev/null)" ] || [ -e "$b/gen/vs_config.h" ]; then
		fail "$label: something was compiled or a configuration was left: $(find "$b" -name '*.o' -o -name 'vs_config.h*' | head -n 3)"
	else
		ok "$label: stopped before compiling anything: $line"
	fi
}
expect_stop "no headers" infiniband/verbs.h libibverbs-dev
# libibverbs-dev and librdmacm-dev installed, ibverbs-providers not.
mkdir "$sys/infiniband"
for e in /usr/include/infiniband/*; do
	[ "${e##*/}" = efadv.h ] || ln -s "$e" "$sys/infiniband/"
done
ln -s /usr/include/rdma "$sys/rdma"
expect_stop "no efadv.h" infiniband/efadv.h ibverbs-providers

# build_like LABEL JOBS [SYMBOL_MISSING]: builds without make clean;
# the archive defines every public function of the installed rdma-core
# libraries (less SYMBOL_MISSING).
libdir=/usr/lib/$multiarch
public=$(for l in libibverbs librdmacm libefa; do public_functions "$libdir/$l.so.1"; done | sort -u)
build_like() {
	local label=$1 jobs=$2 missing=${3:-} lacks
	if ! mk "$jobs" CC="$tmp/cc" BUILD=bh bh/libverbshim.a >"$tmp/$label.log" 2>&1; then
		fail "$label: build failed:"
		sed 's/^/    | /' "$tmp/$label.log"
		return
	fi
	grep -q '^feature-config: rdma-core headers in ' "$tmp/$label.log" ||
		fail "$label: no line naming the nodes compiled in"
	lacks=$(comm -23 <(echo "$public") <(defined_functions "$b/libverbshim.a") | xargs)
	if [ "$lacks" != "$missing" ]; then
		fail "$label: the archive lacks '$lacks' of rdma-core's public functions, expected '$missing'"
	else
		ok "$label: $(defined_functions "$b/libverbshim.a" | wc -l) functions${missing:+, all but $missing}; $(grep '^feature-config' "$tmp/$label.log")"
	fi
}
ln -s /usr/include/infiniband/efadv.h "$sys/infiniband/"
build_like "headers installed" -j1
ref=$tmp/ref.a
cp "$b/libverbshim.a" "$ref"

# 2. make -j8 from a clean tree.
if ! mk -j8 CC="$tmp/cc" BUILD=j8 j8/libverbshim.a >"$tmp/j8.log" 2>&1; then
	fail "make -j8 failed:"
	sed 's/^/    | /' "$tmp/j8.log"
elif cmp -s "$ref" "$src/j8/libverbshim.a"; then
	ok "make -j8 and make -j1 give the same archive, byte for byte"
else
	fail "make -j8 and make -j1 archives differ:"
	diff <(nm_of "$ref") <(nm_of "$src/j8/libverbshim.a") | head -n 20
fi

# 3. The header set loses ibv_query_qp_data_in_order (IBVERBS_1.14), as
# an older package would, at the installed file's old mtime, then gets it back.
v=$sys/infiniband/verbs.h
rm "$v"
sed 's/\bibv_query_qp_data_in_order(/vs_test_gone(/' /usr/include/infiniband/verbs.h >"$v"
touch -r /usr/include/infiniband/verbs.h "$v"
grep -q vs_test_gone "$v" || fail "could not remove the declaration from $v"
build_like "declaration lost" -j2 ibv_query_qp_data_in_order
mk -j2 CC="$tmp/cc" BUILD=bh bh/bin/verbshim-info >/dev/null 2>&1 || fail "verbshim-info does not build"
grep -q 'left out (not declared there): IBVERBS_1.14-1.18 ' "$tmp/declaration lost.log" ||
	fail "the build does not say that IBVERBS_1.14 is left out"
"$b/bin/verbshim-info" >"$tmp/info.out" 2>&1
if ! grep -q '^  left out *IBVERBS_1.14-1.18 ' "$tmp/info.out" ||
	! grep -q '^  compiled in *IBVERBS_1.0-1.13 ' "$tmp/info.out"; then
	fail "verbshim-info does not show IBVERBS_1.14 left out: $(grep -A2 '^Build' "$tmp/info.out")"
fi
rm "$v"
ln -s /usr/include/infiniband/verbs.h "$v"
build_like "declaration back" -j2
mk -j2 CC="$tmp/cc" BUILD=bh bh/bin/verbshim-info >/dev/null 2>&1 || fail "verbshim-info does not build"
if cmp -s "$ref" "$b/libverbshim.a"; then
	ok "declaration back: the same archive as before, byte for byte"
else
	fail "declaration back: the archive differs from the one before the loss"
fi
"$b/bin/verbshim-info" >"$tmp/info.out" 2>&1
grep -q '^  compiled in *IBVERBS_1.0-1.14 ' "$tmp/info.out" ||
	fail "verbshim-info does not show IBVERBS_1.14 back: $(grep -A2 '^Build' "$tmp/info.out")"

# Nothing changed: nothing is probed or rebuilt.
out=$(mk -j2 CC="$tmp/cc" BUILD=bh bh/libverbshim.a 2>&1)
if [ -z "$out" ]; then
	ok "unchanged headers: nothing re-probed or rebuilt"
else
	fail "unchanged headers, yet: $out"
fi

echo "$fails check(s) failed ($((SECONDS - t0))s)"
[ $fails -eq 0 ]
