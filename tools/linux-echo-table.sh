#!/usr/bin/env bash
# linux-echo-table.sh: the 2006 experiment with a real kernel (issue 28 item 4,
# docs/BENCHMARKS.md "Linux echo through the UART"). For each duty cycle and policy, one run:
# two spinner domains (d1, d2) and Debian's kernel (d3, boot=linux) running uart-echo with
# that duty cycle (guests/linux/uart-echo.c), all on pCPU 0 (vmm.sched_pcpus=1, pin=0); pCPU
# 1 pings d3 through its COM1 (ping.uart=1) every 5 ms +- 0.5 ms once Linux is up. Prints a
# markdown table: ping n, lost, late, p50/p99/max (us), and each domain's share of the pCPU
# between the first and the last ping (`ping share`). As the 2006 table inside the hypervisor
# (tools/bench-hv.sh): the release build (BUILD, default build/release: `make BUILD=build/release
# RELEASE=1 all`) and one emulated instruction per ns (QEMU -icount shift=0; Bochs
# ips=1000000000). Environment: EMU=qemu|bochs (default qemu: TCG with SVM), POLICIES (default
# "credit credit1 eevdf"), ROWS (spin/sleep us, default "0/0 1000/4000 3500/6500 2000/3000
# 1800/200"), COUNT (pings, default 200), DELAY_MS (the first ping, default 8000: Linux boots at
# a third of the pCPU, and at 4000 eevdf's 0/0 cell still found it busy), TIMEOUT (s per
# run). Needs `make build/linux/vmlinuz build/linux/initrd.cpio` too (make bench-linux-echo
# does both). Logs: build/linux-echo-table/.
set -euo pipefail
cd "$(dirname "$0")/.."
EMU=${EMU:-qemu}
POLICIES=${POLICIES:-credit credit1 eevdf}
ROWS=${ROWS:-0/0 1000/4000 3500/6500 2000/3000 1800/200}
COUNT=${COUNT:-200}
DELAY_MS=${DELAY_MS:-8000}
BUILD=${BUILD:-build/release}
TIMEOUT=${TIMEOUT:-600}
W=build/linux-echo-table
mkdir -p "$W"
run_ms=$((DELAY_MS + COUNT * 5 + 3000))
emu_args="--emu qemu --icount-shift 0"
[ "$EMU" = bochs ] && emu_args="--emu bochs --ips 1000000000"
field() { # field LINE KEY -> value of KEY= in LINE
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}
echo "| policy | duty spin/sleep us | ping n | lost | late | p50 us | p99 us | max us | Linux d3 % | spinners d1 / d2 % |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for row in $ROWS; do
	for pol in $POLICIES; do
		name=lecho-$pol-${row/\//-}
		cat >"$W/$name.cfg" <<CFG
multiboot2 /boot/sliver.elf sched=$pol console=com1 run_ms=$run_ms console.rate=0 vmm.sched_pcpus=1 ping.dom=3 ping.uart=1 ping.interval_us=5000 ping.jitter_us=500 ping.delay_ms=$DELAY_MS ping.count=$COUNT ping.cpu=1
module2 /guests/spinner.elf name=spin1 pin=0
module2 /guests/spinner.elf name=spin2 pin=0
module2 /guests/vmlinuz boot=linux name=linux mem=128 vcpus=1 pin=0 console=ttyS0 nokaslr cryptomgr.notests linux_echo=$row linux_echo_count=$COUNT
module2 /guests/initrd.cpio initrd_of=linux
CFG
		tools/mkiso.sh "$name" "$W/$name.cfg" "$BUILD" "$BUILD/guests/spinner.elf" \
			build/linux/vmlinuz build/linux/initrd.cpio >/dev/null
		# shellcheck disable=SC2086
		tools/sliver-run $emu_args --cpus 2 --timeout "$TIMEOUT" "$BUILD/$name-bios.iso" \
			>"$W/$name.log" 2>&1 || true
		p=$(grep -a '^ping d3 ' "$W/$name.log" | tail -1 || true)
		s=$(grep -a '^ping share ' "$W/$name.log" | tail -1 || true)
		if [ -z "$p" ]; then
			echo "| $pol | $row | (no ping line: $W/$name.log) |||||||||"
			continue
		fi
		echo "| $pol | $row | $(field "$p" n) | $(field "$p" lost) | $(field "$p" late) |" \
			"$(field "$p" p50_us) | $(field "$p" p99_us) | $(field "$p" max_us) |" \
			"$(field "$s" d3) | $(field "$s" d1) / $(field "$s" d2) |"
	done
done
