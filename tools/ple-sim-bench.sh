#!/usr/bin/env bash
# ple-sim-bench.sh [SIM]: the simulator's issue-14 table (docs/BENCHMARKS.md, "PAUSE-loop
# exits"): test/scenarios/sim-lockstress-hogs.cfg and -2dom.cfg at 2..64 pCPUs, a lockstress domain with
# one vCPU per pCPU alone (1x), next to P/2 hog vCPUs (1.5x), next to P hog vCPUs (2x) and
# next to a second lockstress domain of P vCPUs (2x), with sched.ple=off, yield, directed.
# Columns: lock acquisitions per simulated second (domain d1), and each domain's share
# of the machine in % (d1 first). Then the same for the Bochs table's 4-vCPU setups (below).
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
for P in ${PCPUS-2 8 32 64}; do
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

# The Bochs table's setups (tools/ple-bench.sh, VCPUS=4) in the simulator: a lockstress
# domain of 4 vCPUs on 2 pCPUs, alone (1x), next to a hog capped at 25% (1.125x), 2 hogs
# (2x), 4 hogs (3x, one domain each) or a second such lock domain (2x-lock2). The
# simulator's runs are deterministic per sim.seed (the guests' phases) and the 4-vCPU rows
# swing with it: each row is the mean of sim.seed=1..5 (min..max in brackets); shares are
# the means, % of the machine.
out=build/ple-sim
mkdir -p "$out"
HEAD='multiboot2 /boot/sliver.elf sim.pcpus=2 sim.duration_ms=1000 sim.ple_window_us=5'
LOCK='module2 /guests/lockstress.elf name=lock vcpus=4 cs_us=5 think_us=20'
HOG='module2 /guests/spinner.elf name=hog'
cfg() { # name lines...
	local n=$1
	shift
	printf '%s\n' "$HEAD" "$LOCK" "$@" >"$out/$n.cfg"
}
cfg 1x
cfg 1.125x-hog "$HOG cap=25"
cfg 2x-hogs "$HOG" "$HOG"
cfg 3x-hogs "$HOG" "$HOG" "$HOG" "$HOG"
cfg 2x-lock2 "${LOCK/name=lock/name=lock2}"
echo
echo "| setup (4 lock vCPUs, 2 pCPUs) | sched.ple | d1 lock rate (acq/s), mean [min..max] | shares (% of the machine) |"
echo "|---|---|---|---|"
for s in 1x 1.125x-hog 2x-hogs 3x-hogs 2x-lock2; do
	for m in off yield directed; do
		for seed in 1 2 3 4 5; do
			"$sim" "$out/$s.cfg" sched.ple="$m" sim.seed="$seed" || true
		done | awk -v l="$s" -v m="$m" '
			/^share d/ { split($3, a, "="); sh[$2] += a[2] / 2; if (!($2 in seen)) { seen[$2] = 1; ord[++nd] = $2 } }
			/^lock d1 / { split($4, a, "="); r = a[2]; sub("/s", "", r); r += 0; n++; t += r
				if (n == 1 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
			END { s = ""; for (i = 1; i <= nd; i++) s = s sprintf("%s %.1f ", ord[i], sh[ord[i]] / n)
				printf "| %s | %s | %.0f [%d..%d] | %s|\n", l, m, t / n, lo, hi, s }'
	done
done
