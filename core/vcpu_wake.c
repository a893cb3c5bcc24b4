/* A vCPU's wake-ups, at the bottom of the vCPU's interrupt sources (event ports, the vLAPIC,
 * the PC's devices, the console): the virtual interrupt request bits, the scheduler wake
 * (sd_notify) and the arming of its timers. It calls nothing above it, so that a device can
 * wake a vCPU without depending on the code that asks the devices what to inject
 * (core/vcpu.c). */
#include "core/pingtrace.h"
#include "core/vmm.h"

void vcpu_irq_clear(struct vcpu *v, int vector)
{
	__atomic_fetch_and(&v->irr[vector / 64], ~(1ull << (vector % 64)), __ATOMIC_ACQ_REL);
}

static void notify(struct vcpu *v, unsigned flags)
{
	PT_STAMP(PT_NOTIFY);
	enum sd_wake r = sd_notify(&v->s, flags);
	PT_HOOK(pt_notify_result(r == SD_WAKE_WOKE));
	if (r == SD_WAKE_WOKE)
		__atomic_fetch_add(&v->dom->wakes, 1, __ATOMIC_RELAXED);
}

static void irq_raise(struct vcpu *v, uint8_t vector, unsigned flags)
{
	__atomic_fetch_or(&v->irr[vector / 64], 1ull << (vector % 64), __ATOMIC_SEQ_CST);
	notify(v, flags);
}

void vcpu_irq_raise(struct vcpu *v, uint8_t vector)
{
	irq_raise(v, vector, WAKE_EVENT);
}

void vcpu_irq_raise_timer(struct vcpu *v, uint8_t vector)
{
	irq_raise(v, vector, WAKE_TIMER);
}

void vcpu_notify(struct vcpu *v, bool timer)
{
	notify(v, (timer ? WAKE_TIMER : WAKE_EVENT) | SD_NOTIFY_QUIET);
}

void vcpu_wake_console(struct vcpu *v)
{
	sd_notify(&v->s, WAKE_YIELD);
}

/* One of v's per-pCPU timer sets (vt + base), live generation *genp. */
static void vtimer_arm(struct vcpu *v, unsigned base, uint64_t *genp, uint64_t deadline_ns)
{
	struct vtimer *vt = &v->vt[base + this_cpu()->id];
	uint64_t gen = __atomic_add_fetch(genp, 1, __ATOMIC_ACQ_REL);
	/* 0 cancels; beyond VMM_FAR_NS it would never fire in any run, and converting it to
	 * a TSC deadline would overflow: treat both as no timer. */
	uint64_t now = now_ns();
	if (!deadline_ns || (deadline_ns > now && deadline_ns - now > VMM_FAR_NS)) {
		timer_cancel(&vt->t);
		return;
	}
	vt->gen = gen;
	timer_set(&vt->t, deadline_ns);
}

void vcpu_set_timer(struct vcpu *v, uint64_t deadline_ns)
{
	vtimer_arm(v, 0, &v->timer_gen, deadline_ns);
}

void vcpu_set_lapic_timer(struct vcpu *v, uint64_t deadline_ns)
{
	vtimer_arm(v, cpu_count(), &v->lapic_timer_gen, deadline_ns);
}

uint64_t vcpu_set_pit_timer(struct vcpu *v, uint64_t deadline_ns)
{
	vtimer_arm(v, 2 * cpu_count(), &v->pit_timer_gen, deadline_ns);
	return __atomic_load_n(&v->pit_timer_gen, __ATOMIC_ACQUIRE);
}
