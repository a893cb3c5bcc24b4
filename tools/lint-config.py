#!/usr/bin/env python3
"""make lint: the hypervisor's command-line keys as docs/config.md documents them against the
table they are checked with (`keys[]` in core/bootargs.c: name, kind, min, max, default; the
bounds are C expressions over the headers' #defines). Every key of the table must have a row
in the doc's key table, every row a key; a numeric key's row must give its range as
`min..max` and its default as the first number of the default column; a key of any value
must not have a numeric range. Also every "`NAME` = value" the doc states must be the
headers' value. Prints one line per difference; exit 1 when any."""
import re
import sys

from lintlib import c_int, defines, doc_constants, doc_number, header_defines, read, report

TABLE = "core/bootargs.c"
DOC = "docs/config.md"
KEY_RE = re.compile(r'\{\s*"([^"]+)"\s*,\s*CMDKEY_(\w+)\s*,\s*([^,]+),\s*([^,]+),\s*([^}]+)\}')


def table_keys(defs):
    src = read(TABLE)
    body = src[src.index("keys[] = {"):]
    body = body[:body.index("\n};")]
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
    keys = {}
    for name, kind, lo, hi, dflt in KEY_RE.findall(body):
        keys[name] = (kind, c_int(lo, defs), c_int(hi, defs), c_int(dflt, defs))
    return keys


def doc_keys():
    """{key: (range cell, default cell)} from the doc's table whose header starts `| key |`."""
    text = read(DOC)
    start = text.index("| key | range | default |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for key in re.findall(r"`([^`]+)`", cells[0]):
            rows[key] = (cells[1], cells[2])
    return rows


def main():
    defs = header_defines()
    defs.update({k: v for k, v in defines([TABLE]).items() if v is not None})
    keys, rows = table_keys(defs), doc_keys()
    bad = []
    for name, (kind, lo, hi, dflt) in sorted(keys.items()):
        if name not in rows:
            what = f" ({lo}..{hi}, default {dflt})" if kind == "U64" else ""
            bad.append(f"config: {TABLE} has key {name}{what}, which {DOC} does not document")
            continue
        rng, dcell = rows[name]
        m = re.match(r"\s*([0-9][0-9x,^A-Fa-f]*(?:-[0-9]+)?)\.\.([0-9][0-9x,^A-Fa-f]*(?:-[0-9]+)?)", rng)
        if kind != "U64":
            if m:
                bad.append(f"config: {name}: {DOC} gives the range {m.group(0).strip()}, "
                           f"but {TABLE} takes any value")
            continue
        said = (doc_number(m.group(1)), doc_number(m.group(2))) if m else None
        if said != (lo, hi):
            shown = m.group(0).strip() if m else f"'{rng}'"
            bad.append(f"config: {name}: {DOC} gives the range {shown}, {TABLE} {lo}..{hi}")
        d = re.match(r"\s*(0x[0-9a-fA-F]+|[0-9][0-9,^]*(?:-[0-9]+)?)", dcell)
        if not d or doc_number(d.group(1)) != dflt:
            bad.append(f"config: {name}: {DOC} gives the default '{dcell}', {TABLE} {dflt}")
    for name in sorted(set(rows) - set(keys)):
        bad.append(f"config: {DOC} documents {name}, which {TABLE} does not have")
    bad += doc_constants(DOC, defs, "config")
    return report(bad)


if __name__ == "__main__":
    sys.exit(main())
