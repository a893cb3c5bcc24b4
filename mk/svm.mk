# The AMD SVM backend (arch/x86_64/svm/), chosen at boot by hv.c on CPUs with SVM and
# nested paging, and its end-to-end runs under QEMU TCG (-cpu qemu64,+svm,+npt, -icount:
# deterministic), the counterpart of mk/vmx.mk's Bochs runs.
HV_SRCS += arch/x86_64/svm/svm.c arch/x86_64/svm/vmcb.c arch/x86_64/svm/npt.c \
	arch/x86_64/svm/exits.c arch/x86_64/svm/decode.c arch/x86_64/svm/regs.c \
	arch/x86_64/svm/run.c arch/x86_64/svm/pause.c

# What only SVM shows in the guest e2e twins of mk/vmm.mk (NAME_SVM, mk/e2e.mk): the dense
# exit-reason indices of arch/x86_64/svm/exits.c (0 INTR, 1 NMI, 3 VINTR, 5 HLT, 6 IOIO,
# 8 VMMCALL, 29 MOV to DR7, 32 WBINVD, 49 VMEXIT_INVALID, 50 IRET) in the `exits` lines.
# d3 idles: HLT (5) once, I/O (6) for its prints. Pings: at least 1000 of the 1500 answered,
# fewer than 100 lost (31 answered before core/vmm.c's TCG backstop, docs/svm.md QEMU item 6).
E2E_MIX_SVM_EXITS := --expect '^exits d3( [0-9]+:[0-9]+)* 5:1 6:[0-9]+'
e2e-vmx-mix_SVM = $(E2E_MIX_SVM_EXITS) --expect '^ping d4 n=1[0-9]{3} lost=[0-9]{1,2} '
# MOV to DR7 and WBINVD (INVD exits as WBINVD under QEMU 7.2) seen; the test hook's failed
# VMRUN is VMEXIT_INVALID (49), counted once.
e2e-vmx-hostile_SVM = --expect '^exits d1 .* 29:[0-9]+ .*32:2( |$$)' \
	--expect '^sliver: d11 crashed: VM entry failed: VMRUN: invalid guest state' \
	--expect '^exits d11 .* 49:1$$'
# No backstop: physical interrupts (0) exit the IF=0 spinner (V_INTR_MASKING).
e2e-vmx-duty-1cpu_SVM = --expect '^exits d1 0:[0-9]{3,}'
# NMIs exit as NMI (1).
e2e-vmx-nmi_SVM = --expect '^exits d1 ([0-9]+:[0-9]+ )*1:[1-9]' \
	--expect '^exits d2 ([0-9]+:[0-9]+ )*1:[1-9]'

# The mix scenario on one pCPU under QEMU TCG+SVM: every guest of e2e-vmx-mix with the same
# expectations, ping replies counted (no TCG backstop on one pCPU, docs/svm.md QEMU item 6).
e2e-svm-mix-1cpu: $(BUILD)/vmx-mix-bios.iso
	tools/e2e.sh $@ $(e2e-vmx-mix_EXPECT) $(e2e-vmx-mix_SVM) \
	    --expect '^ping d4 n=1[0-9]{3} lost=[0-9] ' \
	    -- --emu qemu --icount --cpus 1 --timeout 150 $<

# Every SVM twin joins `make test` (the Makefile adds SVM_TESTS after all fragments are
# read) except SVM_OUT, each out for a stated reason; SVM_E2E=1 runs those too. (The
# console latency/burst twins run with bounds for QEMU TCG: mk/console.mk.)
SVM_OUT :=
SVM_TESTS += e2e-svm-mix-1cpu
.PHONY: e2e-svm-mix-1cpu

# The exiting-instruction decoder on the host (prefixes, REX, every paging mode).
UNIT_TESTS += svm_decode
UNIT_SRCS_svm_decode := test/unit/test_svm_decode.c
$(BUILD)/unit/svm_decode: arch/x86_64/svm/decode.c arch/x86_64/svm/svm.h # (included)

# PAUSE-loop detection through the PAUSE filter (no e2e: QEMU 7.2 TCG has no filter).
UNIT_TESTS += svm_pause
UNIT_SRCS_svm_pause := test/unit/test_svm_pause.c
$(BUILD)/unit/svm_pause: arch/x86_64/svm/pause.c arch/x86_64/svm/svm.h # (included)
