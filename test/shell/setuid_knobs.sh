#!/usr/bin/env bash
# Every VERBSHIM_ knob the docs name is ignored by a setuid program: a
# setuid-root copy of a small program (test/setuid/knob_probe.c, linked
# with the archive) run by an unprivileged user (nobody, through setpriv)
# with each knob set shows no effect of any, and the same program without
# the setuid bit, run by the same user with the same environment, shows
# each one's effect (so that a knob read with plain getenv fails here).
# verbshim-info's VERBSHIM_INFO_ROOT likewise.  The knobs come from the
# docs (docs/*.md, README.md), and must be the rows of shim/loader/vs_knobs.h
# (the archive's one reader) and verbshim-info's: a knob documented but
# not probed, or read but not documented, fails.
# Skips (77) when not root, without setpriv or the user nobody, or when the
# temporary directory's filesystem ignores the setuid bit.
set -euo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "skip: $*"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

[ "$(id -u)" -eq 0 ] || skip "needs root: it makes a setuid-root copy and runs it as another user"
command -v setpriv >/dev/null || skip "no setpriv (util-linux) to run the copies as nobody"
uid=$(id -u nobody 2>/dev/null) && gid=$(id -g nobody) || skip "no user nobody to run the copies as"

# The knobs: every VERBSHIM_ word of the user docs, but the test bed's
# (scripts/: VERBSHIM_CACHE, VERBSHIM_IN_VM, VERBSHIM_APT_MAX_AGE) and
# the pattern VERBSHIM_LIB*.
documented=$(grep -ohE 'VERBSHIM_[A-Z0-9_]+' docs/*.md README.md | sort -u |
	grep -vxE 'VERBSHIM_(CACHE|IN_VM|APT_MAX_AGE|LIB)')
# shim/loader/vs_knobs.h's rows (the lines of its VS_KNOBS), and verbshim-info's
read_by_code=$( { sed -n '/^#define VS_KNOBS(X)/,/^$/p' shim/loader/vs_knobs.h | grep -oE 'X\([A-Z0-9_]+\)' | sed 's/X(\(.*\))/VERBSHIM_\1/'
	grep -ohE 'secure_getenv\("VERBSHIM_[A-Z0-9_]+"\)' tools/verbshim-info/*.c | grep -oE 'VERBSHIM_[A-Z0-9_]+'
} | sort -u)
[ "$(echo "$read_by_code" | wc -l)" -ge 12 ] || bad "could not read the knobs of shim/loader/vs_knobs.h"
for k in $(comm -23 <(echo "$documented") <(echo "$read_by_code")); do bad "$k is documented but read by no code (shim/loader/vs_knobs.h, verbshim-info)"; done
for k in $(comm -13 <(echo "$documented") <(echo "$read_by_code")); do bad "$k is read but not documented (docs/dropin.md's tables)"; done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/plain" "$tmp/suid" "$tmp/trace-plain" "$tmp/trace-suid"
chmod 1777 "$tmp/trace-plain" "$tmp/trace-suid"
${CC:-cc} -std=c11 -D_GNU_SOURCE -Iinclude -Ibuild/gen -o "$tmp/plain/knob_probe" \
	test/setuid/knob_probe.c lib/libverbshim.a -ldl -lpthread
cp build/bin/verbshim-info "$tmp/plain/"
for p in knob_probe verbshim-info; do
	cp "$tmp/plain/$p" "$tmp/suid/$p"
	chown root:root "$tmp/suid/$p"
	chmod 4755 "$tmp/suid/$p"
done

stubs=$PWD/build/stubs/v65 fake=$PWD/build/stubs/fake/libibverbs.so.1
for f in "$fake" "$stubs"/libibverbs.so.1; do [ -r "$f" ] || bad "$f is missing (make tests)"; done
[ $fail -eq 0 ] || exit 1
declare -A lib_of=([VERBSHIM_LIBIBVERBS]=libibverbs.so.1 [VERBSHIM_LIBRDMACM]=librdmacm.so.1
	[VERBSHIM_LIBEFA]=libefa.so.1 [VERBSHIM_LIBMLX5]=libmlx5.so.1
	[VERBSHIM_LIBMLX4]=libmlx4.so.1 [VERBSHIM_LIBIBUMAD]=libibumad.so.3
	[VERBSHIM_LIBHNS]=libhns.so.1 [VERBSHIM_LIBMANA]=libmana.so.1 [VERBSHIM_LIBIONIC]=libionic.so.1)
lib_env=()
for k in "${!lib_of[@]}"; do lib_env+=("$k=$stubs/${lib_of[$k]}"); done
info_root=/vs-setuid-knobs-probe-root

# as_nobody KIND(plain|suid) OUT PROGRAM ARGS...: stdout and stderr kept
as_nobody() {
	local kind=$1 out=$2 prog=$3
	shift 3
	setpriv --reuid="$uid" --regid="$gid" --clear-groups -- env -i PATH=/usr/bin:/bin \
		"${lib_env[@]}" VS_FAKE_VENDOR=0xffffff \
		VERBSHIM_TRACE=all VERBSHIM_STATS=1 VERBSHIM_FAULT=ibv_alloc_pd:ENOMEM:1 \
		VERBSHIM_TRACE_FILE="$tmp/trace-$kind/t" VERBSHIM_FORCE_LEGACY=1 \
		VERBSHIM_TRUST_WR_SGE=1 VERBSHIM_INFO_ROOT=$info_root \
		"$tmp/$kind/$prog" "$@" >"$out" 2>"$out.err" || true
}

for kind in plain suid; do
	# the libraries' knobs alone; the others on the fake, loaded by path
	lib_env_saved=("${lib_env[@]}")
	as_nobody $kind "$tmp/$kind.libs" knob_probe libs
	lib_env=()
	as_nobody $kind "$tmp/$kind.run" knob_probe run "$fake" "$tmp/trace-$kind/t"
	# the system's libraries: its diagnosis of no device names the paths
	as_nobody $kind "$tmp/$kind.info" verbshim-info
	lib_env=("${lib_env_saved[@]}")
done
grep -qx 'AT_SECURE 0' "$tmp/plain.run" || { cat "$tmp/plain.run" "$tmp/plain.run.err"; bad "the plain copy did not run as expected"; exit 1; }
grep -qx 'AT_SECURE 1' "$tmp/suid.run" ||
	skip "the setuid bit of $tmp/suid/knob_probe took no effect (AT_SECURE 0: a nosuid mount ($(findmnt -no OPTIONS -T "$tmp")) or no_new_privs)"

# effect KIND KNOB: 0 when the knob did its thing in that run
effect() {
	local kind=$1 k=$2 f=$tmp/$1
	case $k in
	VERBSHIM_LIB*) grep -qxF "$k $stubs/${lib_of[$k]}" "$f.libs" ;;
	VERBSHIM_TRUST_WR_SGE) grep -qx "$k bounce_ring=0" "$f.run" ;;
	VERBSHIM_FORCE_LEGACY) grep -qx "$k legacy=1" "$f.run" ;;
	VERBSHIM_STATS) grep -qx "$k counted=1" "$f.run" ;;
	VERBSHIM_FAULT) grep -qx "$k injected=1" "$f.run" ;;
	VERBSHIM_TRACE_FILE) grep -qx "$k made=1" "$f.run" ;;
	VERBSHIM_TRACE) cat "$tmp/trace-$kind"/t.* "$f.run.err" 2>/dev/null | grep -q '^verbshim: \[[0-9]*\] ibv_' ;;
	VERBSHIM_INFO_ROOT) grep -qF "$info_root" "$f.info" ;;
	*) return 2 ;;
	esac
}

for k in $documented; do
	effect plain "$k" && p=0 || p=$?
	effect suid "$k" && s=0 || s=$?
	if [ $p -eq 2 ]; then
		bad "$k: documented, but this test has no probe of it"
	elif [ $p -ne 0 ]; then
		bad "$k: no effect even without setuid (the probe cannot tell)"
	elif [ $s -eq 0 ]; then
		bad "$k: changed a setuid-root program run by nobody"
	else
		echo "ok: $k: its effect without setuid, none in the setuid-root copy"
	fi
done
if [ $fail -ne 0 ]; then
	for f in "$tmp"/plain.* "$tmp"/suid.*; do echo "--- ${f##*/}"; head -n 20 "$f"; done
	exit 1
fi
echo "ok: $(echo "$documented" | wc -w) knobs ignored by a setuid-root program run by nobody"
