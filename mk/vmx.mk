# The Intel VMX backend (arch/x86_64/vmx/, vmx_backend) and what only VMX shows in the
# guest e2e twins of mk/vmm.mk (NAME_VMX, mk/e2e.mk): exit-reason numbers (the basic exit
# reason, SDM Vol. 3C appendix C) in the `exits` lines, VMX's entry-failure text.
HV_SRCS += arch/x86_64/vmx/vmx.c arch/x86_64/vmx/vmcs.c arch/x86_64/vmx/ept.c \
	arch/x86_64/vmx/exits.c arch/x86_64/vmx/regs.c arch/x86_64/vmx/run.c

# d3 idles: HLT (12) once, I/O (30) for its prints. Pings: at most 19 of the 1500 lost
# (1.3%, twice the most seen: Bochs answered 1492-1499 on the builds measured, lost 0-7,
# docs/BENCHMARKS.md "Backends"; sched=eevdf lost 0 and 9, e2e-eevdf-mix in mk/sched.mk).
E2E_MIX_LOST_VMX := --expect '^ping d4 n=1[0-9]{3} lost=1?[0-9] '
e2e-vmx-mix_VMX = --expect '^exits d3( [0-9]+:[0-9]+)* 12:1 .*30:[0-9]+' $(E2E_MIX_LOST_VMX)
# WBINVD (54) exactly once; the test hook's failed entry is an invalid guest state (33).
e2e-vmx-hostile_VMX = --expect '^exits d1 .* 54:1( |$$)' \
	--expect '^sliver: d11 crashed: VM entry failed: .*invalid guest state'
# The preemption-timer backstop (52) takes the pCPU back from the IF=0 spinner.
e2e-vmx-duty-1cpu_VMX = --expect '^exits d1 .* 52:[0-9]{3,}'
# NMIs exit as "exception or NMI" (0).
e2e-vmx-nmi_VMX = --expect '^exits d1 0:[1-9]' --expect '^exits d2 0:[1-9]'
