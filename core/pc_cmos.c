/* The CMOS of a PC domain (docs/guests.md): ports 0x70 (index; bit 7 is the NMI mask,
 * kept and ignored) and 0x71 (data), 128 bytes. 0x00-0x0D are an MC146818A RTC whose
 * clock starts at the host's RTC time read at boot (drivers/rtc.c) and runs with the
 * hypervisor's clock; the format follows register B as the guest sets it (BCD or binary,
 * 12 or 24 hours; the firmware's 0x02, 24-hour BCD, at power-up); a guest may set the
 * time (its offset is the domain's own). Register A reads 0x26 (UIP never set), C 0 (no
 * RTC interrupts: IRQ 8 is not wired), D 0x80 (valid). The rest is RAM, preset as
 * SeaBIOS expects it from QEMU: base memory (0x15-0x16), memory above 1 MiB in KiB
 * (0x17-0x18, 0x30-0x31), above 16 MiB in 64 KiB (0x34-0x35), the century (0x32), the
 * number of CPUs - 1 (0x5F). 0x0F is the shutdown status the firmware reads at a reset
 * (pc_reset.c). Nothing survives the domain. */
#include "core/pc.h"
#include "core/vmm.h"
#include "drivers/rtc.h"

enum { R_SEC = 0, R_MIN = 2, R_HOUR = 4, R_WDAY = 6, R_MDAY = 7, R_MON = 8, R_YEAR = 9 };
enum { R_A = 0x0a, R_B = 0x0b, R_C = 0x0c, R_D = 0x0d, R_CENTURY = 0x32 };
#define B_SET 0x80
#define B_DM  0x04 /* binary */
#define B_24H 0x02

static int64_t host_secs; /* the host RTC at tsc_at_boot, as seconds since 1970 */
static bool host_read;

/* Days since 1970-01-01 of a civil date, and back (H. Hinnant, "chrono-Compatible
 * Low-Level Date Algorithms"): exact for every Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int64_t guest_secs(const struct pc_state *pc)
{
	return host_secs + (int64_t)(now_ns() / 1000000000ull) + pc->rtc_offset;
}

static uint8_t enc(const struct pc_state *pc, unsigned v)
{
	return pc->cmos[R_B] & B_DM ? (uint8_t)v : (uint8_t)((v / 10) << 4 | v % 10);
}

static unsigned dec(const struct pc_state *pc, uint8_t v)
{
	return pc->cmos[R_B] & B_DM ? v : (v >> 4) * 10u + (v & 0xf);
}

/* The time registers from the clock (unless SET freezes them for the guest to write). */
static void rtc_update(struct pc_state *pc)
{
	if (pc->cmos[R_B] & B_SET)
		return;
	int64_t s = guest_secs(pc), days = s / 86400, y;
	unsigned sod = (unsigned)(s % 86400), m, d, hour = sod / 3600;
	civil_from_days(days, &y, &m, &d);
	pc->cmos[R_SEC] = enc(pc, sod % 60);
	pc->cmos[R_MIN] = enc(pc, sod / 60 % 60);
	if (pc->cmos[R_B] & B_24H)
		pc->cmos[R_HOUR] = enc(pc, hour);
	else
		pc->cmos[R_HOUR] =
			(uint8_t)(enc(pc, hour % 12 ? hour % 12 : 12) | (hour >= 12) << 7);
	pc->cmos[R_WDAY] = enc(pc, (unsigned)((days % 7 + 11) % 7) + 1); /* 1970-01-01: Thu */
	pc->cmos[R_MDAY] = enc(pc, d);
	pc->cmos[R_MON] = enc(pc, m);
	pc->cmos[R_YEAR] = enc(pc, (unsigned)(y % 100));
	pc->cmos[R_CENTURY] = enc(pc, (unsigned)(y / 100));
}

/* The guest wrote the time registers: its clock runs from what they say. */
static void rtc_set(struct pc_state *pc)
{
	unsigned h = pc->cmos[R_HOUR];
	unsigned hour = dec(pc, (uint8_t)(h & 0x7f));
	if (!(pc->cmos[R_B] & B_24H))
		hour = hour % 12 + ((h & 0x80) ? 12 : 0);
	int64_t y = dec(pc, pc->cmos[R_CENTURY]) * 100 + dec(pc, pc->cmos[R_YEAR]);
	unsigned m = dec(pc, pc->cmos[R_MON]), d = dec(pc, pc->cmos[R_MDAY]);
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return;
	int64_t s = days_from_civil(y, m, d) * 86400 + hour * 3600 + dec(pc, pc->cmos[R_MIN]) * 60 +
		    dec(pc, pc->cmos[R_SEC]);
	pc->rtc_offset += s - guest_secs(pc);
}

void pc_cmos_init(struct domain *d)
{
	struct pc_state *pc = d->pc;
	if (!host_read) {
		struct rtc_time t;
		if (rtc_read_host(&t))
			host_secs = days_from_civil(t.year, t.mon, t.day) * 86400 + t.hour * 3600 +
				    t.min * 60 + t.sec - (int64_t)(now_ns() / 1000000000ull);
		else
			host_secs = days_from_civil(2000, 1, 1) * 86400; /* no RTC: 2000-01-01 */
		host_read = true;
	}
	spin_init(&pc->dev_lock, &lock_pcdev, -1);
	pc->cmos[R_A] = 0x26; /* 32.768 kHz time base, 1024 Hz rate */
	pc->cmos[R_B] = B_24H;
	pc->cmos[R_D] = 0x80;
	uint64_t mem = d->mem_bytes, ext = mem > 0x100000 ? (mem - 0x100000) >> 10 : 0;
	uint64_t above16 = mem > 0x1000000 ? (mem - 0x1000000) >> 16 : 0;
	if (ext > 0xffff)
		ext = 0xffff;
	if (above16 > 0xffff)
		above16 = 0xffff;
	pc->cmos[0x15] = 0x80, pc->cmos[0x16] = 0x02; /* 640 KiB */
	pc->cmos[0x17] = pc->cmos[0x30] = (uint8_t)ext;
	pc->cmos[0x18] = pc->cmos[0x31] = (uint8_t)(ext >> 8);
	pc->cmos[0x34] = (uint8_t)above16, pc->cmos[0x35] = (uint8_t)(above16 >> 8);
	pc->cmos[0x5f] = (uint8_t)(d->nr_vcpus - 1);
	rtc_update(pc);
}

uint8_t pc_cmos_get(struct domain *d, uint8_t reg)
{
	spin_lock(&d->pc->dev_lock);
	uint8_t v = d->pc->cmos[reg & 0x7f];
	spin_unlock(&d->pc->dev_lock);
	return v;
}

void pc_cmos_set(struct domain *d, uint8_t reg, uint8_t val)
{
	spin_lock(&d->pc->dev_lock);
	d->pc->cmos[reg & 0x7f] = val;
	spin_unlock(&d->pc->dev_lock);
}

static bool time_reg(unsigned r)
{
	return r == R_SEC || r == R_MIN || r == R_HOUR || r == R_WDAY || r == R_MDAY ||
	       r == R_MON || r == R_YEAR || r == R_CENTURY;
}

bool pc_cmos_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val)
{
	struct pc_state *pc = v->dom->pc;
	if (port != 0x70 && port != 0x71)
		return false;
	spin_lock(&pc->dev_lock);
	unsigned r = pc->cmos_index & 0x7f;
	if (port == 0x70) {
		if (in)
			*val = 0xff; /* the index register is write-only */
		else
			pc->cmos_index = (uint8_t)*val;
	} else if (in) {
		if (time_reg(r))
			rtc_update(pc);
		*val = r == R_C ? 0 : pc->cmos[r];
	} else {
		uint8_t b = (uint8_t)*val;
		if (r == R_C || r == R_D) {
			/* read-only */
		} else if (r == R_A) {
			pc->cmos[r] = b & 0x7f; /* UIP is read-only */
		} else if (r == R_B) {
			bool was_set = pc->cmos[R_B] & B_SET;
			if (!was_set && (b & B_SET))
				rtc_update(pc); /* freeze what it shows now */
			if (was_set && !(b & B_SET)) {
				pc->cmos[R_B] = b; /* the format the written registers are in */
				rtc_set(pc);
			}
			pc->cmos[R_B] = b;
		} else if (time_reg(r)) {
			bool set = pc->cmos[R_B] & B_SET;
			if (!set)
				rtc_update(pc);
			pc->cmos[r] = b;
			if (!set)
				rtc_set(pc);
		} else {
			pc->cmos[r] = b;
		}
	}
	spin_unlock(&pc->dev_lock);
	return true;
}
