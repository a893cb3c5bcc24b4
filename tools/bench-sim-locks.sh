#!/usr/bin/env bash
# bench-sim-locks.sh [SIM]: the simulator's lock-contention table (issue 24; docs/BENCHMARKS.md,
# "Simulated lock contention"), printed as markdown. For each pCPU count P (1 8 16 64, and 256
# when the simulator takes that many) and slice (1 ms, 50 us), the scenario below under
# sim.locks=global (one lock for every scheduler call, the old vmm_lock) and sim.locks=percpu
# (a lock per run queue, core/sched_door.c's rules), plus the ping p99 without a lock model
# (sim.locks=off: calls cost nothing) as the reference. test/sim/README.md, "Lock
# contention", says what the model does.
#
# Two scenarios (written to build/sim-locks/KIND-P.cfg), credit, P pCPUs, no affinity, an
# echo domain (d1) pinged every 1 ms +- 100 us (5 us of service per ping, blocked in between),
# 2 s simulated after 200 ms of warm-up (DURATION_MS, WARMUP_MS):
# - busy: P domains of 2 spinner vCPUs (two hogs per pCPU: a decision at every slice end)
#   and P one-vCPU duty guests that spin 200 us and sleep 800 us (wall clock: a timer wake
#   and a block each per ms);
# - bursty: 3P such duty guests and nothing else (60% load: pCPUs go idle, wake, steal and
#   balance, the cross-pCPU paths).
# Environment: PCPUS (default "1 8 16 64 256"), SLICES_US ("1000 50"), KINDS ("busy
# bursty"), EXTRA (more sim words for every run, e.g. sim.lock_ps_per_insn=300).
set -eu
cd "$(dirname "$0")/.."
sim=${1:-build/sliver-sim}
out=build/sim-locks
mkdir -p "$out"
dur=${DURATION_MS:-2000}
warm=${WARMUP_MS:-200}
# shellcheck disable=SC2206 # word lists
pcpus=(${PCPUS:-1 8 16 64 256})
# shellcheck disable=SC2206
slices=(${SLICES_US:-1000 50})
extra=${EXTRA:-}

scenario() { # KIND P
	local k=$1 p=$2 i
	{
		echo "multiboot2 /boot/sliver.elf sched=credit sim.pcpus=$p sim.duration_ms=$dur" \
			"sim.warmup_ms=$warm ping.dom=1 ping.interval_us=1000 ping.jitter_us=100"
		echo "module2 /guests/echo.elf name=echo"
		if [ "$k" = busy ]; then
			for ((i = 1; i <= p; i++)); do
				echo "module2 /guests/spinner.elf name=hog$i vcpus=2"
			done
			for ((i = 1; i <= p; i++)); do
				echo "module2 /guests/echo.elf name=io$i duty=200/800"
			done
		else
			for ((i = 1; i <= 3 * p; i++)); do
				echo "module2 /guests/echo.elf name=io$i duty=200/800"
			done
		fi
	} >"$out/$k-$p.cfg"
}

run_x() { # cfg slice mode, with $EXTRA as given: the locks line
	# shellcheck disable=SC2086 # EXTRA is words
	"$sim" "$1" "credit.tslice_us=$2" "sim.locks=$3" $EXTRA >"$out/run.txt" 2>&1 || true
	grep '^locks' "$out/run.txt" || echo "locks (no line)"
}

kv() { # line key
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

run() { # cfg slice mode -> the locks line, or the ping line with mode off
	# shellcheck disable=SC2086 # EXTRA is words
	"$sim" "$1" "credit.tslice_us=$2" "sim.locks=$3" $extra >"$out/run.txt" 2>&1 || true
	if [ "$3" = off ]; then
		grep '^ping d1' "$out/run.txt" || echo "ping d1 p99_us=?"
	else
		grep '^locks' "$out/run.txt" || echo "locks (no line: $(head -c 200 "$out/run.txt"))"
	fi
}

skipped=""
for k in ${KINDS:-busy bursty}; do
	echo
	echo "Scenario \`$k\`:"
	echo
	echo "| pCPUs | slice | global: lock wait p50 / p99 / max ns | global: decisions/s | global: ping p50 / p99 us | percpu: lock wait p50 / p99 / max ns | percpu: decisions/s | percpu: ping p50 / p99 us | no lock cost: ping p50 / p99 us |"
	echo "|---:|---|---|---:|---|---|---:|---|---|"
	for p in "${pcpus[@]}"; do
		cfg=$out/$k-$p.cfg
		scenario "$k" "$p"
		rc=0
		"$sim" "$cfg" sim.duration_ms=1 sim.warmup_ms=0 >/dev/null 2>&1 || rc=$?
		if [ "$rc" = 2 ]; then # bad input: more pCPUs than it takes
			[[ " $skipped " == *" $p "* ]] || skipped="$skipped $p"
			continue
		fi
		for q in "${slices[@]}"; do
			label=$([ "$q" -ge 1000 ] && echo "$((q / 1000)) ms" || echo "$q us")
			row="| $p | $label |"
			for m in global percpu; do
				l=$(run "$cfg" "$q" "$m")
				row="$row $(kv "$l" wait_p50_ns) / $(kv "$l" wait_p99_ns) / $(kv "$l" wait_max_ns) |"
				row="$row $(kv "$l" decisions_per_s) |"
				pg=$(grep '^ping d1' "$out/run.txt" || true)
				row="$row $(kv "$pg" p50_us) / $(kv "$pg" p99_us) |"
			done
			pg=$(run "$cfg" "$q" off)
			echo "$row $(kv "$pg" p50_us) / $(kv "$pg" p99_us) |"
		done
	done
done
# How the verdict moves with what the model assumes: time per instruction held
# (sim.lock_ps_per_insn), the hand-off (sim.lock_xfer_ns) and exact simultaneity (a jitter
# of the calls' arrivals, sim.lock_jitter_ns), at the largest P run, 50 us slices.
big=""
for p in "${pcpus[@]}"; do
	[[ " $skipped " == *" $p "* ]] || big=$p
done
if [ -n "$big" ] && [ -z "${NO_SENSITIVITY:-}" ]; then
	echo
	echo "Sensitivity, $big pCPUs, 50 us slices (lock wait p99 ns, decisions/s, ping p99 us):"
	echo
	echo "| scenario | ps per instruction | transfer ns | jitter ns | global: wait p99 | decisions/s | ping p99 | percpu: wait p99 | decisions/s | ping p99 |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for k in ${KINDS:-busy bursty}; do
		for c in 200:100:0 500:100:0 1000:40:0 1000:100:0 1000:200:0 2000:100:0 1000:100:100 \
			1000:100:1000; do
			IFS=: read -r ps xf jt <<<"$c"
			row="| $k | $ps | $xf | $jt |"
			for m in global percpu; do
				l=$(EXTRA="$extra sim.lock_ps_per_insn=$ps sim.lock_xfer_ns=$xf sim.lock_jitter_ns=$jt" \
					run_x "$out/$k-$big.cfg" 50 "$m")
				row="$row $(kv "$l" wait_p99_ns) | $(kv "$l" decisions_per_s) | $(kv "$l" ping_p99_us) |"
			done
			echo "$row"
		done
	done
fi
if [ -n "$skipped" ]; then
	echo
	echo "Not run:$skipped pCPUs (the simulator takes at most $(sed -n 's/^#define SCHED_MAX_PCPUS[ \t]*\([0-9]*\).*/\1/p' sched/sched.h), SCHED_MAX_PCPUS)."
fi
