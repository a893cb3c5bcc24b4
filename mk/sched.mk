# Scheduler (sched/), its unit tests and the discrete-event simulator (test/sim/).
SCHED_SRCS := sched/sched.c sched/credit.c sched/rr.c
HV_SRCS += $(SCHED_SRCS)

UNIT_TESTS += sched
UNIT_SRCS_sched := test/unit/test_sched.c $(SCHED_SRCS)
