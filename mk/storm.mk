# Interrupt storms (issue 30 item 5): guests/storm beside a spinner and an echo domain pinged
# every ms, all on pCPU 0 (test/scenarios/storm-*.cfg, 1 s each). Each attack runs once and
# is judged against the baseline run (storm-none: the storm guest only spins) by
# tools/storm-table, which prints the table (docs/BENCHMARKS.md, "Interrupt storms").
#   make e2e-storm        Bochs/VMX
#   make e2e-storm-svm    QEMU/SVM (TCG under -icount: coarse timing, looser bounds below)
STORM_ATTACKS := timer deadline selfipi nmi nmi-xapic initsipi bcast die
STORM_ISOS := $(patsubst %,$(BUILD)/storm-%-bios.iso,none $(STORM_ATTACKS))
STORM_EXPECT := $(E2E_END) --reject 'crashed|refused' --expect '^\(d3\) storm: attack='
# Bochs: the issue's bounds.
# die's p99 under Bochs depends on how many of the ~950 pings fall due while pCPU 0 ends the
# storm domain (~8,800 instructions there, docs/scheduler.md "The CPU set"): before the CPU
# sets' cost was cut it read 1.38x-1.84x on builds that did not touch its path; after, 1.20x
# (74.2 against 61.7 us) and 1.22x. Ending a domain more cheaply on its pCPU is the real fix.
STORM_TABLE_VMX :=
# QEMU TCG runs the 2 pCPUs in turns (docs/svm.md, QEMU items 5-7): a ping due while pCPU 0
# holds the emulator waits for its turn, so wake-to-run there moves in steps of the turns:
# the echo's p99 may be 200 us above the baseline's (30 us) and 2 pings lost. The share
# bound is the issue's. The dying domain is the exception: pCPU 1 scrubs its memory and
# re-creates it in host code that exits to no one, holding the emulator while pCPU 0 (the
# spinner, the echo) stands still in emulated time: measured 10 and 16 lost (QEMU runs are
# not repeatable to the bit), echo p99 602-610 us, spinner 39.7-40.0% of guest time against
# 46.6% (Bochs, both pCPUs really in parallel: 0 lost, 92.7 us, 57.3%).
STORM_TABLE_SVM := --p99-floor-us 200 --max-lost 2 --bounds die:lost=30,p99_us=2000,share_pts=10

define storm_run
.PHONY: $(1)
$(1): $(STORM_ISOS)
	@for a in none $(STORM_ATTACKS); do \
	    tools/e2e.sh storm-$$$$a$(2) $$(STORM_EXPECT) -- $(3) --cpus 2 --timeout 300 \
	        $(BUILD)/storm-$$$$a-bios.iso || exit 1; \
	done
	tools/storm-table $(4) build/e2e/storm-none$(2).log \
	    $(patsubst %,build/e2e/storm-%$(2).log,$(STORM_ATTACKS))
endef
$(eval $(call storm_run,e2e-storm,,--emu bochs,$(STORM_TABLE_VMX)))
$(eval $(call storm_run,e2e-storm-svm,-svm,--emu qemu --icount,$(STORM_TABLE_SVM)))
TEST_TARGETS += e2e-storm
SVM_TESTS += e2e-storm-svm
