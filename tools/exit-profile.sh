#!/usr/bin/env bash
# exit-profile.sh [--emu bochs|qemu] [--build DIR] KIND...: where the instructions of one
# exit round trip go (make exit-profile, docs/BENCHMARKS.md "Cost of one exit per kind").
# KIND: cpuid, hc, io, yield (guests/exitbench's exits). Boots DIR/sliver.elf (default build) with
# guests/exitbench (n=50) alone on one pCPU, traces the guest's exiting instruction and
# everything up to its next execution, and prints that round trip per function
# (tools/exit-profile.py): under Bochs (VMX; a few seconds per kind) with the VMREADs and
# VMWRITEs, under QEMU TCG (SVM, -icount; one -singlestep -d exec run for all kinds streamed
# through the parser, about two minutes). Counts equal `make bench-exits`'
# instructions per exit (Bochs 1 instruction per TSC tick, QEMU -icount).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=bochs build=build
while [ $# -gt 0 ]; do
	case $1 in
	--emu) emu=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	-*) sed -n '2,/^set -e/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- cpuid hc io
work=$(mktemp -d "${TMPDIR:-/tmp}/exit-profile.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; echo "work $work" >&2
mkdir -p "$work/b"
cp "$build/sliver.elf" "$work/b/"
printf 'multiboot2 /boot/sliver.elf console=com1 run_ms=300\nmodule2 /guests/exitbench.elf name=exits n=50\n' \
	>"$work/prof.cfg"
tools/mkiso.sh prof "$work/prof.cfg" "$work/b" "$build/guests/exitbench.elf" >/dev/null
iso=$work/b/prof-bios.iso
# The guest RIP of each kind's exiting instruction (32-bit guest code, paging off).
mark() {
	local fn insn
	case $1 in
	cpuid) fn=one_cpuid insn='cpuid' ;;
	io) fn=one_io insn='in ' ;;
	hc) fn=one_hc; if [ "$emu" = bochs ]; then insn='vmcall'; else insn='vmmcall'; fi ;;
	yield) fn=one_yield; if [ "$emu" = bochs ]; then insn='vmcall'; else insn='vmmcall'; fi ;;
	*) echo "exit-profile: unknown kind $1" >&2; exit 2 ;;
	esac
	objdump -d --no-show-raw-insn "$build/guests/exitbench.elf" |
		awk -v fn="<$fn>:" -v insn="$insn" '$2 == fn { on = 1; next } on && /^$/ { on = 0 }
			on && index($0, insn) { sub(":", "", $1); print $1; on = 0 }'
}
if [ "$emu" = bochs ]; then
	for k in "$@"; do
		m=$(mark "$k")
		cat >"$work/bochsrc" <<-RC
		megs: 256
		romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
		vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
		cpu: model=corei7_skylake_x, count=1, ips=50000000, reset_on_triple_fault=0, ignore_bad_msrs=0
		clock: sync=none, time0=946681200
		ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
		ata0-master: type=cdrom, path=$iso, status=inserted
		boot: cdrom
		com1: enabled=1, mode=file, dev=$work/com1.txt
		log: $work/bochs.log
		panic: action=fatal
		error: action=report
		info: action=report
		debug: action=ignore
		mouse: enabled=0
		speaker: enabled=0
		sound: driver=dummy
		display_library: term
		RC
		# A breakpoint at the guest RIP in the guest's code segment (0x08; sliver's is 0x10 and its
		# boot code runs at the same addresses);
		# the first 21 hits are the warm-up and the first round trips, then 3 are traced.
		{ echo "vb 0x08:0x$m"; for _ in $(seq 21); do echo c; done
		  echo "trace on"; echo c; echo c; echo c; echo "trace off"; echo quit; } >"$work/cmds.rc"
		(cd "$work" && TERM=dumb timeout -s KILL 300 setsid bochs -q -f bochsrc -rc cmds.rc \
			</dev/null >trace.txt 2>bochs.stderr) || true
		echo "== Bochs/VMX $k (guest RIP 0x$m)"
		tools/exit-profile.py bochs "$work/trace.txt" "$build/sliver.elf"
	done
else
	marks=""
	for k in "$@"; do
		m=$(mark "$k")
		echo "QEMU/SVM $k: guest RIP 0x$m"
		marks=${marks:+$marks,}$m
	done
	timeout -s KILL 900 qemu-system-x86_64 -machine pc -accel tcg -cpu qemu64,+svm,+npt \
		-icount shift=3,sleep=off -m 256 -smp 1 -nic none -boot d -display none \
		-serial "file:$work/com1.txt" -no-reboot \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 -cdrom "$iso" -singlestep \
		-d exec,nochain -dfilter 0x100000..0x200000 -D /dev/stdout 2>/dev/null |
		tools/exit-profile.py qemu "$marks" "$build/sliver.elf" || true
fi
