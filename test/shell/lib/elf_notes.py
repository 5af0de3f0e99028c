#!/usr/bin/env python3
"""Read the ELF notes of a binary without binutils, checking the layout the
ELF dlopen metadata spec asks for (test/shell/elf_notes.sh).

  elf_notes.py FILE...   one line per .note.dlopen entry and per verbshim
                         table note: "FILE dlopen SONAME PRIORITY FEATURE",
                         "FILE table LIB SONAME NODES_USED"; a layout error
                         is "FILE error WHAT" (exit 1).
"""
import json
import struct
import sys

SHT_NOTE, SHF_ALLOC = 7, 2
DLOPEN_TYPE = 0x407C0C0A
PRIORITIES = {"required", "recommended", "suggested"}


def sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    strtab = hdrs[shstrndx]
    for h in hdrs:
        name = data[strtab[4] + h[0]:].split(b"\0", 1)[0].decode()
        yield name, h


def notes(data, h, errors, where):
    """The notes of one section: (owner, type, desc), checking alignment and
    zero padding."""
    _, stype, flags, _, off, size, _, _, align, _ = h
    if stype != SHT_NOTE:
        errors.append(f"{where}: section type {stype}, not SHT_NOTE")
    if not flags & SHF_ALLOC:
        errors.append(f"{where}: not allocated (strip would drop it)")
    if align != 4:
        errors.append(f"{where}: aligned to {align}, the spec says 4")
    pos, end = off, off + size
    while pos < end:
        namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
        name_at = pos + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        nxt = desc_at + (descsz + 3) // 4 * 4
        if nxt > end:
            errors.append(f"{where}: a note runs past the section's end")
            return
        for a, b in ((name_at + namesz, desc_at), (desc_at + descsz, nxt)):
            if any(data[a:b]):
                errors.append(f"{where}: padding is not zero")
        owner = data[name_at:name_at + namesz]
        if not owner.endswith(b"\0"):
            errors.append(f"{where}: owner not NUL-terminated")
        yield owner.rstrip(b"\0").decode(), ntype, data[desc_at:desc_at + descsz]
        pos = nxt


def dlopen_entries(desc, errors, where):
    if not desc.endswith(b"\0") or b"\0" in desc[:-1]:
        errors.append(f"{where}: descriptor is not one NUL-terminated string")
    try:
        doc = json.loads(desc.rstrip(b"\0").decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        errors.append(f"{where}: not JSON: {e}")
        return
    if not isinstance(doc, list):
        errors.append(f"{where}: JSON is not an array")
        return
    for e in doc:
        ok = (isinstance(e, dict) and isinstance(e.get("soname"), list)
              and e["soname"] and all(isinstance(s, str) for s in e["soname"])
              and isinstance(e.get("feature"), str)
              and isinstance(e.get("description"), str)
              and e.get("priority") in PRIORITIES)
        if not ok:
            errors.append(f"{where}: bad entry {e!r}")
            continue
        yield e


def table(desc, errors, where):
    lines = desc.rstrip(b"\0").decode().splitlines()
    head = lines[0].split() if lines else []
    if len(head) != 3 or head[0] != "lib":
        errors.append(f"{where}: table note without its lib line")
        return None
    nodes = {l.split()[1]: l.split()[2] for l in lines if l.startswith("node ")}
    used = set()
    for l in lines:
        if l.startswith("sym "):
            f = l.split()
            if len(f) != 3 or f[2] not in nodes:
                errors.append(f"{where}: {l!r} names no node of the note")
            else:
                used.add(nodes[f[2]])
    return head[1], head[2], ",".join(sorted(used))


def main(files):
    status = 0
    for path in files:
        errors = []
        with open(path, "rb") as f:
            data = f.read()
        for name, h in sections(data):
            where = f"{path} {name}"
            if name == ".note.dlopen":
                for owner, ntype, desc in notes(data, h, errors, where):
                    if owner != "FDO" or ntype != DLOPEN_TYPE:
                        errors.append(f"{where}: owner {owner} type {ntype:#x}")
                        continue
                    for e in dlopen_entries(desc, errors, where):
                        for so in e["soname"]:
                            print(path, "dlopen", so, e["priority"], e["feature"])
            elif name == ".note.verbshim":
                for owner, ntype, desc in notes(data, h, errors, where):
                    t = table(desc, errors, where) if owner == "verbshim" else None
                    if t:
                        print(path, "table", *t)
        for e in errors:
            print(path, "error", e)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
