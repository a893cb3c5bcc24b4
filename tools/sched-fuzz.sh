#!/usr/bin/env bash
# The random-scenario property test of the scheduler (test/sim/README.md, "Random
# scenarios"): fixed seed lists through `sliver-sim --gen`, failures shrunk to minimal
# scenario files in build/sched-fuzz. Exits non-zero when a seed fails.
# Usage: tools/sched-fuzz.sh [path/to/sliver-sim] [extra sliver-sim --gen arguments]
set -u
cd "$(dirname "$0")/.."
SIM=${1:-build/sliver-sim}
shift || true
OUT=build/sched-fuzz
rm -rf "$OUT"
mkdir -p "$OUT"
rc=0
"$SIM" --gen 1 --gen-n 300 --gen-size small --gen-out "$OUT" --gen-shrink-s 20 "$@" |
	tee "$OUT/small.log" | grep -v '^gen seed=.* PASS$' || true
grep -q '^gen: .* 0 failed, 0 refused' "$OUT/small.log" || rc=1
"$SIM" --gen 1000 --gen-n 40 --gen-size any --gen-out "$OUT" --gen-shrink-max 0 "$@" |
	tee "$OUT/any.log" | grep -v '^gen seed=.* PASS$' || true
grep -q '^gen: .* 0 failed, 0 refused' "$OUT/any.log" || rc=1
exit $rc
