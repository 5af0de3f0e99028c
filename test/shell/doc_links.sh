#!/usr/bin/env bash
# Every relative link of the project's markdown (README.md, CHANGES.md,
# docs/*.md) resolves: the file or directory exists in the repository, and
# an anchor (#name, here or in another .md) is one of that file's headings,
# spelled as GitHub spells them.  Links in code blocks and code spans are
# not links; http(s) and mailto links are not checked (no network).
set -euo pipefail
cd "$(dirname "$0")/../.."
files=(README.md docs/*.md)
[ -f CHANGES.md ] && files+=(CHANGES.md)
python3 - "${files[@]}" <<'PY'
import os, re, sys

def strip_code(text):
    out, fence = [], False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "", line))
    return out

def anchors(path):
    # headings keep their code spans' text in the slug: read them unstripped
    seen, result, fence = {}, set(), False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = m.group(1).lower()
        s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
        s = re.sub(r"[^\w\- ]", "", s).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        result.add(s if n == 0 else f"{s}-{n}")
    return result

bad = checked = 0
for f in sys.argv[1:]:
    for ln, line in enumerate(strip_code(open(f, encoding="utf-8").read()), 1):
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if re.match(r"^(https?|mailto):", target):
                continue
            checked += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(dest):
                print(f"{f}:{ln}: {target}: no such file or directory ({dest})")
                bad += 1
                continue
            if os.path.relpath(dest).startswith(".."):
                print(f"{f}:{ln}: {target}: outside the repository")
                bad += 1
                continue
            if frag and dest.endswith(".md") and frag not in anchors(dest):
                print(f"{f}:{ln}: {target}: no heading \"#{frag}\" in {dest}")
                bad += 1
print(f"{checked} relative links in {len(sys.argv) - 1} files, {bad} broken")
sys.exit(1 if bad else 0)
PY
