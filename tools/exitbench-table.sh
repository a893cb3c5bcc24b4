#!/usr/bin/env bash
# exitbench-table.sh VMX_LOG SVM_LOG: the markdown table of `make bench-exits` from the
# `exitbench:` lines of a Bochs/VMX and a QEMU/SVM run (guests/exitbench). Emulated
# instructions per exit (guest and hypervisor together, the world switch itself counted as
# the one VMRESUME/VMRUN) = emulated ns / ns per instruction: 20 in Bochs (tools/sliver-run's
# ips=50000000), 8 in QEMU (-icount shift=3).
set -euo pipefail
vmx=$1 svm=$2
get() { # LOG KIND FIELD
	grep "^(d1) exitbench: $2 " "$1" | head -1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}
insns() { # NS NS_PER_INSN
	awk -v ns="$1" -v per="$2" 'BEGIN { printf "%d", ns / per + 0.5 }'
}
echo "| exit | Bochs/VMX ns | exits/s | instructions | QEMU/SVM ns | exits/s | instructions |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for k in cpuid hc io none; do
	case $k in
	cpuid) name="CPUID (leaf 0)" ;;
	hc) name="hypercall (HC_CLOCK)" ;;
	io) name="IN from an unclaimed port" ;;
	none) name="no exit (the loop with RDTSC)" ;;
	esac
	vns=$(get "$vmx" $k ns_per_exit) sns=$(get "$svm" $k ns_per_exit)
	echo "| $name | $vns | $(get "$vmx" $k exits_per_s) | $(insns "$vns" 20) |" \
	     "$sns | $(get "$svm" $k exits_per_s) | $(insns "$sns" 8) |"
done
