#!/usr/bin/env python3
"""Builds the seed corpora in test/fuzz/corpus/<target>/ from real inputs:
the captured SeaBIOS/OVMF memory maps and the QEMU/OVMF/Bochs ACPI tables in
test/unit/fixtures/, and the guest ELF images in build/guests/ (run `make` first).
Run from the repository root: python3 test/fuzz/mkseeds.py. Deterministic."""
import os
import struct

FIX = "test/unit/fixtures"
OUT = "test/fuzz/corpus"


def put(target, name, data):
    os.makedirs(f"{OUT}/{target}", exist_ok=True)
    with open(f"{OUT}/{target}/{name}", "wb") as f:
        f.write(data)


def load_map(name):
    rows = []
    for line in open(f"{FIX}/{name}"):
        p = line.split()
        if line.startswith("#") or len(p) != 3:
            continue
        rows.append((int(p[0], 16), int(p[1], 16), int(p[2])))
    return rows


def mb2_mmap_tag(rows):
    body = b"".join(struct.pack("<QQII", b, l, t, 0) for b, l, t in rows)
    return struct.pack("<IIII", 6, 16 + len(body), 24, 0) + body


def efi_mmap_tag(rows):
    # multiboot2 type 1 -> EfiConventionalMemory (7), anything else -> EfiReservedMemoryType (0)
    body = b"".join(struct.pack("<IIQQQQ", 7 if t == 1 else 0, 0, b, 0, l >> 12, 0xF)
                    for b, l, t in rows)
    return struct.pack("<IIII", 17, 16 + len(body), 48, 1) + body


def tag(t, payload):
    data = struct.pack("<II", t, 8 + len(payload)) + payload
    return data + b"\0" * (-len(data) % 8)


def mbi(tags):
    body = b"".join(tags) + tag(0, b"")
    return struct.pack("<II", 8 + len(body), 0) + body


def fixture(name):
    return open(f"{FIX}/acpi/{name}", "rb").read()


def fix_sum(b, at, n=None):
    b = bytearray(b)
    n = len(b) if n is None else n
    b[at] = 0
    b[at] = -sum(b[:n]) & 0xFF
    return bytes(b)


def acpi_memory(emu, root_sig):
    """The captured tables laid out as one small physical memory for the walk: RSDP at 0,
    each address rewritten to the table's offset, checksums recomputed."""
    rsdp = fixture(f"{emu}-rsdp.bin")
    tables = [fixture(f"{emu}-{s}.bin") for s in ("apic", "facp", "dsdt-s5")]
    offs, off = [], 64
    for t in tables:
        offs.append(off)
        off += (len(t) + 15) & ~15
    root_off = off
    xsdt = root_sig == "xsdt"
    hdr = fixture(f"{emu}-{root_sig}.bin")[:36]
    ents = b"".join(struct.pack("<Q" if xsdt else "<I", o) for o in offs[:2])
    root = bytearray(hdr + ents)
    root[4:8] = struct.pack("<I", len(root))
    root = fix_sum(root, 9)
    facp = bytearray(tables[1])
    facp[40:44] = struct.pack("<I", offs[2])
    if len(facp) >= 148:
        facp[140:148] = struct.pack("<Q", 0)
    tables[1] = fix_sum(facp, 9)
    r = bytearray(rsdp.ljust(36, b"\0"))
    if xsdt:
        r[24:32] = struct.pack("<Q", root_off)
    else:
        r[16:20] = struct.pack("<I", root_off)
    r = fix_sum(r, 8, 20)
    if xsdt:
        r = fix_sum(r, 32, 36)
    mem = bytearray(r.ljust(64, b"\0"))
    for o, t in zip(offs, tables):
        mem += b"\0" * (o - len(mem)) + t
    mem += b"\0" * (root_off - len(mem)) + root
    return bytes(mem)


def compact_elf(path):
    """A guest image with its real headers and the first 256 bytes of each segment, moved
    right after the program headers (p_offset rewritten): a few hundred bytes, still
    loadable."""
    img = open(path, "rb").read()
    is64 = img[4] == 2
    if is64:
        phoff, = struct.unpack_from("<Q", img, 32)
        phentsize, phnum = struct.unpack_from("<HH", img, 54)
        fmt = "<IIQQQQQQ"
    else:
        phoff, = struct.unpack_from("<I", img, 28)
        phentsize, phnum = struct.unpack_from("<HH", img, 42)
        fmt = "<IIIIIIII"
    out = bytearray(img[:phoff + phnum * phentsize])
    for i in range(phnum):
        at = phoff + i * phentsize
        f = list(struct.unpack_from(fmt, img, at))
        if is64:
            off, filesz = f[2], f[5]
        else:
            off, filesz = f[1], f[4]
        keep = min(filesz, 256)
        new_off = len(out)
        out += img[off:off + keep]
        if is64:
            f[2], f[5] = new_off, keep
        else:
            f[1], f[4] = new_off, keep
        struct.pack_into(fmt, out, at, *f)
    return bytes(out)


def main():
    sea, ovmf = load_map("seabios-256m.map"), load_map("ovmf-256m.map")
    put("memmap", "seabios-mb2", b"\0" + mb2_mmap_tag(sea))
    put("memmap", "ovmf-mb2", b"\0" + mb2_mmap_tag(ovmf))
    put("memmap", "ovmf-efi", b"\1" + efi_mmap_tag(ovmf))

    cmd = tag(1, b"/boot/sliver.elf selftest console=com1\0")
    mods = [tag(3, struct.pack("<II", 0x200000 + 0x10000 * i, 0x20F000 + 0x10000 * i) +
                b"/guests/echo.elf name=echo%d\0" % i) for i in range(2)]
    put("bootinfo", "seabios", mbi([cmd] + mods + [tag(14, fixture("qemu-rsdp.bin")),
                                                   mb2_mmap_tag(sea)]))
    put("bootinfo", "ovmf", mbi([cmd, mods[0], tag(12, struct.pack("<Q", 0x7F9EE018)),
                                 tag(15, fixture("ovmf-rsdp.bin")), mb2_mmap_tag(ovmf),
                                 efi_mmap_tag(ovmf)]))
    put("bootinfo", "ovmf-efi-only", mbi([cmd, tag(12, struct.pack("<Q", 0x7F9EE018)),
                                          efi_mmap_tag(ovmf)]))

    for name in sorted(n for n in os.listdir(f"{FIX}/acpi") if n.endswith(".bin")):
        put("acpi", name, fixture(name))
    put("acpi", "qemu-memory", acpi_memory("qemu", "rsdt"))
    put("acpi", "ovmf-memory", acpi_memory("ovmf", "xsdt"))
    put("acpi", "bochs-memory", acpi_memory("bochs", "rsdt"))

    for g in ("idle", "lm64", "spinner"):
        put("elf", g, compact_elf(f"build/guests/{g}.elf"))

    for i, line in enumerate(open("test/scenarios/%s.cfg" % s).read() for s in
                             ("selftest", "demo")):
        put("cmdline", f"scenario{i}", line.encode())
    put("cmdline", "key-sched", b"sched\0sched=credit sched.slice_us=0x3e8 \"name=a b\" pin=0,1")
    put("cmdline", "number", b"0x7fffffffffffffff")


if __name__ == "__main__":
    main()
