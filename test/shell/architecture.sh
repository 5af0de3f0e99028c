#!/usr/bin/env bash
# docs/ARCHITECTURE.md is the map of the house: every file that git tracks
# under include/, lib/, shim/, tools/, scripts/, examples/ and bench/ must be
# named in it (in backquotes; {a,b} expands as in the shell), and every
# such name must exist.  Also: every lib/ room of lib_cycles.sh's ROOMS is
# in the map with its header, and each lib/ROOM/*.c includes its own
# room's header and no other room's.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
rooms=$(sed -n 's/^ROOMS="\(.*\)"$/\1/p' test/shell/lib_cycles.sh)
[ -n "$rooms" ] || { echo "no ROOMS line in test/shell/lib_cycles.sh"; exit 1; }
git ls-files include lib shim tools scripts examples bench >/dev/null 2>&1 ||
	{ echo "skip: not a git checkout (the map is checked against git's files)"; exit 77; }
ROOMS=$rooms python3 - <<'PY'
import os, re, subprocess, sys

doc = open('docs/ARCHITECTURE.md').read()
dirs = ('include/', 'lib/', 'shim/', 'tools/', 'scripts/', 'examples/', 'bench/')

def expand(tok):
    m = re.search(r'\{([^{}]*)\}', tok)
    if not m:
        return [tok]
    out = []
    for alt in m.group(1).split(','):
        out += expand(tok[:m.start()] + alt + tok[m.end():])
    return out

named = set()
for tok in re.findall(r'`([^`\s]+)`', doc):
    # placeholders of the how-to lists (NAME, globs) name no file
    if tok.startswith(dirs) and 'NAME' not in tok and '*' not in tok:
        named.update(expand(tok))
tracked = set(subprocess.check_output(['git', 'ls-files', '--cached', '--others', '--exclude-standard', *dirs]).decode().split())
tracked = {f for f in tracked if os.path.exists(f)}
# named directories (ending in /) cover nothing by themselves: files are named one by one
missing = sorted(f for f in tracked if f not in named)
ghosts = sorted(n for n in named if not n.endswith('/') and not os.path.exists(n))
bad = False
for f in missing:
    print(f'{f}: not named in docs/ARCHITECTURE.md (say where it belongs)')
    bad = True
for n in ghosts:
    print(f'docs/ARCHITECTURE.md names {n}, which does not exist')
    bad = True

rooms = os.environ['ROOMS'].split()
heads = {'cm': 'cm_internal.h'}
for r in rooms:
    h = f'lib/{r}/' + heads.get(r, f'{r}.h')
    if not os.path.exists(h):
        print(f'room {r}: no private header {h}'); bad = True
    if f'`{h}`' not in doc:
        print(f'room {r}: docs/ARCHITECTURE.md does not name {h}'); bad = True
    others = [f'lib/{o}/' + heads.get(o, f'{o}.h') for o in rooms if o != r]
    for c in sorted(f for f in tracked if f.startswith(f'lib/{r}/') and f.endswith('.c')):
        inc = re.findall(r'^#include "([^"]+)"', open(c).read(), re.M)
        if os.path.basename(h) not in inc:
            print(f'{c}: does not include its room\'s header {os.path.basename(h)}'); bad = True
        for i in inc:
            if i.startswith('../'):
                print(f'{c}: includes {i}: a file reaches other rooms through its own room\'s header'); bad = True
if bad:
    sys.exit(1)
print(f'docs/ARCHITECTURE.md names all {len(tracked)} files of {" ".join(d.rstrip("/") for d in dirs)}; '
      f'{len(rooms)} rooms, each file on its own room\'s header')
PY
