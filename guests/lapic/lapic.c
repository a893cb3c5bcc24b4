/* lapic: checks the virtual local APIC (lapic=1 on its module line; docs/lapic.md) as a
 * PC guest uses it, through the xAPIC page at 0xFEE00000 and then the x2APIC MSRs:
 * APIC_BASE and CPUID, ID/version, SVR enable, self-IPIs, TPR masking and PPR, EOI order
 * of nested vectors, the LVT timer in one-shot, periodic and TSC-deadline mode counted
 * against the guest clock, fixed and NMI IPIs between its 2 vCPUs (NMIs sent while one is
 * being handled wait for its IRET and merge into one), #GP on read-only
 * x2APIC registers and on a direct x2APIC -> xAPIC switch. Prints
 * `lapic: <check>: got <what> ok|BAD`, then `lapic: summary: <n> checks <m> bad` and
 * shuts down with the number of bad checks.
 * mode=garbage seed=<n> count=<n> (one vCPU): <count> seeded random 32-bit writes and
 * reads anywhere in the APIC page, then as many random x2APIC MSR writes and reads, with
 * IF=0 (vectors stay pending; NMIs and #GP are taken and counted); prints
 * `lapic-garbage: survived ...` and shuts down with 0: the hypervisor must survive it.
 * mode=lm64: the same page from 64-bit code (lapic64.S), shutdown code 100 when it holds. */
#include "guests/lib/apic.h"
#include "guests/lib/cpu.h"
#include "guests/lib/rt.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define APIC APIC_MMIO

__attribute__((noreturn)) void lapic64_enter(void); /* lapic64.S */
static volatile bool x2mode;
static volatile uint32_t hits[256], nmis, gps;
static volatile uint8_t order[8];
static volatile unsigned norder;
static volatile uint32_t ppr_in_72, nested_in_72;
static unsigned checks, bad;

/* Register access: the xAPIC page (MOV) or, in x2APIC mode, MSR 0x800 + off / 16. */
static uint32_t rd(unsigned off)
{
	if (x2mode)
		return (uint32_t)rdmsr(0x800 + (off >> 4));
	return apic_mmio_rd(off);
}
static void wr(unsigned off, uint32_t v)
{
	if (x2mode)
		wrmsr(0x800 + (off >> 4), v);
	else
		apic_mmio_wr(off, v);
}
static void eoi(void)
{
	wr(R_EOI, 0);
}
static void send_ipi(uint32_t dest, uint32_t lo)
{
	if (x2mode) {
		wrmsr(0x830, (uint64_t)dest << 32 | lo);
		return;
	}
	wr(R_ICR_HI, dest << 24);
	wr(R_ICR_LO, lo);
}

static void check(const char *what, bool ok, const char *fmt, ...)
{
	char buf[120];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	checks++;
	bad += !ok;
	rt_printf("lapic: %s: got %s %s\n", what, buf, ok ? "ok" : "BAD");
}

static void isr_count(struct rt_frame *f)
{
	hits[f->vector]++;
	if (norder < sizeof order)
		order[norder++] = (uint8_t)f->vector;
	eoi();
}

/* 0x72 stays in service while interrupts are open: 0x61 (a lower class) must wait. */
static void isr_72(struct rt_frame *f)
{
	hits[f->vector]++;
	if (norder < sizeof order)
		order[norder++] = 0x72;
	ppr_in_72 = rd(R_PPR);
	uint32_t before = hits[0x61];
	__asm__ volatile("sti; nop; nop; nop; cli" ::: "memory");
	nested_in_72 = hits[0x61] - before;
	eoi();
}

/* NMI handler; while nmi_hold is set (nmi_blocking) it stays in the handler, so that NMIs
 * sent meanwhile must wait for its IRET. nmi_depth_max records any nesting. */
static volatile uint32_t nmi_depth, nmi_depth_max, nmi_hold, nmi_entered;

static void isr_nmi(struct rt_frame *f)
{
	(void)f;
	uint32_t d = __atomic_add_fetch(&nmi_depth, 1, __ATOMIC_RELAXED);
	if (d > nmi_depth_max)
		nmi_depth_max = d;
	__atomic_fetch_add(&nmis, 1, __ATOMIC_RELAXED);
	nmi_entered = 1;
	uint64_t end = rt_clock_ns() + 500000000;
	while (nmi_hold && rt_clock_ns() < end)
		;
	__atomic_sub_fetch(&nmi_depth, 1, __ATOMIC_RELAXED);
}

/* #GP from a refused WRMSR/RDMSR (2 bytes): counted and skipped. */
static void isr_gp(struct rt_frame *f)
{
	gps++;
	f->eip += 2;
}

static bool wait_hits(unsigned vec, uint32_t want, uint64_t us)
{
	uint64_t end = rt_clock_ns() + us * 1000;
	while (hits[vec] < want && rt_clock_ns() < end)
		;
	return hits[vec] >= want;
}

/* ---- vCPU 1: enables its APIC and answers ---- */
static volatile uint32_t ap_ready;

/* vCPU 1 stays in xAPIC mode: its own accesses go to the page. */
#define mm_wr apic_mmio_wr

static void ap_ipi(struct rt_frame *f)
{
	hits[f->vector]++;
	mm_wr(R_EOI, 0);
	if (f->vector == 0x90 && hits[0x90] % 10 == 0) { /* the reply, to vCPU 0 */
		mm_wr(R_ICR_HI, 0);
		mm_wr(R_ICR_LO, 0x91);
	}
}

int rt_main_ap(const struct sliver_boot_info *bi)
{
	(void)bi;
	rt_irq_register(0x90, ap_ipi);
	rt_irq_register(0x92, ap_ipi);
	rt_irq_register(2, isr_nmi);
	mm_wr(R_SVR, 0x1ff);
	ap_ready = 1;
	for (;;)
		__asm__ volatile("sti; hlt; cli" ::: "memory");
}

/* The cost of one register read (TPR) in guest-clock ns, over 200 reads: an exit, the
 * fetch through the page walk and the decode (xAPIC) or the MSR exit (x2APIC). */
static void cost(const char *how)
{
	uint64_t t0 = rt_clock_ns();
	uint32_t s = 0;
	for (unsigned i = 0; i < 200; i++)
		s += rd(R_TPR);
	uint64_t ns = (rt_clock_ns() - t0) / 200;
	rt_printf("lapic: cost %s: %u ns per TPR read (sum %u)\n", how, (unsigned)ns, s);
}

static void timer_checks(const struct sliver_boot_info *bi, const char *tag)
{
	char name[40];
	/* One-shot: 1 ms at divide-by-1 (1 GHz bus clock). */
	hits[0x80] = 0;
	wr(R_TDCR, 0xb);
	wr(R_LVT_TIMER, 0x80);
	uint64_t t0 = rt_clock_ns();
	wr(R_TMICT, 1000000);
	uint32_t c1 = rd(R_TMCCT);
	rt_spin_us(100);
	uint32_t c2 = rd(R_TMCCT);
	/* The count reads 0 only once the 1 ms has passed: under QEMU TCG the 100 us spin
	 * took over 1 ms of guest clock in about 1 run of 5 (the other pCPU held the
	 * emulator), both before and after the scheduler changes of 2026-12-01. */
	uint64_t us2 = (rt_clock_ns() - t0) / 1000;
	bool got = wait_hits(0x80, 1, 50000);
	uint64_t us = (rt_clock_ns() - t0) / 1000;
	rt_spin_us(3000);
	fmt_snprintf(name, sizeof name, "%soneshot", tag);
	check(name,
	      got && hits[0x80] == 1 && us >= 1000 && us < 5000 && c1 > c2 &&
		      (c2 > 0 || us2 >= 1000),
	      "%u irq after %u us, tmcct %u then %u (at %u us)", hits[0x80], (unsigned)us, c1, c2,
	      (unsigned)us2);
	/* Periodic: 500 us at divide-by-2 for 20 ms: 40 interrupts. */
	hits[0x80] = 0;
	wr(R_TDCR, 0x0);
	wr(R_LVT_TIMER, 0x80 | (1u << 17));
	t0 = rt_clock_ns();
	wr(R_TMICT, 250000);
	rt_spin_until(t0 + 20000000);
	/* Stopped, then counted: the spin may end late (this vCPU was away: its PAUSE loop
	 * yielded, and the ticks of that time arrive when it is back; QEMU TCG: tick 38 at
	 * 21.0 ms, 41 in all), and a tick raised before the stop may arrive after it, as on
	 * hardware. At most one tick per full period up to the stop; none once counted. */
	wr(R_TMICT, 0);
	uint32_t hi = (uint32_t)((rt_clock_ns() - t0) / 500000);
	rt_spin_us(1000);
	uint32_t n = hits[0x80];
	rt_spin_us(2000);
	/* Under QEMU's emulator (CPUID 0x40000001 says "TCGTCGTCGTCG") the other pCPU's guests
	 * hold the emulator for up to vmm.svm_backstop_us at a time (docs/svm.md, QEMU items
	 * 5-7), so some ticks coalesce: 36 of 40 was seen. The bound there is 30. */
	bool tcg = on_qemu_tcg();
	uint32_t lo = tcg ? 30 : 37;
	fmt_snprintf(name, sizeof name, "%speriodic", tag);
	check(name, n >= lo && n <= hi && hits[0x80] == n, "%u in 20 ms (want %u..%u%s)", n, lo, hi,
	      tcg ? ", QEMU TCG" : "");
	/* TSC deadline: 1 ms of TSC ticks. */
	hits[0x80] = 0;
	wr(R_LVT_TIMER, 0x80 | (2u << 17));
	t0 = rt_clock_ns();
	wrmsr(MSR_TSC_DL, rdtsc() + bi->tsc_hz / 1000);
	uint64_t dl_read = rdmsr(MSR_TSC_DL);
	got = wait_hits(0x80, 1, 50000);
	us = (rt_clock_ns() - t0) / 1000;
	uint64_t after = rdmsr(MSR_TSC_DL);
	fmt_snprintf(name, sizeof name, "%stscdeadline", tag);
	check(name, got && us >= 1000 && us < 5000 && dl_read && !after,
	      "%u irq after %u us, msr reads back 0 after firing: %s", hits[0x80], (unsigned)us,
	      after ? "no" : "yes");
	wr(R_LVT_TIMER, 0x10000);
}

static void ipi_checks(const char *tag)
{
	char name[40];
	hits[0x40] = 0;
	send_ipi(0, ICR_SELF | 0x40);
	fmt_snprintf(name, sizeof name, "%sself_ipi", tag);
	check(name, wait_hits(0x40, 1, 10000), "%u", hits[0x40]);
	/* TPR 0x50 holds 0x45 in the IRR until it drops. */
	hits[0x45] = 0;
	wr(R_TPR, 0x50);
	send_ipi(0, ICR_SELF | 0x45);
	rt_spin_us(200);
	uint32_t held = hits[0x45] == 0, irr = (rd(R_IRR + 0x20) >> 5) & 1;
	uint32_t ppr = rd(R_PPR);
	wr(R_TPR, 0);
	fmt_snprintf(name, sizeof name, "%stpr_mask", tag);
	check(name, held && irr && ppr == 0x50 && wait_hits(0x45, 1, 10000),
	      "held=%u irr=%u ppr=0x%x delivered=%u", held, irr, ppr, hits[0x45]);
	/* Three pending at once: taken highest first, 0x61 not inside 0x72's handler. */
	norder = 0;
	rt_cli();
	send_ipi(0, ICR_SELF | 0x50);
	send_ipi(0, ICR_SELF | 0x61);
	send_ipi(0, ICR_SELF | 0x72);
	uint32_t isr_before = rd(R_ISR + 0x30); /* vectors 0x60-0x7f */
	rt_sti();
	rt_spin_us(500);
	fmt_snprintf(name, sizeof name, "%seoi_order", tag);
	check(name,
	      norder == 3 && order[0] == 0x72 && order[1] == 0x61 && order[2] == 0x50 &&
		      ppr_in_72 == 0x70 && !nested_in_72 && !isr_before && !rd(R_ISR + 0x30),
	      "%x,%x,%x ppr_in_72=0x%x nested=%u", order[0], order[1], order[2], ppr_in_72,
	      nested_in_72);
	/* Ten fixed IPIs to vCPU 1, one at a time; its reply after the tenth. */
	uint32_t base = hits[0x90], rbase = hits[0x91];
	bool all = true;
	for (uint32_t i = 1; i <= 10 && all; i++) {
		send_ipi(1, 0x90);
		uint64_t end = rt_clock_ns() + 200000000;
		while (hits[0x90] < base + i && rt_clock_ns() < end)
			;
		all = hits[0x90] >= base + i;
	}
	fmt_snprintf(name, sizeof name, "%sipi_to_v1", tag);
	check(name, all && hits[0x90] == base + 10, "%u", hits[0x90] - base);
	fmt_snprintf(name, sizeof name, "%sipi_reply", tag);
	check(name, wait_hits(0x91, rbase + 1, 200000), "%u", hits[0x91] - rbase);
	/* All-excluding-self reaches vCPU 1 only; NMI to vCPU 1. */
	hits[0x92] = 0;
	send_ipi(0, ICR_ALL_BUT | 0x92);
	bool b = wait_hits(0x92, 1, 200000);
	rt_spin_us(200);
	fmt_snprintf(name, sizeof name, "%sbroadcast", tag);
	check(name, b && hits[0x92] == 1, "%u", hits[0x92]);
	uint32_t n0 = nmis;
	send_ipi(1, ICR_NMI);
	uint64_t end = rt_clock_ns() + 200000000;
	while (nmis == n0 && rt_clock_ns() < end)
		;
	rt_spin_us(200);
	fmt_snprintf(name, sizeof name, "%snmi_ipi", tag);
	check(name, nmis == n0 + 1, "%u", nmis - n0);
	/* NMI blocking (SDM Vol. 3A 6.7.1): 1 to 3 more NMIs (seeded by the pass) sent while
	 * vCPU 1's handler runs do not nest; exactly one is taken, after the handler's IRET. */
	unsigned extra = 1 + (unsigned)(rt_clock_ns() % 3);
	nmi_depth_max = 0;
	nmi_entered = 0;
	nmi_hold = 1;
	n0 = nmis;
	send_ipi(1, ICR_NMI);
	end = rt_clock_ns() + 200000000;
	while (!nmi_entered && rt_clock_ns() < end)
		;
	bool entered = nmi_entered;
	for (unsigned i = 0; i < extra; i++) {
		send_ipi(1, ICR_NMI);
		rt_spin_us(100);
	}
	rt_spin_us(1000); /* time enough to nest, were NMIs not blocked */
	uint32_t during = nmis - n0;
	nmi_hold = 0;
	end = rt_clock_ns() + 200000000;
	while (nmis < n0 + 2 && rt_clock_ns() < end)
		;
	rt_spin_us(2000);
	fmt_snprintf(name, sizeof name, "%snmi_blocking", tag);
	check(name, entered && during == 1 && nmis == n0 + 2 && nmi_depth_max == 1,
	      "%u of 1+%u (%u in the handler) depth=%u", nmis - n0, extra, during, nmi_depth_max);
}

/* INIT, then SIPI 0x50: vCPU 1 restarts in real mode at 0x5000:0000, where a 16-bit
 * trampoline stores CS and a magic word at 0x50100 and halts for good. A second SIPI
 * (to a running vCPU) must change nothing. */
static void init_sipi_check(void)
{
	static const uint8_t tramp[] = {
		0xfa,					  /* cli */
		0x8c, 0xc8,				  /* mov ax, cs */
		0x2e, 0xa3, 0x02, 0x01,			  /* mov cs:[0x102], ax */
		0x2e, 0xc7, 0x06, 0x00, 0x01, 0x34, 0x12, /* mov word cs:[0x100], 0x1234 */
		0xf4, 0xeb, 0xfd,			  /* 1: hlt; jmp 1b */
	};
	volatile uint8_t *p = (volatile uint8_t *)0x50000;
	for (unsigned i = 0; i < sizeof tramp; i++)
		p[i] = tramp[i];
	*(volatile uint32_t *)0x50100 = 0;
	send_ipi(1, 0x4500); /* INIT, level assert */
	rt_spin_us(10000);
	send_ipi(1, 0x4650); /* SIPI, vector 0x50 */
	uint64_t end = rt_clock_ns() + 200000000;
	while (*(volatile uint16_t *)0x50100 != 0x1234 && rt_clock_ns() < end)
		;
	send_ipi(1, 0x4650);
	rt_spin_us(1000);
	uint32_t magic = *(volatile uint16_t *)0x50100, cs = *(volatile uint16_t *)0x50102;
	check("init_sipi", magic == 0x1234 && cs == 0x5000, "magic=0x%x cs=0x%x", magic, cs);
}

static uint32_t rng = 1;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static int garbage(void)
{
	uint64_t seed = 1, count = 2000;
	rt_arg_u64("seed", &seed);
	rt_arg_u64("count", &count);
	rng = (uint32_t)seed ? (uint32_t)seed : 1;
	rt_cli();
	uint32_t sum = 0;
	for (uint64_t i = 0; i < count; i++) {
		unsigned off = rnd() & 0xffc;
		uint32_t val = rnd();
		if (off == 0x300 && ((val >> 8) & 7) == 5)
			val &= ~0x700u; /* no INIT: it would stop this (only) vCPU for good */
		if (rnd() & 1)
			*(volatile uint32_t *)(uintptr_t)(APIC + off) = val;
		else
			sum += *(volatile uint32_t *)(uintptr_t)(APIC + off);
	}
	/* x2APIC: random MSRs of the range, random values (#GP counted). */
	wrmsr(MSR_APIC_BASE, 0xfee00000u | (1u << 11));
	wrmsr(MSR_APIC_BASE, 0xfee00000u | (3u << 10));
	x2mode = true;
	for (uint64_t i = 0; i < count; i++) {
		uint32_t msr = 0x800 + (rnd() & 0xff);
		uint32_t val = rnd();
		if (msr == 0x830 && ((val >> 8) & 7) == 5)
			val &= ~0x700u;
		if (rnd() & 1)
			wrmsr(msr, (uint64_t)(rnd() & 1 ? rnd() : 0) << 32 | val);
		else
			sum += (uint32_t)rdmsr(msr);
	}
	wrmsr(MSR_APIC_BASE, 0xfee00000u); /* disabled: everything reset */
	x2mode = false;
	rt_printf("lapic-garbage: survived %u mmio + %u msr ops seed=%u gp=%u nmi=%u sum=%x\n",
		  (unsigned)count, (unsigned)count, (unsigned)seed, gps, nmis, sum);
	return 0;
}

int main(const struct sliver_boot_info *bi)
{
	rt_irq_register(2, isr_nmi);
	rt_irq_register(13, isr_gp);
	char mode[16] = "";
	rt_arg("mode", mode, sizeof mode);
	if (!strcmp(mode, "garbage"))
		return garbage();
	if (!strcmp(mode, "lm64"))
		lapic64_enter();
	for (unsigned v = 0x40; v < 0x90; v++)
		rt_irq_register((uint8_t)v, isr_count);
	rt_irq_register(0x91, isr_count); /* 0x90 and 0x92 are vCPU 1's */
	rt_irq_register(0x72, isr_72);

	uint64_t base = rdmsr(MSR_APIC_BASE);
	check("apic_base", base == 0xfee00900u, "0x%x", (unsigned)base);
	uint32_t a, b, c, d;
	cpuid4(1, &a, &b, &c, &d);
	check("cpuid", (d >> 9 & 1) && (c >> 21 & 1) && (c >> 24 & 1) && (b >> 24) == 0,
	      "apic=%u x2apic=%u tscdeadline=%u id=%u", d >> 9 & 1, c >> 21 & 1, c >> 24 & 1,
	      b >> 24);
	uint32_t id = rd(R_ID), ver = rd(R_VER), svr0 = rd(R_SVR);
	wr(R_SVR, 0x1ff);
	check("id_version_svr",
	      id == 0 && (ver & 0xff) == 0x14 && svr0 == 0xff && rd(R_SVR) == 0x1ff,
	      "id=0x%x ver=0x%x svr 0x%x then 0x%x", id, ver, svr0, rd(R_SVR));
	uint64_t end = rt_clock_ns() + 50000000;
	while (!ap_ready && rt_clock_ns() < end)
		;
	check("ap_ready", ap_ready, "%u", ap_ready);

	ipi_checks("");
	timer_checks(bi, "");
	cost("xapic mmio");

	/* x2APIC: a direct switch back is refused; read-only registers #GP. */
	wrmsr(MSR_APIC_BASE, 0xfee00000u | (3u << 10));
	x2mode = true;
	uint64_t b2 = rdmsr(MSR_APIC_BASE);
	uint32_t g0 = gps;
	wrmsr(MSR_APIC_BASE, 0xfee00000u | (1u << 11)); /* x2APIC -> xAPIC: #GP */
	wrmsr(0x802, 5);				/* ID is read-only: #GP */
	wrmsr(MSR_APIC_BASE, 0xfee01000u | (3u << 10)); /* moved, as KVM allows */
	uint64_t b3 = rdmsr(MSR_APIC_BASE);
	wrmsr(MSR_APIC_BASE, 0xfee00000u | (3u << 10));
	check("x2apic_mode",
	      b2 == 0xfee00d00u && b3 == 0xfee01d00u && gps == g0 + 2 && rd(R_ID) == 0 &&
		      rd(0xd0) == 1,
	      "base=0x%x gp=%u id=%u ldr=0x%x", (unsigned)b2, gps - g0, rd(R_ID), rd(0xd0));
	hits[0x41] = 0;
	wrmsr(0x83f, 0x41); /* SELF IPI */
	check("x2apic_self_ipi_msr", wait_hits(0x41, 1, 10000), "%u", hits[0x41]);
	ipi_checks("x2apic_");
	timer_checks(bi, "x2apic_");
	cost("x2apic msr");

	init_sipi_check();
	rt_printf("lapic: summary: %u checks %u bad\n", checks, bad);
	return (int)bad;
}
