# VMX virtualization: domains, vCPUs, loader, hypercalls, events, the per-pCPU loop
# (core/ files owned by the VMX work) and the VMX backend (arch/x86_64/vmx/).
UNIT_TESTS += loader
UNIT_SRCS_loader := test/unit/test_loader.c core/loader.c lib/fmt.c
