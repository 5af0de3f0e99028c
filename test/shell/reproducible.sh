#!/usr/bin/env bash
# Reproducible builds (make check-reproducible): the commit checked out
# twice, in two directories of different depth (under build/ and under
# /var/tmp), built one after the other (minutes apart) with different
# umasks (022 and 077): `make lib`, `make deb` and `make rpm` in each must
# give byte-identical lib/libverbshim.a, .debs and RPMs.  A difference is
# shown (ar, dpkg-deb or rpm listings side by side).  As root (the build
# root).  Not part of make check: two package builds take minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=build/reproducible
[ "$(id -u)" -eq 0 ] || { echo "skip: building in the build root needs root (chroot, mount namespace)"; exit 77; }
scripts/deps.sh --rpm >/dev/null || { echo "FAIL: scripts/deps.sh --rpm"; exit 1; }
commit=$(git rev-parse HEAD)
rm -rf "$out"
mkdir -p "$out"
far=$(mktemp -d /var/tmp/verbshim-reproducible.XXXXXX)
trap 'rm -rf "$far"' EXIT
a=$repo/$out/a
b=$far/another/deeper/checkout

# build DIR UMASK: the commit checked out in DIR and built there
build() {
	local dir=$1 mask=$2
	(
		umask "$mask"
		git clone -q --no-checkout "$repo" "$dir"
		git -C "$dir" checkout -q --detach "$commit"
		cd "$dir"
		make -s -j2 lib && make -s deb && make -s rpm
	) >"$out/build-${mask}.log" 2>&1 || { tail -n 30 "$out/build-${mask}.log"; echo "FAIL: the build in $dir (umask $mask)"; exit 1; }
	echo "ok   built $commit in $dir, umask $mask, at $(date -u +%H:%M:%S)"
}
build "$a" 022
build "$b" 077

status=0
n=0
while read -r f; do
	n=$((n + 1))
	if [ ! -f "$b/$f" ]; then
		echo "FAIL: $f is in the first build only"; status=1
	elif cmp -s "$a/$f" "$b/$f"; then
		echo "ok   $f: identical ($(sha256sum <"$a/$f" | cut -c1-16))"
	else
		echo "FAIL: $f differs between the two builds:"
		case $f in
		*.a) diff <(ar tv "$a/$f") <(ar tv "$b/$f") | head -n 20 || true
			cmp -l "$a/$f" "$b/$f" | head -n 5 || true ;;
		*.deb) diff <(dpkg-deb -I "$a/$f"; dpkg-deb -c "$a/$f") <(dpkg-deb -I "$b/$f"; dpkg-deb -c "$b/$f") | head -n 20 || true ;;
		*.rpm) diff <(rpm -qp --dump --qf '%{BUILDTIME} %{BUILDHOST}\n' "$a/$f") \
			<(rpm -qp --dump --qf '%{BUILDTIME} %{BUILDHOST}\n' "$b/$f") | head -n 20 || true ;;
		esac
		status=1
	fi
done < <(cd "$a" && { echo lib/libverbshim.a; ls build/deb/*.deb build/rpm/RPMS/*/*.rpm; })
[ "$n" -ge 5 ] || { echo "FAIL: only $n outputs compared (want the archive, 2 .debs, 2 RPMs)"; status=1; }
grep -qF "$a" "$a/lib/libverbshim.a" && { echo "FAIL: the archive names its build directory $a"; status=1; }
exit $status
