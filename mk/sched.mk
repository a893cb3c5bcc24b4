# Scheduler (sched/), its unit tests and the discrete-event simulator (test/sim/).
SCHED_SRCS := sched/sched.c sched/credit.c sched/credit_vt.c sched/credit_cap.c \
              sched/credit_balance.c sched/rr.c sched/yield_to.c
SCHED_SRCS += sched/credit_config.c sched/credit_wake.c sched/credit_pick.c sched/credit_check.c
SCHED_SRCS += sched/eevdf.c sched/eevdf_ops.c sched/eevdf_bw.c
SCHED_SRCS += sched/credit1.c sched/credit1_acct.c sched/credit1_config.c
HV_SRCS += $(SCHED_SRCS)
# What sched/ uses of lib/ (linked once in the hypervisor by mk/platform.mk).
SCHED_LIB := lib/cmdline.c

UNIT_TESTS += sched
UNIT_SRCS_sched := test/unit/test_sched.c $(SCHED_SRCS) $(SCHED_LIB)

# The CPU set (sched/cpumask.h) against a reference, and its text form.
UNIT_TESTS += cpumask
UNIT_SRCS_cpumask := test/unit/test_cpumask.c $(SCHED_SRCS) $(SCHED_LIB)

# The simulator links the very same sched/ sources, built for speed (no sanitizers).
SIM_SRCS := test/sim/main.c test/sim/sim.c test/sim/guest.c test/sim/inv.c test/sim/lock.c \
            test/sim/door.c test/sim/door_lock.c test/sim/scenario.c test/sim/stats.c test/sim/ideal.c test/sim/gen.c \
            lib/cmdline.c $(SCHED_SRCS)
SIM_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -I.

$(BUILD)/sliver-sim: $(SIM_SRCS) $(wildcard test/sim/*.h sched/*.h lib/cmdline.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SIM_CFLAGS) -o $@ $(SIM_SRCS) -lm

# The credit policy's rules on one pCPU (sched_credit), between pCPUs and what the outside
# changes or reads (sched_credit_ops), on one fixture (test/unit/credit_fixture.c).
UNIT_TESTS += sched_credit sched_credit_ops
UNIT_SRCS_sched_credit := test/unit/test_sched_credit.c test/unit/credit_fixture.c \
                          $(SCHED_SRCS) $(SCHED_LIB)
UNIT_SRCS_sched_credit_ops := test/unit/test_sched_credit_ops.c test/unit/credit_fixture.c \
                              $(SCHED_SRCS) $(SCHED_LIB)

UNIT_TESTS += sched_domain
UNIT_SRCS_sched_domain := test/unit/test_sched_domain.c $(SCHED_SRCS) $(SCHED_LIB)

UNIT_TESTS += sched_boost
UNIT_SRCS_sched_boost := test/unit/test_sched_boost.c $(SCHED_SRCS) $(SCHED_LIB)

# The issue-10 rules: pinned vCPUs (sched_beyond) and shares across pCPUs
# (sched_beyond_share), on one driver (test/unit/sched_drive.c).
UNIT_TESTS += sched_beyond sched_beyond_share
UNIT_SRCS_sched_beyond := test/unit/test_sched_beyond.c test/unit/sched_drive.c $(SCHED_SRCS) \
                          $(SCHED_LIB)
UNIT_SRCS_sched_beyond_share := test/unit/test_sched_beyond_share.c test/unit/sched_drive.c \
                                $(SCHED_SRCS) $(SCHED_LIB)

$(BUILD)/sliver-bench-decision: test/sim/bench_decision.c $(SCHED_SRCS) $(SCHED_LIB) $(wildcard sched/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O2 $(WARN) -Iinclude -I. -o $@ test/sim/bench_decision.c $(SCHED_SRCS) $(SCHED_LIB)

# Simulator scenarios with their bounds (expect.* keys in each file).
.PHONY: sim-test bench-sim
sim-test: $(BUILD)/sliver-sim
	tools/sim-test.sh $(BUILD)/sliver-sim

# Each scenario over sim.seed=1..SIM_SEEDS (informational: how robust each pass is).
SIM_SEEDS ?= 20
.PHONY: sim-seeds
sim-seeds: $(BUILD)/sliver-sim
	tools/sim-seeds.sh $(BUILD)/sliver-sim $(SIM_SEEDS)

# Writes the scheduler section of docs/BENCHMARKS.md (every policy, sweeps, decision cost).
bench-sim: $(BUILD)/sliver-sim $(BUILD)/sliver-bench-decision
	tools/bench-sim.sh $(BUILD)/sliver-sim $(BUILD)/sliver-bench-decision

# The lock-contention table (issue 24; docs/BENCHMARKS.md, "Simulated lock contention"),
# printed as markdown (4.5 minutes on a shared 2-core box).
.PHONY: bench-sim-locks
bench-sim-locks: $(BUILD)/sliver-sim
	tools/bench-sim-locks.sh $(BUILD)/sliver-sim

TEST_TARGETS += sim-test

UNIT_TESTS += sched_ple
UNIT_SRCS_sched_ple := test/unit/test_sched_ple.c $(SCHED_SRCS) $(SCHED_LIB)

UNIT_TESTS += sched_eevdf
UNIT_SRCS_sched_eevdf := test/unit/test_sched_eevdf.c $(SCHED_SRCS) $(SCHED_LIB)

UNIT_TESTS += sched_credit1
UNIT_SRCS_sched_credit1 := test/unit/test_sched_credit1.c $(SCHED_SRCS) $(SCHED_LIB)

# The mix scenario booted with sched=eevdf (Bochs; -svm: QEMU TCG+SVM), e2e-vmx-mix's checks
# and its bounds on lost pings (-svm as e2e-vmx-mix-svm's: measured n=1492 lost=8).
e2e-eevdf-mix_EXPECT = $(e2e-vmx-mix_EXPECT)
e2e-eevdf-mix_VMX = $(E2E_MIX_LOST_VMX)
e2e-eevdf-mix_SVM = --expect '^ping d4 n=1[0-9]{3} lost=[0-9]{1,2} '
$(eval $(call e2e_twin,e2e-eevdf-mix,$(BUILD)/eevdf-mix-bios.iso,$(VMM_RUN2)))
