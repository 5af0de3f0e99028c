#!/usr/bin/env bash
# The guest's side of one boot of the VM stage (scripts/vm/stage.sh runs it
# through scripts/vm-run.sh): the tests of test/tests.list whose WHERE is
# one of the boot's sets (test/boots.list), one results line to OUT.
#
#   scripts/vm/guest.sh LABEL OUT
set -euo pipefail
me=vm/guest.sh
cd "$(dirname "$0")/../.."
label=${1:?usage: $me LABEL OUT}
out=${2:?usage: $me LABEL OUT}
vmdir=build/vm
# The build/ directories a release root's binaries stand in for.
OLDEST_DIRS="bin test dropin stubs"

read -r _ _ arch _ provider root _ sets < <(scripts/check/tests.sh boots "$label") ||
	{ echo "$label 0 1 0" >>"$out"; exit 1; }
# A traced boot (the set word trace): every test under VERBSHIM_TRACE=all
# VERBSHIM_STATS=1, each one's lines in build/vm/trace/LABEL/TEST/
# (scripts/vm/trace-wrap.sh, docs/trace.md); the other words are its sets.
traced=
if [[ ",$sets," == *,trace,* ]]; then
	traced=build/vm/trace/$label
	sets=$(tr ',' '\n' <<<"$sets" | grep -vx trace | paste -sd, -)
	rm -rf "$traced"
fi
# The word ud-self-lost (rdma-core 17.1's and 22.4's rxe boots): a skip
# naming the cause of datagrams to this same machine lost there is
# allowed (tools/verbshim-selftest/ud_self_lost.h, which decides it and
# words it; test/vm/lib/common.bash's ud_self_lost for the stock tools
# and examples); the other words are its sets.
ud_lost_text=
if [[ ",$sets," == *,ud-self-lost,* ]]; then
	ud_lost_text=$(sed -n 's/^#define VS_UD_SELF_LOST_TEXT "\(.*\)"$/\1/p' tools/verbshim-selftest/ud_self_lost.h)
	[ -n "$ud_lost_text" ] || { echo "$me: no VS_UD_SELF_LOST_TEXT in tools/verbshim-selftest/ud_self_lost.h"; echo "$label 0 1 0" >>"$out"; exit 1; }
	export VS_UD_SELF_LOST_OK=1
	sets=$(tr ',' '\n' <<<"$sets" | grep -vx ud-self-lost | paste -sd, -)
fi

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

# A checked set (a boot's one set; scripts/check/tests.sh variant): its entries
# run as scripts/check/check.sh's stage of that variant runs them on the host,
# two at a time, a skip allowed as there (cm_no_device skips its half that
# needs no device).  asan and tsan run their own build (build/asan, or
# build/arm64/asan beside the bound build/arm64); an arm64 root lacks
# their runtimes (build/arm64/VARIANT/sanlib, scripts/vm/stage.sh) and
# valgrind (bookworm's arm64 one, unpacked into build/arm64/valgrind).
if variant=$(scripts/check/tests.sh variant "$sets"); then
	# shellcheck source=scripts/check/checked-runs.bash
	. scripts/check/checked-runs.bash
	vbuild=build wrap=''
	case $variant in
	asan | tsan)
		vbuild=$bin/$variant
		[ -d "$vbuild/sanlib" ] && wrap="env LD_LIBRARY_PATH=$PWD/$vbuild/sanlib"
		[ "$variant" = asan ] && export ASAN_OPTIONS=$ASAN_CHECKED UBSAN_OPTIONS=$UBSAN_CHECKED ;;
	valgrind)
		vg=valgrind
		if [ "$arch" = arm64 ]; then
			vg="$PWD/build/arm64/valgrind/usr/bin/valgrind --extra-debuginfo-path=$PWD/build/arm64/valgrind/debuglink"
			export VALGRIND_LIB=$PWD/build/arm64/valgrind/usr/libexec/valgrind
		fi
		export VS_RACE_PROCESSES=6
		wrap="$vg $VALGRIND_FLAGS" ;;
	esac
	mapfile -t tests < <(scripts/check/tests.sh list --build "$vbuild" "$sets")
	[ ${#tests[@]} -gt 0 ] || { echo "$me: $label: no test in set $sets"; echo "$label 0 1 0" >>"$out"; exit 1; }
	opts=(--stage "$label" --results "$out" --jobs "$(($(nproc) > 1 ? 2 : 1))")
	# the host's limits (valgrind 300 s, the sanitizers 120 s); TCG
	# emulating aarch64 under a checked run is tens of times slower
	if [ "$arch" = arm64 ]; then
		opts+=(--timeout "${VS_ARM64_TEST_TIMEOUT:-3600}")
	elif [ "$variant" = valgrind ]; then
		opts+=(--timeout 300)
	fi
	[ -z "$wrap" ] || opts+=(--wrap "$wrap")
	echo "checked set $sets: $variant, ${#tests[@]} tests from $vbuild${wrap:+, under $wrap}"
	exec test/run.sh "${opts[@]}" "${tests[@]}"
fi

# The examples' wrappers (scripts/vm/stage.sh made them from
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
done < <(scripts/check/tests.sh list "$sets")
[ ${#tests[@]} -gt 0 ] || { echo "$me: $label: no test in sets $sets"; echo "$label 0 1 0" >>"$out"; exit 1; }

# Inside the VM nothing may skip; on iWARP what it has not is skipped,
# naming it.
opts=(--stage "$label" --no-skip --results "$out")
[ "$provider" = siw ] && opts+=(--skip-ok iWARP)
[ -z "$ud_lost_text" ] || opts+=(--skip-ok "$ud_lost_text")
[ -z "$traced" ] || opts+=(--wrap "scripts/vm/trace-wrap.sh $traced")
# each test's verdict, for scripts/vm/stage.sh's comparison of a traced
# boot with the plain ones
rm -f "$vmdir/verdicts-$label"
opts+=(--verdicts "$vmdir/verdicts-$label")
# Each test's limit guards against a hang, not slowness: under TCG with
# the host's two cores busy typed_events' 4 x 100000 messages took over
# 120 s (21-40 s a phase, progressing) where a quiet host takes 48 s.
# TCG emulating aarch64 is many times slower still.
if [ "$arch" = arm64 ]; then
	opts+=(--timeout "${VS_ARM64_TEST_TIMEOUT:-900}")
else
	opts+=(--timeout "${VS_VM_TEST_TIMEOUT:-600}")
fi
test/run.sh "${opts[@]}" "${tests[@]}"
