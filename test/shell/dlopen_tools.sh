#!/usr/bin/env bash
# The real tools that read verbshim's ELF dlopen notes, in Debian roots
# made with the project's apt (scripts/roots/packaging-root.sh):
#  - systemd-analyze dlopen-metadata, in the sid root (trixie's systemd 257
#    has no such verb; VS_SYSTEMD_SUITE=trixie tries it there) lists, for the
#    examples and tools of the Debian 11 build (make oldest), exactly the
#    sonames the typed API reaches, and every row's for verbshim-info;
#  - a user's own Debian package (debhelper, dh-sequence-dlopenlibdeps) of
#    two small programs linked with the archive of verbshim's .deb (make
#    deb), in the trixie root (VS_PACKAGING_SUITE=sid: sid's): the one
#    calling rdma_* gets trixie's librdmacm1t64 and
#    libibverbs1 as the notes' priority says (Recommends), the control
#    calling only ibv_* gets libibverbs1 and nothing of librdmacm; neither
#    Depends on them (both run without).
# make check-dlopen runs it (minutes the first time: the root's ~130
# packages are downloaded and unpacked once into the cache).
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
suite=${VS_PACKAGING_SUITE:-trixie}
sa_suite=${VS_SYSTEMD_SUITE:-sid}
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (chroot)"; exit 77; }
dev=$(ls build/deb/libverbshim-dev_*_amd64.deb 2>/dev/null | tail -n 1)
[ -n "$dev" ] || { echo "skip: no build/deb/libverbshim-dev_*_amd64.deb (make deb)"; exit 77; }
[ -x build/oldest/bin/verbshim-info ] || { echo "skip: build/oldest not built (make oldest)"; exit 77; }

tmp=$(mktemp -d /tmp/vs-dlopen.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash
. test/shell/lib/vs_rows.bash
vs_library_rows >"$tmp/rows"

for s in "$sa_suite" "$suite"; do
	root=$(scripts/roots/packaging-root.sh --suite "$s" 2>"$tmp/root.log") ||
		{ tail -n 20 "$tmp/root.log"; echo "FAIL: no $s packaging root"; exit 1; }
	echo "root: $(head -n 1 "$root/.verbshim-root")"
done
# systemd-analyze parses ELF files in a child with a user namespace of its
# own, which a chrooted process may not make (EPERM): it runs on the host,
# through the root's own loader and libraries (libdw dlopened from there).
sa_root=$(scripts/roots/packaging-root.sh --suite "$sa_suite")
sa_lib=$sa_root/usr/lib/x86_64-linux-gnu
analyze() { "$sa_root/lib64/ld-linux-x86-64.so.2" --library-path "$sa_lib:$sa_lib/systemd" \
	"$sa_root/usr/bin/systemd-analyze" "$@"; }
analyze --version | head -n 1

# systemd-analyze on copies of the programs.
mkdir -p "$tmp/bin"
cp build/oldest/bin/* "$tmp/bin/"
for f in "$tmp"/bin/*; do
	n=${f##*/}
	analyze dlopen-metadata "$f" >"$tmp/$n.sa" 2>&1 ||
		{ fail "systemd-analyze dlopen-metadata $n: $(head -n 3 "$tmp/$n.sa")"; continue; }
	got=$(grep -oE 'lib[a-z0-9_]+\.so\.[0-9]+' "$tmp/$n.sa" | sort -u | tr '\n' ' ')
	# The two tools report every library (the self-test's JSON lists each
	# one's state), so they load, and their notes name, all of them.
	if [ "$n" = verbshim-info ] || [ "$n" = verbshim-selftest ]; then
		want=$(awk '{ print $3 }' "$tmp/rows" | sort | tr '\n' ' ')
	else
		want="libefa.so.1 libibverbs.so.1 librdmacm.so.1 "
	fi
	[ "$got" = "$want" ] && ok "systemd-analyze dlopen-metadata $n: $got" ||
		{ fail "systemd-analyze $n lists [$got], expected [$want]"; sed 's/^/    | /' "$tmp/$n.sa"; }
done

# A user's package: verbshim from its .deb, unpacked beside the sources.
dpkg-deb -x "$dev" "$tmp/vs"
inc=$(cd "$tmp/vs" && find . -path '*/verbshim/rdma-core/infiniband' -type d | head -n 1)
lib=$(cd "$tmp/vs" && find . -name libverbshim.a | head -n 1)
[ -n "$inc" ] && [ -n "$lib" ] || { fail "$dev: no archive or rdma-core headers in it"; exit 1; }
mkdir -p "$tmp/vsdemo/debian/source"
cat >"$tmp/vsdemo/verbs.c" <<'EOF'
#include <stdio.h>
#include <infiniband/verbs.h>
int main(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	printf("%d devices\n", l ? n : 0);
	if (l)
		ibv_free_device_list(l);
	return 0;
}
EOF
cat >"$tmp/vsdemo/cm.c" <<'EOF'
#include <stdio.h>
#include <rdma/rdma_cma.h>
int main(void)
{
	struct rdma_event_channel *c = rdma_create_event_channel();

	printf("%s\n", c ? "channel" : "no channel");
	if (c)
		rdma_destroy_event_channel(c);
	return 0;
}
EOF
cat >"$tmp/vsdemo/debian/control" <<'EOF'
Source: vsdemo
Section: net
Priority: optional
Maintainer: A user <user@example.org>
Build-Depends: debhelper-compat (= 13), dh-sequence-dlopenlibdeps
Standards-Version: 4.7.0
Rules-Requires-Root: no

Package: vsdemo-verbs
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}, ${dlopen:Depends}
Recommends: ${dlopen:Recommends}
Suggests: ${dlopen:Suggests}
Description: lists RDMA devices (ibv_* only)
 The control: a program that calls only ibv_* through verbshim.

Package: vsdemo-cm
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}, ${dlopen:Depends}
Recommends: ${dlopen:Recommends}
Suggests: ${dlopen:Suggests}
Description: opens an RDMA CM event channel (rdma_*)
 A program that calls rdma_* through verbshim.
EOF
cat >"$tmp/vsdemo/debian/rules" <<EOF
#!/usr/bin/make -f
VS := $tmp/vs
CFLAGS_VS := -isystem \$(VS)/$inc/..
%:
	dh \$@
override_dh_auto_build:
	\$(CC) -O2 \$(CFLAGS_VS) -o vsdemo-verbs verbs.c \$(VS)/$lib -ldl -lpthread
	\$(CC) -O2 \$(CFLAGS_VS) -o vsdemo-cm cm.c \$(VS)/$lib -ldl -lpthread
override_dh_auto_install:
	install -D vsdemo-verbs debian/vsdemo-verbs/usr/bin/vsdemo-verbs
	install -D vsdemo-cm debian/vsdemo-cm/usr/bin/vsdemo-cm
EOF
chmod +x "$tmp/vsdemo/debian/rules"
echo "3.0 (native)" >"$tmp/vsdemo/debian/source/format"
printf 'vsdemo (1.0) unstable; urgency=medium\n\n  * Test.\n\n -- A user <user@example.org>  Thu, 01 Jan 2026 00:00:00 +0000\n' \
	>"$tmp/vsdemo/debian/changelog"
if ! scripts/roots/packaging-root.sh --suite "$suite" --bind "$tmp/vsdemo" --bind "$tmp" -- \
	dpkg-buildpackage -b -us -uc >"$tmp/build.log" 2>&1; then
	tail -n 30 "$tmp/build.log"
	fail "dpkg-buildpackage of the user's package"
else
	grep -i 'dlopen' "$tmp/build.log" | head -n 5
	for p in verbs cm; do
		deb=$(ls "$tmp"/vsdemo-${p}_1.0_*.deb)
		dpkg-deb -f "$deb" Depends Recommends Suggests >"$tmp/$p.fields"
		sed "s/^/    $p: /" "$tmp/$p.fields"
	done
	rec() { sed -n 's/^Recommends: //p' "$tmp/$1.fields"; }
	grep -q '^Depends:.*\(libibverbs\|librdmacm\)' "$tmp/verbs.fields" "$tmp/cm.fields" &&
		fail "a program that runs without rdma-core Depends on it"
	case "$(rec verbs)" in
	*libibverbs1*) ok "the ibv_* program Recommends libibverbs1" ;;
	*) fail "the ibv_* program does not Recommend libibverbs1" ;;
	esac
	grep -q 'librdmacm' "$tmp/verbs.fields" && fail "the ibv_* program names librdmacm" ||
		ok "the ibv_* program names no librdmacm"
	case "$(rec cm)" in
	*libibverbs1*librdmacm1t64* | *librdmacm1t64*libibverbs1*) ok "the rdma_* program Recommends librdmacm1t64 and libibverbs1" ;;
	*) fail "the rdma_* program's Recommends: $(rec cm)" ;;
	esac
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "systemd-analyze and dh-dlopenlibdeps read verbshim's notes as they should"
