/* Multiboot2 header and the 32-bit entry: GRUB (BIOS or UEFI) jumps here in flat 32-bit
 * protected mode, paging off, EAX = magic, EBX = boot information. We build page tables
 * identity-mapping the first 4 GiB with 2 MiB pages (the 3-4 GiB MMIO hole uncached),
 * enter long mode loading full CR0/CR4/EFER values (UEFI leaves WP, NXE and CR4 bits
 * set), and call kmain(magic, info). */
#include "boot/boot.h"

	.section .multiboot2, "a"
	.align 8
mb2_header:
	.long 0xe85250d6			/* magic */
	.long 0					/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(0xe85250d6 + (mb2_header_end - mb2_header))
	/* Framebuffer tag (multiboot2 spec 3.1.10), optional (flags bit 0) so that GRUB boots
	 * where there is no display. Width, height and depth 0: no preference. BIOS GRUB then
	 * stays in EGA text mode (its default gfxpayload is text); UEFI GRUB passes the GOP mode.
	 * The console draws on it when no UART answers (drivers/fb.c). */
	.short 5, 1
	.long 20
	.long 0, 0, 0
	.align 8
	.short 0, 0				/* end tag */
	.long 8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.global _start
_start:
	cli
	cld
	mov	%eax, %ebp			/* keep magic and info out of the way of rep stos */
	mov	%ebx, %esi
	mov	$__bss_start, %edi
	mov	$__bss_end, %ecx
	sub	%edi, %ecx
	xor	%eax, %eax
	rep stosb
	mov	%ebp, boot_magic
	mov	%esi, boot_info_pa
	mov	$(bsp_stack + BOOT_STACK_SIZE), %esp

	/* Long mode is required: CPUID.80000001h:EDX[29]. */
	mov	$0x80000000, %eax
	cpuid
	cmp	$0x80000001, %eax
	jb	no_long_mode
	mov	$0x80000001, %eax
	cpuid
	bt	$29, %edx
	jnc	no_long_mode
	mov	$EFER_LME, %eax
	bt	$20, %edx			/* NX available: enable it so UEFI's EFER.NXE state is ours */
	jnc	1f
	or	$EFER_NXE, %eax
1:	mov	%eax, boot_efer

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories of 2 MiB pages. */
	mov	$boot_pdpt, %eax
	or	$(PTE_P | PTE_W), %eax
	mov	%eax, boot_pml4
	xor	%ecx, %ecx
2:	mov	%ecx, %eax
	shl	$12, %eax
	add	$boot_pd, %eax
	or	$(PTE_P | PTE_W), %eax
	mov	%eax, boot_pdpt(, %ecx, 8)
	inc	%ecx
	cmp	$4, %ecx
	jb	2b
	xor	%ecx, %ecx
3:	mov	%ecx, %eax
	shl	$21, %eax
	or	$(PTE_P | PTE_W | PTE_PS), %eax
	cmp	$1536, %ecx			/* 3 GiB and up: MMIO (LAPIC, IOAPIC, HPET): uncached */
	jb	4f
	or	$(PTE_PWT | PTE_PCD), %eax
4:	mov	%eax, boot_pd(, %ecx, 8)
	inc	%ecx
	cmp	$2048, %ecx
	jb	3b

	mov	$boot_pml4, %eax
	mov	%eax, %cr3
	mov	$BOOT_CR4, %eax
	mov	%eax, %cr4
	mov	$MSR_EFER, %ecx
	mov	boot_efer, %eax
	xor	%edx, %edx
	wrmsr
	mov	$BOOT_CR0, %eax
	mov	%eax, %cr0
	lgdt	boot_gdt_ptr
	ljmp	$BOOT_CS64, $long_entry

/* No long mode: say so on COM1 (and Bochs' port 0xE9), end like hv_exit(EXIT_NO_HV) does:
 * `sliver: exit 3`, then QEMU's isa-debug-exit (only under a hypervisor: CPUID.1:ECX[31])
 * and Bochs' debugger port (only when port 0xE9 reads back 0xE9), then halt. */
no_long_mode:
	mov	$uart_init_seq, %esi		/* COM1 at 115200 8N1 (as drivers/uart16550.c) */
7:	lodsw
	test	%ax, %ax
	jz	8f
	movzbl	%al, %edx
	add	$0x3f8, %edx
	mov	%ah, %al
	out	%al, %dx
	jmp	7b
8:	mov	$no_lm_msg, %esi
1:	lodsb
	test	%al, %al
	jz	3f
	mov	%al, %bl
	mov	$0x3fd, %dx			/* LSR: wait for THRE */
2:	in	%dx, %al
	test	$0x20, %al
	jz	2b
	mov	%bl, %al
	mov	$0x3f8, %dx
	out	%al, %dx
	in	$0xe9, %al
	cmp	$0xe9, %al
	jne	1b
	mov	%bl, %al
	out	%al, $0xe9
	jmp	1b
3:	mov	$0x3fd, %dx			/* let the UART shift the last byte out */
	in	%dx, %al
	test	$0x40, %al
	jz	3b
	mov	$1, %eax
	cpuid
	bt	$31, %ecx
	jnc	4f
	mov	$3, %al
	out	%al, $0xf4
4:	in	$0xe9, %al
	cmp	$0xe9, %al
	jne	6f
	mov	$shutdown_msg, %esi
	mov	$0x8900, %dx
5:	lodsb
	test	%al, %al
	jz	6f
	out	%al, %dx
	jmp	5b
6:	hlt
	jmp	6b

	.code64
long_entry:
	mov	$BOOT_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%eax, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	mov	$(bsp_stack + BOOT_STACK_SIZE), %rsp
	xor	%ebp, %ebp			/* terminates the backtrace chain */
	mov	boot_magic(%rip), %edi
	mov	boot_info_pa(%rip), %esi
	call	kmain
1:	cli
	hlt
	jmp	1b

	.section .rodata
no_lm_msg:
	.asciz "\r\nsliver: this CPU has no long mode (x86-64): it cannot run sliver\r\nsliver: exit 3\r\n"
shutdown_msg:
	.asciz "Shutdown"
uart_init_seq:	/* (register offset, value) pairs: IER 0, DLAB, divisor 1, 8N1, FIFOs, DTR|RTS */
	.byte 1, 0, 3, 0x80, 0, 1, 1, 0, 3, 3, 2, 7, 4, 3
	.short 0

	.align 16
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff		/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff		/* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt

	.section .bss
	.align 4096
	.global boot_pml4
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4 * 4096
	.global bsp_stack
bsp_stack:	.skip BOOT_STACK_SIZE
	.global boot_efer
boot_efer:	.long 0
boot_magic:	.long 0
boot_info_pa:	.long 0
