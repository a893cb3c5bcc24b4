/* Clock and sleep/spin helpers. Time comes from the TSC scaled with the boot-info
 * parameters (the same time base as HC_CLOCK and HC_SET_TIMER), so spinning costs no
 * exits; sleeping blocks in the hypervisor until the domain timer fires. */
#include "guests/lib/mulshift.h"
#include "guests/lib/rt.h"

static uint64_t tsc_base;
static uint32_t tsc_mul, tsc_shift;
static volatile uint32_t timer_fired;

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void timer_isr(struct rt_frame *f)
{
	(void)f;
	hc_event_recv(SLIVER_PORT_TIMER);
	timer_fired = 1;
}

void rt_clock_init(const struct sliver_boot_info *bi);
void rt_clock_init(const struct sliver_boot_info *bi)
{
	tsc_base = bi->tsc_base;
	tsc_mul = bi->tsc_mul;
	tsc_shift = bi->tsc_shift > 63 ? 63 : bi->tsc_shift;
	rt_irq_register(RT_VEC_TIMER, timer_isr);
	hc_event_bind(SLIVER_PORT_TIMER, RT_VEC_TIMER, 0);
}

uint64_t rt_clock_ns(void)
{
	uint64_t t = rdtsc();
	return t > tsc_base ? mul_u64_u32_shr(t - tsc_base, tsc_mul, tsc_shift) : 0;
}

void rt_spin_until(uint64_t ns)
{
	while (rt_clock_ns() < ns)
		__asm__ volatile("pause");
}

void rt_spin_us(uint64_t us)
{
	rt_spin_until(rt_clock_ns() + us * 1000);
}

/* Checks with IF=0 so a timer interrupt cannot slip in between the check and the wait, then
 * waits with `sti; hlt` (STI's shadow covers the HLT; rt_wait_irq), so the interrupt that
 * wakes it is taken at the first entry. If the clocks disagree by a hair the timer is simply
 * re-armed. */
void rt_sleep_until(uint64_t ns)
{
	rt_cli();
	while (rt_clock_ns() < ns) {
		timer_fired = 0;
		hc_set_timer(ns);
		while (!timer_fired)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
	}
	rt_sti();
}

void rt_sleep_us(uint64_t us)
{
	rt_sleep_until(rt_clock_ns() + us * 1000);
}
