#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR/..
# The typed connection manager under valgrind on the rxe device: short
# runs of test/device/cm_ep.c (RC connect, a message each way, UD ids, bad
# input) and test/device/cm_overlap.c (8 overlapped resolves and connects in
# one epoll loop) and test/device/cm_shared.c (ids on shared CM event
# channels, closed in three orders, events of closed ids dropped): no
# error, no definite or indirect leak.  Not the unit
# stage's "possible" leaks (scripts/check/check.sh): librdmacm keeps the context
# of every device it opened for the process's life, which valgrind counts
# as possibly lost (pointers into the middle of its blocks).  Host root
# only (valgrind is the host's).
set -euo pipefail
# shellcheck source=test/vm/lib/common.bash
. "$(dirname "$0")/../lib/common.bash"
need_vm
cd "$(dirname "$0")/../../.."
command -v valgrind >/dev/null || { echo "FAIL: no valgrind in the host root (scripts/deps.sh installs it)"; exit 1; }
status=0
for t in build/test/device/cm_ep build/test/device/cm_overlap build/test/device/cm_shared; do
	[ -x "$t" ] || { echo "FAIL: no $t: make tests"; exit 1; }
	echo "== valgrind $t"
	rc=0
	# --fair-sched: a thread polling its CQ must not starve its peer
	valgrind -q --fair-sched=yes --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect "$t" || rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $t under valgrind: exit $rc"; status=1; }
done
exit $status
