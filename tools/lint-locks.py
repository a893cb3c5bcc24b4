#!/usr/bin/env python3
"""make lint: the lock classes of lib/lockranks.c and the "Locking" table at the top of
core/sched_door.c name the same locks with the same ranks (one line per difference)."""
import re, sys

ranks = dict(re.findall(r'lock_class lock_\w+ = \{"(\w+)", (\d+),', open("lib/lockranks.c").read()))
head = open("core/sched_door.c").read().split("*/", 1)[0]
table = dict(re.findall(r"^ \*   (\w+)(?:\[p\])?\s+(\d+)  ", head, re.M))
bad = 0
for name in sorted(set(ranks) | set(table)):
    if ranks.get(name) != table.get(name):
        print(f"lint-locks: {name}: lib/lockranks.c rank {ranks.get(name, '-')}, "
              f"core/sched_door.c Locking table {table.get(name, '-')}")
        bad += 1
sys.exit(1 if bad else 0)
