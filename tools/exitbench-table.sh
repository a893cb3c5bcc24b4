#!/usr/bin/env bash
# exitbench-table.sh VMX_LOG SVM_LOG: the markdown table of `make bench-exits` from the
# `exitbench:` lines of a Bochs/VMX and a QEMU/SVM run (guests/exitbench). The exit's own
# cost is the row's ns per exit minus the no-exit baseline's.
set -euo pipefail
vmx=$1 svm=$2
get() { # LOG KIND FIELD
	sed -n "s/^(d1) exitbench: $2 .* $3=\([0-9.]*\).*/\1/p; s/^(d1) exitbench: $2 .* $3=\([0-9.]*\)$/\1/p" "$1" | head -1
}
echo "| exit | Bochs/VMX ns/exit | Bochs/VMX exits/s | QEMU/SVM ns/exit | QEMU/SVM exits/s |"
echo "|---|---:|---:|---:|---:|"
for k in cpuid hc io none; do
	name=$k
	[ "$k" = hc ] && name="hypercall (HC_CLOCK)"
	[ "$k" = io ] && name="IN from an unclaimed port"
	[ "$k" = none ] && name="(no exit: rdtsc loop)"
	echo "| $name | $(get "$vmx" $k ns_per_exit) | $(get "$vmx" $k exits_per_s) |" \
	     "$(get "$svm" $k ns_per_exit) | $(get "$svm" $k exits_per_s) |"
done
