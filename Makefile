# sliver: top-level build. Subsystems add to the variables below from mk/*.mk:
#   HV_SRCS       C and .S files linked into build/sliver.elf (freestanding flags)
#   UNIT_TESTS    names; UNIT_SRCS_<name> lists the host sources of build/unit/<name>
#   GUEST_ELFS    guest images copied to /guests/ on every ISO
#   TEST_TARGETS  make targets run by `make test`; a target passes when it exits 0
#   SVM_TESTS     the QEMU/SVM twins of the guest e2e tests (mk/e2e.mk); all in `make test`
#                 but SVM_OUT (mk/svm.mk, each with its reason), which SVM_E2E=1 adds
CROSS    ?=
CC       := $(CROSS)gcc
LD       := $(CROSS)ld
HOSTCC   ?= gcc
BUILD    := build
SCENARIO ?= demo
EMU      ?=
CPUS     ?=

WARN     := -Wall -Wextra -Werror
KCFLAGS  := -std=c11 -O2 -g $(WARN) -ffreestanding -nostdlib -nostdinc -mno-red-zone \
            -mgeneral-regs-only -fno-pic -fno-pie -fno-stack-protector \
            -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-builtin \
            -isystem $(shell $(CC) -print-file-name=include) -Iinclude -I. -MMD -MP
KASFLAGS := $(filter-out -std=c11,$(KCFLAGS)) -D__ASSEMBLY__
KLDFLAGS := -nostdlib -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld
# The release build (build/release): no lock-order checks and no lock assertions
# (LOCK_CHECK=0, SCHED_CHECK_HELD=0). `make test` boots the default, checked build; the
# benchmarks that count instructions (e2e-exitbench's ratchet, make exit-profile) boot this
# one. RELEASE=1 on any make command line builds that way.
RELEASE_BUILD := build/release
ifeq ($(RELEASE),1)
KCFLAGS += -DLOCK_CHECK=0 -DSCHED_CHECK_HELD=0
else
.PHONY: $(RELEASE_BUILD)/exitbench-bios.iso
$(RELEASE_BUILD)/exitbench-bios.iso:
	$(MAKE) BUILD=$(RELEASE_BUILD) RELEASE=1 $@
endif
HOSTCFLAGS := -std=gnu11 -O1 -g $(WARN) -Iinclude -I. -fsanitize=address,undefined \
            -fno-sanitize-recover=all -DHOST_TEST -DFIXTURES=\"$(CURDIR)/test/unit/fixtures\" -MMD -MP

# The mk/*.mk fragments define targets (e2e runs, guest images) before `all`.
.DEFAULT_GOAL := all

HV_SRCS :=
UNIT_TESTS :=
GUEST_ELFS :=
TEST_TARGETS :=

# platform.mk first; e2e.mk (the e2e_twin macro) before the fragments that call it. A
# backend's fragment (mk/vmx.mk, mk/svm.mk) is picked up by the wildcard when it exists.
include mk/platform.mk mk/e2e.mk
include $(filter-out mk/platform.mk mk/e2e.mk,$(sort $(wildcard mk/*.mk)))

HV_OBJS := $(patsubst %,$(BUILD)/hv/%.o,$(basename $(HV_SRCS)))

.PHONY: all iso run test lint unit deps clean
all: $(BUILD)/sliver.elf $(GUEST_ELFS)

$(BUILD)/sliver.elf: $(HV_OBJS) linker.ld
	$(LD) $(KLDFLAGS) -o $@ $(HV_OBJS)

$(BUILD)/hv/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c -o $@ $<

$(BUILD)/hv/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KASFLAGS) -c -o $@ $<

# Host unit tests: one cmocka binary per name, built with ASan and UBSan.
define unit_rule
$(BUILD)/unit/$(1): $$(UNIT_SRCS_$(1)) $$(wildcard test/unit/*.h)
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOSTCFLAGS) -o $$@ $$(UNIT_SRCS_$(1)) -lcmocka -lm -pthread
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit: $(addprefix $(BUILD)/unit/,$(UNIT_TESTS))
	@set -e; for t in $^; do echo "== $$t"; $$t; done
unit-%: $(BUILD)/unit/%
	$<
TEST_TARGETS := all lint $(addprefix unit-,$(UNIT_TESTS)) $(TEST_TARGETS) \
	$(filter-out $(if $(filter 1,$(SVM_E2E)),,$(SVM_OUT)),$(SVM_TESTS))

# ISOs: build/<name>.iso (hybrid BIOS+UEFI) and build/<name>-bios.iso (small, for Bochs).
iso: $(BUILD)/$(SCENARIO).iso $(BUILD)/$(SCENARIO)-bios.iso
$(BUILD)/%.iso $(BUILD)/%-bios.iso: test/scenarios/%.cfg $(BUILD)/sliver.elf $(GUEST_ELFS) tools/mkiso.sh
	tools/mkiso.sh $* $< $(BUILD) $(GUEST_ELFS)

deps:
	@tools/deps.sh

run: deps iso
	tools/sliver-run $(if $(EMU),--emu $(EMU)) $(if $(CPUS),--cpus $(CPUS)) \
	    $(if $(REALTIME),--realtime) --interactive \
	    $(BUILD)/$(SCENARIO).iso

test: deps
	@tools/run-tests.sh $(TEST_TARGETS)

lint:
	tools/lint.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
