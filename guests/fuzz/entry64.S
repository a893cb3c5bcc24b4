/* The 64-bit fuzzer's entry: 32-bit protected mode (as every sliver guest starts) to
 * IA-32e mode (SDM Vol. 3A 10.8.5), identity map of the low 4 GiB with 2 MiB pages (so
 * the fatal acts can reach the LAPIC/IOAPIC windows and GPAs beyond RAM), then the C
 * runtime in rt64.c. The GDT's 0x08/0x10 pair is what SYSCALL loads from STAR. The
 * hypercall instruction is picked first (guests/lib/hcinsn.inc). */
#include "guests/lib/hcinsn.inc"
	.code32
	.section .text.entry, "ax"
	.global _start
_start:
	cli
	cld
	movl %eax, %esi
	movl %ebx, %edi
	HC_PICK
	movl %esi, %eax
	movl %edi, %ebx
	cmpl $0x534c5652, %eax          /* SLIVER_BOOT_MAGIC */
	jne .Lhang32
	movl %ebx, %esi                 /* boot info */
	movl $(fz_pdpt + 3), fz_pml4
	movl $(fz_pd + 0x0003), fz_pdpt
	movl $(fz_pd + 0x1003), fz_pdpt + 8
	movl $(fz_pd + 0x2003), fz_pdpt + 16
	movl $(fz_pd + 0x3003), fz_pdpt + 24
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax                 /* present, writable, 2 MiB */
	movl %eax, fz_pd(,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jne 1b
	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl $fz_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx          /* IA32_EFER.LME */
	rdmsr
	orl $0x100, %eax
	wrmsr
	lgdt fz_gdt_desc
	movl %cr0, %eax
	orl $0x80000000, %eax           /* CR0.PG: long mode active */
	movl %eax, %cr0
	ljmp $0x08, $.Lcode64
.Lhang32:
	movl $8, %eax                   /* HC_SHUTDOWN(0xdead) */
	movl $0xdead, %edi
	HC_CALL32
	jmp .Lhang32

	.code64
.Lcode64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	leaq fz_stack_top(%rip), %rsp
	movl %esi, %edi
	call fz64_start
2:	movq $8, %rax
	movq $0xdead, %rdi
	HC_CALL64
	jmp 2b

	HC_DEFINE_FLAG

/* 256 interrupt stubs, 16 bytes apart: error code (0 where the CPU pushes none), vector,
 * then fz64_isr_common saves the GPRs and calls fz64_isr(struct fz64_frame *). */
	.text
	.balign 16
	.global fz64_isr_table
fz64_isr_table:
	.set vec, 0
	.rept 256
	.balign 16
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq $0
	.endif
	pushq $vec
	jmp fz64_isr_common
	.set vec, vec + 1
	.endr

fz64_isr_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	call fz64_isr
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

	.section .rodata
	.balign 8
fz_gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code (SYSCALL CS = STAR[47:32]) */
	.quad 0x00cf92000000ffff        /* 0x10: data (SYSCALL SS = that + 8) */
	.quad 0x00cf9a000000ffff        /* 0x18: 32-bit code */
fz_gdt_end:
	.balign 4
	.word 0
fz_gdt_desc:
	.word fz_gdt_end - fz_gdt - 1
	.long fz_gdt

	.section .bss
	.balign 4096
fz_pml4: .skip 4096
fz_pdpt: .skip 4096
fz_pd:   .skip 4 * 4096
	.balign 16
	.skip 32768
fz_stack_top:

	.section .note.GNU-stack, "", @progbits
