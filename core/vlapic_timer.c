/* The vLAPIC's timer (SDM Vol. 3A 10.5.4; 10.5.4.1 TSC-deadline): one-shot, periodic (with
 * a shortest period) and TSC-deadline modes on the hypervisor's software timers, its
 * current count, expiry, and parking while the vCPU is preempted. Apart from the registers
 * (core/vlapic_regs.c, which call in here) so that each file has one job. */
#include "core/vlapic_priv.h"
#include "arch/x86_64/tsc.h"

/* The shortest period of the periodic mode, KVM's min_timer_period_us default (200 us, 5 kHz:
 * five times the fastest tick a PC OS asks for, HZ=1000). A guest asking for a 1 ns period
 * would otherwise take an exit per interrupt at the emulator's pace and, descheduled, fire
 * on its neighbours' time (issue 30). One-shot and TSC-deadline need no floor: each
 * interrupt follows a guest write (an exit of its own), and one armed while the vCPU is
 * descheduled fires once. */
#define PERIODIC_MIN_NS 200000ull

static uint64_t divisor(uint32_t tdcr)
{
	unsigned x = (tdcr & 3) | ((tdcr >> 1) & 4);
	return x == 7 ? 1 : 2ull << x;
}

static void timer_arm(struct vcpu *v, uint64_t at)
{
	__atomic_store_n(&L(v)->t_next, at, __ATOMIC_RELEASE);
	L(v)->t_parked = false;
	vcpu_set_lapic_timer(v, at);
}

/* (Re)starts the timer from the registers: a TMICT, TDCR, LVT-timer-mode or TSC_DEADLINE
 * write. Under the lock. */
void vl_timer_restart(struct vcpu *v)
{
	struct vlapic *l = L(v);
	l->t_running = false;
	if (timer_mode(l) == TM_DEADLINE) {
		/* The deadline is in the guest's TSC (host TSC + v->tsc_offset, moved by
		 * IA32_TSC/TSC_ADJUST writes: SDM 10.5.4.1 compares it with the TSC the guest
		 * reads); the timer runs on the host's. */
		uint64_t at = 0, host = l->tsc_deadline - v->tsc_offset;
		if (l->tsc_deadline)
			at = host > tsc_at_boot ? tsc_to_ns(host - tsc_at_boot) : 0;
		timer_arm(v, l->tsc_deadline ? (at ? at : 1) : 0);
		return;
	}
	if (!l->tmict) {
		timer_arm(v, 0);
		return;
	}
	l->t_start = now_ns();
	l->t_period = (uint64_t)l->tmict * divisor(l->tdcr);
	l->t_running = true;
	uint64_t p = l->t_period;
	if (timer_mode(l) == TM_PERIODIC && p < PERIODIC_MIN_NS)
		p = PERIODIC_MIN_NS;
	timer_arm(v, l->t_start + p);
}

uint32_t vl_tmcct(const struct vlapic *l)
{
	if (!l->t_running || timer_mode(l) == TM_DEADLINE || !l->t_period)
		return 0;
	uint64_t el = now_ns() - l->t_start;
	uint64_t left;
	if (timer_mode(l) == TM_PERIODIC)
		left = l->t_period - el % l->t_period;
	else
		left = el >= l->t_period ? 0 : l->t_period - el;
	return (uint32_t)(left / divisor(l->tdcr));
}

/* An LVT fires (timer, error): fixed delivery of its vector unless masked. Under the
 * lock; true when v must be woken. */
static bool lvt_fire(struct vcpu *v, unsigned lvt)
{
	uint32_t e = L(v)->lvt[lvt];
	return !(e & LVT_MASKED) && accept_fixed(v, e & 0xff);
}

void vlapic_tsc_moved(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic)
		return;
	spin_lock(&l->lock);
	if (timer_mode(l) == TM_DEADLINE && l->tsc_deadline && l->t_next)
		vl_timer_restart(v);
	spin_unlock(&l->lock);
}

/* The timer reached t_next: its LVT fires. Under the lock; true when v must be woken. */
static bool timer_fire(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (timer_mode(l) == TM_PERIODIC && l->t_running) {
		uint64_t p = l->t_period < PERIODIC_MIN_NS ? PERIODIC_MIN_NS : l->t_period;
		uint64_t next = l->t_next + p, now = now_ns();
		if (next <= now) /* missed periods are coalesced into this one */
			next = now + p - (now - l->t_next) % p;
		l->t_start = next - p; /* TMCCT counts this period down */
		timer_arm(v, next);
	} else {
		l->t_running = false;
		__atomic_store_n(&l->t_next, 0, __ATOMIC_RELEASE);
		if (timer_mode(l) == TM_DEADLINE)
			l->tsc_deadline = 0;
	}
	/* The last interrupt not taken yet (its vector held back, IF=0): this one merges into
	 * its IRR bit, and nothing new wakes v (a vCPU halted with the vector masked is not
	 * woken every period, issue 30). */
	bool merged = in_irr(l, (int)(l->lvt[LVT_TIMER] & 0xff));
	bool wake = lvt_fire(v, LVT_TIMER);
	if (wake)
		l->timer_irqs++;
	return wake && !merged;
}

void vlapic_timer_expired(struct vcpu *v, uint64_t gen)
{
	struct vlapic *l = L(v);
	bool wake = false;
	spin_lock(&l->lock);
	if (gen == __atomic_load_n(&v->lapic_timer_gen, __ATOMIC_ACQUIRE) && l->t_next &&
	    !l->t_parked)
		wake = timer_fire(v);
	spin_unlock(&l->lock);
	if (wake)
		vcpu_notify(v, true);
}

void vlapic_park(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic || !__atomic_load_n(&l->t_next, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&l->lock);
	if (l->t_next && !l->t_parked) {
		l->t_parked = true;
		vcpu_set_lapic_timer(v, 0);
	}
	spin_unlock(&l->lock);
}

/* Before an entry: a timer parked while v waited fires now if it is due (its interrupt is
 * pending before v's first instruction, as it would have been), else is armed again here. */
void vl_timer_unpark(struct vcpu *v)
{
	struct vlapic *l = L(v);
	spin_lock(&l->lock);
	if (l->t_parked) {
		l->t_parked = false;
		if (l->t_next && l->t_next <= now_ns())
			timer_fire(v); /* v is about to enter: nothing to wake */
		else if (l->t_next)
			vcpu_set_lapic_timer(v, l->t_next);
	}
	spin_unlock(&l->lock);
}

/* An IA32_TSC_DEADLINE write (vlapic_wrmsr). */
void vl_deadline_write(struct vcpu *v, uint64_t val)
{
	struct vlapic *l = L(v);
	spin_lock(&l->lock);
	if (timer_mode(l) == TM_DEADLINE) { /* ignored in the other modes */
		l->tsc_deadline = val;
		if (val && (int64_t)(val - v->tsc_offset - rdtsc()) <= 0) {
			/* Already due: the interrupt is pending before the next instruction,
			 * as on a CPU (kvm-unit-tests x86/apic.c writes the current TSC and
			 * counts it after a serializing CPUID), not after a host timer. */
			l->tsc_deadline = 0;
			timer_arm(v, 0);
			if (lvt_fire(v, LVT_TIMER))
				l->timer_irqs++;
		} else {
			vl_timer_restart(v);
		}
	}
	spin_unlock(&l->lock);
}
