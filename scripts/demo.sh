#!/usr/bin/env bash
# `make demo`: boot Debian's kernel in qemu with SoftRoCE (rdma_rxe) and run
# the loopback example, linked with libverbshim.a, on the rxe device.
# Prefers the typed build/bin/loopback; else the plain-verbs verbs_loopback.
# VS_ARCH=arm64 (make demo ARCH=arm64): build/arm64's binaries in the
# arm64 guest (scripts/vm-run.sh --arch arm64), in the arm64 rdma-core
# 44.0 root.
set -euo pipefail

me=demo.sh
repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"

arch=${VS_ARCH:-x86_64}
case $arch in
x86_64)
	bin=build/bin triplet=x86_64-linux-gnu vmopt=() vmtime=110
	where="   Debian's own kernel with SoftRoCE (rdma_rxe) on a dummy netdev, chrooted
   into this machine's / so it finds this machine's rdma-core at run time."
	;;
arm64)
	# TCG emulating another architecture: the boot takes minutes on a loaded host
	bin=build/arm64/bin triplet=aarch64-linux-gnu vmopt=(--arch arm64 --rdma-core 44.0) vmtime=300
	where="   Debian's own arm64 kernel (qemu-system-aarch64) with SoftRoCE (rdma_rxe)
   on a dummy netdev, chrooted into Debian 12's arm64 rdma-core 44.0 and
   glibc (the x86-64 demo's host root), so it finds that rdma-core."
	;;
*) echo "$me: error: VS_ARCH=$arch: x86_64 or arm64" >&2; exit 2 ;;
esac
prog=$bin/loopback
[ -x "$prog" ] || prog=$bin/verbs_loopback
[ -x "$prog" ] || { echo "$me: error: no $bin/loopback or $bin/verbs_loopback: run make first" >&2; exit 1; }

t0=$SECONDS
cat <<MSG
== verbshim demo
   $prog is one static binary: libverbshim.a inside, no link-time
   dependency on libibverbs.  It runs here in a qemu VM (TCG) booting
$where
   It connects one RC QP to itself and does SEND/RECV, RDMA WRITE, RDMA
   READ, FETCH_AND_ADD and CMP_AND_SWP, checking every byte.
   (Figures come from an emulated CPU and a software RDMA device: they
   show that it works, not how fast real hardware is.)

MSG
rc=0
# shellcheck disable=SC2016 # (expanded in the guest)
scripts/vm-run.sh "${vmopt[@]}" --timeout $vmtime -- sh -c '
	echo "== in the VM: kernel $(uname -r), device $VS_RXE_DEV, RoCE v2 GID index $VS_RXE_GID_INDEX ($VS_RXE_IP)"
	for f in /usr/lib/$3/libibverbs.so.1.*; do echo "   rdma-core: ${f##*/}"; done
	echo "== $1 -d $VS_RXE_DEV"
	"$1" -d "$VS_RXE_DEV" || exit
	# The same through plain ibv_* calls, when that program is built too.
	[ "$1" = $2/verbs_loopback ] || [ ! -x $2/verbs_loopback ] && exit 0
	echo "== $2/verbs_loopback (plain verbs.h program, same archive)"
	exec $2/verbs_loopback -d "$VS_RXE_DEV"' sh "$prog" "$bin" "$triplet" || rc=$?
echo
if [ $rc -eq 0 ]; then
	echo "== demo passed: every byte matched ($((SECONDS - t0)) s, boot included)"
else
	echo "== demo FAILED (exit $rc after $((SECONDS - t0)) s)"
fi
exit $rc
