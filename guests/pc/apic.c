/* guests/pc: the virtual local APIC (docs/lapic.md) as a PC OS uses it, from the BSP in
 * 32-bit protected mode through the xAPIC page: IA32_APIC_BASE (its relocation is in
 * devices.c), a self-IPI, the LVT timer one-shot, periodic and TSC-deadline (the
 * latter after the IA32_TSC write of pc.c: deadlines are in the guest's TSC), the AP
 * started by INIT-SIPI-SIPI through the real-mode trampoline of ap.S into long mode, and
 * fixed IPIs to it that its 64-bit handler answers with one of its own. Time is measured
 * with RDTSC against tsc_per_ms (the PM timer's calibration). */
#include "guests/lib/apic.h"
#include "guests/lib/rt.h"
#include "guests/pc/pc.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define VEC_SELF  0x40
#define VEC_TIMER 0x80
#define VEC_AP	  0x90 /* the AP's (ap.S) */
#define VEC_REPLY 0x91

static volatile uint32_t hits[256], gps;
static uint64_t tpms; /* TSC ticks per ms */

static void isr_count(struct rt_frame *f)
{
	hits[f->vector]++;
	apic_mmio_wr(R_EOI, 0);
}

/* #GP of a refused WRMSR (0f 30): counted and skipped. */
static void isr_gp(struct rt_frame *f)
{
	gps++;
	f->eip += 2;
}

static uint64_t us_since(uint64_t t0)
{
	return (rdtsc() - t0) * 1000 / tpms;
}

static void spin_us(uint64_t us)
{
	uint64_t t0 = rdtsc();
	while (us_since(t0) < us)
		;
}

/* Waits (interrupts on) until hits[vec] reaches want or us pass. */
static bool wait_hits(unsigned vec, uint32_t want, uint64_t us)
{
	uint64_t t0 = rdtsc();
	while (hits[vec] < want && us_since(t0) < us)
		;
	return hits[vec] >= want;
}

static void check_apic_base(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	pc_check("IA32_APIC_BASE", base == 0xfee00900u, "0x%llx (moved: devices.c)",
		 (unsigned long long)base);
	uint32_t a, b, c, d;
	cpuid4(1, &a, &b, &c, &d);
	uint32_t svr0 = apic_mmio_rd(R_SVR);
	apic_mmio_wr(R_SVR, 0x1ff);
	pc_check("lapic id/version/svr",
		 (d >> 9 & 1) && apic_mmio_rd(R_ID) == 0 && (apic_mmio_rd(R_VER) & 0xff) == 0x14 &&
			 svr0 == 0x1ff && apic_mmio_rd(R_SVR) == 0x1ff,
		 "cpuid.apic=%u id=%u ver=0x%x svr 0x%x then 0x%x", d >> 9 & 1,
		 apic_mmio_rd(R_ID) >> 24, apic_mmio_rd(R_VER), svr0, apic_mmio_rd(R_SVR));
}

/* One-shot: 1 ms at divide-by-1 (1 GHz bus clock: docs/lapic.md). */
static bool oneshot(char *got, size_t n)
{
	hits[VEC_TIMER] = 0;
	apic_mmio_wr(R_TDCR, TDCR_DIV1);
	apic_mmio_wr(R_LVT_TIMER, VEC_TIMER);
	uint64_t t0 = rdtsc();
	apic_mmio_wr(R_TMICT, 1000000);
	uint32_t c1 = apic_mmio_rd(R_TMCCT);
	bool irq = wait_hits(VEC_TIMER, 1, 50000);
	uint64_t us = us_since(t0);
	spin_us(3000);
	fmt_snprintf(got, n, "%u irq after %llu us", hits[VEC_TIMER], (unsigned long long)us);
	return irq && hits[VEC_TIMER] == 1 && us >= 1000 && us < 5000 && c1;
}

/* Periodic: 500 us (divide-by-2, 250000 counts) for 20 ms: 40 periods, at least 37 (more
 * only as far as the window overran, under QEMU TCG). Each interrupt's TSC time gives its
 * period number (time since the first / 500 us, rounded): the last one's must say 37..40
 * and no period may be counted twice. Interrupts may be
 * fewer: missed periods coalesce (core/vlapic_timer.c), which QEMU TCG causes by freezing a
 * vCPU while the other runs (docs/svm.md, QEMU item 6); Bochs delivers all 40. */
static volatile uint64_t tick_tsc[64];

static void isr_tick(struct rt_frame *f)
{
	uint32_t n = hits[f->vector]++;
	if (n < 64)
		tick_tsc[n] = rdtsc();
	apic_mmio_wr(R_EOI, 0);
}

static bool periodic(char *got, size_t n)
{
	hits[VEC_TIMER] = 0;
	rt_irq_register(VEC_TIMER, isr_tick);
	apic_mmio_wr(R_TDCR, TDCR_DIV2);
	apic_mmio_wr(R_LVT_TIMER, VEC_TIMER | LVT_PERIODIC);
	apic_mmio_wr(R_TMICT, 250000);
	uint64_t t0 = rdtsc();
	spin_us(20000);
	uint32_t k = hits[VEC_TIMER];
	/* The window is 20 ms and what the spin overran: QEMU TCG can freeze this vCPU at its
	 * end while the other pCPU runs (up to vmm.svm_backstop_us), and a period that ends
	 * meanwhile is in it. Bochs overruns by a few us: 40 at most there. */
	uint64_t most = us_since(t0) / 500;
	if (most < 40)
		most = 40;
	apic_mmio_wr(R_TMICT, 0);
	spin_us(2000);
	rt_irq_register(VEC_TIMER, isr_count);
	uint64_t period = tpms / 2, prev = 0, last = 0;
	bool twice = false;
	for (uint32_t i = 1; i < k && i < 64; i++) {
		uint64_t idx = (tick_tsc[i] - tick_tsc[0] + period / 2) / period;
		twice |= idx <= prev;
		prev = last = idx;
	}
	/* Under QEMU TCG an interrupt can be taken late, next to the following one: the
	 * period numbers then say nothing about duplicates. */
	bool tcg = on_qemu_tcg();
	fmt_snprintf(got, n, "%u irqs, the last in period %llu of 20 ms (want 37..%llu)%s%s", k,
		     (unsigned long long)last + 1, (unsigned long long)most,
		     twice ? ", a period counted twice" : "", tcg ? " (QEMU TCG)" : "");
	return k >= 20 && k <= most && last + 1 >= 37 && last + 1 <= most && (!twice || tcg) &&
	       hits[VEC_TIMER] == k;
}

/* TSC deadline 1 ms ahead in the guest's TSC, which pc.c moved by IA32_TSC. */
static bool tsc_deadline(char *got, size_t n)
{
	hits[VEC_TIMER] = 0;
	apic_mmio_wr(R_LVT_TIMER, VEC_TIMER | LVT_TSC_DL);
	uint64_t t0 = rdtsc();
	wrmsr(MSR_TSC_DL, t0 + tpms);
	uint64_t armed = rdmsr(MSR_TSC_DL);
	bool irq = wait_hits(VEC_TIMER, 1, 50000);
	uint64_t us = us_since(t0);
	uint64_t after = rdmsr(MSR_TSC_DL);
	fmt_snprintf(got, n, "%u irq after %llu us, msr then 0x%llx", hits[VEC_TIMER],
		     (unsigned long long)us, (unsigned long long)after);
	return irq && us >= 1000 && us < 5000 && armed && !after;
}

/* A deadline already due (the TSC just read, as kvm-unit-tests x86/apic.c writes it): the
 * interrupt is taken right after the WRMSR, before the serializing CPUID that follows is
 * done; the MSR then reads 0. */
static bool tsc_deadline_due(char *got, size_t n)
{
	hits[VEC_TIMER] = 0;
	apic_mmio_wr(R_LVT_TIMER, VEC_TIMER | LVT_TSC_DL);
	wrmsr(MSR_TSC_DL, rdmsr(0x10 /* IA32_TSC */));
	uint32_t a, b, c, d;
	cpuid4(0, &a, &b, &c, &d);
	uint32_t at_once = hits[VEC_TIMER];
	uint64_t after = rdmsr(MSR_TSC_DL);
	spin_us(2000);
	fmt_snprintf(got, n, "%u irq at once, %u after 2 ms, msr then 0x%llx", at_once,
		     hits[VEC_TIMER], (unsigned long long)after);
	return at_once == 1 && hits[VEC_TIMER] == 1 && !after;
}

/* A deadline 50 ms ahead, then IA32_TSC moved 49 ms forward: the CPU compares the deadline
 * with the TSC, so it now fires about 1 ms later, not 50 (sliver re-arms it on the write). */
static bool tsc_deadline_moved(char *got, size_t n)
{
	hits[VEC_TIMER] = 0;
	apic_mmio_wr(R_LVT_TIMER, VEC_TIMER | LVT_TSC_DL);
	uint64_t t0 = rdtsc();
	wrmsr(MSR_TSC_DL, t0 + 50 * tpms);
	wrmsr(0x10 /* IA32_TSC */, rdtsc() + 49 * tpms);
	uint64_t t1 = rdtsc();
	bool irq = wait_hits(VEC_TIMER, 1, 60000);
	uint64_t us = us_since(t1);
	fmt_snprintf(got, n, "%u irq %llu us after the write", hits[VEC_TIMER],
		     (unsigned long long)us);
	return irq && us < 10000;
}

static void timer_check(const char *what, bool (*fn)(char *, size_t))
{
	char got[128]; /* the periodic line with its TCG notes is ~100 */
	bool ok = false;
	unsigned try;
	for (try = 1; try <= PC_TRIES && !ok; try++)
		ok = fn(got, sizeof got);
	pc_check(what, ok, "%s try %u", got, try - 1);
}

static void check_timer(void)
{
	timer_check("lapic timer one-shot 1 ms", oneshot);
	timer_check("lapic timer periodic 500 us", periodic);
	timer_check("lapic timer TSC-deadline 1 ms", tsc_deadline);
	timer_check("lapic timer TSC-deadline already due", tsc_deadline_due);
	timer_check("lapic timer TSC-deadline follows an IA32_TSC write", tsc_deadline_moved);
	apic_mmio_wr(R_LVT_TIMER, LVT_MASKED);
}

/* INIT, SIPI, SIPI (SDM 9.4.4.1 without the BIOS's waits being this long) to APIC ID 1;
 * the AP runs ap.S's trampoline from PC_AP_TRAMP into long mode. */
static void check_ap_start(void)
{
	memcpy((void *)PC_AP_TRAMP, pc_ap_tramp, pc_ap_tramp_len);
	apic_mmio_ipi(1, ICR_INIT);
	spin_us(10000);
	apic_mmio_ipi(1, ICR_SIPI | (PC_AP_TRAMP >> 12));
	spin_us(200);
	apic_mmio_ipi(1, ICR_SIPI | (PC_AP_TRAMP >> 12));
	uint64_t t0 = rdtsc();
	while (!pc_ap_up && us_since(t0) < 500000)
		;
	pc_check("AP by INIT-SIPI-SIPI in long mode", pc_ap_up && (pc_ap_efer & 0x500) == 0x500,
		 "up=%u efer=0x%x", pc_ap_up, pc_ap_efer);
}

/* Ten fixed IPIs to the AP, one at a time, each answered by the AP's IPI 0x91. */
static void check_ipis(void)
{
	hits[VEC_SELF] = 0;
	apic_mmio_wr(R_ICR_LO, ICR_SELF | VEC_SELF);
	pc_check("lapic self-IPI", wait_hits(VEC_SELF, 1, 10000), "%u", hits[VEC_SELF]);
	bool all = pc_ap_up;
	for (uint32_t i = 1; i <= 10 && all; i++) {
		apic_mmio_ipi(1, VEC_AP);
		all = wait_hits(VEC_REPLY, i, 200000);
	}
	spin_us(500);
	pc_check("fixed IPI to the AP and its reply",
		 all && pc_ap_ipis == 10 && hits[VEC_REPLY] == 10, "%u/%u", pc_ap_ipis,
		 hits[VEC_REPLY]);
}

void pc_apic_checks(uint64_t tsc_per_ms)
{
	tpms = tsc_per_ms ? tsc_per_ms : 1;
	rt_idt_init();
	for (unsigned v = 0x40; v < 0xa0; v++)
		rt_irq_register((uint8_t)v, isr_count);
	rt_irq_register(13, isr_gp);
	__asm__ volatile("sti" ::: "memory");
	check_apic_base();
	check_timer();
	check_ap_start();
	check_ipis();
	__asm__ volatile("cli" ::: "memory");
}
