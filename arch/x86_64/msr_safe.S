/* RDMSR and WRMSR that survive a #GP: CPUID may show VMX or SVM while the capability MSRs
 * are missing (Bochs' `ryzen` model: VM_CR faults; firmware and other hypervisors show such
 * half-present features too). The #GP handler (msr_safe_fixup, idt.c) recognises the two
 * instructions below and resumes at the fault path, which returns false.
 *   bool rdmsr_safe(uint32_t msr, uint64_t *value)    rdi = msr, rsi = value
 *   bool wrmsr_safe(uint32_t msr, uint64_t value)     rdi = msr, rsi = value */
	.text
	.global rdmsr_safe, wrmsr_safe, msr_safe_rdmsr, msr_safe_wrmsr, msr_safe_fault
rdmsr_safe:
	mov	%edi, %ecx
msr_safe_rdmsr:
	rdmsr
	shl	$32, %rdx
	mov	%eax, %eax
	or	%rdx, %rax
	mov	%rax, (%rsi)
	mov	$1, %eax
	ret
wrmsr_safe:
	mov	%edi, %ecx
	mov	%esi, %eax
	mov	%rsi, %rdx
	shr	$32, %rdx
msr_safe_wrmsr:
	wrmsr
	mov	$1, %eax
	ret
msr_safe_fault:
	xor	%eax, %eax
	ret
