/* pc_lm_exit(status): 32-bit protected mode -> IA-32e (SDM Vol. 3A 9.8.5) on pc_pml4
 * (static: an identity map of the first 4 MiB and of the xAPIC page with 2 MiB pages; the
 * AP's trampoline, ap.S, uses it too); in 64-bit code checks EFER.LMA and that the ACPI PM
 * timer (port 0x608) advances, prints "pc: long mode: got ... ok" or "... BAD" on COM1, and ends
 * through isa-debug-exit: a 32-bit OUT of status to port 0xf4 (status + 0x80 when a
 * 64-bit check failed). Never returns. */
	.code32
	.text
	.global pc_lm_exit
pc_lm_exit:
	cli
	movl 4(%esp), %edi              /* status */
	call pc_lm_on
	ljmp $0x18, $lm64

/* pc_lm_on: PAE, CR3 = pc_pml4, EFER.LME, then CR0.PG: IA-32e mode is active on return,
 * in compatibility mode until the caller's far jump to selector 0x18 (the BSP here, the
 * AP in ap.S). Clobbers EAX, ECX, EDX. */
	.global pc_lm_on
pc_lm_on:
	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl $pc_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx          /* IA32_EFER */
	rdmsr
	orl $0x100, %eax                /* LME */
	wrmsr
	movl %cr0, %eax
	orl $0x80000000, %eax           /* PG: long mode becomes active */
	movl %eax, %cr0
	ret

	.code64
lm64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl $0xc0000080, %ecx
	rdmsr
	testl $0x400, %eax              /* EFER.LMA */
	jz bad
	/* PM timer: polled until it moves, at most 20000 reads. Polled, not a fixed PAUSE
	 * delay: under single-threaded QEMU TCG every PAUSE hands the emulator to the next
	 * vCPU for a whole time slice (docs/svm.md, QEMU item 7). */
	movw $0x608, %dx
	inl %dx, %eax
	movl %eax, %esi
	movl $20000, %ecx
1:	pause
	inl %dx, %eax
	subl %esi, %eax
	andl $0xffffff, %eax            /* 24-bit counter: wrap */
	jnz 5f
	loop 1b
	jmp bad
5:	leaq msg_ok(%rip), %rsi
	jmp out
bad:
	leaq msg_bad(%rip), %rsi
	orl $0x80, %edi
out:
	movw $0x3f8, %dx
2:	lodsb
	testb %al, %al
	jz 3f
	outb %al, %dx
	jmp 2b
3:	movl %edi, %eax
	movw $0xf4, %dx
	outl %eax, %dx                  /* isa-debug-exit: the domain ends here */
4:	hlt
	jmp 4b

	.section .rodata
msg_ok:	.asciz "pc: long mode: got EFER.LMA=1, PM timer moving ok\n"
msg_bad: .asciz "pc: long mode: got EFER.LMA or PM timer wrong BAD\n"
	.balign 8
	.global pc_gdt
pc_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
	.global pc_gdt_desc
pc_gdt_desc:
	.word pc_gdt_desc - pc_gdt - 1
	.long pc_gdt

	/* 4-level tables, written by the linker: PML4[0] -> PDPT; PDPT[0] -> pc_pd (0-4 MiB),
	 * PDPT[3] -> pc_pd_apic (3-4 GiB: entry 0x1f7 maps 0xfee00000, uncached: PCD|PWT). */
	.data
	.balign 4096
	.global pc_pml4
pc_pml4: .long pc_pdpt + 3, 0        /* .long pairs: an i386 object has no 64-bit relocation */
	.balign 4096
pc_pdpt: .long pc_pd + 3, 0, 0, 0, 0, 0, pc_pd_apic + 3, 0
	.balign 4096
pc_pd:   .quad 0x00000083, 0x00200083
	.balign 4096
pc_pd_apic:
	.space 0x1f7 * 8
	.quad 0xfee0009b
	.balign 4096
