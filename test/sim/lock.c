/* The lockstress guest kind (guests/lockstress, issue 14): the domain's vCPUs take a
 * ticket lock in turn, think `think_us` of CPU between acquisitions and hold it `cs_us` of
 * CPU. A waiter spins (runnable, burning its slice); a ticket lock is handed to the first
 * waiter at release even when that vCPU is preempted, so the others spin until it runs
 * again: the lock-holder and lock-waiter preemption that PAUSE-loop exits and the directed
 * yield (sched/yield_to.c) address. The PAUSE-loop exit itself is sim.c's (on_guest): a
 * waiter that has spun sim.ple_window_us in one run exits. */
#include "test/sim/sim.h"

void lock_start(struct sim_vcpu *v, uint64_t r)
{
	v->lphase = LP_THINK;
	v->lleft = v->d->think_ns ? r % v->d->think_ns + 1 : 1; /* seeded phases */
}

static void acquire(struct sim_vcpu *v)
{
	v->lphase = LP_HOLD;
	v->lleft = v->d->cs_ns ? v->d->cs_ns : 1;
	v->d->lock_owner = v;
}

/* The ticket order: the first waiter owns the lock from now on, running or not. */
static struct sim_vcpu *release(struct sim_vcpu *v, uint64_t t)
{
	struct sim_dom *d = v->d;
	d->lock_acq++;
	d->lock_owner = NULL;
	v->lphase = LP_THINK;
	v->lleft = d->think_ns ? d->think_ns : 1;
	struct sim_vcpu *n = d->lock_head;
	if (!n)
		return NULL;
	d->lock_head = n->lnext;
	if (!d->lock_head)
		d->lock_tail = NULL;
	n->lnext = NULL;
	if (n->running_on >= 0 && n->exec_from < t) {
		n->lspin_ns += t - n->exec_from; /* it spun up to the hand-over */
		n->useful_ns += t - n->exec_from;
		n->exec_from = t;
	}
	acquire(n);
	return n;
}

struct sim_vcpu *lock_progress(struct sim_vcpu *v, uint64_t t, uint64_t el)
{
	struct sim_vcpu *handed = NULL;
	while (el || (v->lphase != LP_WAIT && v->lleft == 0)) {
		if (v->lphase == LP_WAIT) {
			v->lspin_ns += el;
			break;
		}
		uint64_t take = el < v->lleft ? el : v->lleft;
		v->lleft -= take;
		el -= take;
		t += take;
		if (v->lleft)
			break;
		if (v->lphase == LP_HOLD) {
			struct sim_vcpu *n = release(v, t);
			if (n)
				handed = n;
		} else if (!v->d->lock_owner) {
			acquire(v);
		} else {
			v->lphase = LP_WAIT;
			if (v->d->lock_tail)
				v->d->lock_tail->lnext = v;
			else
				v->d->lock_head = v;
			v->d->lock_tail = v;
		}
	}
	return handed;
}

uint64_t lock_next_event(const struct sim_vcpu *v, uint64_t base, uint64_t ple_window_ns)
{
	if (v->lphase != LP_WAIT)
		return base + v->lleft;
	return ple_window_ns ? base + ple_window_ns : UINT64_MAX;
}
