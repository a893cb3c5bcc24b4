/* guests/pc entry: a multiboot1 kernel (Multiboot 0.6.96, 3.1: header in the first 8 KiB;
 * 3.2: EAX = 0x2BADB002, EBX = the information block, 32-bit protected mode, paging
 * off, no stack). Sets a stack and calls pc_main(magic, info). */
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
