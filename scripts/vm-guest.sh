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
# The build/ directories a release root's binaries stand in for.
OLDEST_DIRS="bin test dropin stubs"

read -r _ _ arch _ provider root _ sets < <(scripts/tests.sh boots "$label") ||
	{ echo "$label 0 1 0" >>"$out"; exit 1; }

# The binaries: the host root on x86-64 runs build/ as it is; a release
# root the Debian 11 build (build/oldest); an arm64 guest build/arm64 (its
# host root) or build/arm64/oldest.  Each at build/'s paths (guest-only
# bind mounts): the tests and the example wrappers run them unchanged.
bin=build triplet=x86_64-linux-gnu
if [ "$arch" = arm64 ]; then
	bin=build/arm64 triplet=aarch64-linux-gnu
	[ "$root" = host ] || bin=build/arm64/oldest
elif [ "$root" != host ]; then
	bin=build/oldest
fi
if [ "$bin" != build ]; then
	bind_ok=1
	[ -s "$bin/toolchain" ] || { echo "$me: no $bin/toolchain: run make oldest"; bind_ok=0; }
	for d in $OLDEST_DIRS; do
		[ $bind_ok -eq 1 ] || break
		mount --bind "$bin/$d" "build/$d" || { echo "$me: cannot bind $bin/$d over build/$d"; bind_ok=0; }
	done
	[ $bind_ok -eq 1 ] || { echo "$label 0 1 0" >>"$out"; exit 1; }
	echo "binaries: $bin ($(cat "$bin/toolchain")); libc here: $(/lib/$triplet/libc.so.6 | head -n 1)"
fi

# typed_events' lost-wake-up race runs its 100000 messages on the host
# root on rxe (x86-64); the other boots differ in library, kernel or
# architecture, not in that race: a tenth there
{ [ "$root" = host ] && [ "$provider" = rxe ] && [ "$arch" = x86_64 ]; } ||
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
# TCG emulating aarch64: many times slower than the x86-64 guest's 120 s
[ "$arch" = arm64 ] && opts+=(--timeout "${VS_ARM64_TEST_TIMEOUT:-900}")
test/run.sh "${opts[@]}" "${tests[@]}"
