# The asynchronous console (issue 9): lib/conring (the lock-free line ring), and the e2e
# scenarios that show a flooding guest does not move another domain's latency.
HV_SRCS += lib/conring.c
UNIT_TESTS += conring
UNIT_SRCS_conring := test/unit/test_conring.c lib/conring.c

# Each latency test boots its scenario twice: as written, and with the flooder silent
# (report_ms=1 -> 0, burst= -> 0: the "quiet" run, generated with sed so that nothing else
# differs), then tools/console-lat-compare checks the flooded p99 against the quiet one
# (at most 1.2x and under 100 us, emulated time; e2e-console-lat-same its mean, below).
# The -svm variants run the same two boots and comparisons under QEMU TCG+SVM (-icount:
# emulated time, deterministic); CONSOLE_EMU is set per target.
CONSOLE_EMU = --emu bochs
CONSOLE_RUN = -- $(CONSOLE_EMU) --cpus 2 --timeout 400
CONSOLE_RUN3 = -- $(CONSOLE_EMU) --cpus 3 --timeout 400
# Each of the 400 pings wakes the echo (Bochs: exactly 400 wake samples).
CONSOLE_LAT_N = 400
CONSOLE_OK = --expect '^sliver: run complete: PASS' --reject 'crashed|PANIC|refused' \
	--expect '^\(d1\) lat d3v0 n=$(CONSOLE_LAT_N) ' --expect '^sliver: console: asynchronous, drained by cpu[12]$$' \
	--expect '^sliver: console: wire_bytes=[1-9][0-9]* thre_irqs=[1-9][0-9]* '
# The issue's bound: flooded p99 at most 1.2x the quiet one and under 100 us (measured:
# docs/console.md). `make CONSOLE_LAT_RATIO=1.5 ...` loosens it for experiments.
CONSOLE_LAT_RATIO ?= 1.2
CONSOLE_LAT_MAX ?= 100
# e2e-console-lat-same (the flooder on the echo's pCPU) is judged by the flooded mean, at
# most 1.05x the quiet one, with the p99 at most 2x and the p90 under 100 us (issue 29). Its
# p99 is the 4th slowest of 400 wakes, and how many wakes find their kick landing inside the
# flooder's exit handler (one more VM entry, ~30 us) is a matter of the two pCPUs' phase,
# which any code change moves: docs/console.md has 1.02x to 1.54x over builds that changed
# nothing on its path (1.40x in CI on fa1a354, 1.54x in a working tree, 1.08x here), and a
# rule was reverted over it (30b0001). Measured on 17 builds (2026-12-07: door's head and
# four earlier commits of it, eight of the head built with other -falign-* flags, fa1a354,
# 7bcc036, 30b0001 and c4bd237): flooded/quiet p99 0.99x-1.10x, mean 0.998x-1.001x, p90
# 0.99x-1.00x, flooded p90 58-73 us. The mean moves only when many wakes are slow (a lock
# wait or a polled UART: the 3260 us p99 of issue 9), not with a few.
CONSOLE_SAME_JUDGE = --avg-ratio 1.05 --p99-ratio 2 --p90-max-us $(CONSOLE_LAT_MAX)
CONSOLE_SCENARIOS := console-lat-same console-lat-other console-burst console-backpressure

define console_quiet
$(BUILD)/$(1)-quiet.cfg: test/scenarios/$(1).cfg
	@mkdir -p $(BUILD)
	sed -e 's/report_ms=1 /report_ms=0 /; s/report_ms=1$$$$/report_ms=0/; s/burst=[0-9]*/burst=0/' $$< >$$@
# (after the scenario's own ISO, whose rule depends on every guest: GUEST_ELFS is not
# complete yet when this file is read)
$(BUILD)/$(1)-quiet.iso: $(BUILD)/$(1)-quiet.cfg $(BUILD)/$(1).iso
	tools/mkiso.sh $(1)-quiet $$< $(BUILD) $$(GUEST_ELFS)
endef
$(foreach s,$(CONSOLE_SCENARIOS),$(eval $(call console_quiet,$(s))))

# (a) the flooder (a line every 1 ms) on the echo domain's pCPU.
e2e-console-lat-same e2e-console-lat-same-svm: $(BUILD)/console-lat-same.iso $(BUILD)/console-lat-same-quiet.iso
	tools/e2e.sh $@-quiet $(CONSOLE_OK) $(CONSOLE_RUN) $(BUILD)/console-lat-same-quiet.iso
	tools/e2e.sh $@ $(CONSOLE_OK) --expect '^\(d2\) spin iters=' \
	    --expect '^\(d1\) conwrite cpu0 n=[1-9][0-9]* avg_cycles=[0-9]+ p99_cycles=[0-9]+ max_cycles=[0-9]+$$' \
	    $(CONSOLE_RUN) $(BUILD)/console-lat-same.iso
	tools/console-lat-compare build/e2e/$@-quiet.log build/e2e/$@.log d3v0 $(CONSOLE_SAME_JUDGE)

# (b) the flooder on the other pCPU (the service domain's, which drains the console).
e2e-console-lat-other e2e-console-lat-other-svm: $(BUILD)/console-lat-other.iso $(BUILD)/console-lat-other-quiet.iso
	tools/e2e.sh $@-quiet $(CONSOLE_OK) $(CONSOLE_RUN) $(BUILD)/console-lat-other-quiet.iso
	tools/e2e.sh $@ $(CONSOLE_OK) --expect '^\(d4\) spin iters=' \
	    $(CONSOLE_RUN) $(BUILD)/console-lat-other.iso
	tools/console-lat-compare build/e2e/$@-quiet.log build/e2e/$@.log d3v0 $(CONSOLE_LAT_RATIO) $(CONSOLE_LAT_MAX)

# (c) 64 KiB in one burst from pCPU 0: the echo domain on pCPU 1 does not notice (the
# service domain, which drains, on pCPU 2), and every line gets through, whole and in order
# (the writer waits for room: issue 27; before, the lines the ring refused were dropped and
# counted).
e2e-console-burst e2e-console-burst-svm: $(BUILD)/console-burst.iso $(BUILD)/console-burst-quiet.iso
	tools/e2e.sh $@-quiet $(CONSOLE_OK) $(CONSOLE_RUN3) $(BUILD)/console-burst-quiet.iso
	tools/e2e.sh $@ $(CONSOLE_OK) --reject 'console (ring full|rate limit)' $(CONSOLE_RUN3) $(BUILD)/console-burst.iso
	tools/console-burst-check build/e2e/$@.log 2 1024 --all
	tools/console-lat-compare build/e2e/$@-quiet.log build/e2e/$@.log d3v0 $(CONSOLE_LAT_RATIO) $(CONSOLE_LAT_MAX)

# (d) issue 27, backpressure: two writers on the echo domain's pCPU 0 write 96 KiB
# (HC_CONSOLE_WRITE) and 48 KiB (COM1, polling LSR), more than the 32 KiB guest ring holds:
# every line of both arrives (no drop, no note), both waited for room (blocked), and the
# echo domain's p99 stays under 100 us and 1.8x the quiet run's (where the writers spin
# instead: its wakes all cost one exit of a busy pCPU, 67 us when this was written, 52 us
# since the shorter exit paths of issue 25; with the writers blocked most wakes come from
# idle, 52 us, the rest from inside a writer's I/O exits, 64-128 us, and where p99 falls
# among those moves with each build's phase, 69-91 us measured: 1.5x of a 52 us quiet run
# would fail builds inside that range. docs/console.md, "Backpressure, measured").
e2e-console-backpressure: CONSOLE_LAT_RATIO = 1.8
e2e-console-backpressure: $(BUILD)/console-backpressure.iso $(BUILD)/console-backpressure-quiet.iso
	tools/e2e.sh $@-quiet $(CONSOLE_OK) $(CONSOLE_RUN) $(BUILD)/console-backpressure-quiet.iso
	tools/e2e.sh $@ $(CONSOLE_OK) --reject 'console (ring full|rate limit)' \
	    --expect '^sliver: console: wire_bytes=[1-9][0-9]* thre_irqs=[1-9][0-9]* dropped_bytes=0 ' \
	    --expect '^stat d2 console_waits=[1-9][0-9]*$$' --expect '^stat d4 console_waits=[1-9][0-9]*$$' \
	    $(CONSOLE_RUN) $(BUILD)/console-backpressure.iso
	tools/console-burst-check build/e2e/$@.log 2 1536 --all
	tools/console-burst-check build/e2e/$@.log 4 768 --all
	tools/console-lat-compare build/e2e/$@-quiet.log build/e2e/$@.log d3v0 $(CONSOLE_LAT_RATIO) $(CONSOLE_LAT_MAX)

TEST_TARGETS += e2e-console-lat-same e2e-console-lat-other e2e-console-burst e2e-console-backpressure
.PHONY: e2e-console-lat-same e2e-console-lat-other e2e-console-burst e2e-console-backpressure
# The SVM twins test what QEMU TCG can show, with bounds for it (docs/svm.md, Tests): the
# pCPUs take turns on one emulated timeline (a flood's work on any pCPU delays the others by
# up to one turn, vmm.svm_backstop_us = 500 us), -icount runs are not repeatable and the
# 16550 has no wire time (no ring ever fills). So: both boots complete, the console carries
# the flood and the burst whole and in order, and the flooded p99 stays within 10x the
# quiet one and two turns (1000 us; the burst's 3 pCPUs take turns in three, its quiet p99
# is already 1.6 ms there: 3000 us); Bochs holds the issue's 1.2x / 100 us (lat-same: its
# mean, above).
CONSOLE_SVM := e2e-console-lat-same-svm e2e-console-lat-other-svm e2e-console-burst-svm
$(CONSOLE_SVM): CONSOLE_EMU = --emu qemu --icount
$(CONSOLE_SVM): CONSOLE_LAT_RATIO = 10
$(CONSOLE_SVM): CONSOLE_LAT_MAX = 1000
e2e-console-lat-same-svm: CONSOLE_SAME_JUDGE = $(CONSOLE_LAT_RATIO) $(CONSOLE_LAT_MAX)
e2e-console-burst-svm: CONSOLE_LAT_MAX = 3000
# Under TCG a reply can take longer than the 4.6 ms ping interval when the host is loaded
# (a clean-clone CI run beside other jobs: ping max 18 ms), and a ping that finds the echo
# still awake is no wake: 396 samples for 400 pings, none lost. At least 350.
$(CONSOLE_SVM): CONSOLE_LAT_N = (3[5-9][0-9]|400)
SVM_TESTS += $(CONSOLE_SVM)
.PHONY: $(CONSOLE_SVM)

# The rings and the THR-empty drain under QEMU's 16550 (no VMX needed: the selftest), with
# typed input and a debug key on the same interrupt line; every line arrives, then the exit.
e2e-console-async-qemu: $(BUILD)/selftest-async.iso
	tools/e2e.sh $@ --expect '^selftest: PASS' --expect '^sliver: exit 0$$' --reject 'FAIL' \
	    --expect '^sliver: console: asynchronous, drained by cpu0$$' \
	    --expect '^selftest: debug key ran' --expect '^selftest: input "#*hello\\x1d\."$$' \
	    --expect '^selftest: cpu1 ' --expect '^sliver: console: wire_bytes=[1-9][0-9]* thre_irqs=[1-9][0-9]* dropped_bytes=0 watchdog_kicks=0$$' \
	    -- --emu qemu --icount --cpus 2 --timeout 60 --input test/e2e/input-hello.txt $<
TEST_TARGETS += e2e-console-async-qemu
.PHONY: e2e-console-async-qemu

# The drain's watchdog for a lost THR-empty interrupt (issue 26): the real drivers/console.c
# over a model UART that loses interrupts.
UNIT_TESTS += condrain
UNIT_SRCS_condrain := test/unit/test_condrain.c drivers/console.c lib/conring.c lib/fmt.c \
                      lib/lockorder.c lib/lockranks.c
