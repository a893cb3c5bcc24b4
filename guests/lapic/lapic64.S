/* lapic64_enter(): the vLAPIC from 64-bit code (mode=lm64). IA-32e with an identity map
 * of the first 4 MiB (2 MiB pages) and the APIC page at linear 0x3FE00000 through a 4 KiB
 * page (the hypervisor's fetch walks all 4 levels; the page address comes from the fault),
 * then MOV forms with REX, disp8/disp32, moffs64 and RIP-relative addressing, and CR8
 * against the TPR register (one value: CR8 = TPR[7:4]). Shuts down with 100 when every
 * step holds, else 101 + the failed step. Never returns. */
#include "guests/lib/hcinsn.inc"
#define APIC_LIN 0x3fe00000
	.code32
	.text
	.global lapic64_enter
lapic64_enter:
	cli
	movl $(l64_pdpt + 3), l64_pml4
	movl $(l64_pd + 3), l64_pdpt
	movl $0x00000083, l64_pd        /* 0-2 MiB: 2 MiB page */
	movl $0x00200083, l64_pd + 8    /* 2-4 MiB */
	movl $(l64_pt + 3), l64_pd + 8 * 0x1ff /* 0x3FE00000: a page table */
	movl $0xfee00013, l64_pt        /* APIC page: present, writable, PCD */
	movl %cr4, %eax
	orl $0x20, %eax
	movl %eax, %cr4
	movl $l64_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx
	rdmsr
	orl $0x100, %eax
	wrmsr
	lgdt l64_gdt_desc
	movl %cr0, %eax
	orl $0x80000000, %eax
	movl %eax, %cr0
	ljmp $0x18, $l64_code

	.code64
l64_code:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movq $APIC_LIN, %rbx
	movl $1, %edi
	movl 0x30(%rbx), %eax           /* 1: version (8B 43 30) */
	andl $0xff, %eax
	cmpl $0x14, %eax
	jne fail
	incl %edi
	movl $0x30, 0x80(%rbx)          /* 2: TPR = 0x30 (C7 83 disp32 imm32); CR8 reads 3 */
	movq %cr8, %rax
	cmpq $3, %rax
	jne fail
	incl %edi
	movq $5, %rax                   /* 3: CR8 = 5; TPR reads 0x50 into R9D (44 8B 8B) */
	movq %rax, %cr8
	movl 0x80(%rbx), %r9d
	cmpl $0x50, %r9d
	jne fail
	incl %edi
	movabsl APIC_LIN + 0x20, %eax   /* 4: ID through moffs64 (A1) */
	testl %eax, %eax
	jnz fail
	incl %edi
	movl l64_apic_ppr(%rip), %ecx   /* 5: PPR RIP-relative: 0x50 (no ISR bit) */
	cmpl $0x50, %ecx
	jne fail
	incl %edi
	movq $0x80, %r12                /* 6: [rbx + r12] with SIB and REX.X: TPR = 0 */
	movl $0, %r10d
	movl %r10d, (%rbx,%r12)
	movq %cr8, %rax
	testq %rax, %rax
	jnz fail
	movq $8, %rax                   /* HC_SHUTDOWN(100) */
	movq $100, %rdi
	HC_CALL64
fail:
	addl $100, %edi                 /* HC_SHUTDOWN(101 + step - 1) */
	movq $8, %rax
	HC_CALL64
1:	hlt
	jmp 1b

	.set l64_apic_ppr, APIC_LIN + 0xa0

	.section .rodata
	.balign 8
l64_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff
	.quad 0x00cf92000000ffff
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
l64_gdt_end:
	.balign 4
	.word 0
l64_gdt_desc:
	.word l64_gdt_end - l64_gdt - 1
	.long l64_gdt

	.section .bss
	.balign 4096
l64_pml4: .skip 4096
l64_pdpt: .skip 4096
l64_pd:   .skip 4096
l64_pt:   .skip 4096

	.section .note.GNU-stack, "", @progbits
