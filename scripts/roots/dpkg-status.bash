# dpkg's database for a root made by unpacking packages (sourced; bash):
# scripts/build-root.sh, and test/shell/deb.sh for its copies of the
# release roots.
#
# root_dpkg_status DIR DEB...: DIR/var/lib/dpkg/status listing each package
# as installed, and its control files and file list under info/.  The roots
# are merged-usr whatever the suite's packages say: a file a package ships
# in /lib (bin, sbin, lib64) is listed at /usr/lib too, so dpkg -S (and
# dpkg-shlibdeps) finds the package of either path.
root_dpkg_status() {
	local dir=$1 d ctrl pkg name
	shift
	ctrl=$(mktemp -d)
	mkdir -p "$dir/var/lib/dpkg/info" "$dir/var/lib/dpkg/updates" "$dir/var/lib/dpkg/triggers"
	: >"$dir/var/lib/dpkg/status"
	: >"$dir/var/lib/dpkg/available"
	# info/ names files PKG:ARCH.list for Multi-Arch: same packages
	echo 1 >"$dir/var/lib/dpkg/info/format"
	for d in "$@"; do
		rm -rf "$ctrl"
		dpkg-deb -e "$d" "$ctrl"
		pkg=$(sed -n 's/^Package: //p' "$ctrl/control")
		name=$pkg
		grep -qx 'Multi-Arch: same' "$ctrl/control" &&
			name=$pkg:$(sed -n 's/^Architecture: //p' "$ctrl/control")
		{
			sed '/^Package:/a Status: install ok installed' "$ctrl/control"
			echo
		} >>"$dir/var/lib/dpkg/status"
		dpkg-deb -c "$d" | awk '{
			$1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); sub(/ -> .*/, "")
			sub(/ link to .*/, ""); sub(/^\./, ""); sub(/\/$/, "")
			if ($0 == "") { print "/."; next }
			print
			if ($0 ~ /^\/(bin|sbin|lib|lib64)(\/|$)/) print "/usr" $0
		}' >"$dir/var/lib/dpkg/info/$name.list"
		for f in shlibs symbols triggers md5sums; do
			if [ -f "$ctrl/$f" ]; then cp "$ctrl/$f" "$dir/var/lib/dpkg/info/$name.$f"; fi
		done
	done
	rm -rf "$ctrl"
}
