/* hostile64(struct l64_result *r): see long64.h. 32-bit protected mode -> IA-32e (SDM Vol.
 * 3A 9.8.5), a 64-bit IDT/GDT/TSS of its own, the checks, then back to 32-bit protected
 * mode through compatibility mode (9.8.5.4) with the runtime's GDT and IDT restored.
 * A fault the checks do not expect shuts the domain down with code 0x200 + vector.
 * Hypercalls use the instruction the runtime picked (guests/lib/hcinsn.inc). */
#include "guests/lib/hcinsn.inc"
#define L64_CR8_READ	0
#define L64_TICKS15	8
#define L64_TICKS2	16
#define L64_TICKS1	24
#define L64_CR8_16	32
#define L64_SC_RCX	40
#define L64_SC_WANT	48
#define L64_SC_R11	56
#define L64_SC_RFLAGS	64
#define L64_SC_CS	72
#define L64_RING3_CS	80
#define L64_KGS_BAD	88
#define L64_KGS_ROUNDS	96
#define L64_PG_CLEAR	104
#define L64_LME_CLEAR	112
#define L64_PAE_CLEAR	120
#define L64_PCIDE	128
#define L64_KGS_PAT	136
#define L64_SC_UD	144
#define L64_LSTAR	152
#define L64_HOLD_CR8	160
#define L64_DONE	168

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_SFMASK	0xc0000084
#define MSR_GS_BASE	0xc0000101
#define MSR_KGS		0xc0000102
#define HC_YIELD	1
#define HC_SET_TIMER	3
#define HC_CLOCK	4
#define HC_SHUTDOWN	8
#define KGS_ROUNDS	200

/* PROBE insn: runs insn with the fault handler armed; %rax = vector it raised, or -1. */
.macro PROBE insn:vararg
	movq $-1, l64_fault_vec(%rip)
	leaq 9f(%rip), %r14
	movq %r14, l64_fault_resume(%rip)
	\insn
9:	movq $0, l64_fault_resume(%rip)
	movq l64_fault_vec(%rip), %rax
.endm

	.code32
	.text
	.global hostile64
hostile64:
	pushl %ebp
	pushl %ebx
	pushl %esi
	pushl %edi
	movl 20(%esp), %edi             /* r */
	pushfl
	cli
	sgdt l64_saved_gdt
	sidt l64_saved_idt
	movl %cr3, %eax
	movl %eax, l64_saved_cr3
	movl %cr4, %eax
	movl %eax, l64_saved_cr4
	movl %esp, l64_saved_esp
	/* Identity map of the first 1 GiB, 2 MiB pages, user-accessible (the ring-3 step). */
	movl $(l64_pdpt + 7), l64_pml4
	movl $(l64_pd + 7), l64_pdpt
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x87, %eax
	movl %eax, l64_pd(,%ecx,8)
	movl $0, l64_pd + 4(,%ecx,8)
	incl %ecx
	cmpl $512, %ecx
	jb 1b
	/* 64-bit TSS descriptor at 0x40: base = l64_tss, limit 0x67, type 9 (available). */
	movl $l64_tss, %eax
	movl %eax, %edx
	shll $16, %edx
	orl $0x67, %edx
	movl %edx, l64_gdt + 0x40
	movl %eax, %edx
	andl $0xff000000, %edx
	movl %eax, %ecx
	shrl $16, %ecx
	andl $0xff, %ecx
	orl %ecx, %edx
	orl $0x8900, %edx
	movl %edx, l64_gdt + 0x44
	movl $l64_stack0_top, l64_tss + 4 /* RSP0 */
	/* IDT: exception stubs 0-31, the timer (0x20), int 0x80 from ring 3. */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $4, %eax
	addl $l64_exc_stubs, %eax
	movl $0x8e00, %edx
	call l64_set_gate
	incl %ecx
	cmpl $32, %ecx
	jb 2b
	movl $0x20, %ecx
	movl $l64_timer, %eax
	movl $0x8e00, %edx
	call l64_set_gate
	movl $0x80, %ecx
	movl $l64_int80, %eax
	movl $0xee00, %edx              /* DPL 3 */
	call l64_set_gate
	/* Long mode on: PAE, CR3, EFER.LME, paging. */
	movl %cr4, %eax
	orl $0x20, %eax
	movl %eax, %cr4
	movl $l64_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	andl $~1, %eax                  /* SCE off: the first SYSCALL must #UD (a second run) */
	orl $0x100, %eax                /* LME */
	wrmsr
	lgdt l64_gdt_desc
	movl %cr0, %eax
	orl $0x80000000, %eax
	movl %eax, %cr0
	ljmp $0x18, $l64_main

/* gate ecx <- handler eax, attributes edx (0x8e00 / 0xee00), selector 0x18. */
l64_set_gate:
	pushl %ebx
	movl %ecx, %ebx
	shll $4, %ebx
	addl $l64_idt, %ebx
	movl %eax, (%ebx)
	movw $0x18, 2(%ebx)
	andl $0xffff0000, %eax
	orl %edx, %eax
	movl %eax, 4(%ebx)
	movl $0, 8(%ebx)
	movl $0, 12(%ebx)
	popl %ebx
	ret

	.code64
l64_main:
	movw $0x20, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	lidt l64_idt_desc(%rip)
	movw $0x40, %ax
	ltr %ax
	movl %edi, %r15d                /* r, zero-extended */

	/* --- CR8: a virtual TPR that masks by priority class, never the host's --- */
	movl $15, %eax
	movq %rax, %cr8
	movq %cr8, %rax
	movq %rax, L64_CR8_READ(%r15)
	movq $0, l64_ticks(%rip)
	call l64_clock
	leaq 1000000(%rax), %rdi        /* timer in 1 ms */
	leaq 4000000(%rax), %rbx        /* look for 4 ms */
	call l64_set_timer
	sti
	call l64_spin_until
	cli
	movq l64_ticks(%rip), %rax
	movq %rax, L64_TICKS15(%r15)
	movl $2, %eax
	movq %rax, %cr8
	call l64_clock
	leaq 2000000(%rax), %rbx
	sti
	call l64_spin_until
	cli
	movq l64_ticks(%rip), %rax
	movq %rax, L64_TICKS2(%r15)
	movl $1, %eax
	movq %rax, %cr8
	call l64_clock
	leaq 2000000(%rax), %rbx
	sti
	call l64_spin_until
	cli
	movq l64_ticks(%rip), %rax
	movq %rax, L64_TICKS1(%r15)
	movl $16, %ecx
	PROBE movq %rcx, %cr8
	movq %rax, L64_CR8_16(%r15)
	xorl %eax, %eax
	movq %rax, %cr8

	/* --- SYSCALL / SYSRET: STAR, LSTAR, SFMASK must be live in the hardware --- */
	PROBE syscall                   /* EFER.SCE = 0: #UD */
	movq %rax, L64_SC_UD(%r15)
	movl $MSR_STAR, %ecx
	xorl %eax, %eax
	movl $0x00280018, %edx          /* SYSRET base 0x28, SYSCALL CS 0x18 */
	wrmsr
	movl $MSR_LSTAR, %ecx
	leaq l64_syscall_entry(%rip), %rax
	movq %rax, %rdx
	shrq $32, %rdx
	wrmsr
	rdmsr
	shlq $32, %rdx
	movl %eax, %eax
	orq %rdx, %rax
	movq %rax, L64_LSTAR(%r15)
	movl $MSR_SFMASK, %ecx
	movl $0x600, %eax               /* IF, DF */
	xorl %edx, %edx
	wrmsr
	movl $MSR_EFER, %ecx
	rdmsr
	orl $1, %eax                    /* SCE */
	wrmsr
	leaq l64_after_syscall(%rip), %rax
	movq %rax, L64_SC_WANT(%r15)
	movq %rsp, l64_saved_rsp(%rip)
	sti
	std
	syscall
l64_after_syscall:                      /* ring 3 after SYSRETQ */
	movw %cs, %ax
	movzwl %ax, %eax
	movq %rax, L64_RING3_CS(%r15)
	int $0x80                       /* back to ring 0 (l64_int80) */
l64_back_ring0:
	cld
	cli
	movw $0x20, %ax
	movw %ax, %ss

	/* --- SWAPGS: KERNEL_GS_BASE is this vCPU's, across yields to other domains --- */
	movl $MSR_KGS, %ecx
	movq L64_KGS_PAT(%r15), %rax
	movq %rax, %rdx
	shrq $32, %rdx
	wrmsr
	movl $MSR_GS_BASE, %ecx
	xorl %eax, %eax
	xorl %edx, %edx
	wrmsr
	movq $0, L64_KGS_BAD(%r15)
	movq $0, L64_KGS_ROUNDS(%r15)
3:	movl $HC_YIELD, %eax
	HC_CALL64
	swapgs
	movl $MSR_GS_BASE, %ecx
	call l64_rdmsr                  /* GS.base now holds what KERNEL_GS_BASE held */
	swapgs
	cmpq L64_KGS_PAT(%r15), %rax
	jne 4f
	movl $MSR_KGS, %ecx
	call l64_rdmsr
	cmpq L64_KGS_PAT(%r15), %rax
	je 5f
4:	incq L64_KGS_BAD(%r15)
5:	incq L64_KGS_ROUNDS(%r15)
	cmpq $KGS_ROUNDS, L64_KGS_ROUNDS(%r15)
	jb 3b

	/* --- leaving long mode the wrong way: #GP, still in 64-bit mode --- */
	movq %cr0, %rcx
	btrq $31, %rcx
	PROBE movq %rcx, %cr0           /* PG off in 64-bit code */
	movq %rax, L64_PG_CLEAR(%r15)
	movl $MSR_EFER, %ecx
	rdmsr
	andl $~0x100, %eax
	PROBE wrmsr                     /* LME off with paging on */
	movq %rax, L64_LME_CLEAR(%r15)
	movq %cr4, %rcx
	btrq $5, %rcx
	PROBE movq %rcx, %cr4           /* PAE off in IA-32e mode */
	movq %rax, L64_PAE_CLEAR(%r15)
	movq %cr4, %rcx
	btsq $17, %rcx
	PROBE movq %rcx, %cr4           /* PCIDE: PCID is hidden */
	movq %rax, L64_PCIDE(%r15)

	movq $0x64, L64_DONE(%r15)
	cmpq $0, L64_HOLD_CR8(%r15)
	je l64_leave
	/* Hold TPR 15 with IF=1 and a timer pending, forever: only this vCPU may notice. */
	call l64_clock
	leaq 1000000(%rax), %rdi
	call l64_set_timer
	movl $15, %eax
	movq %rax, %cr8
	sti
6:	pause
	jmp 6b

l64_leave:
	cli
	pushq $0x08
	leaq l64_compat(%rip), %rax
	pushq %rax
	lretq

/* ring 0, from SYSCALL: record, then SYSRETQ to ring 3 with IF = DF = 0. */
	.global l64_syscall_entry
l64_syscall_entry:
	movq %rcx, L64_SC_RCX(%r15)
	movq %r11, L64_SC_R11(%r15)
	pushfq
	popq %rax
	movq %rax, L64_SC_RFLAGS(%r15)
	movw %cs, %ax
	movzwl %ax, %eax
	movq %rax, L64_SC_CS(%r15)
	movl $2, %r11d
	sysretq

/* int $0x80 from ring 3: drop the frame, continue in ring 0 on the old stack. */
l64_int80:
	movq l64_saved_rsp(%rip), %rsp
	jmp l64_back_ring0

l64_timer:
	incq l64_ticks(%rip)
	iretq

/* rax <- ns since boot (HC_CLOCK: EDX:EAX). */
l64_clock:
	movl $HC_CLOCK, %eax
	HC_CALL64
	movl %eax, %eax
	shlq $32, %rdx
	orq %rdx, %rax
	ret

/* HC_SET_TIMER(rdi = absolute ns), as two 32-bit halves. */
l64_set_timer:
	movq %rdi, %rsi
	shrq $32, %rsi
	movl %edi, %edi
	movl $HC_SET_TIMER, %eax
	HC_CALL64
	ret

/* Spins (hypercalls: exits, interrupts taken) until the clock reaches rbx. */
l64_spin_until:
	call l64_clock
	cmpq %rbx, %rax
	jb l64_spin_until
	ret

/* rax <- MSR ecx. */
l64_rdmsr:
	rdmsr
	shlq $32, %rdx
	movl %eax, %eax
	orq %rdx, %rax
	ret

/* Exception stubs, 16 bytes each: push an error code where the CPU does not, the vector,
 * then the common path. */
	.balign 16
l64_exc_stubs:
	.set vec, 0
	.rept 32
	.balign 16
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	nop
	nop
	.else
	pushq $0
	.endif
	pushq $vec
	jmp l64_exc_common
	.set vec, vec + 1
	.endr

l64_exc_common:                         /* [rsp] vector, error, rip, cs, rflags, rsp, ss */
	pushq %rax
	movq l64_fault_resume(%rip), %rax
	testq %rax, %rax
	jz 7f
	movq %rax, 24(%rsp)
	movq 8(%rsp), %rax
	movq %rax, l64_fault_vec(%rip)
	movq $0, l64_fault_resume(%rip)
	popq %rax
	addq $16, %rsp
	iretq
7:	movq 8(%rsp), %rdi
	addq $0x200, %rdi
	movl $HC_SHUTDOWN, %eax
	HC_CALL64
	jmp 7b

	.code32
/* Compatibility mode (CS 0x08): paging off leaves IA-32e mode, then the runtime's state. */
l64_compat:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr0, %eax
	andl $0x7fffffff, %eax
	movl %eax, %cr0
	movl $MSR_EFER, %ecx
	rdmsr
	andl $~0x100, %eax
	wrmsr
	movl l64_saved_cr4, %eax
	movl %eax, %cr4
	movl l64_saved_cr3, %eax
	movl %eax, %cr3
	lgdt l64_saved_gdt
	lidt l64_saved_idt
	ljmp $0x08, $8f
8:	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movw %ax, %ss
	movl l64_saved_esp, %esp
	popfl
	popl %edi
	popl %esi
	popl %ebx
	popl %ebp
	ret

	.data
	.balign 8
l64_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff        /* 0x08: 32-bit code (compatibility mode) */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0x00af9a000000ffff        /* 0x18: 64-bit code (SYSCALL CS) */
	.quad 0x00cf92000000ffff        /* 0x20: data (SYSCALL SS) */
	.quad 0x00cffa000000ffff        /* 0x28: 32-bit user code (SYSRET base) */
	.quad 0x00cff2000000ffff        /* 0x30: user data (SYSRET SS) */
	.quad 0x00affa000000ffff        /* 0x38: 64-bit user code (SYSRETQ CS) */
	.quad 0, 0                      /* 0x40: 64-bit TSS, filled in */
l64_gdt_end:
	.balign 4
	.word 0
l64_gdt_desc:
	.word l64_gdt_end - l64_gdt - 1
	.long l64_gdt
	.balign 4
	.word 0
l64_idt_desc:
	.word 256 * 16 - 1
	.long l64_idt, 0
	.balign 8
l64_fault_vec:    .quad -1
l64_fault_resume: .quad 0
l64_ticks:        .quad 0
l64_saved_rsp:    .quad 0
l64_saved_esp:    .long 0
l64_saved_cr3:    .long 0
l64_saved_cr4:    .long 0
	.balign 4
	.word 0
l64_saved_gdt:    .word 0
	.long 0
	.balign 4
	.word 0
l64_saved_idt:    .word 0
	.long 0

	.section .bss
	.balign 4096
l64_pml4:   .skip 4096
l64_pdpt:   .skip 4096
l64_pd:     .skip 4096
l64_idt:    .skip 4096
l64_tss:    .skip 4096
l64_stack0: .skip 4096
l64_stack0_top:

	.section .note.GNU-stack, "", @progbits
