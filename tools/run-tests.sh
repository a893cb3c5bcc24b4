#!/usr/bin/env bash
# Runs each make target given as an argument as one test; its output goes to
# build/test-logs/<target>.log and, on failure, to the terminal. Ends with the line
# "N passed, N failed" and exits non-zero when anything failed.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/test-logs
pass=0 fail=0 failed=()
for t in "$@"; do
	log=build/test-logs/$t.log
	start=$(date +%s)
	if make --no-print-directory "$t" >"$log" 2>&1; then
		pass=$((pass + 1)); res=PASS
	else
		fail=$((fail + 1)); res=FAIL; failed+=("$t")
	fi
	printf '%s %-32s %4ss\n' "$res" "$t" "$(( $(date +%s) - start ))"
	if [ "$res" = FAIL ]; then
		echo "---- first failure lines of $log"
		grep -m 5 -E 'FAIL|SUMMARY: |error:' "$log"
		echo "---- last lines of $log"
		tail -n 40 "$log"
		echo "----"
	fi
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
