/* Interrupt and exception entry: one stub per vector pushes a zero error code where the
 * CPU pushes none, then the vector, and joins isr_common, which saves every general
 * register into a struct irq_frame (arch/x86_64/idt.h) and calls irq_dispatch(frame). */

	.text
	.macro ISR vec
	.align 16
isr_\vec:
	.if (\vec == 8) || (\vec >= 10 && \vec <= 14) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	push	$0
	.endif
	push	$\vec
	jmp	isr_common
	.endm

	.altmacro
	.macro ISR_ALL from, to
	ISR \from
	.if \to - \from
	ISR_ALL %(\from + 1), \to
	.endif
	.endm

	ISR_ALL 0, 63
	ISR_ALL 64, 127
	ISR_ALL 128, 191
	ISR_ALL 192, 255

isr_common:
	push	%rax
	push	%rbx
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%rbp
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rsp, %rdi
	cld
	call	irq_dispatch
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rbp
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rbx
	pop	%rax
	add	$16, %rsp			/* vector and error code */
	iretq

	.macro ISR_ADDR vec
	.quad isr_\vec
	.endm
	.macro ISR_TABLE from, to
	ISR_ADDR \from
	.if \to - \from
	ISR_TABLE %(\from + 1), \to
	.endif
	.endm

	.section .rodata
	.global isr_stubs
	.align 8
isr_stubs:
	ISR_TABLE 0, 63
	ISR_TABLE 64, 127
	ISR_TABLE 128, 191
	ISR_TABLE 192, 255
