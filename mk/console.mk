# The asynchronous console (issue 9): lib/conring (the lock-free line ring), and the e2e
# scenarios that show a flooding guest does not move another domain's latency.
HV_SRCS += lib/conring.c
UNIT_TESTS += conring
UNIT_SRCS_conring := test/unit/test_conring.c lib/conring.c
