/* storm: interrupt storms through the virtual local APIC (lapic=1; issue 30), each aimed at
 * the pCPU the guest shares with others (the e2e-storm scenarios put a spinner and a pinged
 * echo domain beside it). attack=:
 *   none      spins (the baseline: a CPU-hungry neighbour that storms nothing)
 *   timer     periodic LVT timer at the smallest initial count (TMICT 1, divide by 1)
 *   deadline  TSC-deadline mode, a deadline in the past written in a loop (each fires at once)
 *   selfipi   fixed self-IPIs through the x2APIC SELF IPI register in a loop
 *   nmi       NMI IPIs to itself in a loop; every probe_ms (default 100) it stops and runs the
 *             HLT probes (hlt_probe): with a one-shot timer 1 ms away it halts until the
 *             timer's interrupt, plainly, inside its NMI handler with another NMI latched,
 *             and with TPR 0xE0 holding back a pending event-port vector, counting HLTs that
 *             returned with nothing taken (`spurious`: 0 on a CPU, where HLT waits for
 *             something it can deliver)
 *   initsipi  (vcpus=2) INIT then SIPI to vCPU 1 in a loop; vCPU 1 restarts each time in real
 *             mode at 0x50000, counts and halts
 *   bcast     (vcpus=2) fixed IPIs to all including self, fixed IPIs and NMIs to APIC IDs
 *             that do not exist; vCPU 1 halts and counts what it takes
 *   die       spins die_ms (default 5) of guest clock, prints its line and shuts down: with
 *             restart=N on its module the hypervisor re-creates it N times (core/domain_end.c)
 * Every vCPU runs in x2APIC mode (MSR accesses: the cheapest exit, so the highest rate), or
 * with apic=xapic in xAPIC mode (vCPU 0 through the page at 0xFEE00000: each access an EPT
 * or NPT fault exit, decoded).
 * Every report_ms (default 250) of guest clock vCPU 0 prints
 * `storm: attack=<a>[-xapic] ops=<n> irqs=<n> nmis=<n> ap=<n> stray=<n> probes=<n> spurious=<n>
 * (<plain>/<in NMI handler>/<TPR>)`
 * (ops: attack writes made; ap: vCPU 1's count; stray: interrupts on a vector nothing sent
 * to this vCPU). */
#include "guests/lib/apic.h"
#include "guests/lib/cpu.h"
#include "guests/lib/rt.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define VEC_TIMER  0x40 /* LVT timer (timer, deadline) */
#define VEC_SELF   0x41 /* self-IPIs */
#define VEC_ALL	   0x42 /* broadcast to all including self */
#define VEC_NOBODY 0x43 /* sent to APIC IDs nobody has: must never arrive */
#define VEC_PROBE  0x44 /* the HLT probe's one-shot timer */
#define VEC_HIGH   0xf4 /* the same above TPR 0xE0 (the TPR probe) */
#define VEC_HELD   0x38 /* an event port's vector the TPR probe holds back */
#define PORT_HELD  8
#define X2_ICR	   0x830
#define X2_SELF	   0x83f
#define X2(off)	   (0x800u + ((off) >> 4))
#define TRAMP	   0x50000u /* vCPU 1's real-mode start (SIPI vector 0x50) */

static volatile uint32_t irqs, nmis, stray, probe_irqs;
static volatile uint32_t ap_count; /* vCPU 1: interrupts taken (bcast) */
static volatile uint32_t ap_ready;
static bool xapic; /* vCPU 0 uses the xAPIC page (apic=xapic) */

static void x2apic_on(void)
{
	wrmsr(MSR_APIC_BASE, APIC_MMIO | (3u << 10) | (rdmsr(MSR_APIC_BASE) & (1u << 8)));
	wrmsr(X2(R_SVR), 0x1ff);
}

/* vCPU 0's register writes (vCPU 1 always runs in x2APIC mode). */
static void wr(unsigned off, uint32_t v)
{
	if (xapic)
		apic_mmio_wr(off, v);
	else
		wrmsr(X2(off), v);
}

static void eoi(void) /* vCPU 0's */
{
	wr(R_EOI, 0);
}

static void isr_irq(struct rt_frame *f)
{
	(void)f;
	irqs++;
	eoi();
}

static void isr_probe(struct rt_frame *f)
{
	(void)f;
	probe_irqs++;
	eoi();
}

static void isr_stray(struct rt_frame *f)
{
	(void)f;
	stray++;
	eoi();
}

static uint32_t hlt_wait(uint32_t vector);
static void ipi(uint32_t dest, uint32_t lo);
static volatile uint32_t nmi_probe, nmi_probe_spurious, held;

/* With nmi_probe set, the NMI handler sends itself one more NMI, which must wait for this
 * handler's IRET (NMI blocking), and halts meanwhile: the HLT must wait for the timer, not
 * return at once for an NMI that cannot be delivered (issue 30 item 3). */
static void isr_nmi(struct rt_frame *f)
{
	(void)f;
	nmis++;
	if (nmi_probe) {
		nmi_probe = 0;
		ipi(0, ICR_NMI);
		nmi_probe_spurious += hlt_wait(VEC_PROBE);
		rt_cli();
	}
}

static void isr_held(struct rt_frame *f)
{
	(void)f;
	held++;
	hc_event_recv(PORT_HELD);
}

static void ap_isr(struct rt_frame *f)
{
	if (f->vector == VEC_NOBODY)
		stray++;
	else
		ap_count++;
	if (f->vector != 2)
		wrmsr(X2(R_EOI), 0);
}

/* vCPU 1 (bcast): halts and counts. (initsipi restarts it at TRAMP instead.) */
int rt_main_ap(const struct sliver_boot_info *bi)
{
	(void)bi;
	rt_irq_register(VEC_ALL, ap_isr);
	rt_irq_register(VEC_NOBODY, ap_isr);
	rt_irq_register(2, ap_isr);
	x2apic_on();
	ap_ready = 1;
	for (;;)
		__asm__ volatile("sti; hlt; cli" ::: "memory");
}

/* dest: an x2APIC ID (32 bits); in xAPIC mode its low 8 bits. */
static void ipi(uint32_t dest, uint32_t lo)
{
	if (xapic)
		apic_mmio_ipi(dest & 0xff, lo);
	else
		wrmsr(X2_ICR, (uint64_t)dest << 32 | lo);
}

/* A one-shot timer (vector) 1 ms away, then HLT until its interrupt: an HLT that returns
 * with nothing taken is spurious (a CPU's HLT waits for something it can deliver). */
static uint32_t hlt_wait(uint32_t vector)
{
	uint32_t spurious = 0, want = probe_irqs + 1;
	wr(R_TDCR, TDCR_DIV1);
	wr(R_LVT_TIMER, vector);
	wr(R_TMICT, 1000000);
	uint64_t end = rt_clock_ns() + 50000000;
	while (probe_irqs < want && rt_clock_ns() < end) {
		uint32_t before = irqs + nmis + probe_irqs + held;
		__asm__ volatile("sti; hlt; cli" ::: "memory");
		if (irqs + nmis + probe_irqs + held == before)
			spurious++;
	}
	return spurious;
}

/* The HLT probes after a burst of the NMI storm (issue 30 item 3): plain; inside the NMI
 * handler with another NMI latched behind its IRET; with TPR 0xE0 holding back a pending
 * event-port vector (0x38) while the timer comes on 0xF4. Returns the spurious HLTs. */
static uint32_t spur[3]; /* spurious HLTs per probe: plain, in the NMI handler, TPR */

static uint32_t hlt_probe(uint32_t dom)
{
	uint32_t spurious = hlt_wait(VEC_PROBE);
	spur[0] += spurious;
	nmi_probe_spurious = 0;
	nmi_probe = 1;
	ipi(0, ICR_NMI);
	uint64_t end = rt_clock_ns() + 100000000;
	while (nmi_probe && rt_clock_ns() < end)
		;
	rt_spin_us(100); /* the latched NMI, right after the handler's IRET */
	spurious += nmi_probe_spurious;
	spur[1] += nmi_probe_spurious;
	rt_cli();
	wr(R_TPR, 0xe0);
	hc_event_send(dom, PORT_HELD);
	uint32_t t = hlt_wait(VEC_HIGH);
	spurious += t;
	spur[2] += t;
	wr(R_TPR, 0);
	rt_sti();
	return spurious;
}

static void report(const char *attack, uint32_t ops, uint32_t probes, uint32_t spurious)
{
	rt_printf("storm: attack=%s ops=%u irqs=%u nmis=%u ap=%u stray=%u probes=%u "
		  "spurious=%u (%u/%u/%u)\n",
		  attack, ops, irqs, nmis, ap_count + *(volatile uint16_t *)(TRAMP + 0x100), stray,
		  probes, spurious, spur[0], spur[1], spur[2]);
}

/* vCPU 1's real-mode code after a SIPI: counts its starts in the word at TRAMP + 0x100
 * and halts with IF=0, as an AP waiting for work does (only the next INIT wakes it). (An AP
 * spinning with IF=0 instead would hold every kick to its pCPU for the 1 ms backstop under
 * Bochs, emulators.md bug 1: e2e-ifoff-kick's case, not a storm.) */
static void tramp_install(void)
{
	static const uint8_t code[] = {
		0xfa,			      /* cli */
		0x2e, 0xff, 0x06, 0x00, 0x01, /* 1: inc word cs:[0x100] */
		0xf4,			      /* hlt */
		0xeb, 0xf8,		      /* jmp 1b */
	};
	volatile uint8_t *p = (volatile uint8_t *)TRAMP;
	for (unsigned i = 0; i < sizeof code; i++)
		p[i] = code[i];
	*(volatile uint16_t *)(TRAMP + 0x100) = 0;
}

int main(const struct sliver_boot_info *bi)
{
	char attack[16] = "none", mode[8] = "";
	uint64_t report_ms = 250, probe_ms = 100, die_ms = 5;
	rt_arg("attack", attack, sizeof attack);
	rt_arg("apic", mode, sizeof mode);
	xapic = !strcmp(mode, "xapic");
	char label[24];
	fmt_snprintf(label, sizeof label, "%s%s", attack, xapic ? "-xapic" : "");
	rt_arg_u64("report_ms", &report_ms);
	rt_arg_u64("probe_ms", &probe_ms);
	rt_arg_u64("die_ms", &die_ms);
	for (unsigned v = 0x30; v < 0x100; v++)
		rt_irq_register((uint8_t)v, isr_stray);
	rt_irq_register(VEC_TIMER, isr_irq);
	rt_irq_register(VEC_SELF, isr_irq);
	rt_irq_register(VEC_ALL, isr_irq);
	rt_irq_register(VEC_PROBE, isr_probe);
	rt_irq_register(VEC_HIGH, isr_probe);
	rt_irq_register(VEC_HELD, isr_held);
	rt_irq_register(2, isr_nmi);
	hc_event_bind(PORT_HELD, VEC_HELD, 0);
	tramp_install();
	if (xapic)
		apic_mmio_wr(R_SVR, 0x1ff);
	else
		x2apic_on();
	bool two = bi->nr_vcpus > 1;
	if (two && strcmp(attack, "initsipi")) {
		uint64_t end = rt_clock_ns() + 50000000;
		while (!ap_ready && rt_clock_ns() < end)
			;
	}
	rt_printf("storm: d%u attack=%s vcpus=%u %s ready\n", bi->dom_id, attack, bi->nr_vcpus,
		  xapic ? "xapic" : "x2apic");
	uint32_t ops = 0, probes = 0, spurious = 0;
	uint64_t next_report = rt_clock_ns() + report_ms * 1000000ull;
	uint64_t next_probe = rt_clock_ns() + probe_ms * 1000000ull;
	uint64_t die_at = rt_clock_ns() + die_ms * 1000000ull;
	enum { NONE, TIMER, DEADLINE, SELFIPI, NMI, INITSIPI, BCAST, DIE } a = NONE;
	if (!strcmp(attack, "timer")) {
		a = TIMER;
		wr(R_TDCR, TDCR_DIV1);
		wr(R_LVT_TIMER, VEC_TIMER | LVT_PERIODIC);
		wr(R_TMICT, 1);
	} else if (!strcmp(attack, "deadline")) {
		a = DEADLINE;
		wr(R_LVT_TIMER, VEC_TIMER | LVT_TSC_DL);
	} else if (!strcmp(attack, "selfipi")) {
		a = SELFIPI;
	} else if (!strcmp(attack, "nmi")) {
		a = NMI;
	} else if (!strcmp(attack, "initsipi") && two) {
		a = INITSIPI;
	} else if (!strcmp(attack, "bcast") && two) {
		a = BCAST;
	} else if (!strcmp(attack, "die")) {
		a = DIE;
	} else if (strcmp(attack, "none")) {
		rt_printf("storm: unknown attack %s (or it needs vcpus=2): none\n", attack);
	}
	for (;;) {
		switch (a) {
		case DEADLINE:
			wrmsr(MSR_TSC_DL, rdtsc() - 1000);
			ops++;
			break;
		case SELFIPI:
			if (xapic)
				ipi(0, ICR_SELF | VEC_SELF);
			else
				wrmsr(X2_SELF, VEC_SELF);
			ops++;
			break;
		case NMI:
			ipi(0, ICR_NMI); /* physical, to its own ID */
			ops++;
			break;
		case INITSIPI:
			ipi(1, ICR_INIT);
			ipi(1, ICR_SIPI | (TRAMP >> 12));
			ops += 2;
			break;
		case BCAST:
			ipi(0, (2u << 18) | VEC_ALL); /* all including self */
			ipi(0x55, VEC_NOBODY);	      /* no such APIC ID */
			ipi(0x12345, VEC_NOBODY);     /* nor in x2APIC's 32 bits */
			ipi(0x55, ICR_NMI);	      /* an NMI to nobody */
			ipi(0xfffffffeu, VEC_NOBODY); /* not the broadcast ID */
			ops += 5;
			break;
		case DIE:
			if (rt_clock_ns() >= die_at) {
				report(label, ops, probes, spurious);
				hc_shutdown(0);
			}
			break;
		default: /* none, timer: the interrupts come by themselves */
			for (volatile unsigned i = 0; i < 64; i++)
				;
			break;
		}
		if ((ops & 0x3f) && a != NONE && a != TIMER && a != DIE)
			continue;
		uint64_t now = rt_clock_ns();
		if (a == NMI && probe_ms && now >= next_probe) {
			spurious += hlt_probe(bi->dom_id);
			probes++;
			next_probe = rt_clock_ns() + probe_ms * 1000000ull;
		}
		if (report_ms && now >= next_report) {
			report(label, ops, probes, spurious);
			next_report += report_ms * 1000000ull;
		}
	}
}
