#!/usr/bin/env bash
# Runs every simulator scenario (test/scenarios/sim-*.cfg, row-*.cfg) with sliver's defaults
# and checks the bounds written in each file (expect.*), then checks that sched=credit1
# (Xen 3.0.4's credit) still reproduces the 2006 problem, and that one lock for every call
# misses the lock-wait bound sim-locks.cfg meets with per-run-queue locks (issue 24). Exits
# non-zero when anything fails.
# Scenarios named in test/scenarios/beyond.list (issue 10, not met yet) are skipped unless
# BEYOND=1.
# Usage: [BEYOND=1] tools/sim-test.sh [path/to/sliver-sim]
set -u
cd "$(dirname "$0")/.."
SIM=${1:-build/sliver-sim}
JOBS=$(nproc 2>/dev/null || echo 2)
LOG=build/test-logs/sim
mkdir -p "$LOG"

run() { # name args...
	local name=$1; shift
	if "$SIM" "$@" >"$LOG/$name.out" 2>&1; then
		echo "PASS $name"
	else
		echo "FAIL $name"
		grep -E '^(FAIL|sliver-sim)' "$LOG/$name.out" | sed 's/^/    /'
	fi
}
export -f run
export SIM LOG

{
	for f in test/scenarios/sim-*.cfg test/scenarios/row-*.cfg; do
		n=$(basename "$f" .cfg)
		if [ "${BEYOND:-0}" != 1 ] &&
			grep -qx "$n" test/scenarios/beyond.list 2>/dev/null; then
			continue
		fi
		echo "$n $f"
	done
	# sched=credit1 under the 2006 protocol, guest and Xen timer (docs/scheduler.md, "The
	# 2006 table under credit1"), 10 s in (the tick locked onto the echo's wakes): the rows
	# 2006 measured fast stay fast, the multi-ms ones within 2x of 2006 (here: at least half).
	m06="ping.interval_us=200000 ping.jitter_us=20000 sim.warmup_ms=10000"
	m06="$m06 sim.duration_ms=35000 sim.jiffy_us=4000 sim.wake_us=20"
	m06="$m06 credit1.tick_lag_ns=5000 credit1.timer_slop_ns=50000"
	m06="$m06 expect.ping_max_us=0 expect.share_tol=0 expect.cap_tol=0"
	for r in 030-05 090-02 cap-030-05; do
		echo "c1-2006-$r test/scenarios/row-$r.cfg sched=credit1 $m06 expect.ping_p99_us=100"
	done
	for r in 035-50:3343 040-05:5502 cap-020-50:5349; do
		echo "c1-2006-${r%%:*} test/scenarios/row-${r%%:*}.cfg sched=credit1 $m06" \
			"expect.ping_p99_us=0 expect.ping_avg_min_us=${r#*:}"
	done
	# The lock model (issue 24): sim-locks.cfg meets a lock-wait p99 under 1 us with a lock
	# per run queue; with one lock for every call (the old vmm_lock) the same 8 pCPUs miss it.
	echo "sim-locks-global test/scenarios/sim-locks.cfg sim.locks=global" \
		"expect.lock_wait_p99_ns=0 expect.lock_wait_p99_min_ns=1000"
} | xargs -P "$JOBS" -L 1 bash -c 'run "$@"' _ | sort >"$LOG/summary"
cat "$LOG/summary"
pass=$(grep -c '^PASS' "$LOG/summary")
fail=$(grep -c '^FAIL' "$LOG/summary")
echo "sim-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
