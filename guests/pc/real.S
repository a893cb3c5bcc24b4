/* guests/pc real-mode image (boot=real): a flat binary linked at 0x8000 (module key
 * load=0x8000), entered at CS:IP = 0800:0000 with CR0.PE = 0. Prints on COM1 by port I/O
 * (the 16550 of exit_io.c), checks it is in real mode (CR0.PE clear) with CS as
 * docs/guests.md says, reads the BIOS data area's base-memory size, and exits through
 * isa-debug-exit with a 32-bit OUT: status 0x11 when every check held, 0x90 + the number
 * that failed otherwise. */
	.code16
	.text
	.global _start
_start:
	cli
	xorw %ax, %ax
	movw %ax, %ds
	movw %ax, %ss
	movw $0x7000, %sp
	xorw %bp, %bp                   /* failed checks */
	movw $msg_hello, %si
	call puts
	smsw %ax                        /* CR0 low word: PE must be clear */
	testw $1, %ax
	jz 1f
	incw %bp
1:	movw %cs, %ax
	cmpw $0x0800, %ax
	je 2f
	incw %bp
2:	movw 0x413, %ax                 /* BDA: base memory in KiB */
	cmpw $636, %ax
	je 3f
	incw %bp
3:	testw %bp, %bp
	jnz 4f
	movw $msg_ok, %si
	call puts
	movl $0x11, %eax
	jmp 5f
4:	movw $msg_bad, %si
	call puts
	movzwl %bp, %eax
	addl $0x90, %eax
5:	movw $0xf4, %dx
	outl %eax, %dx                  /* 66 ef: the domain ends with status %eax */
6:	hlt
	jmp 6b

/* puts(SI): polls LSR.THRE, writes each byte to THR. */
puts:
	lodsb
	testb %al, %al
	jz 9f
	movb %al, %bl
	movw $0x3fd, %dx
8:	inb %dx, %al
	testb $0x20, %al
	jz 8b
	movw $0x3f8, %dx
	movb %bl, %al
	outb %al, %dx
	jmp puts
9:	ret

msg_hello: .asciz "pc-real: hello from real mode\n"
msg_ok:    .asciz "pc-real: cr0.pe=0 cs=0800 bda=636 ok\n"
msg_bad:   .asciz "pc-real: checks BAD\n"
