#!/usr/bin/env python3
"""console-test.py NAME [options] -- ISO

Boots a sliver ISO in QEMU (TCG, emulated time) with a chosen serial/display setup and checks
what the console device shows (docs/console.md, "Console device"):

  --serial-file       the console UART is the Nth QEMU serial port (--serial-index, 0-based,
                      the others are null) or --pci-serial (a PCI 16550); its output is kept
  --input FILE        bytes typed on the console UART (a stdio chardev instead of a file)
  --acpitable FILE    an extra ACPI table (tools/mkspcr.py writes SPCR tables)
  --uefi              OVMF instead of SeaBIOS (the framebuffer is then GOP, not EGA text)
  --screen text|gop   read the screen at the end: text mode from the 0xB8000 buffer
                      (pmemsave), GOP from a screendump decoded with drivers/font8x16.c
  --expect RE         a line of the serial log (or of the screen without a serial log)
  --expect-screen RE  a line of the screen
  --same-as-serial    the screen must equal the serial log rendered on a terminal of the
                      screen's size (wrap, scroll): every line printed reaches both

The VM has no isa-debug-exit and runs with -no-shutdown, so sliver's power-off pauses it and
the screen can still be read; the exit status comes from the `sliver: exit N` line.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_font():
    src = open(os.path.join(ROOT, "drivers/font8x16.c")).read()
    rows = re.findall(r"\{((?:\s*0x[0-9a-f]{2},?){16})\s*\}", src)
    if len(rows) != 95:
        sys.exit("console-test: drivers/font8x16.c has %d glyphs, not 95" % len(rows))
    glyphs = {}
    for i, r in enumerate(rows):
        bits = tuple(int(b, 16) for b in r.replace(",", " ").split())
        if bits in glyphs:
            sys.exit("console-test: glyphs %r and %r are the same" % (glyphs[bits], chr(0x20 + i)))
        glyphs.setdefault(bits, chr(0x20 + i))
    return glyphs


class Qmp:
    def __init__(self, path, deadline):
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.f = self.s.makefile("rw")
        json.loads(self.f.readline())  # greeting
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if "return" in r or "error" in r:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (name, r["error"]))
                return r["return"]

    def hmp(self, line):
        return self.cmd("human-monitor-command", **{"command-line": line})


def text_screen(path):
    data = open(path, "rb").read()
    lines = []
    for r in range(25):
        cells = data[r * 160 : (r + 1) * 160 : 2]
        lines.append("".join(chr(c) if 0x20 <= c < 0x7F else "?" for c in cells).rstrip())
    return lines


def read_ppm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval; comments start with '#'
        while data[pos : pos + 1].isspace():
            pos += 1
        if data[pos : pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6":
        sys.exit("console-test: screendump is not a P6 PPM")
    return int(fields[1]), int(fields[2]), data[pos + 1 :]


def gop_screen(path, glyphs):
    w, h, px = read_ppm(path)
    lines = []
    for r in range(h // 16):
        line = []
        for c in range(w // 8):
            bits = []
            for y in range(16):
                o = ((r * 16 + y) * w + c * 8) * 3
                row = px[o : o + 24]
                bits.append(sum(0x80 >> x for x in range(8) if any(row[3 * x : 3 * x + 3])))
            line.append(glyphs.get(tuple(bits), "\x7f"))
        lines.append("".join(line).rstrip())
    return lines


def render(log, cols, rows):
    """The serial log as drivers/fb.c draws it: wrap at cols, keep the last rows."""
    screen = [""]
    for ch in log:
        if ch == "\n":
            screen.append("")
        elif ch == "\r":
            continue  # the UART gets \r\n; the framebuffer sink sees \n only
        else:
            if len(screen[-1]) == cols:
                screen.append("")
            screen[-1] += ch if 0x20 <= ord(ch) < 0x7F else "?"
    screen = screen[-rows:]
    return [l.rstrip() for l in screen] + [""] * (rows - len(screen))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("iso")
    ap.add_argument("--serial-file", action="store_true")
    ap.add_argument("--serial-index", type=int, default=0)
    ap.add_argument("--pci-serial", action="store_true")
    ap.add_argument("--acpitable")
    ap.add_argument("--input")
    ap.add_argument("--uefi", action="store_true")
    ap.add_argument("--screen", choices=["text", "gop"])
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expect-screen", action="append", default=[])
    ap.add_argument("--same-as-serial", action="store_true")
    ap.add_argument("--status", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()

    out = os.path.join(ROOT, "build/e2e")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="console-test.")
    serial_log = os.path.join(out, a.name + ".serial.log")
    screen_log = os.path.join(out, a.name + ".screen.txt")
    for f in (serial_log, screen_log):
        if os.path.exists(f):
            os.unlink(f)
    qmp_path = os.path.join(work, "qmp")
    cmd = ["qemu-system-x86_64", "-machine", "pc", "-accel", "tcg", "-cpu", "qemu64",
           "-icount", "shift=3,sleep=off", "-m", "256", "-smp", "2", "-nic", "none",
           "-boot", "d", "-display", "none", "-no-reboot", "-no-shutdown",
           "-qmp", "unix:%s,server=on,wait=off" % qmp_path, "-cdrom", a.iso]
    if a.uefi:
        cmd += ["-bios", "/usr/share/ovmf/OVMF.fd"]
    # QEMU 7.2's file chardev has no input: with --input the port is stdio instead.
    con = ("stdio,id=con,signal=off" if a.input else "file,id=con,path=" + serial_log)
    if a.serial_file and a.pci_serial:
        cmd += ["-serial", "none", "-chardev", con, "-device", "pci-serial,chardev=con"]
    elif a.serial_file:
        for i in range(a.serial_index):
            cmd += ["-serial", "null"]
        cmd += ["-chardev", con, "-serial", "chardev:con"]
    else:
        cmd += ["-serial", "none"]
    if a.acpitable:
        cmd += ["-acpitable", "file=" + a.acpitable]
    stdin = open(a.input, "rb") if a.input else subprocess.DEVNULL
    stdout = open(serial_log, "wb") if a.input else subprocess.DEVNULL
    qemu = subprocess.Popen(cmd, stdin=stdin, stdout=stdout,
                            stderr=open(os.path.join(work, "qemu.err"), "w"))
    deadline = time.time() + a.timeout
    fail = []
    screen = []
    try:
        q = Qmp(qmp_path, deadline)
        t0 = time.time()
        while q.cmd("query-status")["status"] != "shutdown":
            if qemu.poll() is not None:
                fail.append("QEMU exited (%s)" % qemu.returncode)
                break
            if time.time() > deadline:
                fail.append("timed out after %gs" % a.timeout)
                break
            time.sleep(0.2)
        print("console-test %s: %.1fs to power-off" % (a.name, time.time() - t0))
        if a.screen == "text":
            dump = os.path.join(work, "b8000.bin")
            q.cmd("pmemsave", val=0xB8000, size=4000, filename=dump)
            screen = text_screen(dump)
        elif a.screen == "gop":
            dump = os.path.join(out, a.name + ".screen.ppm")
            q.cmd("screendump", filename=dump)
            screen = gop_screen(dump, load_font())
        q.cmd("quit")
    except (OSError, RuntimeError, ValueError) as e:
        fail.append("QMP: %s" % e)
    finally:
        try:
            qemu.wait(timeout=10)
        except subprocess.TimeoutExpired:
            qemu.kill()
    open(screen_log, "w").write("\n".join(screen) + "\n")

    log = ""
    if a.serial_file:
        log = open(serial_log, "rb").read().decode("latin-1") if os.path.exists(serial_log) else ""
    lines = log.replace("\r", "").split("\n") if a.serial_file else screen
    status = [m for l in lines for m in re.findall(r"^sliver: exit (\d+)$", l)]
    if not status:
        fail.append("no 'sliver: exit' line")
    elif int(status[-1]) != a.status:
        fail.append("exit status %s, expected %d" % (status[-1], a.status))
    for re_ in a.expect:
        if not any(re.search(re_, l) for l in lines):
            fail.append("missing line matching: %s" % re_)
    for re_ in a.expect_screen:
        if not any(re.search(re_, l) for l in screen):
            fail.append("missing screen line matching: %s" % re_)
    if a.same_as_serial:
        cols = max(len(l) for l in screen) if screen else 0
        m = re.search(r"framebuffer .* (\d+)x(\d+) characters", log)
        if not m:
            fail.append("no framebuffer in the serial log's console line")
        else:
            cols, rows = int(m.group(1)), int(m.group(2))
            # The framebuffer starts empty when sliver selects it, just before this line;
            # what the firmware wrote on the serial port before (OVMF does) is not there.
            start = log.replace("\r", "").rfind("\nsliver: hypervisor starting\n")
            want = render(log.replace("\r", "")[max(start, 0):], cols, rows)
            got = (screen + [""] * rows)[:rows]
            if want != got:
                diff = [i for i in range(rows) if want[i] != got[i]]
                fail.append("screen differs from the serial log in rows %s: want %r got %r"
                            % (diff[:5], want[diff[0]], got[diff[0]]))
    if fail:
        for f in fail:
            print("console-test %s: %s" % (a.name, f))
        print("---- screen (%s)" % screen_log)
        print("\n".join(l for l in screen if l)[-2000:])
        if a.serial_file:
            print("---- serial (%s), last 15 lines" % serial_log)
            print("\n".join(log.replace("\r", "").split("\n")[-15:]))
        return 1
    print("console-test %s: ok" % a.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
