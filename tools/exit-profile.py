#!/usr/bin/env python3
"""exit-profile.py: one exit round trip, instruction by instruction, per function.
EXIT_PROFILE_DUMP=fn1,fn2 (or all) also lists those functions' instructions in the order
they ran (under QEMU from sliver.elf's disassembly).

Reads an emulator's instruction trace of a guest that exits at the same guest RIP again and
again (guests/exitbench), cuts it into round trips at that RIP and prints, for the median
round trip, the instructions executed in the guest and in each hypervisor function (symbols
from sliver.elf), and under Bochs the VMREAD/VMWRITE instructions among them.

  exit-profile.py bochs TRACE SLIVER_ELF      Bochs debugger `trace on` output between
                                              breakpoint hits at the guest RIP (guest
                                              instructions: physical != linear address)
  exit-profile.py qemu MARKS SLIVER_ELF < LOG QEMU `-singlestep -d exec,nochain` log on
                                              stdin; MARKS: guest RIPs in hex, comma-
                                              separated, one profile each (guest
                                              instructions: hflags bit 21, HF_GUEST_MASK)
"""
import bisect
import collections
import os
import re
import subprocess
import sys


def symbols(elf):
    syms = []
    out = subprocess.run(['nm', '-n', elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.append((int(p[0], 16), p[2]))
    addrs = [a for a, _ in syms]
    cache = {}

    def name(pc):
        n = cache.get(pc)
        if n is None:
            i = bisect.bisect_right(addrs, pc) - 1
            n = cache[pc] = syms[i][1] if i >= 0 else '?'
        return n
    return name


class Trip:
    def __init__(self):
        self.lines = []  # Bochs: (function, address, instruction) in order
        self.fn = collections.Counter()
        self.vmread = collections.Counter()
        self.vmwrite = collections.Counter()
        self.guest = 0

    def total(self):
        return self.guest + sum(self.fn.values())


def bochs(path, name):
    rx = re.compile(r'^\(\d+\)\.\[\d+\] \[0x([0-9a-f]+)\] [0-9a-f]+:([0-9a-f]+) '
                    r'\(unk\. ctxt\): ((\S+).*?)\s*;')
    trips, cur = [], None
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('(0) Breakpoint'):
                if cur is not None:
                    trips.append(cur)
                cur = Trip()
                continue
            m = rx.match(line)
            if not m or cur is None:
                continue
            phys, lin, mn = int(m.group(1), 16), int(m.group(2), 16), m.group(4)
            if phys != lin:
                cur.guest += 1
                cur.lines.append(('(guest)', lin, m.group(3)))
                continue
            fn = name(lin)
            cur.fn[fn] += 1
            cur.lines.append((fn, lin, m.group(3)))
            if mn == 'vmread':
                cur.vmread[fn] += 1
            elif mn == 'vmwrite':
                cur.vmwrite[fn] += 1
    return trips


def qemu(marks, name):
    """Round trips per mark: from one execution of a mark to the next execution of the
    same mark, with no other mark between (so the three benchmarks' loops do not mix)."""
    rx = re.compile(rb'\[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/')
    trips = {m: [] for m in marks}
    at, cur = None, None
    for line in sys.stdin.buffer:
        m = rx.search(line)
        if not m:
            continue
        pc, guest = int(m.group(1), 16), int(m.group(2), 16) & 0x200000
        if guest and pc in trips:
            if cur is not None and at == pc:
                trips[pc].append(cur)
            at, cur = pc, Trip()
            cur.guest = 1  # the exiting instruction
        elif cur is None:
            continue
        elif guest:
            cur.guest += 1
        else:
            fn = name(pc)
            cur.fn[fn] += 1
            cur.lines.append((fn, pc, None))
    return [trips[m] for m in marks]


def disassembly(elf):
    """address -> instruction text, for the QEMU log (which has addresses only)."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', elf], capture_output=True,
                         text=True, check=True).stdout
    text = {}
    for line in out.splitlines():
        m = re.match(r'^\s+([0-9a-f]+):\s+(.*)$', line)
        if m:
            text[int(m.group(1), 16)] = m.group(2).strip()
    return text


def report(trips, bochs_mode, text=None):
    trips = [t for t in trips if t.total()]  # Bochs: the hits before `trace on`
    if not trips:
        print('no round trip in the trace')
        return
    trips.sort(key=Trip.total)
    t = trips[len(trips) // 2]
    host = sum(t.fn.values())
    print('round trip: %d instructions (guest %d, sliver %d); the median of %d traced'
          ' (min %d, max %d)' % (t.total(), t.guest, host, len(trips), trips[0].total(),
                                 trips[-1].total()))
    if bochs_mode:
        print('VMREAD %d, VMWRITE %d' % (sum(t.vmread.values()), sum(t.vmwrite.values())))
    for fn, n in t.fn.most_common():
        extra = ''
        if t.vmread[fn] or t.vmwrite[fn]:
            extra = '  (VMREAD %d, VMWRITE %d)' % (t.vmread[fn], t.vmwrite[fn])
        print('%6d  %s%s' % (n, fn, extra))
    dump = os.environ.get('EXIT_PROFILE_DUMP', '')
    if dump:  # the instructions of these functions (or 'all'), in order
        want = set(dump.split(','))
        for fn, addr, insn in t.lines:
            if 'all' in want or fn in want:
                if insn is None:
                    insn = (text or {}).get(addr, '?')
                print('  %-24s %#x  %s' % (fn, addr, insn))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ('bochs', 'qemu'):
        sys.exit(__doc__)
    name = symbols(sys.argv[3])
    if sys.argv[1] == 'bochs':
        report(bochs(sys.argv[2], name), True)
        return
    marks = [int(m, 16) for m in sys.argv[2].split(',')]
    text = disassembly(sys.argv[3]) if os.environ.get('EXIT_PROFILE_DUMP') else None
    for m, trips in zip(marks, qemu(marks, name)):
        print('== guest RIP 0x%x' % m)
        report(trips, False, text)


if __name__ == '__main__':
    main()
