#!/usr/bin/env bash
# Man pages from the kernel-doc comments of include/ (make man,
# scripts/build/kernel-doc-man.py): no comment is malformed, every documented
# public function has a page that groff renders without a warning and
# man -l shows, no page without a comment, make install puts them under
# share/man/man3.  The generator itself is checked on headers made here:
# the forms it must accept and each malformed comment it must refuse.
# Prints the public functions still without a comment; their number is
# reported, not enforced.
# Exit 0 pass, 1 fail, 77 skip (reason on the last line).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
gen=scripts/build/kernel-doc-man.py
command -v python3 >/dev/null || { echo "skip: python3 not installed (scripts/deps.sh)"; exit 77; }
command -v groff >/dev/null || { echo "skip: groff not installed (groff-base, scripts/deps.sh)"; exit 77; }
command -v man >/dev/null || { echo "skip: man not installed (man-db, scripts/deps.sh)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib/checks.bash
. test/shell/lib/checks.bash

# render PAGE NAME: groff -ww silent, man -l shows NAME and the function.
# (One page at a time; render_all does a whole directory in two calls.)
render() {
	local page=$1 name=$2
	if ! groff -ww -z -man "$page" >"$tmp/groff.err" 2>&1 || [ -s "$tmp/groff.err" ]; then
		fail "$name: groff -ww warns: $(head -c 300 "$tmp/groff.err")"
		return
	fi
	if ! MANWIDTH=80 man --warnings -l "$page" >"$tmp/man.out" 2>"$tmp/man.err" ||
		[ -s "$tmp/man.err" ]; then
		fail "$name: man -l: $(head -c 300 "$tmp/man.err")"
		return
	fi
	grep -q "^NAME" "$tmp/man.out" && grep -q "^ *$name - " "$tmp/man.out" &&
		grep -q "^SYNOPSIS" "$tmp/man.out" ||
		fail "$name: man -l shows no 'NAME / $name - summary / SYNOPSIS'"
}

# 1. The generator on headers made here.
mkdir -p "$tmp/inc/t"
cat >"$tmp/inc/t/good.h" <<'EOF'
#ifndef GOOD_H
#define GOOD_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
VS_BEGIN_DECLS

/**
 * struct vs_thing - a struct's comment is not a function's
 * @a: a member
 */
struct vs_thing {
	int a;
	int (*vs_not_a_function)(int);
};

/**
 * vs_plain() - add @a to @b
 * @a: the first, described
 *     over two lines
 * @b: the second (see %VS_MAX and &struct vs_thing)
 *
 * A first paragraph naming vs_inline_one().
 *
 * An example, kept as it is:
 *	x = vs_plain(1, 2);
 *
 * Return: the sum;
 * never negative.
 *
 * Errors: none.
 */
int vs_plain(int a, unsigned long b) VS_PRINTF(1, 2);

/**
 * vs_inline_one() - an inline function with its body
 * @t: the thing
 * @buf: an array parameter
 *
 * Return: 0.
 */
VS_INLINE int vs_inline_one(struct vs_thing *t, char buf[VS_NAME_MAX])
{
	if (t) { return buf[0]; }
	return 0;
}

/**
 * vs_void_varargs() - no Return: needed for void
 * @fmt: a format
 * @...: its arguments
 */
void vs_void_varargs(const char *fmt, ...);

int vs_undocumented(void);
VS_INLINE int vs__private(void) { return 0; }

VS_END_DECLS
#ifdef __cplusplus
}
#endif
#endif
EOF
if python3 "$gen" --version test --root "$tmp/inc" --out "$tmp/gm" "$tmp/inc/t/good.h" >"$tmp/gen.out" 2>&1; then
	ok "generator: accepts good.h"
else
	fail "generator refuses good.h: $(cat "$tmp/gen.out")"
fi
got=$(python3 "$gen" --list "$tmp/inc/t/good.h" 2>&1 | tr '\n' ' ')
want="documented vs_plain documented vs_inline_one documented vs_void_varargs undocumented vs_undocumented "
[ "$got" = "$want" ] && ok "generator: --list" || fail "generator --list: '$got', want '$want'"
for n in vs_plain vs_inline_one vs_void_varargs; do
	[ -f "$tmp/gm/$n.3" ] && render "$tmp/gm/$n.3" "$n" || fail "generator: no page $n.3"
done
[ -e "$tmp/gm/vs_undocumented.3" ] && fail "generator: page for an undocumented function"
if [ -f "$tmp/gm/vs_plain.3" ]; then
	MANWIDTH=200 man -l "$tmp/gm/vs_plain.3" 2>/dev/null | sed 's/[[:space:]]\+/ /g' >"$tmp/plain.txt"
	for want in "#include <t/good.h>" "int vs_plain(int a, unsigned long b);" \
		"a the first, described over two lines" "RETURN VALUE" "the sum; never negative." \
		"ERRORS" "x = vs_plain(1, 2);" "SEE ALSO" "vs_inline_one(3)"; do
		grep -qF -- "$want" "$tmp/plain.txt" || fail "vs_plain.3 lacks '$want'"
	done
	grep -qF "VS_PRINTF" "$tmp/plain.txt" && fail "vs_plain.3 shows the attribute macro"
fi
[ -f "$tmp/gm/vs_inline_one.3" ] &&
	{ MANWIDTH=200 man -l "$tmp/gm/vs_inline_one.3" 2>/dev/null | grep -qF "int vs_inline_one(struct vs_thing *t, char buf[VS_NAME_MAX]);" ||
		fail "vs_inline_one.3: synopsis"; }

# Each malformed comment is refused, naming the file, line and problem.
# bad NAME 'EXPECTED MESSAGE' < header text
bad() {
	local name=$1 want=$2 out
	cat >"$tmp/inc/$name.h"
	if out=$(python3 "$gen" --out "$tmp/bm" "$tmp/inc/$name.h" 2>&1); then
		fail "generator accepts $name.h"
	elif grep -qF -- "$name.h:" <<<"$out" && grep -qF -- "$want" <<<"$out"; then
		ok "generator refuses $name.h: $out"
	else
		fail "generator on $name.h: '$out', want '$want'"
	fi
}
bad no_summary "must be 'NAME() - summary'" <<'EOF'
/**
 * vs_a()
 * @x: x
 * Return: 0.
 */
int vs_a(int x);
EOF
bad wrong_name "documents vs_b() but precedes vs_a()" <<'EOF'
/**
 * vs_b() - b
 * @x: x
 * Return: 0.
 */
int vs_a(int x);
EOF
bad extra_arg "@y is not a parameter" <<'EOF'
/**
 * vs_a() - a
 * @x: x
 * @y: y
 * Return: 0.
 */
int vs_a(int x);
EOF
bad missing_arg "parameter y has no @y" <<'EOF'
/**
 * vs_a() - a
 * @x: x
 * Return: 0.
 */
int vs_a(int x, int y);
EOF
bad no_return "needs 'Return:'" <<'EOF'
/**
 * vs_a() - a
 * @x: x
 */
int vs_a(int x);
EOF
bad orphan "no function declaration follows" <<'EOF'
/**
 * vs_a() - a
 */

int vs_other;
EOF

# 2. The real headers: make man into a scratch build directory.
headers=(include/*.h include/verbshim/*.h)
if ! python3 "$gen" --list "${headers[@]}" >"$tmp/list" 2>"$tmp/problems"; then
	fail "malformed kernel-doc comments in include/:"
	sed 's/^/    /' "$tmp/problems"
fi
if make -s -j"$(nproc)" man BUILD="$tmp/build" >"$tmp/make.out" 2>&1; then
	ok "make man"
else
	fail "make man: $(tail -n 5 "$tmp/make.out")"
fi
documented=$(awk '$1 == "documented" { print $2 }' "$tmp/list")
undocumented=$(awk '$1 == "undocumented" { print $2 }' "$tmp/list")
pages=()
for n in $documented; do
	page=$tmp/build/man/man3/$n.3
	[ -f "$page" ] || { fail "$n has a comment but no page"; continue; }
	pages+=("$page")
done
# All pages in one groff and one man call (this is slow on a loaded
# machine); page by page only when one of them complains.
if [ ${#pages[@]} -gt 0 ]; then
	if groff -ww -z -man "${pages[@]}" >"$tmp/groff.err" 2>&1 && [ ! -s "$tmp/groff.err" ] &&
		MANWIDTH=80 man --warnings -l "${pages[@]}" >"$tmp/man.out" 2>"$tmp/man.err" &&
		[ ! -s "$tmp/man.err" ]; then
		for n in $documented; do
			grep -qE "^ *$n +- " "$tmp/man.out" || fail "$n: man -l shows no '$n - summary'"
		done
	else
		for page in "${pages[@]}"; do
			render "$page" "$(basename "$page" .3)"
		done
	fi
fi
for page in "$tmp"/build/man/man3/*.3; do
	[ -e "$page" ] || continue
	n=$(basename "$page" .3)
	grep -qx "$n" <<<"$documented" || fail "page $n.3 without a documented function"
done
nd=$(grep -c . <<<"$documented")
nu=$(grep -c . <<<"$undocumented")
ok "$nd documented public functions rendered (groff -ww, man -l)"

# 3. make install puts them under share/man/man3.
if [ "$nd" -gt 0 ]; then
	stage=$tmp/stage
	if make -s -j"$(nproc)" install DESTDIR="$stage" PREFIX=/usr/local >"$tmp/install.out" 2>&1; then
		for n in $documented; do
			[ -f "$stage/usr/local/share/man/man3/$n.3" ] || fail "install: no share/man/man3/$n.3"
		done
		ok "make install: $(find "$stage/usr/local/share/man/man3" -name '*.3' | wc -l) pages in share/man/man3"
	else
		fail "make install: $(tail -n 5 "$tmp/install.out")"
	fi
fi

echo "public functions: $((nd + nu)), documented: $nd, undocumented: $nu"
[ "$nu" -gt 0 ] && echo "undocumented: $(tr '\n' ' ' <<<"$undocumented")"
if [ $fails -ne 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "man: all checks passed"
