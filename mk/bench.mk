# The 2006 table inside the hypervisor under Bochs (tools/bench-hv.sh): every row-*.cfg,
# sliver (sched=credit) and the reference policies credit1 and eevdf, the guests on
# pCPU 0 and the ping source on pCPU 1 (ping.cpu=1), ips=1000000000. Writes the hv-bench
# section of docs/BENCHMARKS.md, docs/bench/bench-hv.dat and docs/bench/ping-p99.png. Slow
# (55 minutes for the three, one run at a time: docs/BENCHMARKS.md), so not in `make test`;
# e2e-bench-row-smoke keeps its path tested.
# Knobs: BENCH_RUN_MS, BENCH_ROWS, BENCH_JOBS, BENCH_IPS, BENCH_PROFILES, BENCH_KEEP (see
# tools/bench-hv.sh);
# BENCH_EMU=qemu: the same rows under QEMU TCG+SVM (-icount at the same ns per instruction),
# written beside the Bochs rows (the hv-bench-qemu section).
# The ISOs boot the release build (build/release: no lock checks), built first.
BENCH_EMU ?= bochs
.PHONY: bench e2e-bench-row-smoke e2e-bench-row-smoke-svm
bench: $(BUILD)/sliver-sim
	$(MAKE) BUILD=$(RELEASE_BUILD) RELEASE=1 all
	BENCH_EMU=$(BENCH_EMU) BENCH_BUILD=$(RELEASE_BUILD) tools/bench-hv.sh

# `make bench-decision`: the cost of one decision per policy against 1..64 runnable vCPUs on
# a pCPU, host (build/sliver-bench-decision policies) and Bochs (the release build, n
# spinners on one pCPU): tools/decision-table.sh, docs/BENCHMARKS.md "Decision cost per
# policy" (about 3 minutes).
.PHONY: bench-decision
bench-decision: $(BUILD)/sliver-bench-decision
	$(MAKE) BUILD=$(RELEASE_BUILD) RELEASE=1 all
	BUILD=$(BUILD) RELEASE_BUILD=$(RELEASE_BUILD) tools/decision-table.sh

# One row (0.35 of 10 ms), sliver (sched=credit), 300 emulated ms at ips=50000000 (a few seconds),
# 2 pCPUs as the bench: the generated scenario boots, pCPU 1 pings, the ping line has n > 0,
# p99 under 10 ms (a generous bound: it checks the path, not the target) and the late count,
# shares are printed for every domain.
$(BUILD)/bench/smoke.cfg: test/scenarios/row-035-10.cfg tools/bench-hv.sh
	@mkdir -p $(dir $@)
	tools/bench-hv.sh cfg row-035-10 sliver 300 >$@

# The ISO is rebuilt every time (a second or two): `all` is what lists every guest here
# (GUEST_ELFS is not complete yet when this file is read).
BENCH_SMOKE_EMU = --emu bochs --ips 50000000
BENCH_SMOKE_ISO = smoke
e2e-bench-row-smoke e2e-bench-row-smoke-svm: $(BUILD)/bench/smoke.cfg all
	install -C -m 644 $(BUILD)/sliver.elf $(BUILD)/bench/sliver.elf
	tools/mkiso.sh $(BENCH_SMOKE_ISO) $< $(BUILD)/bench $(GUEST_ELFS)
	tools/e2e.sh $@ $(E2E_END) --reject 'crashed|refused' \
	    --expect '^sliver: ping d4 from pCPU 1 ' --expect '^sliver: guests on pCPU 0-0 only' \
	    --expect '^ping d4 n=[1-9][0-9]* lost=[0-9]+ .* p99_us=[0-9]{1,4}\.[0-9]+ .* late=[0-9]+$$' \
	    --expect '^stat d1 .* sched_ms=[1-9]' --expect '^stat d4 .* sched_ms=[1-9]' \
	    -- $(BENCH_SMOKE_EMU) --cpus 2 --timeout 120 $(BUILD)/bench/$(BENCH_SMOKE_ISO)-bios.iso
TEST_TARGETS += e2e-bench-row-smoke
# The same row under QEMU TCG+SVM (-icount, emulated time).
e2e-bench-row-smoke-svm: BENCH_SMOKE_EMU = --emu qemu --icount
e2e-bench-row-smoke-svm: BENCH_SMOKE_ISO = smoke-svm
SVM_TESTS += e2e-bench-row-smoke-svm
