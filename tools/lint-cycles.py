#!/usr/bin/env python3
"""make lint: the include cycles among core/'s files. A module is a file without its
extension (core/timer.c and core/timer.h are core/timer), and a module's private header is
part of it (core/sched_door_priv.h is core/sched_door: the inside its files share, which its
public header's file includes); module A depends on B when a file of A includes a header of
B. A cycle is a strongly connected set of modules. Prints one line
per set (its modules), then fails on every dependency that closes a cycle and is not listed
in tools/include-cycles.allow (one `core/a -> core/b` a line: the cycles of the day the list
was written, which the layering work removes), printing that cycle, and on every listed
dependency no longer on a cycle (remove it from the list, so that it cannot come back).
`--write` rewrites the list from the tree.
It also fails on a call cycle among core/'s files when the objects of a build are there
(build/hv/core/*.o, read with nm; `make test` builds them before lint): a file depends on
the file that defines a symbol it uses. There is none: core/ is in layers (core/README.md,
"Layers"), and most core/ files share one header (vmm.h), so a knot would show among the
calls and not among the includes."""
import glob
import os
import subprocess
import sys

from lintlib import ROOT, includes, report, sources

ALLOW = "tools/include-cycles.allow"
SCOPE = "core/"


def module(path):
    m = os.path.splitext(path)[0]
    return m[: -len("_priv")] if m.endswith("_priv") else m


def graph():
    deps = {}
    for path in sources():
        if not path.startswith(SCOPE):
            continue
        a = module(path)
        deps.setdefault(a, set())
        for _, _, target in includes(path):
            if target and target.startswith(SCOPE):
                b = module(target)
                if b != a:
                    deps[a].add(b)
                    deps.setdefault(b, set())
    return deps


def strongly_connected(deps):
    """Tarjan's algorithm, iterative: the sets of modules that reach each other."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(deps):
        if root in index:
            continue
        work = [(root, iter(sorted(deps[root])))]
        index[root] = low[root] = n[0]
        n[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]
                    n[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=lambda c: (-len(c), c))


def call_graph():
    """{core/<file>: files it calls or whose data it uses}, from the last build's objects."""
    defs, refs = {}, {}
    objs = sorted(glob.glob(os.path.join(ROOT, "build/hv", SCOPE, "*.o")))
    if not objs:
        return {}
    out = subprocess.run(["nm", "-A", *objs], capture_output=True, text=True).stdout
    for line in out.splitlines():  # <object>:<value> <type> <name>, or <object>: U <name>
        obj, _, rest = line.partition(": ") if ": " in line else line.partition(":")
        m = SCOPE + os.path.basename(obj)[:-2]
        refs.setdefault(m, set())
        f = rest.split()
        if len(f) == 2 and f[0] == "U":
            refs[m].add(f[1])
        elif len(f) == 3 and f[1] in "TDBRC":
            defs[f[2]] = m
    return {m: {defs[s] for s in r if s in defs and defs[s] != m} for m, r in refs.items()}


def path(deps, src, dst, within):
    """A shortest dependency path src -> ... -> dst inside a set of modules."""
    prev, frontier = {src: None}, [src]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(deps[v]):
                if w in within and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    out, v = [], dst
    while v is not None:
        out.append(v)
        v = prev[v]
    return out[::-1]


def main():
    deps = graph()
    comps = strongly_connected(deps)
    on_cycle = {(a, b) for c in comps for a in c for b in deps[a] if b in c}
    if sys.argv[1:] == ["--write"]:
        with open(os.path.join(ROOT, ALLOW), "w") as f:
            f.write("# Include dependencies among core/ modules that lie on a cycle, as the tree "
                    "had them\n# (tools/lint-cycles.py --write). make lint fails on one not "
                    "listed here, and on a\n# listed one no longer on a cycle: the list only "
                    "shrinks.\n")
            f.writelines(f"{a} -> {b}\n" for a, b in sorted(on_cycle))
        return 0
    allow = set()
    with open(os.path.join(ROOT, ALLOW)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                a, b = (x.strip() for x in line.split("->"))
                allow.add((a, b))
    for c in comps:
        print(f"include-cycles: {len(c)} core/ modules on cycles: "
              + " ".join(m[len(SCOPE):] for m in c))
    bad = []
    for a, b in sorted(on_cycle - allow):
        c = next(c for c in comps if a in c)
        cyc = [a] + path(deps, b, a, set(c))
        bad.append(f"include-cycles: new cycle {' -> '.join(cyc)} ({a} -> {b} is not in {ALLOW})")
    for a, b in sorted(allow - on_cycle):
        why = "no longer on a cycle" if b in deps.get(a, ()) else "no longer a dependency"
        bad.append(f"include-cycles: {ALLOW} lists {a} -> {b}, {why}: remove it")
    calls = call_graph()
    if not calls:
        print("include-cycles: call cycles not checked: no build/hv/core objects (make all)")
    for c in strongly_connected(calls):
        bad.append(f"include-cycles: {len(c)} core/ files call each other in a circle "
                   "(build/hv objects): " + " ".join(m[len(SCOPE):] for m in c))
    return report(bad)


if __name__ == "__main__":
    sys.exit(main())
