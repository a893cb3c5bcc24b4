#!/usr/bin/env bash
# decision-table.sh: the cost of one scheduling decision per policy against the number of
# runnable vCPUs on a pCPU (1..64), measured two ways (make bench-decision; docs/BENCHMARKS.md
# "Decision cost per policy"):
#   host  build/sliver-bench-decision policies: the real sched/ code, host TSC ticks per
#         pick_next, at a slice end of n spinners and after an event wake (the median of 5
#         rounds of 4000 samples, each the mean of 16 consecutive picks);
#   Bochs the hypervisor (build/release/sliver.elf) with n spinner domains pinned to pCPU 0
#         (vmm.sched_pcpus=1, one pCPU), run_ms=300: the `perf cpu0 decision_p50_cycles=`
#         of its end-of-run report, TSC ticks inside sd_pick's call to the policy (under
#         Bochs, instructions); a decision per 1 ms slice end.
# Both run every policy with a 1 ms slice: sliver's default (credit.tslice_us=1000), credit1
# with credit1.tick_us=1000 credit1.tslice_us=1000 (Xen's 30 ms would give a tenth of the
# decisions), eevdf with its defaults. Logs: build/decision/. Prints the Markdown table.
# Environment: DECISION_NS (default "1 2 4 8 16 32 64"), DECISION_POLICIES (default
# "credit credit1 eevdf"), BUILD (default build), RELEASE_BUILD (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build} R=${RELEASE_BUILD:-build/release}
NS=${DECISION_NS:-1 2 4 8 16 32 64}
POLICIES=${DECISION_POLICIES:-credit credit1 eevdf}
W=$B/decision
mkdir -p "$W"
"$B/sliver-bench-decision" policies iters=4000 >"$W/host.txt"
cp "$R/sliver.elf" "$W/sliver.elf"
for p in $POLICIES; do
	for n in $NS; do
		name=$p-$n
		extra=""
		[ "$p" = credit1 ] && extra="credit1.tick_us=1000 credit1.tslice_us=1000"
		{
			echo "multiboot2 /boot/sliver.elf sched=$p $extra console=com1 run_ms=300 vmm.sched_pcpus=1"
			for i in $(seq "$n"); do echo "module2 /guests/spinner.elf name=s$i pin=0"; done
		} >"$W/$name.cfg"
		tools/mkiso.sh "$name" "$W/$name.cfg" "$W" "$R/guests/spinner.elf" >/dev/null
		tools/sliver-run --emu bochs --cpus 1 --mem 512 --timeout 600 --log "$W/$name.log" \
			"$W/$name-bios.iso" >/dev/null 2>"$W/$name.err" ||
			{ echo "decision-table: $name failed: $W/$name.log" >&2; exit 1; }
		rm -f "$W/$name.iso" "$W/$name-bios.iso"
	done
done
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1" | head -n 1; }
hdr="| runnable vCPUs |"
sep="|---|"
for p in $POLICIES; do hdr="$hdr host slice pick, $p |"; sep="$sep---|"; done
for p in $POLICIES; do hdr="$hdr host wake pick, $p |"; sep="$sep---|"; done
for p in $POLICIES; do hdr="$hdr Bochs p50 (p99), $p |"; sep="$sep---|"; done
echo "$hdr"
echo "$sep"
for n in $NS; do
	row="| $n |"
	for f in slice_pick_p50 wake_pick_p50; do
		for p in $POLICIES; do
			l=$(grep "^policy $p n=$n " "$W/host.txt")
			row="$row $(kv "$l" "$f") |"
		done
	done
	for p in $POLICIES; do
		l=$(grep -m1 '^perf cpu0 ' "$W/$p-$n.log")
		row="$row $(kv "$l" decision_p50_cycles) ($(kv "$l" decision_p99_cycles)) |"
	done
	echo "$row"
done
