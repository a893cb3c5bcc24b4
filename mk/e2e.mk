# Guest e2e twins (issue 12): a guest scenario is declared once and runs on both backends.
#   $(eval $(call e2e_twin,NAME,ISO,RUN-ARGS))
# defines NAME (Bochs, emulated VMX) and NAME-svm (QEMU TCG with SVM and nested paging,
# -icount: emulated time, deterministic), both running
#   tools/e2e.sh NAME $(NAME_EXPECT) $(NAME_VMX | NAME_SVM) -- --emu ... RUN-ARGS ISO
# NAME_EXPECT holds the backend-neutral expectations (a guest memory fault is
# '(EPT violation|NPT fault)'); NAME_VMX and NAME_SVM the backend's own (exit-reason
# numbers: mk/vmx.mk, mk/svm.mk), empty when not set; NAME_CHECK an optional shell
# command run after it (it may read build/e2e/$@.log). Define them with `=` anywhere: they
# are read when the recipe runs.
# NAME joins TEST_TARGETS; NAME-svm joins SVM_TESTS, which `make test` runs but SVM_OUT
# (mk/svm.mk; SVM_E2E=1 runs those too). `make test-svm` runs SVM_TESTS.
SVM_E2E ?= 0
SVM_TESTS :=

# What every guest scenario ends with: the run's verdict and a clean exit.
E2E_END := --expect '^sliver: run complete: PASS' --expect '^sliver: exit 0$$' --reject 'PANIC'
# A guest access outside its memory, as each backend names it (hv_fault_name).
E2E_FAULT := (EPT violation|NPT fault)

define e2e_twin
.PHONY: $(1) $(1)-svm
$(1): $(2)
	tools/e2e.sh $$@ $$($(1)_EXPECT) $$($(1)_VMX) -- --emu bochs $(3) $$<
	$$($(1)_CHECK)
$(1)-svm: $(2)
	tools/e2e.sh $$@ $$($(1)_EXPECT) $$($(1)_SVM) -- --emu qemu --icount $(3) $$<
	$$($(1)_CHECK)
SVM_TESTS += $(1)-svm
TEST_TARGETS += $(1)
endef

# More runs of a twin under SVM only (issue 12: UEFI firmware, other CPU counts):
#   $(eval $(call e2e_svm_variant,NAME,SUFFIX,ISO,SLIVER-RUN-ARGS))
# defines NAME-svm-SUFFIX with NAME's neutral and SVM expectations, in SVM_TESTS.
define e2e_svm_variant
.PHONY: $(1)-svm-$(2)
$(1)-svm-$(2): $(3)
	tools/e2e.sh $$@ $$($(1)_EXPECT) $$($(1)_SVM) -- $(4) $$<
	$$($(1)_CHECK)
SVM_TESTS += $(1)-svm-$(2)
endef

.PHONY: test-svm
test-svm: deps
	@tools/run-tests.sh $(SVM_TESTS)
