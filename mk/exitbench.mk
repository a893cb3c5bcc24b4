# The cost of a world switch per exit kind on each backend (issue 12): guests/exitbench
# makes 20000 CPUID, HC_CLOCK, port-I/O and HC_YIELD exits and times them on its own clock (emulated
# time: Bochs ips, QEMU -icount; emulator costs, not hardware's). The twin checks that every
# kind ran, that each IN from the unclaimed port exited once (io_other = n + 1 warm-up) and
# that no path grew past its instruction budget (test/bench/exits.budget).
EXITBENCH_LINE = '^\(d1\) exitbench: $(1) n=20000 ns_per_exit=[0-9]+\.[0-9] tsc_per_exit=[0-9]+ exits_per_s=[1-9][0-9]*$$'
e2e-exitbench_EXPECT = $(E2E_END) --reject 'crashed|refused' \
	--expect $(call EXITBENCH_LINE,none) --expect $(call EXITBENCH_LINE,cpuid) \
	--expect $(call EXITBENCH_LINE,hc) --expect $(call EXITBENCH_LINE,io) \
	--expect $(call EXITBENCH_LINE,yield) \
	--expect '^sliver: d1 shutdown code=0$$' --expect '^stat d1 name=exits .* io_other=20001 '
# The ratchet (issue 25): each twin's instructions per exit against test/bench/exits.budget.
e2e-exitbench_CHECK = tools/exitbench-insns.sh build/e2e/$@.log \
	$(if $(filter %-svm,$@),svm,vmx) | tools/budget-check.sh test/bench/exits.budget \
	$(if $(filter %-svm,$@),svm,vmx) exit.
$(eval $(call e2e_twin,e2e-exitbench,$(RELEASE_BUILD)/exitbench-bios.iso,--cpus 1 --timeout 300))

# `make bench-exits`: both runs, then the table of docs/BENCHMARKS.md ("Backends").
.PHONY: bench-exits
bench-exits: e2e-exitbench e2e-exitbench-svm
	tools/exitbench-table.sh build/e2e/e2e-exitbench.log build/e2e/e2e-exitbench-svm.log

# `make bench-exits-stats`: the exitbench runs and the fuzz scenario (every exit kind the
# fuzzers provoke, 2 pCPUs) with EXITSTATS=1 (a build in build/exitstats whose backends
# count their VMCS / VMCB accesses per exit kind, hv.h hv_exit_stats), and the tables of
# those counts per kind and backend (docs/BENCHMARKS.md). EXITSTATS=1 on any make command
# line builds that way.
ifeq ($(EXITSTATS),1)
KCFLAGS += -DSLIVER_EXITSTATS
KASFLAGS += -DSLIVER_EXITSTATS
endif
EXITSTATS_BUILD := build/exitstats
.PHONY: bench-exits-stats
bench-exits-stats:
	$(MAKE) BUILD=$(EXITSTATS_BUILD) EXITSTATS=1 $(EXITSTATS_BUILD)/exitbench-bios.iso \
	    $(EXITSTATS_BUILD)/fuzz-bios.iso
	set -e; for s in exitbench:1 fuzz:2; do \
	    n=$${s%%:*}; c=$${s##*:}; \
	    tools/sliver-run --emu bochs --cpus $$c --timeout 300 \
	        --log $(EXITSTATS_BUILD)/$$n-vmx.log $(EXITSTATS_BUILD)/$$n-bios.iso >/dev/null; \
	    tools/sliver-run --emu qemu --icount --cpus $$c --timeout 300 \
	        --log $(EXITSTATS_BUILD)/$$n-svm.log $(EXITSTATS_BUILD)/$$n-bios.iso >/dev/null; \
	    echo "$$n:"; \
	    tools/exitstats-table.sh $(EXITSTATS_BUILD)/$$n-vmx.log $(EXITSTATS_BUILD)/$$n-svm.log; \
	done

# `make exit-profile`: one CPUID, hypercall and port-I/O round trip per function, Bochs/VMX
# (with the VMREADs and VMWRITEs) and QEMU/SVM (tools/exit-profile.sh; about 3 minutes).
.PHONY: exit-profile
exit-profile: $(RELEASE_BUILD)/exitbench-bios.iso
	tools/exit-profile.sh --build $(RELEASE_BUILD)
	tools/exit-profile.sh --build $(RELEASE_BUILD) --emu qemu
