# Simulator tooling beyond the scenarios of mk/sched.mk: the ideal's unit test and the
# random-scenario property test (test/sim/README.md).
UNIT_TESTS += sim_ideal
UNIT_SRCS_sim_ideal := test/unit/test_sim_ideal.c test/sim/ideal.c

# The random-scenario property test: fixed seeds (300 small scenarios, 40 of any size up to
# 64 pCPUs x 1024 domains), shrinking the first 3 failures to minimal scenario files in
# build/sched-fuzz. About 40 s today (most seeds fail: issue 10); part of `make test` once
# the scheduler meets it: `make test SCHED_FUZZ=1`.
SCHED_FUZZ ?= 0
.PHONY: sched-fuzz
sched-fuzz: $(BUILD)/sliver-sim
	tools/sched-fuzz.sh $(BUILD)/sliver-sim
ifeq ($(SCHED_FUZZ),1)
TEST_TARGETS += sched-fuzz
endif
