#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# make demo's two programs on the device under test, as scripts/demo.sh
# runs them: the typed loopback and the plain verbs.h verbs_loopback, one
# archive inside each; both check every byte they moved and must exit 0.
# (make check-arm64's smoke runs this; the examples' own entries, in every
# full boot, run the same programs among the others.)
set -euo pipefail
# shellcheck source=lib/common.bash
. "$(dirname "$0")/lib/common.bash"
need_vm
cd "$(dirname "$0")/../.."
skip_on_iwarp "the demo connects its RC QP to itself by endpoint bytes, not through the CM"
for prog in build/bin/loopback build/bin/verbs_loopback; do
	[ -x "$prog" ] || { echo "FAIL: $prog not built (run make)"; exit 1; }
	echo "== $prog -d $VS_RXE_DEV"
	rc=0
	"$prog" -d "$VS_RXE_DEV" || rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $prog exit $rc"; exit 1; }
done
echo "both passed on $VS_RXE_DEV"
