/* fuzz, op class `io`: IN/OUT of 1, 2 and 4 bytes on random and interesting ports; reads
 * must give all-ones (or the few values docs/guests.md gives), 8/16-bit INs keep the rest of
 * EAX, and nothing faults. */
#include "guests/fuzz/fuzz_ops.h"

static const uint16_t io_ports[] = {
	0x20,  0x21,  0x40,  0x43,  0x60,  0x61,  0x64,	 0x70,	0x71,  0x80,  0x92,  0xa0,   0xa1,
	0xb2,  0xf4,  0x1f0, 0x1f7, 0x2f8, 0x3c0, 0x3d4, 0x3f8, 0x3f9, 0x3fa, 0x3fb, 0x3fc,  0x3fd,
	0x3fe, 0x3ff, 0x402, 0x4d0, 0x4d1, 0x510, 0x511, 0xcf8, 0xcf9, 0xcfc, 0xe9,  0x8900, 0xffff,
};

void op_io(void)
{
	uint16_t port = chance(50) ? io_ports[below(sizeof io_ports / sizeof io_ports[0])]
				   : (uint16_t)rnd();
	unsigned size = 1u << below(3);
	bool in = chance(50);
	ureg mask = size == 1 ? 0xff : size == 2 ? 0xffff : 0xffffffffu;
	bool com1 = size == 1 && port >= 0x3f8 && port <= 0x3ff, e9 = size == 1 && port == 0xe9;
	if (!in) {
		/* Bytes to COM1's THR or port 0xE9 are console output: keep the log readable. */
		if ((com1 && port == 0x3f8) || e9)
			port = 0x3ff;
		if (port == 0xf4) /* isa-debug-exit would end the domain (docs/guests.md) */
			port = 0x3ff;
		ureg v = (ureg)rnd();
		if (size == 1)
			__asm__ volatile("outb %%al, %%dx" : : "a"(v), "d"(port));
		else if (size == 2)
			__asm__ volatile("outw %%ax, %%dx" : : "a"(v), "d"(port));
		else
			__asm__ volatile("outl %%eax, %%dx" : : "a"(v), "d"(port));
		return;
	}
	ureg before = (ureg)rnd(), v = before;
	if (size == 1)
		__asm__ volatile("inb %%dx, %%al" : "+a"(v) : "d"(port));
	else if (size == 2)
		__asm__ volatile("inw %%dx, %%ax" : "+a"(v) : "d"(port));
	else
		__asm__ volatile("inl %%dx, %%eax" : "+a"(v) : "d"(port));
	ureg rest = size == 4 ? 0 : before & ~mask; /* 32-bit IN zero-extends, 8/16 merge */
	if ((v & ~mask) != rest)
		fail("in%u port %x: upper bits %lx, expected %lx", size * 8, port,
		     (unsigned long)(v & ~mask), (unsigned long)rest);
	ureg got = v & mask, want = mask;
	if (e9)
		want = 0xe9;
	else if (com1 && port == 0x3fd)
		want = 0x60; /* LSR: transmitter empty */
	else if (com1 && port == 0x3fa) {
		/* IIR: nothing pending; bits 7:6 say whether FCR bit 0 turned the FIFOs on, which
		 * this class's writes to 0x3fa do at random (core/vuart.c). */
		if (got == 0xc1)
			return;
		want = 0x01;
	} else if (com1)
		return;
	/* The minimal PC's registers with values of their own (docs/guests.md): fw_cfg data,
	 * the PM1 block and the PM timer. */
	if ((port == 0x511 && size == 1) || (port >= 0x600 && port < 0x60c))
		return;
	if (got != want)
		fail("in%u port %x read %lx, expected %lx", size * 8, port, (unsigned long)got,
		     (unsigned long)want);
}
