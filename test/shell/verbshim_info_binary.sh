#!/usr/bin/env bash
# verbshim-info --binary on programs built in the Debian 11 root (make
# oldest), read against the release roots of scripts/rdma-core-releases.sh check (make check's six, check-releases' nine) (VERBSHIM_INFO_ROOT): the
# libraries each lists, and, per library, exactly the version nodes the
# root's library lacks (objdump -p, not the tool's own reader) with
# exactly the functions of each (the rows of shim/loader/syms_*.h); the exit
# status (0 nothing missing or older; 3 it runs with less: older nodes or
# a suggested library absent; 2 a library it needs missing) and the
# verdict line naming it.  An arm64 program
# (ARCH=arm64 build, when there is one) read on this x86-64 host: its
# libraries are missing from an x86-64 root; the arm64 verbshim-info under
# qemu-user reads the x86-64 program as the x86-64 one does.  Bad input: a non-ELF file, a
# program without verbshim.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
bin=build/bin/verbshim-info
prog=build/oldest/bin/verbshim-info	# links every library's table
typed=build/oldest/bin/loopback		# the typed API: ibverbs, rdmacm, efa
for f in "$bin" "$prog" "$typed"; do
	[ -x "$f" ] || { echo "skip: $f not built (make all oldest)"; exit 77; }
done
command -v objdump >/dev/null || { echo "skip: objdump not installed (binutils)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash
. test/shell/lib/vs_rows.bash
vs_library_rows >"$tmp/rows"

# nodes LIB: "ID NAME" of every node a row of shim/loader/syms_*.h names.
nodes() { grep -hoE "N\($1_[0-9_]+, \"[^\"]+\"" shim/loader/syms_*.h | sed -E 's/N\(([^,]+), "([^"]+)"/\1 \2/'; }
# functions ID: the functions of that node, sorted.
functions() { grep -hoE "\b[A-Z_]+\($1, [A-Za-z_0-9]+," shim/loader/syms_*.h | sed -E 's/.*, ([A-Za-z_0-9]+),$/\1/' | sort; }

# expect ROOT PROGRAM SONAMES...: what --binary must say, as
# "missing SONAME" and "NODE FUNCTIONS..." lines, and its exit status.
expect() {
	local root=$1 lib up so probe needs prio path id name
	shift
	while read -r lib up so probe needs prio; do
		case " $* " in *" $so "*) ;; *) continue ;; esac
		path=$root/usr/lib/x86_64-linux-gnu/$so
		if [ ! -e "$path" ]; then
			echo "missing $so"
			continue
		fi
		objdump -p "$path" >"$tmp/p"
		nodes "$up" | while read -r id name; do
			grep -qE "[[:space:]]$name\$" "$tmp/p" && continue
			f=$(functions "$id" | tr '\n' ' ')
			[ -n "$f" ] && echo "$name $f"
		done
	done <"$tmp/rows"
}

# said OUTPUT: the same lines from the tool's text (wrapped lines joined).
said() {
	awk '/^  here: missing/ { sub(/^.*\(no /, ""); print "missing", $1; next }
	     /^    [A-Z0-9_]+_[0-9.]+ \(rdma-core/ { if (l) print l; l = $1; for (i = 4; i <= NF; i++) l = l " " $i; next }
	     /^      / && l { for (i = 1; i <= NF; i++) l = l " " $i; next }
	     { if (l) print l; l = "" } END { if (l) print l }' "$1" |
		while read -r first rest; do
			if [ "$first" = missing ]; then echo "missing $rest"; else
				echo "$first $(printf '%s\n' $rest | sort | tr '\n' ' ')"; fi
		done
}

check() {	# VER ROOT PROGRAM SONAMES...
	local ver=$1 root=$2 p=$3 rc=0 want_rc=0 listed
	shift 3
	VERBSHIM_INFO_ROOT=$root "$bin" --binary "$p" >"$tmp/out" 2>&1 || rc=$?
	expect "$root" "$@" | sort >"$tmp/want"
	said "$tmp/out" | sort >"$tmp/got"
	# 3: it runs with less (older nodes, a suggested library absent);
	# 2: a library it needs (dlopen priority recommended) is missing
	[ -s "$tmp/want" ] && want_rc=3
	while read -r _ _ so _ _ prio; do
		[ "$prio" = suggested ] && continue
		grep -qx "missing $so" "$tmp/want" && want_rc=2
	done <"$tmp/rows"
	listed=$(grep -oE '^lib[a-z0-9_]+\.so\.[0-9]+' "$tmp/out" | sort | tr '\n' ' ')
	if [ "$listed" != "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]; then
		fail "$ver $p: lists [$listed], expected [$*]"
	elif ! cmp -s "$tmp/want" "$tmp/got"; then
		fail "$ver $p: not what objdump and the rows say (< expected, > said)"
		diff "$tmp/want" "$tmp/got" | head -n 10 | sed 's/^/    | /'
	elif [ "$rc" -ne "$want_rc" ]; then
		fail "$ver $p: exit $rc, expected $want_rc"
	elif ! grep -q "^verdict: .*(exit $rc)" "$tmp/out"; then
		fail "$ver $p: no verdict line naming exit $rc"
	else
		ok "$ver $p: $(grep -c . "$tmp/want") missing libraries or nodes, exit $rc"
	fi
}

all_sonames=$(awk '{ print $3 }' "$tmp/rows")
releases=$(scripts/rdma-core-releases.sh check) || exit 1	# an unknown VS_RELEASES, named
for ver in $releases; do
	if ! root=$(scripts/rdma-core-root.sh "$ver" 2>"$tmp/fetch.log"); then
		tail -n 5 "$tmp/fetch.log"
		fail "rdma-core $ver: could not build its root"
		continue
	fi
	check "$ver" "$root" "$prog" $all_sonames
	check "$ver" "$root" "$typed" libibverbs.so.1 librdmacm.so.1 libefa.so.1
done

# The other architecture: an arm64 program read here.
arm64=build/arm64/oldest/bin/loopback
[ -x "$arm64" ] || arm64=build/arm64/bin/loopback
if [ -x "$arm64" ] && [ -n "${root:-}" ]; then
	rc=0
	VERBSHIM_INFO_ROOT=$root "$bin" --binary "$arm64" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -eq 2 ] && grep -q '^.*: arm64 program; it can load 3 ' "$tmp/out" &&
		[ "$(grep -c 'here: missing (no .* for arm64)' "$tmp/out")" -eq 3 ] &&
		grep -q '^  compiled with: IBVERBS_1.0 ' "$tmp/out"; then
		ok "$arm64 read on $(uname -m): three libraries, each missing from an x86-64 root"
	else
		fail "$arm64: exit $rc"
		sed 's/^/    | /' "$tmp/out" | head -n 12
	fi
else
	echo "note: no arm64 build (make ARCH=arm64 oldest): the other architecture is not read"
fi

# And the other way: the arm64 verbshim-info (under qemu-user) reading the
# x86-64 program says what the x86-64 one says.
arm64_tool=build/arm64/bin/verbshim-info
if [ -x "$arm64_tool" ] && command -v qemu-aarch64 >/dev/null && [ -n "${root:-}" ]; then
	rc=0 rc64=0
	VERBSHIM_INFO_ROOT=$root "$bin" --binary "$typed" >"$tmp/x86" 2>&1 || rc=$?
	VERBSHIM_INFO_ROOT=$root qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm64_tool" \
		--binary "$typed" >"$tmp/a64" 2>&1 || rc64=$?
	if [ "$rc" = "$rc64" ] && cmp -s "$tmp/x86" "$tmp/a64"; then
		ok "$arm64_tool (qemu-aarch64) reads $typed as the x86-64 tool does (exit $rc64)"
	else
		fail "$arm64_tool on $typed: exit $rc64, differs from the x86-64 tool's (exit $rc)"
		diff "$tmp/x86" "$tmp/a64" | head -n 8 | sed 's/^/    | /'
	fi
fi

# Bad input.
rc=0
"$bin" --binary README.md >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q 'not a 64-bit little-endian ELF file' "$tmp/out" &&
	ok "a text file: exit 1, named" || fail "a text file: exit $rc: $(cat "$tmp/out")"
rc=0
"$bin" --binary test >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q 'Is a directory' "$tmp/out" &&
	ok "a directory: exit 1, named" || fail "a directory: exit $rc: $(cat "$tmp/out")"
mkfifo "$tmp/fifo"
rc=0
timeout 10 "$bin" --binary "$tmp/fifo" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q 'not a 64-bit little-endian ELF file' "$tmp/out" &&
	ok "a FIFO: exit 1 at once, named" || fail "a FIFO: exit $rc: $(cat "$tmp/out")"
rc=0
"$bin" --binary "$(command -v objdump)" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q 'no verbshim notes' "$tmp/out" &&
	ok "a program without verbshim: exit 1, named" || fail "objdump: exit $rc: $(cat "$tmp/out")"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "verbshim-info --binary says what each release lacks, by node and function"
