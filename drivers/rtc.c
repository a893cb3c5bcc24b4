/* Reads the host's RTC (MC146818A datasheet; the century register 0x32 as PC firmware
 * keeps it). Register B says BCD or binary (DM, bit 2) and 12- or 24-hour mode (bit 1);
 * the fields are read when no update is in progress (UIP, register A bit 7, is set for
 * the 244 us before each update) and read again until two reads agree. */
#include "drivers/rtc.h"
#include "arch/x86_64/cpu.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA  0x71
#define NMI_OFF	   0x80 /* keep NMIs masked while the index points at a register */

static uint8_t rd(uint8_t reg)
{
	outb(CMOS_INDEX, NMI_OFF | reg);
	return inb(CMOS_DATA);
}

static unsigned bin(uint8_t v, bool bcd)
{
	return bcd ? (v >> 4) * 10u + (v & 0xf) : v;
}

static bool read_once(uint8_t r[8])
{
	static const uint8_t regs[8] = {0x00, 0x02, 0x04, 0x07, 0x08, 0x09, 0x32, 0x0b};
	for (unsigned spins = 0; rd(0x0a) & 0x80; spins++)
		if (spins > 1000000)
			return false;
	for (unsigned i = 0; i < 8; i++)
		r[i] = rd(regs[i]);
	return true;
}

bool rtc_read_host(struct rtc_time *t)
{
	uint8_t a[8], b[8];
	bool same = false;
	for (unsigned tries = 0; tries < 5 && !same; tries++) {
		if (!read_once(a) || !read_once(b))
			return false;
		same = true;
		for (unsigned i = 0; i < 8; i++)
			same &= a[i] == b[i];
	}
	outb(CMOS_INDEX, 0x0d); /* index back to a harmless register, NMIs unmasked */
	if (!same || a[0] == 0xff)
		return false;
	bool bcd = !(a[7] & 0x04), h24 = a[7] & 0x02;
	unsigned hour = bin(a[2] & 0x7f, bcd);
	if (!h24) {
		hour %= 12;
		if (a[2] & 0x80)
			hour += 12;
	}
	unsigned century = bin(a[6], bcd);
	if (century < 19 || century > 30)
		century = 20;
	*t = (struct rtc_time){century * 100 + bin(a[5], bcd),
			       bin(a[4], bcd),
			       bin(a[3], bcd),
			       hour,
			       bin(a[1], bcd),
			       bin(a[0], bcd)};
	return t->mon >= 1 && t->mon <= 12 && t->day >= 1 && t->day <= 31 && t->hour < 24 &&
	       t->min < 60 && t->sec < 60;
}
