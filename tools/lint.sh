#!/usr/bin/env bash
# make lint: cppcheck over every C file, a clang-format check (no file is changed;
# `tools/lint.sh --fix` reformats in place), and the checks that keep docs and layering true,
# each printing one line per thing that drifted (tools/README.md): the configuration keys
# (docs/config.md against core/bootargs.c), the hypercall numbers (docs/hypercalls.md
# against include/sliver/), each folder README's `May include:` line against the includes,
# the include cycles among core/ (new ones fail; tools/include-cycles.allow), and the lock
# ranks (lib/lockranks.c against the Locking table of core/sched_door.c).
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
	# Not `clang-format ... | grep -q .`: grep's early exit can kill clang-format with
	# SIGPIPE, and pipefail then reports the file clean.
	bad=$(for f in $files; do [ -n "$(clang-format --dry-run "$f" 2>&1)" ] && echo "$f"; done)
	if [ -n "$bad" ]; then
		echo "clang-format: these files differ from .clang-format (tools/lint.sh --fix):"
		echo "$bad"
		rc=1
	fi
fi
for check in config hypercalls includes cycles locks; do
	python3 tools/lint-$check.py || rc=1
done
[ $rc = 0 ] && echo "lint: clean"
exit $rc
