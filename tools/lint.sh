#!/usr/bin/env bash
# make lint: cppcheck over every C file, and a clang-format check (no file is changed;
# `tools/lint.sh --fix` reformats in place).
set -uo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h')
rc=0
cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
	--suppress=missingIncludeSystem --inline-suppr -I . -I include -D__x86_64__ \
	$files || rc=1
if [ "${1:-}" = --fix ]; then
	clang-format -i $files
else
	bad=$(for f in $files; do clang-format --dry-run "$f" 2>&1 | grep -q . && echo "$f"; done)
	if [ -n "$bad" ]; then
		echo "clang-format: these files differ from .clang-format (tools/lint.sh --fix):"
		echo "$bad"
		rc=1
	fi
fi
[ $rc = 0 ] && echo "lint: clean"
exit $rc
