#!/usr/bin/env bash
# ple-sim-bench.sh [SIM]: the simulator's issue-14 table (docs/BENCHMARKS.md, "PAUSE-loop
# exits"): test/scenarios/sim-lockstress-hogs.cfg and -2dom.cfg at 2..64 pCPUs, a lockstress domain with
# one vCPU per pCPU alone (1x), next to P/2 hog vCPUs (1.5x), next to P hog vCPUs (2x) and
# next to a second lockstress domain of P vCPUs (2x), with sched.ple=off, yield, directed.
# Columns: lock acquisitions per simulated second (domain d1), and each domain's share
# of the machine in % (d1 first).
set -eu # (no pipefail: a row whose expect.* bounds fail still prints)
sim=${1:-build/sliver-sim}
row() {
	local label=$1 m=$2 cfg=test/scenarios/sim-lockstress-$3.cfg
	shift 3
	"$sim" "$cfg" "$@" sched.ple="$m" | awk -v l="$label" -v m="$m" '
		/^sim / { for (i = 1; i <= NF; i++) if ($i ~ /^pcpus=/) { split($i, a, "="); P = a[2] } }
		/^share d/ { split($3, a, "="); sh = sh sprintf("%s %.1f ", $2, a[2] / P) }
		/^lock d1 / { split($4, a, "="); r = a[2]; sub("/s", "", r) }
		END { printf "| %s | %s | %s | %s|\n", l, m, r, sh }'
}
echo "| pCPUs, setup | sched.ple | d1 lock rate (acq/s) | shares (% of the machine) |"
echo "|---|---|---|---|"
for P in 2 8 32 64; do
	H=$((P / 2))
	for m in off yield directed; do
		row "$P, 1x (lock alone)" "$m" hogs sim.pcpus=$P d1.vcpus=$P d2.vcpus=1 d2.cap=1
	done
	for m in off yield directed; do
		row "$P, 1.5x (+$H hogs)" "$m" hogs sim.pcpus=$P d1.vcpus=$P d2.vcpus=$H
	done
	for m in off yield directed; do
		row "$P, 2x (+$P hogs)" "$m" hogs sim.pcpus=$P d1.vcpus=$P d2.vcpus=$P
	done
	for m in off yield directed; do
		row "$P, 2x (+lockstress)" "$m" 2dom sim.pcpus=$P d1.vcpus=$P d2.vcpus=$P
	done
done
