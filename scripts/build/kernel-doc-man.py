#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Man pages (troff, section 3) from the kernel-doc comments of headers.

    kernel-doc-man.py [--version V] [--root INCDIR] --out DIR HEADER...   one DIR/NAME.3 per
                                                          documented function
    kernel-doc-man.py --list HEADER...                    "documented NAME" or
                                                          "undocumented NAME",
                                                          one per public function

A public function is a vs_* function (not vs__*) declared or defined inline
at file scope of a header.  Its comment is the /** ... */ right before it:

    /**
     * vs_name() - one-line summary
     * @arg: what it is (continued on lines
     *       indented further)
     *
     * Description, in paragraphs.
     *
     * Return: what it returns.   (also Errors:, Context:, Note: ...)
     */

Exit 1 (each problem named FILE:LINE: ...) when a comment is malformed:
no "NAME() - summary" line, a name that is not the function that follows,
an @argument that the prototype lacks or a parameter without its
@argument, a non-void function without Return:.  Standard library only.
"""
import argparse
import os
import re
import sys

SECTIONS = {  # "Word:" starting a line of the comment -> man section
    "return": "RETURN VALUE", "returns": "RETURN VALUE",
    "errors": "ERRORS", "error": "ERRORS", "context": "CONTEXT",
    "locking": "CONTEXT", "ownership": "OWNERSHIP", "note": "NOTES",
    "notes": "NOTES", "example": "EXAMPLE", "examples": "EXAMPLE",
}
ORDER = ["RETURN VALUE", "ERRORS", "OWNERSHIP", "CONTEXT", "NOTES", "EXAMPLE"]
SECTION_RE = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*(.*)$")
FUNC_HEAD_RE = re.compile(r"^(\w+)\s*(\(\))?\s+-\s+(.*)$")
OTHER_HEAD_RE = re.compile(r"^(struct|union|enum|typedef)\s+\w+\s+-\s+\S|^DOC:")


class Problem(Exception):
    pass


def blank(text, start, end):
    """text with [start, end) replaced by spaces, newlines kept."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def scan(path):
    """(comments, declarations) of a header.

    comments: [(start, end, body_lines, line_no)] of /** */ comments;
    declarations: [(start, line_no, name, prototype, is_void)].
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    comments, code = [], text
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                         text, re.S):
        s = m.group(0)
        if s.startswith("/**") and not s.startswith("/**/"):
            comments.append((m.start(), m.end(), s, text.count("\n", 0, m.start()) + 1))
        if s.startswith("/"):
            code = blank(code, m.start(), m.end())
    # Preprocessor lines, with their continuations.
    for m in re.finditer(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", code, re.M):
        code = blank(code, m.start(), m.end())
    # Macros alone on their line (VS_BEGIN_DECLS): no statement of their own.
    for m in re.finditer(r"^[ \t]*[A-Z_][A-Z0-9_]*[ \t]*$", code, re.M):
        code = blank(code, m.start(), m.end())
    # Macro invocations alone on their line (VS__QP_ACCESSORS(rc, ...)):
    # they expand to definitions and end no statement with ';'.
    for m in re.finditer(r"^[ \t]*[A-Z_][A-Z0-9_]*\([^;\n]*\)[ \t]*$", code, re.M):
        code = blank(code, m.start(), m.end())
    decls, depth, stmt_start, i = [], 0, None, 0
    aggregate = False   # the statement has a struct/enum/initializer body
    while i < len(code):
        c = code[i]
        if depth == 0 and stmt_start is None and not c.isspace() and c not in ";}":
            stmt_start = i
        if c == "{":
            stmt = code[stmt_start:i] if stmt_start is not None else ""
            if depth == 0 and re.fullmatch(r'\s*extern\s+"C"\s*', stmt):
                stmt_start = None   # the C++ linkage block is file scope
            elif depth == 0 and stmt.rstrip().endswith(")"):
                decls.append((stmt_start, stmt))   # an inline definition
                depth, stmt_start = 1, None
                i += 1
                while i < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[i], 0)
                    i += 1
                continue
            else:
                aggregate |= depth == 0
                depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == ";" and depth == 0:
            if stmt_start is not None and not aggregate:
                decls.append((stmt_start, code[stmt_start:i]))
            stmt_start, aggregate = None, False
        i += 1
    out = []
    for start, stmt in decls:
        fn = function_of(stmt)
        if fn:
            line = text.count("\n", 0, start) + 1
            out.append((start, line) + fn)
    return text, comments, out


def strip_attributes(s):
    """Without storage class, VS_* attribute macros and __attribute__(())."""
    s = re.sub(r"\b(static|inline|extern|VS_INLINE)\b", " ", s)
    for pat in (r"__attribute__\s*\(", r"\bVS_[A-Z0-9_]+\s*\(", r"(?<!\[)\bVS_[A-Z0-9_]+\b(?!\s*\])"):
        while True:
            m = re.search(pat, s)
            if not m:
                break
            end = m.end()
            if s[end - 1] == "(":
                depth = 1
                while end < len(s) and depth:
                    depth += {"(": 1, ")": -1}.get(s[end], 0)
                    end += 1
            s = s[:m.start()] + " " + s[end:]
    return " ".join(s.split())


def function_of(stmt):
    """(name, prototype, params, is_void) of a vs_ function declaration."""
    s = strip_attributes(stmt)
    if s.startswith("typedef") or re.match(r"(struct|union|enum)\s+\w*\s*$", s):
        return None
    m = re.search(r"\b(vs_\w+)\s*\(", s)
    if not m or m.group(1).startswith("vs__") or "=" in s[:m.start()]:
        return None
    # "(*vs_cb)(...)" is a pointer, not a function.
    if re.search(r"\(\s*\*\s*$", s[:m.start()]):
        return None
    ret = s[:m.start()].strip()
    if not ret:
        return None
    depth, j = 0, m.end() - 1
    for j in range(m.end() - 1, len(s)):
        depth += {"(": 1, ")": -1}.get(s[j], 0)
        if depth == 0:
            break
    args = s[m.end():j]
    params = []
    for a in split_top(args):
        a = a.strip()
        if a in ("", "void"):
            continue
        if a == "...":
            params.append("...")
            continue
        pm = re.search(r"\(\s*\*\s*(\w+)\s*\)", a) or re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", a)
        params.append(pm.group(1) if pm else a)
    proto = (ret + (" " if not ret.endswith("*") else "") + m.group(1) + "(" +
             ", ".join(x.strip() for x in split_top(args)) + ");")
    return m.group(1), proto, params, ret == "void"


def split_top(args):
    out, depth, cur = [], 0, ""
    for c in args:
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        cur += c
    if cur.strip():
        out.append(cur)
    return out


def comment_lines(raw):
    """The text lines of a /** */ comment, without the leading " * "."""
    body = raw[3:-2]
    lines = body.split("\n")
    out = []
    for ln in lines:
        ln = re.sub(r"^\s*\*( |$)", "", ln.rstrip(), count=1) if ln.strip().startswith("*") else ln.strip()
        out.append(ln)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def parse_comment(raw, line_no, where):
    """{'name', 'summary', 'params': [(name, text)], 'desc': [lines],
    'sections': {title: [lines]}} of a function's comment."""
    lines = comment_lines(raw)
    if not lines:
        raise Problem(f"{where}:{line_no}: empty /** comment")
    head = FUNC_HEAD_RE.match(lines[0].strip())
    if not head or not head.group(3).strip():
        raise Problem(f"{where}:{line_no}: the first line of a /** comment must "
                      f"be 'NAME() - summary', not '{lines[0].strip()}'")
    doc = {"name": head.group(1), "summary": head.group(3).strip(),
           "params": [], "desc": [], "sections": {}}
    cur = None   # list the lines go to
    for ln in lines[1:]:
        pm = re.match(r"^@(\w+|\.\.\.)\s*:\s*(.*)$", ln)
        sm = SECTION_RE.match(ln)
        if pm and not doc["desc"] and not doc["sections"]:
            doc["params"].append([pm.group(1), [pm.group(2)]])
            cur = doc["params"][-1][1]
        elif sm and sm.group(1).lower() in SECTIONS:
            cur = doc["sections"].setdefault(SECTIONS[sm.group(1).lower()], [])
            if cur:
                cur.append("")
            cur.append(sm.group(2))
        elif cur is not None and doc["params"] and cur is doc["params"][-1][1] and ln.strip():
            cur.append(ln.strip())       # an argument's continuation
        else:
            if cur is None or cur is (doc["params"][-1][1] if doc["params"] else None):
                cur = doc["desc"]
            cur.append(ln)
    return doc


def esc(s):
    s = s.replace("\\", "\\e")
    return s


def inline(s, params):
    """Kernel-doc markup in running text to troff fonts."""
    s = esc(s)
    s = re.sub(r"\b(\w+)\(\)", r"\\fB\1\\fP()", s)
    s = re.sub(r"(?<![\w@])@(\w+)", r"\\fI\1\\fP", s)
    s = re.sub(r"%([A-Za-z_]\w*)", r"\\fB\1\\fP", s)
    s = re.sub(r"&((?:struct|union|enum)\s+\w+)", r"\\fI\1\\fP", s)
    return s


def paragraphs(lines, params):
    """troff of description lines: blank line = new paragraph, indented
    lines (a tab or two spaces) kept as they are."""
    out, pre = [], False
    for ln in lines:
        if not ln.strip():
            if pre:
                out += [".fi", ".RE"]
                pre = False
            out.append(".PP")
            continue
        if re.match(r"^(\t| {2,})", ln):
            if not pre:
                out += [".RS 4", ".nf"]
                pre = True
            t = esc(ln.strip())
        else:
            if pre:
                out += [".fi", ".RE"]
                pre = False
            t = inline(ln.strip(), params)
        out.append("\\&" + t if t[:1] in ".'" else t)
    if pre:
        out += [".fi", ".RE"]
    while out and out[0] == ".PP":
        out.pop(0)
    while out and out[-1] == ".PP":
        out.pop()
    # Collapse repeated paragraph breaks.
    return [x for k, x in enumerate(out) if not (x == ".PP" and k and out[k - 1] == ".PP")]


def synopsis(proto, params):
    s = esc(proto)
    for p in params:
        if p != "...":
            s = re.sub(r"\b%s\b(?=\s*[,)\[])" % re.escape(p), r"\\fI%s\\fP" % p, s)
    return re.sub(r"\b(vs_\w+)\(", r"\\fB\1\\fP(", s, count=1)


def render(doc, decl, header, version, documented):
    name, proto, params, _ = decl
    out = [f'.TH {name.upper()} 3 "" "verbshim {version}" "verbshim Programmer\'s Manual"',
           ".SH NAME", f"{name} \\- {esc(doc['summary'])}",
           ".SH SYNOPSIS", ".nf", f".B #include <{header}>", ".PP",
           synopsis(proto, params), ".fi"]
    if doc["params"]:
        out.append(".SH ARGUMENTS")
        for p, text in doc["params"]:
            t = inline(" ".join(t for t in text if t), params)
            out += [".TP", f"\\fI{esc(p)}\\fP", "\\&" + t if t[:1] in ".'" else t]
    desc = paragraphs(doc["desc"], params)
    if desc:
        out += [".SH DESCRIPTION"] + desc
    for title in ORDER:
        if title in doc["sections"]:
            out += [f".SH {title}"] + paragraphs(doc["sections"][title], params)
    text = " ".join(doc["desc"] + [" ".join(t) for _, t in doc["params"]] +
                    [" ".join(v) for v in doc["sections"].values()])
    refs = sorted({r for r in re.findall(r"\b(vs_\w+)\(\)", text)
                   if r != name and r in documented})
    if refs:
        out += [".SH SEE ALSO", ",\n".join(f".BR {r} (3)" for r in refs)]
    return "\n".join(out) + "\n"


def include_name(path, root):
    """How a program includes the header: relative to root, else to the
    last include/ directory of its path, else its file name."""
    path = path.replace(os.sep, "/")
    if root:
        return os.path.relpath(path, root).replace(os.sep, "/")
    m = re.search(r"(?:^|/)include/(.*)$", path)
    return m.group(1) if m else os.path.basename(path)


def collect(headers, root=None):
    """[(header, decl, doc or None)] and the list of problems."""
    found, problems = [], []
    for path in headers:
        where = path
        inc = include_name(path, root)
        text, comments, decls = scan(path)
        used = set()
        for start, line, name, proto, params, is_void in decls:
            doc = None
            for k, (cs, ce, raw, cl) in enumerate(comments):
                # only attribute macros alone on their lines (VS_MUST_CHECK)
                # may stand between a comment and its declaration
                if ce <= start and re.fullmatch(r"(?:\s*[A-Z_][A-Z0-9_]*)*\s*",
                                                text[ce:start]):
                    used.add(k)
                    try:
                        doc = parse_comment(raw, cl, where)
                    except Problem as e:
                        problems.append(str(e))
                        doc = False
                        break
                    if doc["name"] != name:
                        problems.append(f"{where}:{cl}: the comment documents "
                                        f"{doc['name']}() but precedes {name}()")
                        doc = False
                        break
                    got = [p for p, _ in doc["params"]]
                    for p in got:
                        if p not in params:
                            problems.append(f"{where}:{cl}: {name}(): @{p} is not a parameter")
                    for p in params:
                        if p not in got:
                            problems.append(f"{where}:{cl}: {name}(): parameter {p} has no @{p}: line")
                    if len(set(got)) != len(got):
                        problems.append(f"{where}:{cl}: {name}(): an @argument is described twice")
                    if not is_void and "RETURN VALUE" not in doc["sections"]:
                        problems.append(f"{where}:{cl}: {name}() returns a value: the comment needs 'Return:'")
            found.append((inc, (name, proto, params, is_void), doc))
        for k, (cs, ce, raw, cl) in enumerate(comments):
            first = (comment_lines(raw) or [""])[0].strip()
            if k in used or OTHER_HEAD_RE.match(first):
                continue
            head = FUNC_HEAD_RE.match(first)
            if head:
                problems.append(f"{where}:{cl}: the comment documents {head.group(1)}() "
                                "but no function declaration follows it")
            else:
                problems.append(f"{where}:{cl}: a /** comment must start with "
                                f"'NAME() - summary' (or struct/enum/DOC:), not '{first}'")
    return found, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="directory of the NAME.3 pages")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--version", default="")
    ap.add_argument("--root", help="the directory #include paths start from "
                    "(default: the header's last include/ directory)")
    ap.add_argument("headers", nargs="+")
    a = ap.parse_args()
    found, problems = collect(a.headers, a.root)
    for p in problems:
        print(p, file=sys.stderr)
    if a.list:
        seen = set()
        for _, (name, *_), doc in found:
            if name not in seen:
                seen.add(name)
                print(("documented " if doc else "undocumented ") + name)
    if a.out:
        documented = {d[0] for _, d, doc in found if doc}
        os.makedirs(a.out, exist_ok=True)
        for inc, decl, doc in found:
            if not doc:
                continue
            tmp = os.path.join(a.out, f".{decl[0]}.3.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(render(doc, decl, inc, a.version, documented))
            os.replace(tmp, os.path.join(a.out, decl[0] + ".3"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
