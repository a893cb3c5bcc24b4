/* VM entry and exit (SDM Vol. 3C 26, 27.5). vmx_enter(gprs, launched, host_rsp) saves the
 * host's callee-saved registers, records RSP as HOST_RSP (a VMWRITE only when it differs
 * from *host_rsp, the value last written: the same call path reaches here with the same
 * RSP exit after exit), loads the guest's general registers and executes VMRESUME (or
 * VMLAUNCH the first time). The exit lands at vmx_exit_entry with RSP = HOST_RSP, which
 * stores the guest registers and returns 0 from vmx_enter. */
#define VMCS_HOST_RSP 0x6c14
#define VMCS_HOST_RIP 0x6c16
#define G(n) (n * 8)

	.text
	.global vmx_enter
	.type vmx_enter, @function
vmx_enter:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdi                      /* the gprs block, found again at exit */
	cmpq %rsp, (%rdx)
	je 2f
	movq $VMCS_HOST_RSP, %rax
	vmwrite %rsp, %rax
	jbe .Lfail
	movq %rsp, (%rdx)
2:	testl %esi, %esi                /* flags survive the movs below */
	movq G(0)(%rdi), %rax
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
	jz 1f
	vmresume
	jmp .Lfail
1:	vmlaunch
.Lfail:                                 /* VMfailInvalid / VMfailValid: still the host */
	popq %rdi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	movl $1, %eax
	ret
	.size vmx_enter, . - vmx_enter

	.global vmx_exit_entry
	.type vmx_exit_entry, @function
vmx_exit_entry:
	pushq %rdi
	movq 8(%rsp), %rdi
	movq %rax, G(0)(%rdi)
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
	popq %rdi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	xorl %eax, %eax
	ret
	.size vmx_exit_entry, . - vmx_exit_entry

	.section .note.GNU-stack, "", @progbits
