/* The AP's way into long mode, as a PC OS starts its application processors (SDM Vol. 3A
 * 9.4.4.1 INIT-SIPI-SIPI, 9.9 real -> protected mode, 9.8.5 IA-32e). The BSP copies
 * pc_ap_tramp (pc_ap_tramp_len bytes) to PC_AP_TRAMP (0x8000) and sends SIPI vector 0x08: the AP
 * starts there in real mode at 0800:0000, loads pc_gdt through a descriptor inside the
 * page (real mode reaches only the first 1 MiB + 64 KiB), enters 32-bit protected mode,
 * jumps to the image at 1 MiB (pc_ap_pm32), turns on PAE, EFER.LME and paging on lm.S's
 * pc_pml4 and lands in 64-bit code (ap64). There it loads a 64-bit IDT whose only gate is
 * vector 0x90, software-enables its local APIC (SVR = 0x1ff), stores EFER in pc_ap_efer,
 * sets pc_ap_up and halts with interrupts on. Each fixed IPI 0x90 is counted in pc_ap_ipis,
 * EOIed and answered with a fixed IPI 0x91 to APIC ID 0, all through the xAPIC page by
 * 64-bit MOVs (C7 /0 with a base register: what the virtual LAPIC decodes). */
#define TRAMP 0x8000
#define OFF(x) (TRAMP + ((x) - pc_ap_tramp))

	.section .rodata
	.code16
	.global pc_ap_tramp, pc_ap_tramp_len
pc_ap_tramp_len:
	.long pc_ap_tramp_end - pc_ap_tramp
pc_ap_tramp:
	cli
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl OFF(tramp_gdt_desc)
	movl %cr0, %eax
	orl $1, %eax                    /* CR0.PE */
	movl %eax, %cr0
	ljmpl $0x08, $OFF(tramp32)
	.code32
tramp32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl $pc_ap_pm32, %eax          /* absolute: the image above 1 MiB */
	jmp *%eax
	.balign 8
tramp_gdt_desc:
	.word 31                        /* pc_gdt: null, 32-bit code, data, 64-bit code */
	.long pc_gdt
pc_ap_tramp_end:

	.text
	.code32
pc_ap_pm32:
	movl $ap_stack_top, %esp        /* the SIPI left SS:ESP 0 */
	call pc_lm_on                   /* lm.S: PAE, pc_pml4, EFER.LME, CR0.PG */
	ljmp $0x18, $ap64

	.code64
ap64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	/* The 64-bit interrupt gate of vector 0x90 (SDM 6.14.1): offset 15:0, selector 0x18,
	 * type 0x8e (present, 64-bit interrupt gate), offset 31:16, offset 63:32. */
	leaq ap_ipi(%rip), %rax
	leaq ap_idt + 0x90 * 16(%rip), %rdi
	movw %ax, (%rdi)
	movw $0x18, 2(%rdi)
	movw $0x8e00, 4(%rdi)
	shrq $16, %rax
	movw %ax, 6(%rdi)
	shrq $16, %rax
	movl %eax, 8(%rdi)
	lidt ap_idt_desc(%rip)
	movl $0xfee00000, %ebx
	movl $0x1ff, 0xf0(%rbx)         /* SVR: APIC software-enabled, spurious 0xff */
	movl $0xc0000080, %ecx
	rdmsr
	movl %eax, pc_ap_efer(%rip)
	movl $1, pc_ap_up(%rip)
1:	sti
	hlt
	jmp 1b

ap_ipi:
	pushq %rax
	pushq %rbx
	lock incl pc_ap_ipis(%rip)
	movl $0xfee00000, %ebx
	movl $0, 0xb0(%rbx)             /* EOI */
	movl $0, 0x310(%rbx)            /* ICR high: APIC ID 0 */
	movl $0x91, 0x300(%rbx)         /* ICR low: fixed, vector 0x91, physical: the reply */
	popq %rbx
	popq %rax
	iretq

	.section .rodata
	.balign 8
ap_idt_desc:
	.word 256 * 16 - 1
	.long ap_idt, 0

	.data
	.balign 4
	.global pc_ap_up, pc_ap_efer, pc_ap_ipis
pc_ap_up:   .long 0
pc_ap_efer: .long 0
pc_ap_ipis: .long 0

	.bss
	.balign 4096
ap_idt: .space 256 * 16
	.balign 16
	.space 4096
ap_stack_top:
	.section .note.GNU-stack, "", @progbits
