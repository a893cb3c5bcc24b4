/* guests/pc: resets, as kvm-unit-tests x86/init.c does them, and what the firmware does
 * after each (core/pc_reset.c). The count of the boots and of the failures lives in low
 * memory at PC_RESET_MARK, which a reset keeps (the image and its .bss are loaded again):
 * 1. after the other checks: CMOS 0x0F = 0x0A (resume) with the resume vector 40:67 at a
 *    real-mode stub, then a fast reset through port 0x92. The firmware resumes at the stub,
 *    which counts itself, clears the shutdown code and jumps to FFFF:0000, the reset
 *    vector; the ROM there resets through the 8042, and the firmware boots the image again.
 * 2. boot 2: port 0x92 bit 0 still set (a soft reset keeps it), the stub ran once; then an
 *    INIT IPI to itself: the BSP boots again.
 * 3. boot 3: a hard reset through 0xCF9 (SYS_RST | RST_CPU).
 * 4. boot 4: port 0x92 bit 0 clear (a hard reset clears it); the caller exits. */
#include "guests/lib/apic.h"
#include "guests/pc/pc.h"
#include "lib/string.h"

#define MARK_MAGIC 0x52534554u /* "TESR" */
#define STUB	   0x7100u

struct mark {
	uint32_t magic, stage, resumed, fails;
};
#define MARK ((volatile struct mark *)PC_RESET_MARK)

/* Real mode at 0000:7100: resumed++ (a 32-bit INC of [cs:0x7008]), CMOS 0x0F = 0, then
 * jmp FFFF:0000. */
static const uint8_t stub[] = {
	0x2e, 0x66, 0xff, 0x06, 0x08, 0x70, /* inc dword [cs:0x7008] */
	0xb0, 0x0f, 0xe6, 0x70,		    /* mov al, 0x0f; out 0x70, al */
	0xb0, 0x00, 0xe6, 0x71,		    /* mov al, 0; out 0x71, al */
	0xea, 0x00, 0x00, 0xff, 0xff,	    /* jmp 0xffff:0x0000 */
};
_Static_assert(PC_RESET_MARK + 8 == 0x7008, "the stub counts MARK->resumed");

static void cmos_wr(uint8_t reg, uint8_t v)
{
	outb(0x70, reg);
	outb(0x71, v);
}

/* A pointer into the BDA (GCC takes a constant address below 4 KiB for a null pointer's
 * neighbourhood and warns: the asm hides the value). */
static volatile uint16_t *bda16(uintptr_t a)
{
	__asm__("" : "+r"(a));
	return (volatile uint16_t *)a;
}

static __attribute__((noreturn)) void wait_reset(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

unsigned pc_reset_stage(void)
{
	return MARK->magic == MARK_MAGIC ? MARK->stage : 0;
}

unsigned pc_reset_checks(void)
{
	unsigned stage = pc_reset_stage();
	uint8_t p92 = inb(0x92);
	outb(0x70, 0x0f);
	uint8_t code = inb(0x71);
	if (stage == 0) {
		*MARK = (struct mark){MARK_MAGIC, 1, 0, pc_fails()};
		memcpy((void *)STUB, stub, sizeof stub);
		*bda16(0x467) = STUB; /* 40:67: offset, segment 0 */
		*bda16(0x469) = 0;
		cmos_wr(0x0f, 0x0a);
		pc_printf("pc: reset 1: port 0x92 with CMOS shutdown code 0x0a\n");
		outb(0x92, p92 & ~1);
		outb(0x92, p92 | 1);
		wait_reset();
	}
	if (stage == 1) {
		pc_check("reset 1 by port 0x92: resumed at 40:67, then booted again",
			 MARK->resumed == 1 && (p92 & 1) && code == 0,
			 "resumed=%u port92=0x%x shutdown=0x%x", MARK->resumed, p92, code);
		MARK->stage = 2;
		MARK->fails += pc_fails();
		pc_printf("pc: reset 2: INIT IPI to itself\n");
		apic_mmio_wr(R_ICR_HI, 0);
		apic_mmio_wr(R_ICR_LO, ICR_SELF | ICR_INIT);
		wait_reset();
	}
	if (stage == 2) {
		pc_check("reset 2 by INIT to the BSP: booted again",
			 (p92 & 1) && MARK->resumed == 1, "port92=0x%x", p92);
		MARK->stage = 3;
		MARK->fails += pc_fails();
		pc_printf("pc: reset 3: 0xcf9 hard\n");
		outb(0xcf9, 0x02);
		outb(0xcf9, 0x06);
		wait_reset();
	}
	pc_check("reset 3 by 0xcf9 (hard): port 0x92 bit 0 cleared", !(p92 & 1),
		 "port92=0x%x after %u boots", p92, MARK->stage + 1);
	MARK->magic = 0;
	return MARK->fails + pc_fails();
}
