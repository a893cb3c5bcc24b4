/* lm64_enter(msg, len): 32-bit protected mode -> IA-32e (SDM Vol. 3A 9.8.5), identity
 * map of the first 4 MiB with 2 MiB pages, then 64-bit hypercalls (the instruction the
 * runtime picked, guests/lib/hcinsn.inc). Never returns. */
#include "guests/lib/hcinsn.inc"
	.code32
	.text
	.global lm64_enter
lm64_enter:
	cli
	movl 4(%esp), %esi              /* msg */
	movl 8(%esp), %edi              /* len */
	movl $(lm_pdpt + 3), lm_pml4
	movl $(lm_pd + 3), lm_pdpt
	movl $0x00000083, lm_pd         /* 0-2 MiB: present, writable, 2 MiB page */
	movl $0x00200083, lm_pd + 8     /* 2-4 MiB */
	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl $lm_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx          /* IA32_EFER */
	rdmsr
	orl $0x100, %eax                /* LME */
	wrmsr
	lgdt lm_gdt_desc
	movl %cr0, %eax
	orl $0x80000000, %eax           /* PG: long mode becomes active */
	movl %eax, %cr0
	ljmp $0x18, $lm_code64

	.code64
lm_code64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl $0xc0000080, %ecx
	rdmsr
	testl $0x400, %eax              /* EFER.LMA must read back set */
	jz 2f
	movl %edi, %edx                 /* len */
	movl %esi, %edi                 /* arg0 (RDI) = buf, zero-extended */
	movl %edx, %esi                 /* arg1 (RSI) = len */
	xorl %edx, %edx
	xorl %eax, %eax                 /* RAX = HC_CONSOLE_WRITE */
	HC_CALL64
	movq $8, %rax                   /* HC_SHUTDOWN(64) */
	movq $64, %rdi
	HC_CALL64
2:	movq $8, %rax                   /* HC_SHUTDOWN(65): not in long mode after all */
	movq $65, %rdi
	HC_CALL64
1:	hlt
	jmp 1b

/* pae32_enable(): 32-bit PAE paging, identity map of the first 4 MiB (2 MiB pages). */
	.code32
	.text
	.global pae32_enable
pae32_enable:
	movl $(lm_pd + 1), lm_pdpt      /* PAE PDPTE: present only (bits 1-2 reserved) */
	movl $0x00000083, lm_pd
	movl $0x00200083, lm_pd + 8
	movl $lm_pdpt, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl %cr0, %eax
	orl $0x80000000, %eax           /* CR0.PG: PDPTEs come from the VMCS at entry */
	movl %eax, %cr0
	ret

	.section .rodata
	.balign 8
lm_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
lm_gdt_end:
	.balign 4
	.word 0
lm_gdt_desc:
	.word lm_gdt_end - lm_gdt - 1
	.long lm_gdt

	.section .bss
	.balign 4096
lm_pml4: .skip 4096
lm_pdpt: .skip 4096
lm_pd:   .skip 4096

	.section .note.GNU-stack, "", @progbits
