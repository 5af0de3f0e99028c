#!/usr/bin/env bash
# A failing example's last line is its reason (issue 36: a soak's `tail -1`
# showed a cm_echo client's greeting, printed after the reason because
# stdout was buffered into a pipe):
#  - every example's main line-buffers stdout before anything else;
#  - on this host (rdma-core, no RDMA device) cm_echo's client and server,
#    their stdout and stderr in one pipe, end with the true cause.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail=0
for f in examples/*.c examples/*.cpp; do
	grep -q 'int main' "$f" || continue
	if ! grep -q 'setvbuf(stdout, NULL, _IOLBF, 0)' "$f"; then
		echo "$f: main does not line-buffer stdout"; fail=1
	fi
done
bin=build/bin/cm_echo
[ -x "$bin" ] || { echo "no $bin: run make"; exit 1; }
if [ -e /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	echo "skip: this host has an RDMA device (the case is no device)"
	[ $fail = 0 ] && exit 77 || exit 1
fi
for args in "-p 7471 127.0.0.1" "-p 7471"; do
	last=$("$bin" $args 2>&1 | tail -1) || true
	echo "cm_echo $args: $last"
	case $last in
	*"there is no RDMA device on this machine"*) ;;
	*) echo "cm_echo $args: the last line is not the cause"; fail=1 ;;
	esac
done
exit $fail
