# Simulator tooling beyond the scenarios of mk/sched.mk: the ideal's unit test and the
# random-scenario property test (test/sim/README.md).
UNIT_TESTS += sim_ideal
UNIT_SRCS_sim_ideal := test/unit/test_sim_ideal.c test/sim/ideal.c

# The random-scenario property test: fixed seeds (300 small scenarios, 40 of any size up to
# 64 pCPUs x 1024 domains). In `make test`: it fails on any seed that fails and is not in
# test/scenarios/sched-fuzz.known (the seeds issue 10 has not fixed yet), shrinking the first
# 3 such to minimal scenario files in build/sched-fuzz, and on any listed seed that passes
# (until it is taken out of the list). About 30 s.
# `make sched-fuzz SCHED_FUZZ_ALL=1` fails on every failing seed.
.PHONY: sched-fuzz
sched-fuzz: $(BUILD)/sliver-sim
	SCHED_FUZZ_ALL=$(SCHED_FUZZ_ALL) tools/sched-fuzz.sh $(BUILD)/sliver-sim
TEST_TARGETS += sched-fuzz
