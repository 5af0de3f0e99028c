# A release root built from an upstream rdma-core tag (sourced by
# scripts/rdma-core-root.sh, which set ver, tarball, buildroot, root,
# recipe, busybox, repo, cache and die): the tag compiled in the Debian 11
# build root (scripts/roots/rdma-core-build.sh), installed over the
# packages 33.2's root has besides rdma-core (bullseye's libc6, libgcc-s1,
# bash, libnl): the glibc the tag was compiled against.
source_root() {
	local work=$cache/roots/rdma-core-$ver.build tmp=$root.tmp d libc deb how applied
	local pkgs="libnl-3-200 libnl-route-3-200 libc6 libgcc-s1 bash libtinfo6"
	local -a debs elves
	rm -rf "$work"
	mkdir -p "$work"
	cp "$tarball" "$work/"
	echo "$me: building rdma-core $ver from its tag in $(basename "$buildroot") (log: $work/build.log)" >&2
	"$repo/scripts/build-root.sh" --bind "$work" -- \
		"$repo/scripts/roots/rdma-core-build.sh" "$ver" "$work/${tarball##*/}" "$work" >&2 ||
		die "building rdma-core $ver failed (see above)"

	# shellcheck disable=SC2086 # (list)
	mapfile -t debs < <("$repo/scripts/roots/apt-fetch.sh" "$suite" $pkgs)
	[ ${#debs[@]} -eq "$(wc -w <<<"$pkgs")" ] || die "fetching packages failed (see above)"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	root_unpack "$tmp" "${debs[@]}" || die "unpacking failed"
	# The install, merged-usr as root_unpack leaves the packages.
	for d in "$work/dest"/*; do
		case ${d##*/} in
		bin | sbin | lib | lib64) cp -a "$d/." "$tmp/usr/${d##*/}/" ;;
		*) cp -a "$d" "$tmp/" ;;
		esac
	done
	# What the runtime packages hold, not the -dev ones: no headers,
	# pkg-config files, unversioned .so links, man pages or docs.
	rm -rf "$tmp/usr/include" "$tmp/usr/lib/$ROOT_TRIPLET/pkgconfig" "$tmp/usr/share/man" "$tmp/usr/share/doc"
	find "$tmp/usr/lib/$ROOT_TRIPLET" -maxdepth 1 -name '*.so' -type l -delete
	root_busybox "$tmp" "$busybox"
	# Every program and library of the release loads with the root's own
	# loader and libraries.
	mapfile -t elves < <(cd "$tmp" && find usr/bin usr/sbin "usr/lib/$ROOT_TRIPLET" -type f \
		\( -name '*.so*' -o -perm -u+x \) -exec sh -c 'file -b "$1" | grep -q "^ELF .*dynamic"' - {} \; -print |
		grep -v 'busybox$')
	root_check_loads "$tmp" usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong usr/bin/ibv_ud_pingpong \
		usr/bin/rping usr/bin/ucmatose usr/bin/bash "${elves[@]}" || die "broken root"
	ls "$tmp/usr/lib/$ROOT_TRIPLET/libibverbs/"librxe-rdmav*.so >/dev/null 2>&1 ||
		die "no rxe provider in the root"
	ls "$tmp/etc/libibverbs.d/"rxe.driver >/dev/null 2>&1 || die "no rxe.driver in the root's /etc/libibverbs.d"
	cp "$work/build.log" "$tmp/.verbshim-build.log"
	how=$(grep -m1 '^CFLAGS=' "$work/build.log")
	applied=$(sed -n 's/^applied: //p' "$work/build.log")
	for deb in "${debs[@]}"; do
		[ "$(dpkg-deb -f "$deb" Package)" = libc6 ] && libc=$(dpkg-deb -f "$deb" Version)
	done
	root_install "$tmp" "$root" "$recipe" \
		"rdma-core $ver (tag v$ver, built in the Debian 11 build root with $(sed -n '1s/^[^:]*: \(gcc [^,]*\),.*/\1/p' "$buildroot/.verbshim-root"); $how${applied:+; $applied}) and libc $libc from $suite" \
		"${tarball##*/}" "${debs[@]}"
	# The build tree stays (WORK/b: the release's own objects, for the
	# drop-in comparison); its sources and install go.
	rm -rf "$work/src" "$work/dest" "$work/${tarball##*/}"
	echo "$me: $(head -n 1 "$root/.verbshim-root")" >&2
	echo "$root"
}
