/* VMRUN (APM Vol. 2 15.5, 15.17, 15.21). svm_enter(gprs, vmcb_pa, host_vmcb_pa), called
 * with interrupts disabled: CLGI, then STI (held by GIF=0 until VMRUN: with
 * V_INTR_MASKING the host's RFLAGS.IF saved by VMRUN is what lets a physical interrupt
 * exit the guest), VMLOAD the guest's FS/GS/TR/LDTR/KERNEL_GS_BASE/STAR.../SYSENTER state
 * (the host's is in the host page, saved once by svm_cpu_init: it never changes), load
 * the guest GPRs (RAX and RSP live in the VMCB), VMRUN. After #VMEXIT (GIF=0, host
 * RSP/RIP/RAX back from the save area): store the guest GPRs, VMSAVE the guest's state,
 * VMLOAD the host's (GS base again the per-CPU block), CLI, STGI: the interrupt that
 * caused the exit stays pending for the caller's window. */
#define G(n) (n * 8)

	.text
	.global svm_enter
	.type svm_enter, @function
svm_enter:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdi                      /* 16(%rsp): the gprs block */
	pushq %rdx                      /* 8(%rsp): host VMCB-format page */
	pushq %rsi                      /* 0(%rsp): guest VMCB */
	clgi
	sti
	movq %rsi, %rax                 /* the host's own state is in the host page: */
	vmload %rax                     /* svm_cpu_init saved it once (VMSAVE) */
	movq G(1)(%rdi), %rcx
	movq G(2)(%rdi), %rdx
	movq G(3)(%rdi), %rbx
	movq G(5)(%rdi), %rbp
	movq G(6)(%rdi), %rsi
	movq G(8)(%rdi), %r8
	movq G(9)(%rdi), %r9
	movq G(10)(%rdi), %r10
	movq G(11)(%rdi), %r11
	movq G(12)(%rdi), %r12
	movq G(13)(%rdi), %r13
	movq G(14)(%rdi), %r14
	movq G(15)(%rdi), %r15
	movq G(7)(%rdi), %rdi
	vmrun %rax
	pushq %rdi                      /* the guest's RDI; gprs now at 24(%rsp) */
	movq 24(%rsp), %rdi
	movq %rcx, G(1)(%rdi)
	movq %rdx, G(2)(%rdi)
	movq %rbx, G(3)(%rdi)
	movq %rbp, G(5)(%rdi)
	movq %rsi, G(6)(%rdi)
	movq %r8, G(8)(%rdi)
	movq %r9, G(9)(%rdi)
	movq %r10, G(10)(%rdi)
	movq %r11, G(11)(%rdi)
	movq %r12, G(12)(%rdi)
	movq %r13, G(13)(%rdi)
	movq %r14, G(14)(%rdi)
	movq %r15, G(15)(%rdi)
	popq %rax
	movq %rax, G(7)(%rdi)
	movq 0(%rsp), %rax
	vmsave %rax
	movq 8(%rsp), %rax
	vmload %rax
	cli
	stgi
	addq $24, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size svm_enter, . - svm_enter

	.section .note.GNU-stack, "", @progbits
