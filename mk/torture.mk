# The scheduler door's torture test (test/torture/README.md): core/sched_door*.c and sched/ on
# the host, threads as pCPUs, under ThreadSanitizer; a seeded serial interleaving with
# injected try-lock failures that replays exactly; and a mutant with a broken lock that
# must be caught.
TORTURE_SRCS := test/torture/torture.c test/torture/checks.c test/torture/host.c \
                core/sched_door.c core/sched_door_lock.c lib/lockorder.c lib/lockranks.c \
                $(SCHED_SRCS) $(SCHED_LIB)
TORTURE_DEPS := $(TORTURE_SRCS) $(wildcard test/torture/*.h test/torture/shim/arch/x86_64/*.h \
                core/sched_door.h core/sched_door_priv.h sched/*.h lib/lockorder.h)
TORTURE_CFLAGS := -std=gnu11 -O1 -g $(WARN) -Itest/torture/shim -Iinclude -I. -pthread

$(BUILD)/torture-tsan: $(TORTURE_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TORTURE_CFLAGS) -fsanitize=thread -o $@ $(TORTURE_SRCS)

$(BUILD)/torture: $(TORTURE_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TORTURE_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -o $@ \
	    $(TORTURE_SRCS)

$(BUILD)/torture-mutant: $(TORTURE_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(TORTURE_CFLAGS) -fsanitize=thread -DTORTURE_BROKEN_LOCK -o $@ $(TORTURE_SRCS)

TORTURE_POLICIES ?= rr credit credit1 eevdf
TORTURE_SECONDS ?= 4
# Every policy at 2, 8 and 64 pCPUs with threads for TORTURE_SECONDS each (any TSan report
# fails the run), then 12 seeds of the serial mode with an audit after every step and 5% of
# the try-locks failing on purpose, and one serial run at 256 pCPUs (SCHED_MAX_PCPUS: every
# word of the CPU sets; 2-5 s each).
torture: $(BUILD)/torture-tsan $(BUILD)/torture
	@set -e; for p in $(TORTURE_POLICIES); do for n in 2 8 64; do \
	    TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(BUILD)/torture-tsan --policy $$p \
	        --pcpus $$n --doms 12 --seconds $(TORTURE_SECONDS) --seed $$n; done; \
	    for s in $$(seq 1 12); do $(BUILD)/torture --policy $$p --pcpus $$((2 + s % 15)) \
	        --doms 10 --serial 60000 --check-every 1 --inject 50 --seed $$s; done; \
	    $(BUILD)/torture --policy $$p --pcpus 256 --doms 16 --serial 30000 --check-every 1 \
	        --inject 50 --seed 256; done
# The checks must catch a lock that excludes nobody (pCPU 1's): each policy's run fails.
torture-mutant: $(BUILD)/torture-mutant
	@for p in $(TORTURE_POLICIES); do \
	    if TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(BUILD)/torture-mutant --policy $$p \
	        --pcpus 4 --doms 12 --seconds 8 --seed 1 >$(BUILD)/torture-mutant-$$p.log 2>&1; \
	    then echo "torture-mutant: $$p: a broken lock went unnoticed"; exit 1; fi; \
	    echo "torture-mutant: $$p: caught ($$(grep -m1 -E 'SUMMARY|FAIL' \
	        $(BUILD)/torture-mutant-$$p.log))"; done
TEST_TARGETS += torture torture-mutant
