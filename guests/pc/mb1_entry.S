/* guests/pc entry: a multiboot1 kernel (Multiboot 0.6.96, 3.1: header in the first 8 KiB;
 * 3.2: EAX = 0x2BADB002, EBX = the information block, 32-bit protected mode, paging
 * off, no stack, no GDT of ours). Loads pc_gdt, sets a stack and calls pc_main(magic, info). */
	.code32
	.section .text.entry, "ax"
	.balign 4
mb1_header:
	.long 0x1badb002                /* magic */
	.long 0x00000003                /* flags: page-align modules, memory information */
	.long -(0x1badb002 + 0x00000003)
	.global _start
_start:
	cli
	cld
	lgdt pc_gdt_desc                /* lm.S: 0x08 code, 0x10 data (the IDT's selector) */
	ljmp $0x08, $1f
1:	movw $0x10, %cx
	movw %cx, %ds
	movw %cx, %es
	movw %cx, %ss
	movl $pc_stack_top, %esp
	pushl %ebx
	pushl %eax
	call pc_main
1:	hlt
	jmp 1b

	.bss
	.balign 16
	.space 16384
pc_stack_top:
