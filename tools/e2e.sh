#!/usr/bin/env bash
# e2e.sh NAME [--status N] [--expect REGEX]... [--reject REGEX]... -- SLIVER-RUN-ARGS...
# Boots an ISO with tools/sliver-run and passes only when the hypervisor's exit status is
# N (default 0) AND every --expect regex (grep -E) matches a console line AND no --reject
# regex does. The console goes to build/e2e/NAME.log.
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1; shift
status=0 expects=() rejects=()
while [ $# -gt 0 ]; do
	case $1 in
	--status) status=$2; shift 2 ;;
	--expect) expects+=("$2"); shift 2 ;;
	--reject) rejects+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "e2e: unknown option $1" >&2; exit 2 ;;
	esac
done
mkdir -p build/e2e
log=build/e2e/$name.log
tools/sliver-run --log "$log" "$@" >/dev/null
got=$?
tr -d '\r' <"$log" >"$log.txt" && mv "$log.txt" "$log"
fail=0
if [ "$got" != "$status" ]; then
	echo "e2e $name: exit status $got, expected $status"; fail=1
fi
for re in "${expects[@]}"; do
	grep -qE -- "$re" "$log" || { echo "e2e $name: missing line matching: $re"; fail=1; }
done
for re in "${rejects[@]}"; do
	grep -qE -- "$re" "$log" && { echo "e2e $name: unexpected line matching: $re"; fail=1; }
done
if [ $fail = 1 ]; then
	echo "---- console ($log), last 30 lines"; tail -n 30 "$log"; exit 1
fi
echo "e2e $name: ok"
