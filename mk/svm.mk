# The AMD SVM backend (arch/x86_64/svm/), chosen at boot by hv.c on CPUs with SVM and
# nested paging, and its end-to-end runs under QEMU TCG (-cpu qemu64,+svm,+npt, -icount:
# deterministic), the counterpart of mk/vmx.mk's Bochs runs.
HV_SRCS += arch/x86_64/svm/svm.c arch/x86_64/svm/vmcb.c arch/x86_64/svm/npt.c \
	arch/x86_64/svm/exits.c arch/x86_64/svm/decode.c arch/x86_64/svm/regs.c \
	arch/x86_64/svm/run.c arch/x86_64/svm/entry.S
