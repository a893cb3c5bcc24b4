# The Intel VMX backend (arch/x86_64/vmx/, vmx_backend) and what only VMX shows in the
# guest e2e twins of mk/vmm.mk (NAME_VMX, mk/e2e.mk): exit-reason numbers (the basic exit
# reason, SDM Vol. 3C appendix C) in the `exits` lines, VMX's entry-failure text.
HV_SRCS += arch/x86_64/vmx/vmx.c arch/x86_64/vmx/vmcs.c arch/x86_64/vmx/ept.c \
	arch/x86_64/vmx/exits.c arch/x86_64/vmx/regs.c arch/x86_64/vmx/run.c \
	arch/x86_64/vmx/entry.S

# d3 idles: HLT (12) once, I/O (30) for its prints.
e2e-vmx-mix_VMX = --expect '^exits d3( [0-9]+:[0-9]+)* 12:1 .*30:[0-9]+'
# WBINVD (54) exactly once; the test hook's failed entry is an invalid guest state (33).
e2e-vmx-hostile_VMX = --expect '^exits d1 .* 54:1( |$$)' \
	--expect '^sliver: d11 crashed: VM entry failed: .*invalid guest state'
# The preemption-timer backstop (52) takes the pCPU back from the IF=0 spinner.
e2e-vmx-duty-1cpu_VMX = --expect '^exits d1 .* 52:[0-9]{3,}'
# NMIs exit as "exception or NMI" (0).
e2e-vmx-nmi_VMX = --expect '^exits d1 0:[1-9]' --expect '^exits d2 0:[1-9]'
