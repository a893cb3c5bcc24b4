/* Guest entry: 32-bit protected mode, flat, paging off, EAX = SLIVER_BOOT_MAGIC,
 * EBX = boot-info page (include/sliver/bootinfo.h). Picks the hypercall instruction
 * (hcinsn.inc), loads our own GDT (interrupt delivery reads the CS descriptor from it),
 * picks this vCPU's stack, calls rt_start. */
#include "guests/lib/hcinsn.inc"
#define RT_STACK_SHIFT 14   /* 16 KiB per vCPU, must match RT_STACK_SIZE in rt.h */
#define MAX_VCPUS 8         /* the runtime's own limit (SLIVER_MAX_VCPUS is 64): a stack
                                 * is 16 KiB of .bss per vCPU and most scenarios give a
                                 * guest 2 MiB */

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
	jne .Lhang
	lgdt rt_gdt_desc
	ljmp $0x08, $1f
1:	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movl 12(%ebx), %eax             /* vcpu_id */
	cmpl $MAX_VCPUS, %eax
	jae .Lhang
	incl %eax
	shll $RT_STACK_SHIFT, %eax
	leal rt_stacks(%eax), %esp
	xorl %ebp, %ebp
	pushl %ebx
	call rt_start
.Lhang:                                 /* shutdown(0xdead) by hand: no C runtime here */
	movl $8, %eax                   /* HC_SHUTDOWN */
	movl $0xdead, %edi
	HC_CALL32
	jmp .Lhang

	HC_DEFINE_FLAG

	.section .rodata
	.balign 8
rt_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: code, flat 4 GiB, 32-bit */
	.quad 0x00cf92000000ffff        /* 0x10: data, flat 4 GiB */
rt_gdt_end:
	.balign 4
	.word 0
rt_gdt_desc:
	.word rt_gdt_end - rt_gdt - 1
	.long rt_gdt

	.section .bss
	.balign 16
	.global rt_stacks
rt_stacks:
	.skip (MAX_VCPUS + 1) << RT_STACK_SHIFT

	.section .note.GNU-stack, "", @progbits
