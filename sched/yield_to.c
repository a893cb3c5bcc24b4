/* Directed yield on a PAUSE-loop exit (issue 14, docs/scheduler.md "PAUSE-loop exits").
 *
 * A vCPU that spins on a lock whose holder's vCPU was preempted burns its slice for
 * nothing. The hardware reports the spin (VMX PAUSE-loop exiting, SVM PAUSE filter: core
 * gets HV_EXIT_PAUSE_LOOP) and the scheduler gives the spinner's pCPU to a sibling that
 * is runnable but not running: most likely the preempted holder. The choice follows KVM's
 * kvm_vcpu_on_spin (virt/kvm/kvm_main.c): round-robin from after the domain's last boosted
 * vCPU, so that N spinners do not all pick the same sibling; a last boosted index of 0
 * starts at 1 like any other (the 2012 fix "kvm: handle last_boosted_vcpu = 0 case", in
 * which vCPU 0 was tried first on every pass); vCPUs that themselves just spun are
 * skipped (KVM's kvm_vcpu_eligible_for_directed_yield: a vCPU in a spin loop is likely a
 * waiter, not the holder). The flag stays set until the vCPU runs a full slice (the
 * policy clears it); as in KVM a flagged vCPU is still eligible every other time it is
 * passed over (dy_eligible toggles), because with a ticket lock a waiter preempted in
 * its spin becomes the holder at the release before it runs again: skipping it for good
 * starves the lock (the simulator's lockstress showed it: no directed yield at all).
 *
 * No candidate: the spinner goes on (KVM's kvm_vcpu_on_spin returns to the guest). A
 * plain yield there (sched.ple=yield does it on every exit) hands the rest of the slice to
 * whatever is queued, another domain's vCPU included, which then runs a whole slice: a
 * spinning domain falls far below its share (the simulator: 12% of 400% at 8 pCPUs).
 *
 * Accounting: the target's run is charged to the target like any run (exact ns, its
 * vtime/credit moves), and the spinner's yield gives up only its own slice. The policy
 * limits queue jumping to targets not far ahead of their queue (credit.c: at most one
 * slice of vtime ahead of the head; credit1: UNDER), as CFS takes its "next" buddy only
 * when it is not too far ahead of the leftmost (pick_next_entity); otherwise the spinner
 * goes on and the target waits its turn. Without the limit a sibling targeted
 * on every exit runs at once whatever it already had, and the spinning domain took 47%
 * instead of 33% next to two hogs (Bochs, 2 pCPUs). So the domain's total and every other
 * domain's share stay within a slice of the run without PLE (test_sched_ple). */
#include "sched/sched_priv.h"

struct sched_vcpu *sched_yield_candidate(const struct sched *s, const struct sched_vcpu *v)
{
	(void)s;
	const struct sched_dom *d = v->dom;
	struct sched_vcpu *best = NULL;
	uint32_t best_dist = 0;
	for (struct sched_vcpu *t = d->vcpus; t; t = t->next_in_dom) {
		if (t == v || t->state != SCHED_VS_RUNNABLE || (t->in_spin_loop && !t->dy_eligible))
			continue;
		/* Distance in id order from just after last_boosted (unsigned wrap): the
		 * last boosted vCPU itself is the farthest. */
		uint32_t dist = t->id - d->last_boosted - 1u;
		if (!best || dist < best_dist) {
			best = t;
			best_dist = dist;
		}
	}
	return best;
}

sched_cpumask_t sched_pause_loop(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state != SCHED_VS_RUNNING)
		return 0;
	if (!v->in_spin_loop)
		v->dy_eligible = false;
	v->in_spin_loop = true;
	v->c.pause_loops++;
	v->dom->c.pause_loops++;
	if (s->p.ple == SCHED_PLE_YIELD || (s->p.ple == SCHED_PLE_DIRECTED && !s->ops->yield_to)) {
		s->ops->yield(s, v, now);
		return 0;
	}
	if (s->p.ple != SCHED_PLE_DIRECTED)
		return 0;
	struct sched_vcpu *t = sched_yield_candidate(s, v);
	/* The flagged vCPUs passed over (before t in the order, or all when none): their
	 * eligibility toggles, so each is a candidate every other time. */
	uint32_t lim = t ? t->id - v->dom->last_boosted - 1u : UINT32_MAX;
	for (struct sched_vcpu *o = v->dom->vcpus; o; o = o->next_in_dom)
		if (o != v && o->in_spin_loop && o->state == SCHED_VS_RUNNABLE &&
		    (o == t || o->id - v->dom->last_boosted - 1u < lim))
			o->dy_eligible = !o->dy_eligible;
	if (!t)
		return 0;
	sched_cpumask_t kick = s->ops->yield_to(s, v, t, now);
	if (s->pcpu[t->pcpu].yield_next != t)
		return 0; /* the policy refused it (fairness): v goes on */
	v->dom->last_boosted = t->id;
	v->c.yield_to++;
	v->dom->c.yield_to++;
	t->c.yield_recv++;
	t->dom->c.yield_recv++;
	return kick;
}

struct sched_vcpu *sched_take_yield_next(struct sched *s, unsigned p)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *t = pc->yield_next;
	pc->yield_next = NULL;
	if (t && t->state == SCHED_VS_RUNNABLE && t->pcpu == p)
		return t;
	return NULL;
}

void sched_yield_forget(struct sched *s, const struct sched_vcpu *v)
{
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		if (s->pcpu[p].yield_next == v)
			s->pcpu[p].yield_next = NULL;
}
