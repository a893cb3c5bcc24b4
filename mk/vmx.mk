# VMX virtualization: domains, vCPUs, loader, hypercalls, events, the per-pCPU loop
# (core/ files owned by the VMX work) and the VMX backend (arch/x86_64/vmx/).
UNIT_TESTS += loader
UNIT_SRCS_loader := test/unit/test_loader.c core/loader.c lib/fmt.c

HV_SRCS += arch/x86_64/vmx/vmx.c arch/x86_64/vmx/vmcs.c arch/x86_64/vmx/ept.c \
	arch/x86_64/vmx/exits.c arch/x86_64/vmx/regs.c arch/x86_64/vmx/run.c \
	arch/x86_64/vmx/entry.S \
	core/vmm.c core/domain.c core/vcpu.c core/loader.c core/event.c core/hypercall.c \
	core/dcon.c core/ping.c core/exit.c core/exit_cpuid_msr.c core/exit_io.c \
	core/exit_hlt.c core/exit_cr.c core/exit_fault.c
