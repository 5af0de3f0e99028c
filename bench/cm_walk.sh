#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The walk of one vs_cm_accept (or vs_cm_connect): which source files it
# passes through, in order, line by line, under gdb (docs/bench-cm.md,
# "The walk of one accept").
#
#   bench/cm_walk.sh [FUNC] [-u]   boots the VM (scripts/vm-run.sh) and
#                                  follows FUNC (default vs_cm_accept;
#                                  vs_cm_connect) in build/bench/cm_walk;
#                                  -u: a UD connection instead of RC
#   VS_VM_PROVIDER=siw             on soft-iWARP's siw0 instead
#   VS_WALK_LINES=1                also print the stays of the second count
#   VS_WALK_BIN=PATH               another build of bench/cm_walk.c (an
#                                  older commit's, for a before and after)
#
# gdb stops at FUNC's first line and steps ("step": into every function
# with line information, over those without: librdmacm, libibverbs, libc)
# until FUNC returns, writing down each stop's file and line (the
# repository's files only: libc's lines, where gdb has them, are left
# out).  A stay is a run of consecutive stops in one file.  The binary is
# the default build (-O2 -g): a function inlined into another (a
# static inline of a header) runs as its caller's code, so the first count
# puts its lines in its caller's file; the second count puts them in
# their own file, as gdb's line table does.  Prints the stays of the
# first, each file and how often it was entered, and both counts.
# Figures, never judged.
set -euo pipefail
cd "$(dirname "$0")/.."
func=vs_cm_accept ud=
for a in "$@"; do
	case $a in
	-u) ud=-u ;;
	vs_cm_*) func=$a ;;
	*) echo "usage: bench/cm_walk.sh [vs_cm_accept|vs_cm_connect] [-u]" >&2; exit 2 ;;
	esac
done
bin=${VS_WALK_BIN:-build/bench/cm_walk}
[ -x "$bin" ] || { echo "$bin missing: make benches"; exit 1; }
if [ "${VERBSHIM_IN_VM:-}" != 1 ]; then
	exec scripts/vm-run.sh --timeout 900 -- bench/cm_walk.sh "$@"
fi
command -v gdb >/dev/null || { echo "no gdb"; exit 1; }
py=$(mktemp /tmp/cm_walk.XXXXXX.py)
trap 'rm -f "$py"' EXIT
cat >"$py" <<'EOF'
import gdb, os

func = os.environ["WALK_FUNC"]
repo = os.getcwd()
for c in ("set pagination off", "set confirm off", "set debuginfod enabled off",
          "set print thread-events off", "set width 0"):
    try:
        gdb.execute(c)
    except gdb.error:
        pass
gdb.execute("break " + func)
gdb.execute("run", to_string=True)
caller = gdb.selected_frame().older()
here = gdb.selected_thread()
lines, calls = [], []

def ours(sal):
    """The repository's file of sal, relative, else None (libc, ...)."""
    if not sal.symtab:
        return None
    fn = os.path.normpath(sal.symtab.filename)
    return fn if os.path.isfile(os.path.join(repo, fn)) else None

def note():
    f = gdb.selected_frame()
    fn = ours(f.find_sal())
    if fn is None:
        return
    lines.append((fn, f.find_sal().line))
    # the file of the function the code is compiled into (an inlined
    # call's first line may show before gdb shows its frame)
    while f.type() == gdb.INLINE_FRAME and f.older() is not None:
        f = f.older()
    fun = f.function()
    home = fn
    if fun and fun.symtab and fun.symtab.filename.endswith(".c"):
        home = os.path.normpath(fun.symtab.filename)
    calls.append((home, f.find_sal().line))

note()
gdb.execute("delete")
while True:
    gdb.execute("step", to_string=True)
    if gdb.selected_thread() != here:
        raise gdb.GdbError("another thread stopped")
    if gdb.selected_frame() == caller:
        break
    note()

def stays(stops):
    out = []
    for fn, line in stops:
        if out and out[-1][0] == fn:
            out[-1][1].append(line)
        else:
            out.append((fn, [line]))
    return out

def files(st):
    n = {}
    for fn, _ in st:
        n[fn] = n.get(fn, 0) + 1
    return n

by_call, by_line = stays(calls), stays(lines)
for i, (fn, ls) in enumerate(by_call, 1):
    print("stay %3d %s: %s" % (i, fn, " ".join(map(str, ls))))
if os.environ.get("WALK_LINES"):
    for i, (fn, ls) in enumerate(by_line, 1):
        print("line stay %3d %s: %s" % (i, fn, " ".join(map(str, ls))))
n = files(by_call)
for fn in sorted(n, key=lambda k: (-n[k], k)):
    print("entered %2d x %s" % (n[fn], fn))
print("walk: %s: %d stays through %d files (inlined functions in their "
      "caller's file), %d lines" % (func, len(by_call), len(n), len(calls)))
print("walk: %s: %d stays through %d files (inlined functions in their "
      "own file)" % (func, len(by_line), len(files(by_line))))
gdb.execute("continue", to_string=True)
EOF
out=$(mktemp /tmp/cm_walk.XXXXXX.out)
trap 'rm -f "$py" "$out"' EXIT
WALK_FUNC=$func WALK_LINES=${VS_WALK_LINES:-} gdb -q -batch -x "$py" --args "$bin" $ud "$VS_RXE_IP" >"$out" 2>&1 || true
grep -v '^\[\|^Breakpoint\|^Using host\|^warning: Error disabling' "$out"
# Stepping is slow: on a loaded host the kernel CM's own limit (about a
# minute) can end the request before the accept answers it, and the walk
# then follows the failure path instead.
grep -q 'connection made' "$out" ||
	{ echo "walk: the connection failed, so this walk is of a failure path: run it again"; exit 1; }
