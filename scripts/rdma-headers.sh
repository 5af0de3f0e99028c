#!/usr/bin/env bash
# The pinned rdma-core header set (scripts/rdma-headers.pin): the public
# headers of libibverbs-dev, librdmacm-dev and libibumad-dev of that exact
# Debian version, fetched once with the project's apt (scripts/roots/apt-fetch.sh)
# into the cache and unpacked there, headers and copyright only.  Prints the
# include directory (DIR/include, holding infiniband/ and rdma/); DIR also
# holds COPYING (rdma-core's licence, for those who redistribute the
# headers) and VERSION.  Build-time only: nothing links against rdma-core.
#
#   scripts/rdma-headers.sh            prints the include directory
#   scripts/rdma-headers.sh --dir      prints DIR
#   scripts/rdma-headers.sh --version  prints the pinned version
set -euo pipefail
me=rdma-headers.sh
die() { echo "$me: error: $*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${VERBSHIM_CACHE:-$repo/.cache}
pin=$repo/scripts/rdma-headers.pin

suite=$(sed -n 's/^suite=//p' "$pin")
version=$(sed -n 's/^version=//p' "$pin")
[ -n "$suite" ] && [ -n "$version" ] || die "$pin names no suite= and version="
[ "${1:-}" = --version ] && { echo "$version"; exit 0; }
pkgs="libibverbs-dev librdmacm-dev libibumad-dev"
dir=$cache/headers/rdma-core-$version

# Done once per version: the stamp names what was unpacked.
if [ "$(cat "$dir/.done" 2>/dev/null)" != "$version $pkgs" ]; then
	sels=()
	for p in $pkgs; do sels+=("$p=$version"); done
	if ! debs=$("$repo/scripts/roots/apt-fetch.sh" "$suite" "${sels[@]}"); then
		die "Debian's $suite no longer serves rdma-core $version (the pin, $pin; see above)." \
			"Move the pin deliberately: set version= to what $suite serves now" \
			"('scripts/roots/apt-fetch.sh $suite libibverbs-dev' prints the .deb it fetched, NAME_VERSION_ARCH.deb)," \
			"rebuild and commit the pin with the new feature summary (docs/shipping.md)"
	fi
	# One writer; others wait, then find it done.
	mkdir -p "$cache/headers"
	exec 9>"$dir.lock"
	flock 9
	if [ "$(cat "$dir/.done" 2>/dev/null)" != "$version $pkgs" ]; then
		tmp=$dir.tmp
		rm -rf "$tmp" "$dir"
		mkdir -p "$tmp/x" "$tmp/include"
		for deb in $debs; do
			[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
				die "$deb is not version $version"
			dpkg-deb -x "$deb" "$tmp/x"
		done
		cp -a "$tmp/x/usr/include/infiniband" "$tmp/x/usr/include/rdma" "$tmp/include/"
		copyright=$tmp/x/usr/share/doc/libibverbs-dev/copyright
		[ -s "$copyright" ] || die "libibverbs-dev $version has no copyright file"
		# The licence: rdma-core's headers are GPL-2 or the OpenIB.org
		# BSD licence (each header says so); we take the BSD option.
		{
			echo "The headers under infiniband/ and rdma/ are rdma-core $version's"
			echo "(Debian packages $pkgs, $suite), unmodified."
			echo "Each is available under a choice of the GNU GPL version 2 or the"
			echo "OpenIB.org BSD licence (BSD-MIT; efadv.h: BSD-2-clause); verbshim"
			echo "redistributes them under the OpenIB.org BSD licence, whose texts"
			echo "follow, then the whole of the package's copyright file."
			echo
			# (the licence paragraphs, not the Files: stanzas naming them)
			awk 'prev == "" && /^License: (BSD-MIT|BSD-2-clause)$/ { p = 1 }
			     p && /^$/ { p = 0; print "" } p { print } { prev = $0 }' "$copyright"
			echo "---- usr/share/doc/libibverbs-dev/copyright ($version)"
			cat "$copyright"
		} >"$tmp/COPYING"
		grep -q 'OpenIB.org BSD license' "$tmp/COPYING" ||
			die "no OpenIB.org BSD licence text in libibverbs-dev $version's copyright file"
		echo "$version" >"$tmp/VERSION"
		rm -rf "$tmp/x"
		echo "$version $pkgs" >"$tmp/.done"
		mv "$tmp" "$dir"
		echo "$me: rdma-core $version headers ($suite) in $dir/include" >&2
	fi
fi
[ "${1:-}" = --dir ] && { echo "$dir"; exit 0; }
echo "$dir/include"
