/* guests/pc: the PC devices of issue 27 (docs/guests.md) as a PC OS touches them, from the
 * BSP in 32-bit protected mode after the LAPIC checks (the IDT is set): port 0x92, the
 * CMOS and its RTC (read, set across a century, running), the PIT's counter 2 gated and
 * read through port 0x61 against the TSC, unassigned MMIO and ports, pc-testdev's iomem,
 * the IOAPIC listed in the MADT (version, ID, an edge and a level interrupt through
 * pc-testdev's IRQ lines, TMR, Remote IRR, masking), and IA32_APIC_BASE moved. The resets
 * are in reset.c. Time is measured with RDTSC against tsc_per_ms. */
#include "guests/lib/apic.h"
#include "guests/lib/rt.h"
#include "guests/pc/pc.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define IOAPIC	     0xfec00000u
#define TESTDEV_IRQ  0x2000
#define VEC_EDGE     0xa0
#define VEC_LEVEL    0xa1
#define PIN_EDGE     14
#define PIN_LEVEL    15
#define R_TMR	     0x180
#define RE_LEVEL     (1u << 15)
#define RE_MASK	     (1u << 16)
#define RE_REMOTEIRR (1u << 14)

static uint64_t tpms;
static volatile uint32_t edge_hits, level_hits, level_tmr;

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static void cmos_wr(uint8_t reg, uint8_t v)
{
	outb(0x70, reg);
	outb(0x71, v);
}

static void spin_ms(uint64_t ms)
{
	uint64_t t0 = rdtsc();
	while (rdtsc() - t0 < ms * tpms)
		;
}

static bool bcd_ok(uint8_t v, unsigned max)
{
	return (v & 0xf) < 10 && (v >> 4) < 10 && (v >> 4) * 10u + (v & 0xf) <= max;
}

/* Port 0x92 (A20 on), CMOS status registers and memory size, the RTC's fields, and the
 * RTC set to 2099-12-31 23:59:59 (SET, then running again): 1.2 s later it reads
 * 2100-01-01 00:00:00 or :01 (its next second may come at once or a second later). */
static void check_cmos(uint32_t mem_upper)
{
	uint8_t p92 = inb(0x92);
	pc_check("port 0x92", p92 == 0x02, "0x%x", p92);
	uint8_t a = cmos(0x0a), b = cmos(0x0b), d = cmos(0x0d);
	unsigned ext = cmos(0x30) | cmos(0x31) << 8, want = mem_upper > 0xffff ? 0xffff : mem_upper;
	pc_check("cmos A/B/D, memory above 1 MiB",
		 a == 0x26 && b == 0x02 && d == 0x80 && ext == want, "%x/%x/%x %u KiB", a, b, d,
		 ext);
	uint8_t s = cmos(0), mi = cmos(2), h = cmos(4), dd = cmos(7), mo = cmos(8), y = cmos(9),
		c = cmos(0x32);
	pc_check("rtc fields (BCD, 24 h)",
		 bcd_ok(s, 59) && bcd_ok(mi, 59) && bcd_ok(h, 23) && bcd_ok(dd, 31) && dd &&
			 bcd_ok(mo, 12) && mo && bcd_ok(y, 99) &&
			 (c == 0x19 || c == 0x20 || c == 0x21),
		 "%02x%02x-%02x-%02x %02x:%02x:%02x", c, y, mo, dd, h, mi, s);
	cmos_wr(0x0b, 0x82); /* SET */
	static const uint8_t t[][2] = {{0, 0x59}, {2, 0x59}, {4, 0x23},	  {7, 0x31},
				       {8, 0x12}, {9, 0x99}, {0x32, 0x20}};
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++)
		cmos_wr(t[i][0], t[i][1]);
	cmos_wr(0x0b, 0x02); /* running again from 23:59:59 */
	spin_ms(1200);
	s = cmos(0), mi = cmos(2), h = cmos(4), dd = cmos(7), mo = cmos(8), y = cmos(9);
	c = cmos(0x32);
	pc_check("rtc set to 2099-12-31 23:59:59, 1.2 s later",
		 c == 0x21 && y == 0 && mo == 1 && dd == 1 && h == 0 && mi == 0 && s <= 1,
		 "%02x%02x-%02x-%02x %02x:%02x:%02x", c, y, mo, dd, h, mi, s);
}

/* Counter 2 in mode 0 for 10 ms (11932 counts), gated by port 0x61 bit 0; its output
 * (bit 5) goes high at the terminal count: the TSC ticks it took against tsc_per_ms
 * (within 2%). The latched count falls meanwhile; the refresh bit toggles. */
static bool pit_once(char *got, size_t n)
{
	outb(0x61, (uint8_t)((inb(0x61) & ~0x03) | 0x01)); /* gate on, speaker off */
	outb(0x43, 0xb0);				   /* counter 2, LSB then MSB, mode 0 */
	outb(0x42, 11932 & 0xff);
	outb(0x42, 11932 >> 8);
	uint64_t t0 = rdtsc();
	bool low = !(inb(0x61) & 0x20);
	outb(0x43, 0x80); /* latch counter 2 */
	unsigned c1 = inb(0x42) | inb(0x42) << 8;
	uint8_t r0 = inb(0x61) & 0x10;
	unsigned toggles = 0;
	while (!(inb(0x61) & 0x20) && rdtsc() - t0 < 100 * tpms) {
		uint8_t r = inb(0x61) & 0x10;
		toggles += r != r0;
		r0 = r;
	}
	uint64_t t = rdtsc() - t0, want = 10 * tpms;
	outb(0x43, 0x80);
	unsigned c2 = inb(0x42) | inb(0x42) << 8;
	outb(0x61, (uint8_t)(inb(0x61) & ~0x03));
	fmt_snprintf(got, n, "%llu us, count %u then %u, %u refresh toggles",
		     (unsigned long long)(t * 1000 / tpms), c1, c2, toggles);
	return low && t > want - want / 50 && t < want + want / 50 && c1 <= 11932 && c1 > 10000 &&
	       c2 > 0xff00 && toggles > 10;
}

static void check_pit(void)
{
	char got[96];
	bool ok = false;
	unsigned try;
	for (try = 1; try <= PC_TRIES && !ok; try++)
		ok = pit_once(got, sizeof got);
	pc_check("pit counter 2 mode 0, 10 ms", ok, "%s try %u", got, try - 1);
}

/* The 8259s programmed anew (vectors 0x20 and 0x28, as an OS remaps them) and counter 0
 * at 1 ms in mode 2: IRQ 0 arrives through the master (ExtINT through LINT0, which the
 * firmware set) about 20 times in 20 ms, each ended by an EOI to the master. */
#define VEC_PIT 0x20
static volatile uint32_t pit_hits;

static void isr_pit(struct rt_frame *f)
{
	(void)f;
	pit_hits++;
	outb(0x20, 0x20); /* non-specific EOI */
}

static bool pic_once(char *got, size_t n)
{
	static const uint8_t icw[2][4] = {{0x11, VEC_PIT, 0x04, 0x01},
					  {0x11, VEC_PIT + 8, 0x02, 0x01}};
	for (unsigned c = 0; c < 2; c++) {
		outb(c ? 0xa0 : 0x20, icw[c][0]);
		for (unsigned k = 1; k < 4; k++)
			outb(c ? 0xa1 : 0x21, icw[c][k]);
	}
	outb(0xa1, 0xff);
	outb(0x21, 0xfe); /* IRQ 0 only */
	outb(0x43, 0x34); /* counter 0, LSB then MSB, mode 2 */
	outb(0x40, 1193 & 0xff);
	outb(0x40, 1193 >> 8);
	pit_hits = 0;
	uint64_t t0 = rdtsc();
	__asm__ volatile("sti" ::: "memory");
	while (rdtsc() - t0 < 20 * tpms)
		;
	__asm__ volatile("cli" ::: "memory");
	uint32_t k = pit_hits;
	outb(0x21, 0xff);
	outb(0x20, 0x0b); /* OCW3: read ISR */
	uint8_t isr = inb(0x20);
	outb(0x20, 0x0a);
	fmt_snprintf(got, n, "%u irqs in 20 ms, isr 0x%x", k, isr);
	return k >= 18 && k <= 21 && !isr;
}

static void check_pic(void)
{
	rt_irq_register(VEC_PIT, isr_pit);
	char got[64];
	bool ok = false;
	unsigned try;
	for (try = 1; try <= PC_TRIES && !ok; try++)
		ok = pic_once(got, sizeof got);
	pc_check("pit counter 0 at 1 ms through the 8259 (IRQ 0)", ok, "%s try %u", got, try - 1);
}

/* Unassigned MMIO reads all ones and drops writes; pc-testdev's iomem reads back. */
static void check_mmio(void)
{
	volatile uint32_t *u = (volatile uint32_t *)0xfe000000u;
	volatile uint8_t *u8 = (volatile uint8_t *)0xfe000003u;
	uint32_t r0 = *u;
	*u = 0x12345678u;
	uint32_t r1 = *u;
	uint8_t r2 = *u8;
	unsigned port = inb(0x1234);
	pc_check("unassigned MMIO and port", r0 == ~0u && r1 == ~0u && r2 == 0xff && port == 0xff,
		 "%x %x %x port %x", r0, r1, r2, port);
	volatile uint32_t *m = (volatile uint32_t *)0xff000000u;
	volatile uint16_t *m16 = (volatile uint16_t *)0xff00fffeu;
	m[1] = 0xdeadbeefu;
	*m16 = 0x1234;
	pc_check("pc-testdev iomem", m[1] == 0xdeadbeefu && *m16 == 0x1234 && m[0] == 0, "%x %x %x",
		 m[1], *m16, m[0]);
}

static uint32_t ioapic_rd(unsigned reg)
{
	*(volatile uint32_t *)IOAPIC = reg;
	return *(volatile uint32_t *)(IOAPIC + 0x10);
}

static void ioapic_wr(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)IOAPIC = reg;
	*(volatile uint32_t *)(IOAPIC + 0x10) = v;
}

static void isr_edge(struct rt_frame *f)
{
	(void)f;
	edge_hits++;
	apic_mmio_wr(R_EOI, 0);
}

/* The level interrupt's handler lowers the line, as a device's driver would. */
static void isr_level(struct rt_frame *f)
{
	(void)f;
	level_hits++;
	level_tmr = apic_mmio_rd(R_TMR + 0x10 * (VEC_LEVEL / 32)) >> (VEC_LEVEL % 32) & 1;
	outb(TESTDEV_IRQ + PIN_LEVEL, 0);
	apic_mmio_wr(R_EOI, 0);
}

static void check_ioapic(uint32_t madt_ioapic)
{
	uint32_t ver = ioapic_rd(1), id0 = ioapic_rd(0);
	ioapic_wr(0, 0x0f000000u ^ id0);
	uint32_t id1 = ioapic_rd(0), arb = ioapic_rd(2);
	ioapic_wr(0, id0);
	pc_check("ioapic in the MADT, version, ID",
		 madt_ioapic == IOAPIC && ver == 0x00170011u && (id0 ^ id1) == 0x0f000000u &&
			 arb == id1,
		 "0x%x ver 0x%x id 0x%x then 0x%x arb 0x%x", madt_ioapic, ver, id0, id1, arb);
	rt_irq_register(VEC_EDGE, isr_edge);
	rt_irq_register(VEC_LEVEL, isr_level);
	__asm__ volatile("sti" ::: "memory");
	ioapic_wr(0x10 + 2 * PIN_EDGE + 1, 0); /* destination APIC ID 0 */
	ioapic_wr(0x10 + 2 * PIN_EDGE, VEC_EDGE);
	outb(TESTDEV_IRQ + PIN_EDGE, 1);
	outb(TESTDEV_IRQ + PIN_EDGE, 0);
	__asm__ volatile("nop");
	uint32_t e1 = edge_hits;
	outb(TESTDEV_IRQ + PIN_EDGE, 0); /* no edge: nothing */
	pc_check("ioapic edge interrupt", e1 == 1 && edge_hits == 1, "%u then %u", e1, edge_hits);
	ioapic_wr(0x10 + 2 * PIN_LEVEL + 1, 0);
	ioapic_wr(0x10 + 2 * PIN_LEVEL, VEC_LEVEL | RE_LEVEL | RE_MASK);
	outb(TESTDEV_IRQ + PIN_LEVEL, 1); /* masked: held */
	uint32_t l0 = level_hits;
	ioapic_wr(0x10 + 2 * PIN_LEVEL, VEC_LEVEL | RE_LEVEL); /* unmasked while asserted */
	__asm__ volatile("nop");
	uint32_t l1 = level_hits, irr = ioapic_rd(0x10 + 2 * PIN_LEVEL) & RE_REMOTEIRR;
	outb(TESTDEV_IRQ + PIN_LEVEL, 1); /* asserted again after the EOI: once more */
	__asm__ volatile("nop");
	pc_check("ioapic level interrupt (masked, unmasked, again)",
		 l0 == 0 && l1 == 1 && level_hits == 2 && level_tmr && !irr,
		 "%u/%u/%u tmr %u remote_irr %u", l0, l1, level_hits, level_tmr, irr >> 14);
	ioapic_wr(0x10 + 2 * PIN_EDGE, RE_MASK);
	ioapic_wr(0x10 + 2 * PIN_LEVEL, RE_MASK);
	__asm__ volatile("cli" ::: "memory");
}

/* IA32_APIC_BASE moved to 0xFED40000 (as KVM allows): the APIC answers there; reserved
 * bits #GP. */
static volatile uint32_t gps;

static void isr_gp(struct rt_frame *f)
{
	gps++;
	f->eip += 2; /* wrmsr */
}

static void check_apic_move(void)
{
	rt_irq_register(13, isr_gp);
	uint64_t base = rdmsr(MSR_APIC_BASE);
	wrmsr(MSR_APIC_BASE, 0xfed40000u | (base & 0xfff));
	uint32_t ver = *(volatile uint32_t *)0xfed40030u;
	uint32_t old = *(volatile uint32_t *)0xfee00030u; /* unassigned now */
	wrmsr(MSR_APIC_BASE, base | 1);			  /* reserved bit 0 */
	wrmsr(MSR_APIC_BASE, base);
	uint32_t back = apic_mmio_rd(R_VER);
	pc_check("IA32_APIC_BASE moved to 0xfed40000",
		 (ver & 0xff) == 0x14 && old == ~0u && gps == 1 && back == ver,
		 "version 0x%x there, 0x%x at 0xfee00030, reserved bit #GP=%u", ver, old, gps);
}

void pc_device_checks(uint64_t tsc_per_ms, uint32_t mem_upper, uint32_t madt_ioapic)
{
	tpms = tsc_per_ms ? tsc_per_ms : 1;
	check_cmos(mem_upper);
	check_pit();
	check_pic();
	check_mmio();
	check_ioapic(madt_ioapic);
	check_apic_move();
}
