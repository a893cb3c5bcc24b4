#!/usr/bin/env bash
# ple-bench.sh [BUILD_DIR]: the issue-14 overcommit table (docs/BENCHMARKS.md, "PAUSE-loop
# exits"). Boots each setup under Bochs (2 pCPUs, clock: sync=none, emulated time) with
# sched.ple=off, yield and directed for run_ms=3000, a lockstress domain (VCPUS=4 vCPUs by
# default, ticket lock, cs_us=5 think_us=20) never finishing (count huge), and prints one
# markdown row per setup and mode: the lock domain's rate (acquisitions per emulated second, the last
# report_ms=1000 window: the rate= field of `lockstress: acq=N rate=R/s`), its share and
# the other domains' shares (sched_ms over the sum).
# Overcommit (the KVM thread's: one guest sized to the machine is 1x): the lock domain counts
# as one machine's worth (1x alone, whatever VCPUS), each hog as one pCPU (a capped hog
# cap/100), the second lock domain (VCPUS too) as another machine: 1x lock alone, 1.125x
# + a hog capped at 25%, 2x + 2 hogs, 3x + 4 hogs, 2x-lock2 + a second lock domain.
# JOBS=2 runs two Bochs at a time (default 1).
set -euo pipefail
build=${1:-build}
out=$build/ple-bench
mkdir -p "$out"
VCPUS=${VCPUS:-4}
JOBS=${JOBS:-1}
LOCK='module2 /guests/lockstress.elf name=lock vcpus='$VCPUS' count=1000000000 cs_us=5 think_us=20 report_ms=1000'
LOCK2='module2 /guests/lockstress.elf name=lock2 vcpus='$VCPUS' count=1000000000 cs_us=5 think_us=20 report_ms=1000'
HOG='module2 /guests/spinner.elf name=hog'
declare -A SETUP=(
	[1x]="$LOCK"
	[1.125x-hog]="$LOCK
module2 /guests/spinner.elf name=hog cap=25"
	[2x-hogs]="$LOCK
$HOG
module2 /guests/spinner.elf name=hog2"
	[3x-hogs]="$LOCK
$HOG
module2 /guests/spinner.elf name=hog2
module2 /guests/spinner.elf name=hog3
module2 /guests/spinner.elf name=hog4"
	[2x-lock2]="$LOCK
$LOCK2"
)
ORDER=${ORDER:-1x 1.125x-hog 2x-hogs 3x-hogs 2x-lock2}
MODES=${MODES:-off yield directed}
run_one() {
	local s=$1 m=$2 n="ple-$1-$2"
	{
		echo "multiboot2 /boot/sliver.elf console=com1 run_ms=3000 sched.ple=$m"
		echo "${SETUP[$s]}"
	} >"$out/$n.cfg"
	tools/mkiso.sh "$n" "$out/$n.cfg" "$build" "$build"/guests/*.elf >/dev/null 2>&1
	tools/sliver-run --emu bochs --cpus 2 --timeout 300 --log "$out/$n.log" \
		"$build/$n-bios.iso" >/dev/null 2>&1 || true
}
jobs_run=0
# TABLE_ONLY=1: print the table from the logs of an earlier run, boot nothing.
[ -n "${TABLE_ONLY:-}" ] && ORDER_RUN="" || ORDER_RUN=$ORDER
for s in $ORDER_RUN; do
	for m in $MODES; do
		run_one "$s" "$m" &
		jobs_run=$((jobs_run + 1))
		if [ $((jobs_run % JOBS)) -eq 0 ]; then wait; fi
	done
done
wait
echo "| setup | sched.ple | lock rate (acq/s) | lock share | other shares | PAUSE-loop exits |"
echo "|---|---|---|---|---|---|"
for s in $ORDER; do
	for m in $MODES; do
		log="$out/ple-$s-$m.log"
		tr -d '\r' <"$log" | awk -v s="$s" -v m="$m" '
			/^\(d1\) lockstress: acq=/ { split($4, a, "="); rate = a[2]; sub("/s", "", rate) }
			/^\(d2\) lockstress: acq=/ { split($4, a, "="); rate2 = a[2]; sub("/s", "", rate2) }
			/^stat d/ { for (i = 1; i <= NF; i++) if ($i ~ /^sched_ms=/) { split($i, a, "="); ms[$2] = a[2]; tot += a[2] } }
			/^exits d1 / { for (i = 3; i <= NF; i++) { split($i, a, ":"); if (a[1] == 40) ple = a[2] } }
			END {
				other = ""
				for (d in ms) if (d != "d1") other = other sprintf("%s %.1f%% ", d, 100 * ms[d] / tot)
				if (rate2 != "") other = other sprintf("(d2 %s acq/s) ", rate2)
				printf "| %s | %s | %s | %.1f%% | %s| %d |\n", s, m, rate, 100 * ms["d1"] / tot, other, ple
			}'
	done
done
