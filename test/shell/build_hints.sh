#!/usr/bin/env bash
# Every build failure for want of a tool that scripts/deps.sh installs only
# on request names the option that installs it, before anything is built:
# with PATH stripped of the tool (a directory of links to everything else
# on PATH),
#   make ARCH=arm64 lib      without aarch64-linux-gnu-gcc: --arm64
#   make rpm                 without rpmbuild: --rpm
#   make rpm ARCH=arm64      without aarch64-linux-gnu-strip: --arm64
# each fails, says "run scripts/deps.sh OPTION", and leaves no object.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# path_without TOOL...: a PATH of one directory linking every program on
# PATH but the TOOLs.
path_without() {
	local dir=$tmp/path-$1 i f
	mkdir -p "$dir"
	IFS=: read -ra dirs <<<"$PATH"
	# the last directory first, so that the first one's program wins
	for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
		[ -d "${dirs[i]}" ] && ln -sf -t "$dir" "${dirs[i]}"/*
	done
	# a machine without scripts/deps.sh --rpm: a stand-in rpmbuild, so
	# that the check of the tool under test is reached (it fails before
	# rpmbuild would run; the stand-in says so if it ever does)
	[ -e "$dir/rpmbuild" ] || {
		printf '#!/bin/sh\necho "stand-in rpmbuild ran" >&2\nexit 1\n' >"$dir/rpmbuild"
		chmod +x "$dir/rpmbuild"
	}
	for f; do rm -f "$dir/$f"; done
	echo "$dir"
}

status=0
# expect OPTION TOOL MAKE-ARGS...
expect() {
	local opt=$1 tool=$2 out=$tmp/build-$2 rc=0
	shift 2
	PATH=$(path_without "$tool") make -s BUILD="$out" "$@" >"$tmp/log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		echo "FAIL: make $* without $tool succeeded"; status=1
	elif ! grep -q "$tool not found: run scripts/deps.sh $opt" "$tmp/log"; then
		cat "$tmp/log"; echo "FAIL: make $* without $tool does not name scripts/deps.sh $opt"; status=1
	elif [ -n "$(find "$out" -name '*.o' 2>/dev/null)" ]; then
		echo "FAIL: make $* without $tool built objects first"; status=1
	else
		echo "ok   make $* without $tool: $(grep -m1 "not found" "$tmp/log")"
	fi
}
expect --arm64 aarch64-linux-gnu-gcc ARCH=arm64 lib
expect --rpm rpmbuild rpm
expect --arm64 aarch64-linux-gnu-strip rpm ARCH=arm64
exit $status
