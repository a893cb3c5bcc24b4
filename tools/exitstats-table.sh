#!/usr/bin/env bash
# exitstats-table.sh VMX_LOG SVM_LOG: the markdown table of `make bench-exits-stats` from the
# `exitstats ...` lines of an EXITSTATS=1 exitbench run under Bochs/VMX and QEMU/SVM
# (core/exit.c exit_stats_report): per exit kind, round trips and the backend's VMCS / VMCB
# accesses per round trip (a VM exit, its handling and everything up to the next entry).
set -euo pipefail
vmx=$1 svm=$2
get() { # LOG KIND FIELD
	grep "^exitstats $2 " "$1" | head -1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}
echo "| exit kind | VMX round trips | VMREAD | VMWRITE | SVM round trips | VMCB qwords changed | clean bits cleared |"
echo "|---|---:|---:|---:|---:|---:|---:|"
kinds=$( (grep -h "^exitstats " "$vmx" "$svm" || true) | awk "{print \$2}" | sort -u)
for k in $kinds; do
	echo "| $k | $(get "$vmx" "$k" n) | $(get "$vmx" "$k" vmread) | $(get "$vmx" "$k" vmwrite) |" \
	     "$(get "$svm" "$k" n) | $(get "$svm" "$k" vmcb_qwords) | $(get "$svm" "$k" clean_cleared) |"
done
