#!/usr/bin/env bash
# pingtrace-table.sh [--path P] [--p50] NAME=LOG[=PER]...: the ping path stage by stage, one
# column pair (p50, p99) per run, or with --p50 one column (p50), as a Markdown table
# (docs/BENCHMARKS.md, make bench-pingpath). Each LOG is the console of a PINGTRACE=1 run
# (core/pingtrace.h: `pingtrace <path> <stage> n= p50= p99= ...` lines, TSC ticks); PER is
# its TSC ticks per instruction (default 1: Bochs; 8: QEMU -icount shift=3), the table is in
# instructions. P is the path (default wake: the echo was blocked; run: it was running;
# queued: it waited in the run queue). A stage a run did not have shows "-"; the last row
# is the whole round trip (from the scheduled send time), the row before it the sum of the
# stages' p50.
set -euo pipefail
path=wake p99=1
while [ $# -gt 0 ]; do
	case $1 in
	--path) path=$2; shift 2 ;;
	--p50) p99=0; shift ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '2,/^set -e/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
names=() logs=() pers=()
for a in "$@"; do
	names+=("${a%%=*}") a=${a#*=}
	case $a in
	*=*) logs+=("${a%=*}") pers+=("${a##*=}") ;;
	*) logs+=("$a") pers+=(1) ;;
	esac
done
awk -v path="$path" -v names="${names[*]}" -v pers="${pers[*]}" -v both="$p99" '
	BEGIN {
		nr = split(names, nm, " ")
		split(pers, per, " ")
		ns = split("fire raise notify locked woken ipi vmexit exited drain pick plocked picked " \
			"pickret put armed run loaded entry info_exit info_hc info_entry send_exit reply", st, " ")
		what["fire"] = "sender: the scheduled send time to ping_fire (timer interrupt)"
		what["raise"] = "sender: ping_fire bookkeeping to event_raise"
		what["notify"] = "sender: event port, vector pending, to sd_notify"
		what["locked"] = "sender: the echo'"'"'s run-queue lock taken"
		what["woken"] = "sender: the policy'"'"'s wake (sched_wake)"
		what["ipi"] = "sender: unlock, kick: the IPI sent"
		what["vmexit"] = "echo'"'"'s pCPU: IPI delivered, the running guest exits"
		what["exited"] = "backend exit path (hv_vcpu_run returns)"
		what["drain"] = "interrupt drain: the IPI'"'"'s handler"
		what["pick"] = "exit dispatch, loop sees need_resched, to sd_pick"
		what["plocked"] = "the pCPU'"'"'s run-queue lock taken"
		what["picked"] = "the policy'"'"'s pick (sched_pick_next)"
		what["pickret"] = "door bookkeeping, unlock, sd_pick returns"
		what["put"] = "decision statistics, the previous vCPU put (VMCLEAR)"
		what["armed"] = "slice timer armed"
		what["run"] = "run_vcpu: checks, pending vector, deadline"
		what["loaded"] = "VMCS/VMCB load (VMPTRLD, host state, FPU, TLB tags)"
		what["entry"] = "vector injected, preemption timer: VM entry"
		what["info_exit"] = "echo: entry, its ISR to HC_EVENT_INFO, VM exit"
		what["info_hc"] = "backend exit path, dispatch to the handler"
		what["info_entry"] = "HC_EVENT_INFO handler, loop, next entry"
		what["send_exit"] = "echo: to HC_EVENT_SEND, VM exit"
		what["reply"] = "backend exit path, dispatch, ping_reply"
	}
	FNR == 1 { r++ }
	$1 == "pingtrace" && $2 == path {
		if ($3 == "pings") { split($5, a, "="); seen[r] = a[2]; split($4, a, "="); kept[r] = a[2]; next }
		split($5, a, "="); p50[r, $3] = a[2]; split($6, a, "="); p99[r, $3] = a[2]; has[$3] = 1
	}
	# ticks -> instructions of run i ("-" when absent)
	function v(a, i, k) { return ((i, k) in a) ? sprintf("%d", a[i, k] / per[i] + 0.5) : "-" }
	function cells(i, k) { return both ? " " v(p50, i, k) " | " v(p99, i, k) " |" : " " v(p50, i, k) " |" }
	END {
		printf "| stage | what |"
		for (i = 1; i <= nr; i++) printf(both ? " %s p50 | %s p99 |" : " %s |", nm[i], nm[i])
		printf "\n|---|---|"
		for (i = 1; i <= nr; i++) printf(both ? "---:|---:|" : "---:|")
		printf "\n"
		for (s = 1; s <= ns; s++) {
			k = st[s]
			if (!has[k]) continue
			printf "| %s | %s |", k, what[k]
			for (i = 1; i <= nr; i++) {
				printf "%s", cells(i, k)
				if ((i, k) in p50) sum[i] += p50[i, k] / per[i]
			}
			printf "\n"
		}
		printf "| | sum of the stages'"'"' p50 |"
		for (i = 1; i <= nr; i++) printf(both ? " %d | |" : " %d |", sum[i] + 0.5)
		printf "\n| total | the round trip (%s pings of each run: ", path
		for (i = 1; i <= nr; i++) printf "%s%s %d of %d", (i > 1 ? ", " : ""), nm[i], kept[i], seen[i]
		printf ") |"
		for (i = 1; i <= nr; i++) printf "%s", cells(i, "total")
		printf "\n"
	}' "${logs[@]}"
