#!/usr/bin/env bash
# bench-pingpath.sh [NAME:POLICY[:BUILD]...]: the ping round trip stage by stage, in
# instructions, one column per NAME (make bench-pingpath; docs/BENCHMARKS.md "The ping path,
# stage by stage (issue 25)"). Each column boots test/scenarios/pingpath.cfg, the scenario
# of make e2e-pingpath (a spinner and the echo on pCPU 0, the echo blocked between pings,
# 60 pings from pCPU 1: every ping takes the wake path), with sched=POLICY on its hypervisor
# line (credit: sliver; credit1: Xen 3.0.4 with its defaults; eevdf: Linux 6.6), from BUILD
# (a release + PINGTRACE=1 build directory, default build/pingtrace; another commit's
# build/pingtrace gives a before column). Default columns: sliver:credit credit1:credit1
# eevdf:eevdf. Runs one emulator at a time, on emulated time: Bochs/VMX (clock sync=none,
# ips=50000000 as e2e-pingpath: one TSC tick per instruction, deterministic) and QEMU/SVM
# (-icount shift=3: 8 ticks per instruction; where TCG's round robin between the vCPUs
# decides, the timer's and the IPI's delivery, the figures are QEMU's, not sliver's).
# Prints each run's ping line, the parts of tools/pingtrace-insns.sh (the rows of
# test/bench/ping.budget) per column and backend, and the stages of tools/pingtrace-table.sh
# (p50) per column and backend: the wake path, and any other path (run, queued) a run had.
# Logs: build/pingtrace/bench/NAME-EMU.log. Environment: PINGPATH_EMUS (default "bochs
# qemu"), PINGPATH_ROW (a 2006 row, e.g. row-035-10: boot tools/bench-hv.sh's scenario of
# that row instead, PINGPATH_RUN_MS long, default 1500; ips=1000000000 as make bench),
# PINGPATH_IPS (Bochs' ips).
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/pingtrace/bench
emus=${PINGPATH_EMUS:-bochs qemu}
row=${PINGPATH_ROW:-}
if [ -n "$row" ]; then ips=${PINGPATH_IPS:-1000000000} timeout=1800; else ips=${PINGPATH_IPS:-50000000} timeout=300; fi
[ $# -ge 1 ] || set -- sliver:credit credit1:credit1 eevdf:eevdf
mkdir -p $work

# one NAME POLICY BUILD EMU: $work/NAME-EMU.log
one() {
	local name=$1 policy=$2 build=$3 emu=$4 dir=$work/$1
	[ -f "$build/sliver.elf" ] || { echo "bench-pingpath: $build/sliver.elf not built (make $build/all)" >&2; return 1; }
	mkdir -p "$dir"
	cp "$build/sliver.elf" "$dir/sliver.elf"
	if [ -n "$row" ]; then
		tools/bench-hv.sh cfg "$row" sliver "${PINGPATH_RUN_MS:-1500}"
	else
		sed -e '/^\s*#/d' -e '/^\s*$/d' test/scenarios/pingpath.cfg
	fi | sed "/^\s*multiboot2/s/ sched=credit / sched=$policy /" >"$dir/pingpath.cfg"
	grep -q "sched=$policy " "$dir/pingpath.cfg" || { echo "bench-pingpath: no sched= to set in $dir/pingpath.cfg" >&2; return 1; }
	tools/mkiso.sh pingpath "$dir/pingpath.cfg" "$dir" "$build"/guests/*.elf >/dev/null
	local args=(--emu bochs --ips "$ips")
	[ "$emu" = qemu ] && args=(--emu qemu --icount)
	tools/sliver-run "${args[@]}" --cpus 2 --timeout "$timeout" --log "$work/$name-$emu.log" \
		"$dir/pingpath-bios.iso" >/dev/null 2>"$work/$name-$emu.err" ||
		{ echo "bench-pingpath: $name under $emu failed: $work/$name-$emu.log" >&2; return 1; }
	grep -q '^pingtrace wake pings' "$work/$name-$emu.log" ||
		{ echo "bench-pingpath: $name under $emu: no pingtrace lines (not a PINGTRACE=1 build?)" >&2; return 1; }
	rm -rf "$dir/iso" "$dir/pingpath.iso" "$dir/pingpath-bios.iso"
}

names=()
for col in "$@"; do
	IFS=: read -r name policy build <<<"$col"
	names+=("$name")
	for emu in $emus; do one "$name" "$policy" "${build:-build/pingtrace}" "$emu"; done
done

per() { [ "$1" = qemu ] && echo 8 || echo 1; }
backend() { [ "$1" = qemu ] && echo svm || echo vmx; }
for emu in $emus; do
	for n in "${names[@]}"; do grep -m1 "^ping d" "$work/$n-$emu.log" | sed "s/^/$n, $emu: /"; done
done
echo
echo "The parts of the round trip (tools/pingtrace-insns.sh, p50 in instructions):"
{
	for emu in $emus; do
		for n in "${names[@]}"; do
			tools/pingtrace-insns.sh "$work/$n-$emu.log" "$(backend "$emu")" | sed "s/^/$n-$(backend "$emu") /"
		done
	done
} | awk -v cols="$(for e in $emus; do for n in "${names[@]}"; do printf '%s ' "$n-$(backend "$e")"; done; done)" '
	{ sub(/^ping\.wake\./, "", $2); v[$1, $2] = $3 }
	END {
		nc = split(cols, c, " ")
		np = split("timer sender wake ipi target pick reply total", p, " ")
		split("the send time to ping_fire|ping_fire to the IPI sent|(in sender) the policy'"'"'s wake|" \
			"the IPI to the VM exit|the exit to the echo'"'"'s entry|(in target) the policy'"'"'s pick|" \
			"the echo'"'"'s two hypercalls to ping_reply|the round trip (p50 of the sums)", w, "|")
		printf "| part | what |"
		for (i = 1; i <= nc; i++) printf " %s |", c[i]
		printf "\n|---|---|"
		for (i = 1; i <= nc; i++) printf "---:|"
		printf "\n"
		for (j = 1; j <= np; j++) {
			printf "| %s | %s |", p[j], w[j]
			for (i = 1; i <= nc; i++) printf " %s |", ((c[i], p[j]) in v) ? sprintf("%d", v[c[i], p[j]] + 0.5) : "-"
			printf "\n"
		}
	}'
cols=()
for emu in $emus; do
	for n in "${names[@]}"; do cols+=("$n-$(backend "$emu")=$work/$n-$emu.log=$(per "$emu")"); done
done
for path in wake run queued; do
	have=0
	for c in "${cols[@]}"; do
		l=${c#*=} l=${l%=*}
		grep -q "^pingtrace $path " "$l" && have=1
	done
	[ "$have" = 1 ] || continue
	echo
	echo "The $path path stage by stage (tools/pingtrace-table.sh --path $path --p50, instructions):"
	tools/pingtrace-table.sh --path "$path" --p50 "${cols[@]}"
done
