#!/usr/bin/env python3
"""mkfont.py FONT.psf[.gz] > table.c   (the body of drivers/font8x16.c; then clang-format -i)

Writes the 8x16 glyphs of printable ASCII (0x20-0x7E) of a PSF1 console font, looked up
through the font's Unicode table, as a C table. Run once; drivers/font8x16.c says which font.
"""
import gzip
import sys

path = sys.argv[1]
data = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
if data[:2] != b"\x36\x04":
    sys.exit("mkfont: not a PSF1 font")
mode, height = data[2], data[3]
if height != 16:
    sys.exit("mkfont: glyphs are %d rows, not 16" % height)
count = 512 if mode & 1 else 256
glyphs = [data[4 + i * 16 : 4 + (i + 1) * 16] for i in range(count)]
index = {}
if mode & 2:  # PSF1_MODEHASTAB: per glyph, UCS-2 values ending in 0xFFFF (0xFFFE: sequences)
    tab = data[4 + count * 16 :]
    pos = 0
    for g in range(count):
        seq = False
        while True:
            u = int.from_bytes(tab[pos : pos + 2], "little")
            pos += 2
            if u == 0xFFFF:
                break
            if u == 0xFFFE:
                seq = True
            elif not seq:
                index.setdefault(u, g)
else:
    index = {c: c for c in range(count)}

out = sys.stdout
for c in range(0x20, 0x7F):
    g = glyphs[index[c]]
    ch = chr(c)
    comment = {"\\": "backslash", "*": "asterisk", "/": "slash"}.get(ch, "'%s'" % ch)
    out.write("\t/* 0x%02x %s */\n\t{%s},\n" % (c, comment, ", ".join("0x%02x" % b for b in g)))
