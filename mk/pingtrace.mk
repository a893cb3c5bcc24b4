# The ping path, stage by stage (issue 25): PINGTRACE=1 on any make command line builds
# core/pingtrace.c and its stamps (core/pingtrace.h: every other build compiles them to
# nothing). build/pingtrace is the release build (no lock checks) with them.
ifeq ($(PINGTRACE),1)
KCFLAGS += -DSLIVER_PINGTRACE
HV_SRCS += core/pingtrace.c
endif
PINGTRACE_BUILD := build/pingtrace
ifneq ($(BUILD),$(PINGTRACE_BUILD))
.PHONY: $(PINGTRACE_BUILD)/pingpath-bios.iso $(PINGTRACE_BUILD)/all
$(PINGTRACE_BUILD)/pingpath-bios.iso:
	$(MAKE) BUILD=$(PINGTRACE_BUILD) RELEASE=1 PINGTRACE=1 $@
$(PINGTRACE_BUILD)/all:
	$(MAKE) BUILD=$(PINGTRACE_BUILD) RELEASE=1 PINGTRACE=1 all
endif

# The ratchet: the stages of the wake path (the echo blocked, a spinner on its pCPU)
# against test/bench/ping.budget, on both backends (Bochs/VMX: one TSC tick per
# instruction; QEMU/SVM -icount shift=3: eight).
e2e-pingpath_EXPECT = $(E2E_END) --reject 'crashed|refused' \
	--expect '^ping d2 n=60 lost=0 ' --expect '^pingtrace wake total n=60 '
e2e-pingpath_CHECK = tools/pingtrace-insns.sh build/e2e/$@.log \
	$(if $(filter %-svm,$@),svm,vmx) | tools/budget-check.sh test/bench/ping.budget \
	$(if $(filter %-svm,$@),svm,vmx) ping.
$(eval $(call e2e_twin,e2e-pingpath,$(PINGTRACE_BUILD)/pingpath-bios.iso,--cpus 2 --timeout 300))

# `make bench-pingpath`: the round trip of e2e-pingpath's scenario stage by stage under
# sliver, credit1 and eevdf, Bochs/VMX and QEMU/SVM on emulated time, the tables of
# docs/BENCHMARKS.md "The ping path, stage by stage (issue 25)" (tools/bench-pingpath.sh;
# about a minute). PINGPATH_COLUMNS="NAME:POLICY[:BUILD] ..." chooses the columns, e.g. a
# before column from another commit's build/pingtrace; PINGPATH_EMUS=bochs runs Bochs only.
PINGPATH_COLUMNS ?=
.PHONY: bench-pingpath
bench-pingpath: $(PINGTRACE_BUILD)/all
	tools/bench-pingpath.sh $(PINGPATH_COLUMNS)
