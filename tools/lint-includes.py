#!/usr/bin/env python3
"""make lint: each folder README's include rule against the #include lines of the files it
governs. The rule is the README's line that starts `May include:`; every backticked item on
that line is one allowance (prose goes on the next lines):
  `dir/`        any file under dir/, subfolders too
  `dir/*.h`     the headers directly in dir/
  `dir/file.h`  that file
  `name.h`      (no slash) the system header <name.h>; when a rule names none, <...> may be
                any freestanding C header
A file may always include the files of its own folder. A README governs the files of its
folder and of the subfolders without a rule of their own. Prints one line per include that
no rule allows, per allowed path that does not exist and per allowed single file that none
of the README's files includes (a stale allowance); exit 1 when any."""
import os
import re
import sys

from lintlib import ROOT, includes, report, sources, tracked

FREESTANDING = {"stdint.h", "stddef.h", "stdbool.h", "stdarg.h", "stdnoreturn.h",
                "stdalign.h", "limits.h", "float.h", "iso646.h"}
RULE_RE = re.compile(r"^May include:(.*)$", re.M)


def rules():
    """{folder: (readme, [items])} for every README with a May include: line."""
    out = {}
    for readme in tracked("*README.md"):
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            m = RULE_RE.search(f.read())
        if m:
            out[os.path.dirname(readme)] = (readme, re.findall(r"`([^`]+)`", m.group(1)))
    return out


def governing(path, rs):
    d = os.path.dirname(path)
    while True:
        if d in rs:
            return d
        if not d:
            return None
        d = os.path.dirname(d)


def allowed(item, target):
    if item.endswith("/"):
        return target.startswith(item)
    if item.endswith("/*.h"):
        return os.path.dirname(target) == item[:-4] and target.endswith(".h")
    return target == item


def main():
    rs = rules()
    bad = []
    for folder, (readme, items) in sorted(rs.items()):
        for item in items:
            if "/" in item and not os.path.exists(os.path.join(ROOT, item.split("*")[0])):
                bad.append(f"includes: {readme} allows `{item}`, which does not exist")
    used = set()  # (folder, included file)
    for path in sources():
        folder = governing(path, rs)
        if folder is None:
            continue
        readme, items = rs[folder]
        system = {i for i in items if "/" not in i} or FREESTANDING
        for kind, name, target in includes(path):
            if kind == "<":
                ok = name in system
                shown = f"<{name}>"
            elif target is None:
                ok, shown = False, f'"{name}" (no such file)'
            else:
                ok = os.path.dirname(target) == os.path.dirname(path) or any(
                    allowed(i, target) for i in items if "/" in i)
                shown = target
                used.add((folder, target))
            if not ok:
                bad.append(f"includes: {path} includes {shown}, which {readme} does not allow")
    for folder, (readme, items) in sorted(rs.items()):
        for item in items:
            if "/" in item and not item.endswith(("/", "/*.h")) and (folder, item) not in used:
                bad.append(f"includes: {readme} allows {item}, which none of its files includes")
    return report(bad)


if __name__ == "__main__":
    sys.exit(main())
