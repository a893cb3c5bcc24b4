# Simulator tooling beyond the scenarios of mk/sched.mk: the ideal's unit test and the
# random-scenario property test (test/sim/README.md).
UNIT_TESTS += sim_ideal
UNIT_SRCS_sim_ideal := test/unit/test_sim_ideal.c test/sim/ideal.c
