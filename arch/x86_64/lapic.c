#include "arch/x86_64/lapic.h"
#include "arch/x86_64/cpu.h"

#define APIC_BASE_X2APIC (1ul << 10)
#define APIC_BASE_ENABLE (1ul << 11)

/* Register offsets in xAPIC MMIO; the x2APIC MSR is 0x800 + offset / 16. */
enum {
	APIC_ID = 0x20,
	APIC_TPR = 0x80,
	APIC_EOI = 0xb0,
	APIC_SVR = 0xf0,
	APIC_ICR_LO = 0x300,
	APIC_ICR_HI = 0x310,
	APIC_LVT_TIMER = 0x320,
	APIC_LVT_THERMAL = 0x330,
	APIC_LVT_PERF = 0x340,
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
	APIC_LVT_ERROR = 0x370,
	APIC_TIMER_INIT = 0x380,
	APIC_TIMER_CUR = 0x390,
	APIC_TIMER_DIV = 0x3e0,
};

#define LVT_MASKED	       (1u << 16)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)
#define ICR_INIT	       (5u << 8)
#define ICR_STARTUP	       (6u << 8)
#define ICR_NMI		       (4u << 8)
#define ICR_ASSERT	       (1u << 14)
#define ICR_PENDING	       (1u << 12)
#define ICR_ALL_BUT_SELF       (3u << 18)

static bool x2apic, ready;
static volatile uint32_t *mmio;

static uint32_t lapic_read(uint32_t reg)
{
	return x2apic ? (uint32_t)rdmsr(0x800 + reg / 16) : mmio[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(0x800 + reg / 16, v);
	else
		mmio[reg / 4] = v;
}

void lapic_init_this(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
	x2apic = cpu_has_feature_ecx1(21);
	base |= APIC_BASE_ENABLE;
	if (x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_IA32_APIC_BASE, base);
	mmio = (volatile uint32_t *)(base & ~0xffful & 0xffffffffff);
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_LVT_THERMAL, LVT_MASKED);
	lapic_write(APIC_LVT_PERF, LVT_MASKED);
	lapic_write(APIC_LVT_LINT0, LVT_MASKED);
	lapic_write(APIC_LVT_LINT1, LVT_MASKED);
	lapic_write(APIC_LVT_ERROR, LVT_MASKED);
	lapic_write(APIC_SVR, 0x100 | 0xff); /* software enable, spurious vector 0xff */
	ready = true;
}

bool lapic_is_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_read(APIC_ID);
	return x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

static void icr_send(uint32_t apic_id, uint32_t lo)
{
	if (x2apic) {
		wrmsr(0x830, (uint64_t)apic_id << 32 | lo);
		return;
	}
	while (lapic_read(APIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
	lapic_write(APIC_ICR_HI, apic_id << 24);
	lapic_write(APIC_ICR_LO, lo);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	icr_send(apic_id, ICR_ASSERT | vector);
}

void lapic_send_nmi(uint32_t apic_id)
{
	icr_send(apic_id, ICR_ASSERT | ICR_NMI);
}

void lapic_send_nmi_all_but_self(void)
{
	if (ready)
		icr_send(0, ICR_ASSERT | ICR_NMI | ICR_ALL_BUT_SELF);
}

void lapic_send_init(uint32_t apic_id)
{
	icr_send(apic_id, ICR_ASSERT | ICR_INIT);
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	icr_send(apic_id, ICR_STARTUP | page);
}

void lapic_timer_setup(uint8_t vector, bool tsc_deadline)
{
	lapic_write(APIC_TIMER_DIV, 0xb); /* divide by 1 */
	lapic_write(APIC_LVT_TIMER, vector | (tsc_deadline ? LVT_TIMER_TSC_DEADLINE : 0));
	/* SDM 11.5.4.1: order the LVT write before later IA32_TSC_DEADLINE writes. */
	__asm__ volatile("mfence" ::: "memory");
}

void lapic_timer_oneshot(uint32_t count)
{
	lapic_write(APIC_TIMER_INIT, count);
}

uint32_t lapic_timer_current(void)
{
	return lapic_read(APIC_TIMER_CUR);
}

void lapic_timer_stop(void)
{
	lapic_write(APIC_TIMER_INIT, 0);
}
