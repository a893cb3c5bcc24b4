/* modpat.bin: the bytes of guests/pc's test module (boot=mb1 with mb1.module_of=, flat
 * binary): byte i is (i * 7 + 3) mod 256, 5000 of them (not a multiple of the page). */
	.section .data
	.set i, 0
	.rept 5000
	.byte (i * 7 + 3) & 0xff
	.set i, i + 1
	.endr
	.section .note.GNU-stack, "", @progbits
