#!/usr/bin/env bash
# The guest's side of one boot of the VM stage (scripts/vm-stage.sh runs it
# through scripts/vm-run.sh): the tests of test/tests.list whose WHERE is
# one of the boot's sets (test/boots.list), one results line to OUT.
#
#   scripts/vm-guest.sh LABEL OUT
set -euo pipefail
me=vm-guest.sh
cd "$(dirname "$0")/.."
label=${1:?usage: $me LABEL OUT}
out=${2:?usage: $me LABEL OUT}
vmdir=build/vm
# The release roots' binaries, and the build/ directories they stand in for.
OLDEST=build/oldest
OLDEST_DIRS="bin test dropin stubs"

read -r _ _ _ provider root _ sets < <(scripts/tests.sh boots "$label") ||
	{ echo "$label 0 1 0" >>"$out"; exit 1; }

# The release roots run the Debian 11 build (build/oldest) at build/'s
# paths (guest-only bind mounts): the tests and the example wrappers run
# them unchanged.
if [ "$root" != host ]; then
	bind_ok=1
	[ -s "$OLDEST/toolchain" ] || { echo "$me: no $OLDEST/toolchain: run make oldest"; bind_ok=0; }
	for d in $OLDEST_DIRS; do
		[ $bind_ok -eq 1 ] || break
		mount --bind "$OLDEST/$d" "build/$d" || { echo "$me: cannot bind $OLDEST/$d over build/$d"; bind_ok=0; }
	done
	[ $bind_ok -eq 1 ] || { echo "$label 0 1 0" >>"$out"; exit 1; }
	echo "binaries: $OLDEST ($(cat "$OLDEST/toolchain")); libc here: $(/lib/x86_64-linux-gnu/libc.so.6 | head -n 1)"
fi

# typed_events' lost-wake-up race runs its 100000 messages on the host
# root on rxe; the other boots differ in library or kernel, not in that
# race: a tenth there
{ [ "$root" = host ] && [ "$provider" = rxe ]; } ||
	export VS_EVENTS_MESSAGES=${VS_EVENTS_MESSAGES:-10000}

# The examples' wrappers (scripts/vm-stage.sh made them from
# test/vm/examples.list) stand for that entry.  A C++ example
# (examples/NAME.cpp) missing from the build in use (a build/oldest made
# where the build root had no C++ compiler; the Makefile's HAVE_CXX) is
# left out, said on stderr; any other must be there.
examples() {
	local t name
	for t in "$vmdir"/examples/*; do
		{ [ -f "$t" ] && [ -x "$t" ]; } || continue
		name=$(sed -n 's|^# binary: build/bin/||p' "$t")
		if [ -n "$name" ] && [ -e "examples/$name.cpp" ] && [ ! -x "build/bin/$name" ]; then
			echo "note: build/bin/$name (C++) is not in this build: ${t##*/} not run here" >&2
			continue
		fi
		echo "$t"
	done
}

tests=()
while read -r t; do
	case $t in
	*.list) mapfile -t -O ${#tests[@]} tests < <(examples) ;;
	*) tests+=("$t") ;;
	esac
done < <(scripts/tests.sh list "$sets")
[ ${#tests[@]} -gt 0 ] || { echo "$me: $label: no test in sets $sets"; echo "$label 0 1 0" >>"$out"; exit 1; }

# Inside the VM nothing may skip; on iWARP what it has not is skipped,
# naming it.
opts=(--stage "$label" --no-skip --results "$out")
[ "$provider" = siw ] && opts+=(--skip-ok iWARP)
test/run.sh "${opts[@]}" "${tests[@]}"
