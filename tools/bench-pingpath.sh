#!/usr/bin/env bash
# bench-pingpath.sh [ROW [RUN_MS]]: the ping path stage by stage for sliver and credit1 (make
# bench-pingpath; docs/BENCHMARKS.md "The ping path, stage by stage"). Boots the 2006 row ROW
# (default row-035-10, as tools/bench-hv.sh generates it, RUN_MS default 1500) from
# build/pingtrace/sliver.elf (release + PINGTRACE=1: core/pingtrace.h) under Bochs on two
# pCPUs at ips=1000000000 (one instruction per ns and per TSC tick, deterministic), once per
# policy (sched=credit: sliver; sched=credit1: Xen 3.0.4), and prints the table of
# tools/pingtrace-table.sh for the wake path (the echo blocked when the ping comes) and the
# run path (it was running). Logs: build/pingtrace/bench/. Environment: BENCH_JOBS (runs in
# parallel, default 1), BENCH_PROFILES (default "sliver credit1").
set -euo pipefail
cd "$(dirname "$0")/.."
row=${1:-row-035-10} ms=${2:-1500}
build=build/pingtrace work=build/pingtrace/bench
profiles=${BENCH_PROFILES:-sliver credit1}
jobs=${BENCH_JOBS:-1}
[ -f $build/sliver.elf ] || { echo "bench-pingpath: $build/sliver.elf not built (make $build/all)" >&2; exit 1; }
mkdir -p $work
cp $build/sliver.elf $work/sliver.elf
one() { # PROFILE
	local name=$row-$1
	tools/bench-hv.sh cfg "$row" "$1" "$ms" >"$work/$name.cfg"
	tools/mkiso.sh "$name" "$work/$name.cfg" "$work" $build/guests/*.elf >/dev/null
	tools/sliver-run --emu bochs --ips 1000000000 --cpus 2 --timeout 1800 \
		--log "$work/$name.log" "$work/$name-bios.iso" >/dev/null 2>"$work/$name.err" ||
		{ echo "bench-pingpath: $name failed: $work/$name.log" >&2; return 1; }
	rm -f "$work/$name.iso" "$work/$name-bios.iso"
}
running=0
for p in $profiles; do
	if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
	one "$p" &
	running=$((running + 1))
done
wait
args=()
for p in $profiles; do args+=("$p=$work/$row-$p.log"); done
for p in $profiles; do grep -m1 "^ping d" "$work/$row-$p.log" | sed "s/^/$p: /"; done
echo
echo "wake path (the echo blocked when its ping came), TSC ticks = instructions:"
tools/pingtrace-table.sh "${args[@]}"
echo
echo "run path (the echo was running: the kick makes it exit, the vector goes in):"
tools/pingtrace-table.sh --path run "${args[@]}"
