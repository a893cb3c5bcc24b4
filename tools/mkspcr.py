#!/usr/bin/env python3
"""mkspcr.py OUT [--io PORT | --mmio ADDR [--mmio32]] [--baud N] [--interface T]

Writes an ACPI SPCR table (revision 2, 80 bytes, Microsoft's Serial Port Console Redirection
specification) for QEMU's -acpitable file=OUT: the console UART at an I/O port or MMIO address.
"""
import argparse
import struct

BAUD_CODES = {0: 0, 9600: 3, 19200: 4, 57600: 6, 115200: 7}

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--io", type=lambda s: int(s, 0))
ap.add_argument("--mmio", type=lambda s: int(s, 0))
ap.add_argument("--mmio32", action="store_true")
ap.add_argument("--baud", type=int, default=115200)
ap.add_argument("--interface", type=lambda s: int(s, 0), default=0)
a = ap.parse_args()
if (a.io is None) == (a.mmio is None):
    ap.error("give exactly one of --io and --mmio")
if a.io is not None:
    gas = struct.pack("<BBBBQ", 1, 8, 0, 1, a.io)  # system I/O, 8 bits, byte access
else:
    width, access = (32, 3) if a.mmio32 else (8, 1)
    gas = struct.pack("<BBBBQ", 0, width, 0, access, a.mmio)
body = struct.pack("<B3x", a.interface) + gas
body += struct.pack("<BBIBBBBBB", 1, 0, 0, BAUD_CODES[a.baud], 0, 1, 0, 0, 0)
body += struct.pack("<HHBBBIBI", 0xFFFF, 0xFFFF, 0, 0, 0, 0, 0, 0)
header = struct.pack("<4sIBB6s8sI4sI", b"SPCR", 36 + len(body), 2, 0, b"SLIVER", b"SPCRTEST",
                     1, b"SLVR", 1)
table = bytearray(header + body)
assert len(table) == 80, len(table)
table[9] = (-sum(table)) & 0xFF
open(a.out, "wb").write(table)
