# Guest page tables (arch/x86_64/gpt.c): the one builder of the EPT and NPT tables, used by
# both backends (vmx/ept.c and svm/npt.c keep the format descriptors and thin wrappers),
# and its host unit test, which links the backends' real descriptors and wrappers.
HV_SRCS += arch/x86_64/gpt.c

UNIT_TESTS += gpt
UNIT_SRCS_gpt := test/unit/test_gpt.c arch/x86_64/gpt.c arch/x86_64/vmx/ept.c arch/x86_64/svm/npt.c
$(BUILD)/unit/gpt: arch/x86_64/gpt.h arch/x86_64/vmx/vmx.h arch/x86_64/svm/svm.h
