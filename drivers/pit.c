#include "drivers/pit.h"
#include "arch/x86_64/cpu.h"

#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_B	0x61 /* bit 0: channel 2 gate, bit 1: speaker, bit 5: channel 2 output */

void pit_oneshot_start(uint16_t ticks)
{
	outb(PORT_B, (inb(PORT_B) & ~0x02) | 0x01); /* gate on, speaker off */
	outb(PIT_CMD, 0xb0);			    /* channel 2, lo/hi byte, mode 0 */
	outb(PIT_CH2, (uint8_t)ticks);
	outb(PIT_CH2, (uint8_t)(ticks >> 8));
	/* Mode 0 starts counting when the count is loaded; the output goes high at zero. */
}

bool pit_oneshot_done(void)
{
	return inb(PORT_B) & 0x20;
}
