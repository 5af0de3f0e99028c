#!/usr/bin/env bash
# The ELF notes of programs linked with libverbshim.a (shim/tables/vs_notes.h):
# the .note.dlopen layout the ELF dlopen metadata spec asks for (owner FDO,
# type 0x407c0c0a, 4-byte alignment, zero padding, one NUL-terminated JSON
# array, the fields), read by test/shell/lib/elf_notes.py, not binutils;
# and exactly which sonames each program lists:
#  - one program per VS_LIBRARIES row calling only that row's probe symbol
#    lists the row's soname (and libibverbs.so.1 when the row needs it),
#    with the row's priority: the ibv_* one, the control, lists
#    libibverbs.so.1 alone;
#  - the typed examples list what the typed API reaches (libibverbs,
#    librdmacm for the CM, libefa for SRD), verbshim-info and verbshim-selftest every row;
#  - every example, tool, test and bench lists exactly the libraries whose
#    table it links (nm: vs__<lib>_desc), each with its .note.verbshim table.
# For each build there is: build, build/oldest, build/arm64, build/arm64/oldest.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
[ -f lib/libverbshim.a ] || { echo "skip: lib/libverbshim.a not built (run make)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

# The rows: lib LIB soname probe needs_ibverbs priority.
. test/shell/lib/vs_rows.bash
vs_library_rows >"$tmp/rows"
[ "$(grep -c . "$tmp/rows")" -ge 6 ] && ! grep -q 'L(' "$tmp/rows" ||
	{ fail "could not read the VS_LIBRARIES rows"; cat "$tmp/rows"; exit 1; }
ibverbs_so=$(awk '$1 == "ibverbs" { print $3 }' "$tmp/rows")

# sonames FILE: the sorted dlopen sonames the notes of FILE list.
sonames() { awk '$2 == "dlopen" { print $3 }' "$tmp/notes" | sort | tr '\n' ' '; }

# check FILE EXPECTED_SONAMES...: layout, the exact list, a table per entry.
check() {
	local f=$1 want got tables
	shift
	want=$( (($#)) && printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	[ -f "$tmp/parsed" ] && grep -q "^$f " "$tmp/parsed" || 
		python3 test/shell/lib/elf_notes.py "$f" >>"$tmp/parsed"
	grep "^$f " "$tmp/parsed" >"$tmp/notes"
	if grep -q "^$f error " "$tmp/notes"; then
		fail "$f: $(grep ' error ' "$tmp/notes" | head -n 3)"
		return
	fi
	got=$(sonames)
	tables=$(awk '$2 == "table" { print $4 }' "$tmp/notes" | sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		fail "$f lists [$got], expected [$want]"
	elif [ "$tables" != "$want" ]; then
		fail "$f: verbshim tables [$tables], dlopen entries [$got]"
	else
		ok "$f: [$got]"
	fi
}

# linked FILE: the sonames of the tables FILE links, from its symbols.
linked() {
	local lib up so probe needs prio
	nm "$1" 2>/dev/null >"$tmp/nm"
	while read -r lib up so probe needs prio; do
		# defined here (an address): a weak reference left undefined
		# (introspect.c's, when nothing else links the table) is none
		awk -v s="vs__${lib}_desc" 'NF == 3 && $3 == s { f = 1 } END { exit !f }' \
			"$tmp/nm" && echo "$so"
	done <"$tmp/rows"
}

check_build() {
	local build=$1 archive=$2 cc=$3 lib up so probe needs prio f
	[ -f "$archive" ] || { echo "note: $archive not built: $build skipped"; return; }
	# One program per row, calling only its probe symbol.
	if command -v "$cc" >/dev/null; then
		while read -r lib up so probe needs prio; do
			printf 'void %s(void);\nint main(void) { %s(); return 0; }\n' \
				"$probe" "$probe" >"$tmp/$lib.c"
			if ! "$cc" -o "$tmp/$lib" "$tmp/$lib.c" "$archive" -ldl -lpthread 2>"$tmp/cc.err"; then
				fail "$build: $cc could not link a $probe program: $(head -n 3 "$tmp/cc.err")"
				continue
			fi
			check "$tmp/$lib" "$so" $([ "$needs" = 1 ] && echo "$ibverbs_so")
			grep -q " dlopen $so $prio lib$lib$" "$tmp/notes" ||
				fail "$build: $so's entry is not priority $prio, feature lib$lib"
		done <"$tmp/rows"
	else
		echo "note: no $cc: $build's per-row programs not built"
	fi
	# The examples: what the typed API reaches; the tools: everything
	# (both report every library's nodes, by number).
	for f in "$build"/bin/*; do
		[ -x "$f" ] || continue
		case ${f##*/} in
		verbshim-info | verbshim-selftest) check "$f" $(awk '{ print $3 }' "$tmp/rows") ;;
		*) check "$f" libibverbs.so.1 librdmacm.so.1 libefa.so.1 ;;
		esac
	done
	# Every test and bench: exactly the tables it links (parsed at once:
	# one python3 start, not one per file).
	python3 test/shell/lib/elf_notes.py $(find "$build"/test/unit "$build"/test/device \
		"$build"/bench -maxdepth 1 -type f -perm -u+x 2>/dev/null) >>"$tmp/parsed"
	for f in "$build"/test/unit/* "$build"/test/device/* "$build"/bench/*; do
		[ -x "$f" ] && [ -f "$f" ] || continue
		check "$f" $(linked "$f")
	done >"$tmp/many" 2>&1
	grep -v '^ok' "$tmp/many"
	echo "ok: $build: $(grep -c '^ok' "$tmp/many") tests and benches list exactly the tables they link"
}

check_build build lib/libverbshim.a gcc
check_build build/oldest build/oldest/libverbshim.a gcc
check_build build/arm64 build/arm64/libverbshim.a aarch64-linux-gnu-gcc
check_build build/arm64/oldest build/arm64/oldest/libverbshim.a aarch64-linux-gnu-gcc

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all ELF notes as the spec and the links say"
