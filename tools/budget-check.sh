#!/usr/bin/env bash
# budget-check.sh BUDGET BACKEND PREFIX < MEASUREMENTS: the instruction-count ratchet of
# `make test` (issue 25). MEASUREMENTS are lines "<key> <instructions>" from one run on one
# backend (e.g. tools/exitbench-insns.sh); BUDGET holds lines "<backend> <key> <budget>"
# (test/bench/exits.budget; # comments). Every budget row of BACKEND whose key starts with
# PREFIX is compared with its measurement: more than 5% over the budget fails (a change
# lengthened the path: shorten it, or raise the budget in the same commit and say why),
# more than 5% under passes with a reminder to lower the budget (so the next change cannot
# spend the gain unseen); a row without a measurement fails. Prints one line per row.
set -euo pipefail
budget=$1 backend=$2 prefix=$3
awk -v backend="$backend" -v prefix="$prefix" -v file="$budget" '
	FNR == NR { if (NF >= 2) got[$1] = $2; next }
	/^[ \t]*(#|$)/ { next }
	$1 != backend || index($2, prefix) != 1 { next }
	{
		key = $2; want = $3 + 0; rows++
		if (!(key in got)) {
			printf "budget %s %s: no measurement (budget %d): FAIL\n", backend, key, want
			bad++; next
		}
		n = got[key] + 0; pct = want ? 100 * (n - want) / want : 0
		verdict = "ok"
		if (n > want * 1.05) { verdict = "FAIL: more than 5% over the budget"; bad++ }
		else if (n < want * 0.95)
			verdict = "ok, more than 5% under: lower the budget in " file
		printf "budget %s %s: %d instructions (budget %d, %+.1f%%): %s\n", backend, key,
			n + 0.5, want, pct, verdict
	}
	END {
		if (!rows) { printf "budget %s %s*: no budget rows in %s\n", backend, prefix, file; exit 1 }
		exit bad ? 1 : 0
	}' - "$budget"
