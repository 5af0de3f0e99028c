#!/usr/bin/env bash
# The test bed works wherever the checkout lives.  Copies of this checkout
# (its tracked files) go where the guest mounts a tmpfs of its own, and
# each boots the SoftRoCE VM with the shared cache and runs
# test/vm/guest.sh there:
#   /tmp/vs clone.XXXX  (under /tmp, with a space), with a non-default
#                       --mem, --hostname, --env and --env-pass, checked
#                       from inside; and the guest writes into the copy
#   /dev/shm/vs-clone.XXXX and /run/vs-clone.XXXX
# A path vm-run.sh cannot serve (a newline in it) fails at once, in one
# line, without booting.  Runs on the host (VM stage, scripts/vm/stage.sh
# "paths"); boots three guests, ~10 s each.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../../.." || exit 1
repo=$PWD
[ "${VERBSHIM_IN_VM:-}" = 1 ] && { echo "skip: boots VMs itself: run it on the host"; exit 77; }
command -v git >/dev/null || { echo "skip: git not installed"; exit 77; }
export VERBSHIM_CACHE=${VERBSHIM_CACHE:-$repo/.cache}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
made=()
trap 'rm -rf "${made[@]}"' EXIT

# copy DIR: this checkout's tracked files (as they are now) into DIR.
copy() {
	mkdir -p "$1" && made+=("$1")
	git ls-files -z | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$1"
	[ -x "$1/scripts/vm-run.sh" ] || { fail "could not copy the checkout into $1"; return 1; }
}

# boot LABEL DIR VM-RUN-OPTIONS... : test/vm/guest.sh in a VM run from DIR.
boot() {
	local label=$1 dir=$2 rc=0 t0=$SECONDS
	shift 2
	(cd "$dir" && scripts/vm-run.sh --timeout 240 "$@" -- test/vm/guest.sh) >"$dir.log" 2>&1 || rc=$?
	sed 's/^/    | /' "$dir.log"
	if [ $rc -ne 0 ]; then
		fail "$label: exit $rc from $dir"
	else
		echo "ok: $label: $dir ($((SECONDS - t0))s)"
	fi
	rm -f "$dir.log"
}

# /tmp, with a space; everything a user's workload may ask for.
d=$(mktemp -u "/tmp/vs clone.XXXXXX")
if copy "$d"; then
	# A value the guest's shell must not expand (single quotes: on purpose).
	# shellcheck disable=SC2016
	export FI_VS_TEST_VAR='a b $c "d"'
	# shellcheck disable=SC2016
	boot "/tmp, space, --mem 1536" "$d" --mem 1536 --hostname vs-paths \
		--env VS_EXPECT_MEM=1536 --env VS_EXPECT_HOSTNAME=vs-paths \
		--env 'VS_EXPECT_VAR=FI_VS_TEST_VAR=a b $c "d"' --env-pass 'UCX_*,FI_VS_*'
	unset FI_VS_TEST_VAR
fi

for base in /dev/shm /run; do
	d=$(mktemp -u "$base/vs-clone.XXXXXX")
	copy "$d" && boot "$base" "$d" --env VS_EXPECT_HOSTNAME=vsvm --env VS_EXPECT_MEM=2048
done

# A path it cannot serve: one line, exit 125, no boot.
d=$(mktemp -u "/tmp/vs-nl.XXXXXX")$'\n'x
if copy "$d"; then
	rc=0
	out=$(cd "$d" && scripts/vm-run.sh -- true 2>&1) || rc=$?
	if [ $rc -eq 125 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q 'contains a newline'; then
		echo "ok: newline in the path: $out"
	else
		fail "newline in the path: exit $rc: $out"
	fi
fi

echo "$fails check(s) failed"
[ $fails -eq 0 ]
