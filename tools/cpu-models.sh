#!/usr/bin/env bash
# cpu-models.sh [ISO]: boots the ISO (default build/vmx-one.iso) under every Bochs CPU model
# and a list of QEMU -cpu models, one line per model: the exit status (0 ran, 3 refused:
# neither VMX nor SVM usable, 2 panic, 124 timeout, 125 crash) and the line that says why.
# Issue 26, item 7: a CPU without usable VMX or SVM must get the refusal, never a panic.
set -uo pipefail
cd "$(dirname "$0")/.."
iso=${1:-build/vmx-one.iso}
mkdir -p build/cpu-models
bochs_models=$(bochs --help cpu 2>&1 | awk '/^Supported CPU models:/{on=1; next} on && /^[0-9]/{exit} on && NF{print $1}')
qemu_models="qemu64 qemu64,-svm qemu64,+svm qemu64,+svm,+npt kvm64 core2duo Nehalem Skylake-Client Opteron_G3 EPYC EPYC,-npt phenom athlon Haswell,+vmx"
fail=0
row() { # emu model
	local log=build/cpu-models/$1-${2//,/_}.log
	tools/sliver-run --emu "$1" --cpu-model "$2" --cpus 1 --timeout 120 --log "$log" "$iso" >/dev/null 2>&1
	local st=$?
	local why
	why=$(grep -m1 -E '^sliver: (neither|this CPU|\(|PANIC)|PANIC|^sliver: (vmx|svm) on' "$log" | head -c 200)
	[ "$st" = 0 ] || [ "$st" = 3 ] || fail=1
	printf '%-6s %-28s status=%-3s %s\n' "$1" "$2" "$st" "$why"
}
for m in $bochs_models; do row bochs "$m"; done
for m in $qemu_models; do row qemu "$m"; done
exit $fail
