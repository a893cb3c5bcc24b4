/* AP start-up code. The BSP copies this blob to AP_TRAMPOLINE_PA, fills in the parameter
 * block at its end, and sends INIT-SIPI-SIPI with vector AP_TRAMPOLINE_PA >> 12. The AP
 * starts in real mode at that address, goes through 32-bit protected mode into long mode
 * with the BSP's page tables, and jumps to ap_params.entry(ap_params.cpu) on its own stack.
 * Every address is computed relative to the copy, since the code runs there. */
#include "boot/boot.h"

#define REL(x) ((x) - ap_trampoline + AP_TRAMPOLINE_PA)

	.section .ap_trampoline, "aw"
	.code16
	.global ap_trampoline
ap_trampoline:
	cli
	cld
	xor	%ax, %ax
	mov	%ax, %ds
	lgdtl	REL(ap_gdt_ptr)
	mov	%cr0, %eax
	or	$1, %eax
	mov	%eax, %cr0
	ljmpl	$0x08, $REL(ap_pm)

	.code32
ap_pm:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	$BOOT_CR4, %eax
	mov	%eax, %cr4
	mov	REL(ap_params_cr3), %eax
	mov	%eax, %cr3
	mov	$MSR_EFER, %ecx
	mov	REL(ap_params_efer), %eax
	xor	%edx, %edx
	wrmsr
	mov	$BOOT_CR0, %eax
	mov	%eax, %cr0
	ljmp	$0x18, $REL(ap_lm)

	.code64
ap_lm:
	mov	$0x10, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%eax, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	mov	REL(ap_params_stack), %rsp
	mov	REL(ap_params_cpu), %edi
	xor	%ebp, %ebp
	mov	REL(ap_params_entry), %rax
	push	$0
	jmp	*%rax

	.align 16
ap_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff		/* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff		/* 0x10: data */
	.quad 0x00af9a000000ffff		/* 0x18: 64-bit code */
ap_gdt_end:
ap_gdt_ptr:
	.short ap_gdt_end - ap_gdt - 1
	.long REL(ap_gdt)

	/* Parameter block: struct ap_params in arch/x86_64/smp.c mirrors this layout. */
	.align 8
	.global ap_params
ap_params:
ap_params_cr3:		.long 0
ap_params_efer:		.long 0
ap_params_stack:	.quad 0
ap_params_entry:	.quad 0
ap_params_cpu:		.long 0
			.long 0
	.global ap_trampoline_end
ap_trampoline_end:
