/* 256 interrupt stubs, 16 bytes apart from rt_isr_table. Each pushes an error code (0
 * where the CPU pushes none) and its vector, then rt_isr_common saves the registers and
 * calls rt_isr_dispatch(struct rt_frame *). */
	.code32
	.text
	.balign 16
	.global rt_isr_table
rt_isr_table:
	.set vec, 0
	.rept 256
	.balign 16
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushl $0
	.endif
	pushl $vec
	jmp rt_isr_common
	.set vec, vec + 1
	.endr

rt_isr_common:
	pushal
	cld
	pushl %esp
	call rt_isr_dispatch
	addl $4, %esp
	popal
	addl $8, %esp
	iret

	.section .note.GNU-stack, "", @progbits
