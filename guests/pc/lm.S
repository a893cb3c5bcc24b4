/* pc_lm_exit(status): 32-bit protected mode -> IA-32e (SDM Vol. 3A 9.8.5), identity map
 * of the first 4 MiB with 2 MiB pages; in 64-bit code checks EFER.LMA and that the ACPI PM
 * timer (port 0x608) advances, prints "pc: long mode ok" or "... BAD" on COM1, and ends
 * through isa-debug-exit: a 32-bit OUT of status to port 0xf4 (status + 0x80 when a
 * 64-bit check failed). Never returns. */
	.code32
	.text
	.global pc_lm_exit
pc_lm_exit:
	cli
	movl 4(%esp), %edi              /* status */
	movl $(pc_pdpt + 3), pc_pml4
	movl $(pc_pd + 3), pc_pdpt
	movl $0x00000083, pc_pd         /* 0-2 MiB: present, writable, 2 MiB page */
	movl $0x00200083, pc_pd + 8     /* 2-4 MiB */
	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl $pc_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx          /* IA32_EFER */
	rdmsr
	orl $0x100, %eax                /* LME */
	wrmsr
	lgdt pc_gdt_desc
	movl %cr0, %eax
	orl $0x80000000, %eax           /* PG: long mode becomes active */
	movl %eax, %cr0
	ljmp $0x18, $lm64

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
msg_ok:	.asciz "pc: long mode ok\n"
msg_bad: .asciz "pc: long mode BAD\n"
	.balign 8
pc_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code */
pc_gdt_desc:
	.word pc_gdt_desc - pc_gdt - 1
	.long pc_gdt

	.bss
	.balign 4096
pc_pml4: .space 4096
pc_pdpt: .space 4096
pc_pd:   .space 4096
