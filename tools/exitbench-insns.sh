#!/usr/bin/env bash
# exitbench-insns.sh LOG BACKEND: the measurements of one guests/exitbench run for
# tools/budget-check.sh, "exit.<kind> <instructions per round trip>" for none, cpuid, hc, io and
# yield. Instructions = emulated ns per exit / ns per instruction as tools/sliver-run runs the
# emulators: Bochs (vmx) ips=50000000, 20 ns; QEMU (svm) -icount shift=3, 8 ns (the
# conversion of tools/exitbench-table.sh).
set -euo pipefail
log=$1 backend=$2
case $backend in
vmx) per=20 ;;
svm) per=8 ;;
*) echo "exitbench-insns: unknown backend $backend" >&2; exit 2 ;;
esac
sed -n 's/^(d[0-9]*) exitbench: \([a-z]*\) n=[0-9]* ns_per_exit=\([0-9.]*\) .*/\1 \2/p' "$log" |
	awk -v per="$per" '{ printf "exit.%s %.1f\n", $1, $2 / per }'
