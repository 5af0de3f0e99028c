#!/usr/bin/env bash
# `make demo`: boot Debian's kernel in qemu with SoftRoCE (rdma_rxe) and run
# the loopback example, linked with libverbshim.a, on the rxe device.
# Prefers the typed build/bin/loopback; else the plain-verbs verbs_loopback.
set -euo pipefail

me=demo.sh
repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"

prog=build/bin/loopback
[ -x "$prog" ] || prog=build/bin/verbs_loopback
[ -x "$prog" ] || { echo "$me: error: no build/bin/loopback or build/bin/verbs_loopback: run make first" >&2; exit 1; }

t0=$SECONDS
cat <<MSG
== verbshim demo
   $prog is one static binary: libverbshim.a inside, no link-time
   dependency on libibverbs.  It runs here in a qemu VM (TCG) booting
   Debian's own kernel with SoftRoCE (rdma_rxe) on a dummy netdev, chrooted
   into this machine's / so it finds this machine's rdma-core at run time.
   It connects one RC QP to itself and does SEND/RECV, RDMA WRITE, RDMA
   READ, FETCH_AND_ADD and CMP_AND_SWP, checking every byte.
   (Figures come from an emulated CPU and a software RDMA device: they
   show that it works, not how fast real hardware is.)

MSG
rc=0
# shellcheck disable=SC2016 # (expanded in the guest)
scripts/vm-run.sh --timeout 110 -- sh -c '
	echo "== in the VM: kernel $(uname -r), device $VS_RXE_DEV, RoCE v2 GID index $VS_RXE_GID_INDEX ($VS_RXE_IP)"
	for f in /usr/lib/x86_64-linux-gnu/libibverbs.so.1.*; do echo "   rdma-core: ${f##*/}"; done
	echo "== $1 -d $VS_RXE_DEV"
	"$1" -d "$VS_RXE_DEV" || exit
	# The same through plain ibv_* calls, when that program is built too.
	[ "$1" = build/bin/verbs_loopback ] || [ ! -x build/bin/verbs_loopback ] && exit 0
	echo "== build/bin/verbs_loopback (plain verbs.h program, same archive)"
	exec build/bin/verbs_loopback -d "$VS_RXE_DEV"' sh "$prog" || rc=$?
echo
if [ $rc -eq 0 ]; then
	echo "== demo passed: every byte matched ($((SECONDS - t0)) s, boot included)"
else
	echo "== demo FAILED (exit $rc after $((SECONDS - t0)) s)"
fi
exit $rc
