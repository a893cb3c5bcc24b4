#include "arch/x86_64/timer_hw.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/tsc.h"
#include "drivers/console.h"
#include "lib/clockconv.h"

static bool deadline_mode;
static uint64_t lapic_hz;
static struct clockconv tsc_lapic_conv;

void timer_hw_calibrate(void)
{
	deadline_mode = cpu_has_feature_ecx1(24);
	lapic_timer_setup(VEC_TIMER, false);
	/* Mask while measuring: the count runs, no interrupt is raised at zero (IF is off
	 * anyway, but a pending one would fire at the first idle). */
	lapic_timer_oneshot(0xffffffff);
	uint64_t t0 = rdtsc();
	tsc_delay_us(10000);
	uint32_t left = lapic_timer_current();
	uint64_t dt = rdtsc() - t0;
	lapic_timer_stop();
	lapic_hz = (uint64_t)(0xffffffffu - left) * tsc_hz / dt;
	tsc_lapic_conv = clockconv_init(tsc_hz, lapic_hz);
	printk("timer: %s, LAPIC timer %lu kHz\n",
	       deadline_mode ? "TSC-deadline" : "LAPIC one-shot", lapic_hz / 1000);
}

void timer_hw_init_this(void)
{
	lapic_timer_setup(VEC_TIMER, deadline_mode);
}

bool timer_hw_tsc_deadline(void)
{
	return deadline_mode;
}

void timer_hw_arm(uint64_t deadline_tsc)
{
	if (deadline_mode) {
		/* 0 would disarm: a deadline in the past is written as 1 and fires at once. */
		wrmsr(MSR_IA32_TSC_DEADLINE, deadline_tsc ? deadline_tsc : 1);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t count =
		deadline_tsc > now ? clockconv_apply(tsc_lapic_conv, deadline_tsc - now) : 0;
	/* Round up so it never fires early; a count beyond 32 bits fires early and the
	 * software timer layer re-arms for the rest. */
	count += 1;
	lapic_timer_oneshot(count > 0xffffffffu ? 0xffffffffu : (uint32_t)count);
}

void timer_hw_disarm(void)
{
	if (deadline_mode)
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	else
		lapic_timer_stop();
}
