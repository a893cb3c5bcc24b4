#!/usr/bin/env python3
"""make lint: the hypercall table of record (docs/hypercalls.md: rows `| nr | `HC_NAME` |`)
against the numbers the ABI headers define (include/sliver/*.h: every HC_* define but the
limits below). Each call must have one row with its number, each row a call; also every
"`NAME` = value" the doc states must be the headers' value. Prints one line per difference;
exit 1 when any."""
import re
import sys

from lintlib import DEFINE_RE, c_int, doc_constants, header_defines, read, report, tracked

DOC = "docs/hypercalls.md"
# HC_* names that are limits, not calls (the doc cites them as "`NAME` = value").
LIMITS = {"HC_NR", "HC_PRIV_FIRST", "HC_PRIV_END", "HC_CONSOLE_MAX"}
ROW_RE = re.compile(r"^\|\s*([0-9]+)\s*\|\s*`(HC_\w+)`\s*\|", re.M)


def main():
    defs = header_defines()
    calls = {}
    for h in tracked("include/sliver/*.h"):
        for name, val in DEFINE_RE.findall(read(h)):
            if name.startswith("HC_") and name not in LIMITS:
                calls[name] = (c_int(val, defs), h)
    rows = {}
    bad = []
    for nr, name in ROW_RE.findall(read(DOC)):
        if name in rows:
            bad.append(f"hypercalls: {DOC} has two rows for {name}")
        rows[name] = int(nr)
    for name, (nr, h) in sorted(calls.items(), key=lambda kv: (kv[1][0] is None, kv[1][0] or 0)):
        if name not in rows:
            bad.append(f"hypercalls: {h} defines {name} = {nr}, which {DOC} has no row for")
        elif rows[name] != nr:
            bad.append(f"hypercalls: {name} is {rows[name]} in {DOC}, {nr} in {h}")
    for name in sorted(set(rows) - set(calls)):
        bad.append(f"hypercalls: {DOC} has a row for {name} ({rows[name]}), which "
                   "include/sliver/ does not define")
    numbers = {}
    for name, nr in rows.items():
        if nr in numbers:
            bad.append(f"hypercalls: {DOC} gives {numbers[nr]} and {name} the same number {nr}")
        numbers[nr] = name
    bad += doc_constants(DOC, defs, "hypercalls")
    return report(bad)


if __name__ == "__main__":
    sys.exit(main())
