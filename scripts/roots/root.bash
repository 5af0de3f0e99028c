# Helpers for the roots made from Debian packages (sourced; bash):
# scripts/rdma-core-root.sh (release roots) and scripts/build-root.sh (the
# oldest-distro build root).  Each function takes the root being built.
# ROOT_ARCH (amd64, else arm64) is the architecture of the root's
# programs: an arm64 root's are run on this host through qemu-aarch64.
ROOT_ARCH=${ROOT_ARCH:-amd64}
case $ROOT_ARCH in
arm64) ROOT_TRIPLET=aarch64-linux-gnu ROOT_LDSO=lib/ld-linux-aarch64.so.1 ROOT_RUN=qemu-aarch64 ;;
*) ROOT_TRIPLET=x86_64-linux-gnu ROOT_LDSO=lib64/ld-linux-x86-64.so.2 ROOT_RUN= ;;
esac

# root_unpack DIR DEB...: dpkg-deb -x each, then a merged /usr whatever each
# suite did (DIR/lib64/ld-linux-x86-64.so.2 and DIR/usr/lib/x86_64-linux-gnu
# always hold the files), relative symlinks only (an absolute one would
# point into the host when DIR is not /).
root_unpack() {
	local dir=$1 d l t
	shift
	for d in "$@"; do
		dpkg-deb -x "$d" "$dir"
	done
	for d in bin sbin lib lib64; do
		if [ -d "$dir/$d" ] && [ ! -L "$dir/$d" ]; then
			mkdir -p "$dir/usr/$d"
			cp -a "$dir/$d/." "$dir/usr/$d/"
			rm -rf "${dir:?}/$d"
		fi
		mkdir -p "$dir/usr/$d"
		ln -sfn "usr/$d" "$dir/$d"
	done
	while IFS= read -r l; do
		t=$(readlink "$l")
		ln -sfnr "$dir$t" "$l"
	done < <(find "$dir" -type l -lname '/*')
	[ -e "$dir/$ROOT_LDSO" ] || { echo "no $ROOT_LDSO in $dir" >&2; return 1; }
}

# root_busybox DIR BUSYBOX: every applet the packages did not bring, sh, a
# date that knows test/run.sh's +%s.%N, and the few files a chroot needs.
root_busybox() {
	local dir=$1 busybox=$2 a
	cp "$busybox" "$dir/usr/bin/busybox"
	for a in $($ROOT_RUN "$busybox" --list); do
		[ -e "$dir/usr/bin/$a" ] || [ -e "$dir/usr/sbin/$a" ] || ln -s busybox "$dir/usr/bin/$a"
	done
	ln -sfn busybox "$dir/usr/bin/sh"
	# busybox date knows no %N: for that one format, read the time of day
	# (in us) through busybox adjtimex.
	rm -f "$dir/usr/bin/date"
	cat >"$dir/usr/bin/date" <<'EOS'
#!/bin/sh
if [ "$*" = "+%s.%N" ]; then
	busybox adjtimex | awk '/tv_sec/ { s = $2 } /tv_usec/ { u = $2 }
		END { printf "%d.%06d000\n", s, u }'
	exit
fi
exec busybox date "$@"
EOS
	chmod 755 "$dir/usr/bin/date"
	mkdir -p "$dir"/{proc,sys,dev,tmp,run,etc,root}
	chmod 1777 "$dir/tmp"
	echo "root:x:0:0:root:/root:/bin/sh" >"$dir/etc/passwd"
	echo "root:x:0:" >"$dir/etc/group"
	printf '/usr/lib/%s\n/lib/%s\n' $ROOT_TRIPLET $ROOT_TRIPLET >"$dir/etc/ld.so.conf"
}

# root_static_busybox: the path of a static busybox, or a message and 1;
# an arm64 root's comes from Debian's arm64 busybox-static (bookworm).
root_static_busybox() {
	local busybox=/bin/busybox deb d
	if [ "$ROOT_ARCH" = arm64 ]; then
		d=$cache/busybox-arm64
		if [ ! -x "$d/bin/busybox" ]; then
			deb=$("$repo/scripts/roots/apt-fetch.sh" --arch arm64 bookworm busybox-static) || return 1
			rm -rf "$d.tmp" && mkdir -p "$d.tmp" && dpkg-deb -x "$deb" "$d.tmp" &&
				rm -rf "$d" && mv "$d.tmp" "$d" || return 1
		fi
		echo "$d/bin/busybox"
		return 0
	fi
	if [ ! -x "$busybox" ] || grep -q /lib64/ld-linux-x86-64.so.2 "$busybox"; then
		echo "a static $busybox is needed (apt-get install busybox-static)" >&2
		return 1
	fi
	echo "$busybox"
}

# root_check_loads DIR FILE...: each program loads with the root's own
# loader and libraries, nothing borrowed from the host.
root_check_loads() {
	local dir=$1 b deps lp
	shift
	lp=$dir/usr/lib/$ROOT_TRIPLET:$dir/lib/$ROOT_TRIPLET
	for b in "$@"; do
		if ! deps=$($ROOT_RUN "$dir/$ROOT_LDSO" --library-path "$lp" --list "$dir/$b" 2>&1) ||
			grep -q 'not found' <<<"$deps"; then
			echo "$b does not load with the root's own loader and libraries: $deps" >&2
			return 1
		fi
	done
}

# root_install TMP ROOT RECIPE SUMMARY DEB...: record what the root is made
# of (SUMMARY first, RECIPE last: the cache key) and move TMP to ROOT.
root_install() {
	local tmp=$1 root=$2 recipe=$3 summary=$4 d
	shift 4
	{
		echo "$summary"
		for d in "$@"; do basename "$d"; done
		echo "recipe $recipe"
	} >"$tmp/.verbshim-root"
	rm -rf "$root"
	mv "$tmp" "$root"
}
