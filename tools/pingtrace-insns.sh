#!/usr/bin/env bash
# pingtrace-insns.sh LOG BACKEND: the measurements of one PINGTRACE=1 run for
# tools/budget-check.sh: the ping path's wake path (core/pingtrace.h), p50 of each part in
# instructions, as "ping.wake.<part> <instructions>" (timer, sender,
# ipi, target and reply follow each other from the send time to the reply; wake is inside
# sender, pick inside target):
#   timer   the scheduled send time to ping_fire (the timer interrupt)       stage fire
#   sender  ping_fire to the IPI: event, sd_notify, the policy's wake, kick  raise..ipi
#   wake    the policy's wake alone (sched_wake)                             woken
#   ipi     the IPI's delivery: the echo's pCPU leaves its guest             vmexit
#   target  the exit to the echo's VM entry: exit path, pick, switch, load  exited..entry
#   pick    the policy's pick alone (sched_pick_next)                        picked
#   reply   the entry to ping_reply: the echo's two hypercalls               info_exit..reply
#   total   the whole round trip (p50 of the sums, not the sum of the p50s)  total
# TSC ticks per instruction as tools/sliver-run runs the emulators: Bochs (vmx) 1 (the TSC
# counts at ips), QEMU (svm) -icount shift=3: 1/8 (1 GHz TSC, 8 ns per instruction).
set -euo pipefail
log=$1 backend=$2
case $backend in
vmx) per=1 ;;
svm) per=8 ;;
*) echo "pingtrace-insns: unknown backend $backend" >&2; exit 2 ;;
esac
awk -v per="$per" '
	$1 == "pingtrace" && $2 == "wake" && $3 != "pings" {
		split($5, a, "="); p50[$3] = a[2]
	}
	END {
		n = split("timer:fire sender:raise,notify,locked,woken,ipi wake:woken ipi:vmexit " \
			"target:exited,drain,pick,plocked,picked,pickret,put,armed,run,loaded,entry " \
			"pick:picked reply:info_exit,info_hc,info_entry,send_exit,reply total:total", part, " ")
		for (i = 1; i <= n; i++) {
			split(part[i], kv, ":"); m = split(kv[2], st, ","); sum = 0; ok = 1
			for (j = 1; j <= m; j++) {
				if (!(st[j] in p50)) ok = 0
				sum += p50[st[j]]
			}
			if (ok) printf "ping.wake.%s %.1f\n", kv[1], sum / per
		}
	}' "$log"
