/* Directed yield on a PAUSE-loop exit (issue 14, docs/scheduler.md "PAUSE-loop exits").
 *
 * A vCPU that spins on a lock whose holder's vCPU was preempted burns its slice for
 * nothing. The hardware reports the spin (VMX PAUSE-loop exiting, SVM PAUSE filter: core
 * gets HV_EXIT_PAUSE_LOOP) and the scheduler gives the spinner's pCPU to a sibling that
 * is runnable but not running: most likely the preempted holder. The choice follows KVM's
 * kvm_vcpu_on_spin (virt/kvm/kvm_main.c): round-robin from after the domain's last boosted
 * vCPU, so that N spinners do not all pick the same sibling; a last boosted index of 0
 * starts at 1 like any other (the 2012 fix "kvm: handle last_boosted_vcpu = 0 case", in
 * which vCPU 0 was tried first on every pass).
 *
 * vCPUs that themselves just spun (in_spin_loop: a PAUSE-loop exit and no full slice
 * since) are likely waiters, not the holder (KVM's kvm_vcpu_eligible_for_directed_yield).
 * They are passed over while any sibling that did not spin is a candidate, but not
 * skipped for good: a ticket lock hands the lock at release to the first waiter, running
 * or not, so the holder is very often a waiter that lost its pCPU in its spin. (KVM lets
 * such a vCPU through every other time it is passed, dy_eligible; shared by all the
 * spinners of a domain, that toggle fell into step with them in the simulator: two
 * spinners passing the same preempted ticket holder each saw it ineligible, and spun
 * whole slices beside it.) Of the flagged ones, one queued on the spinner's own pCPU
 * comes before one elsewhere.
 *
 * The outcomes of a PAUSE-loop exit under sched.ple=directed:
 * - a candidate that did not spin, or only flagged ones elsewhere: the directed yield
 *   (the policy's yield_to: the target runs next on its own pCPU, this one when it is
 *   queued here, that one is kicked otherwise).
 * - only flagged candidates, one of them queued here: a plain yield. Forcing that waiter
 *   onto the pCPU only moves the spin to it; a yield lets this pCPU's queue go on in its
 *   own order (that waiter when its turn comes, maybe handed the lock by then, or another
 *   domain's vCPU), so the spinning domain uses its turn later, when the holder may have
 *   run, instead of spinning it away now. With 4 vCPUs of a lock domain on 2 pCPUs (the
 *   simulator, issue 14) a plain yield beat the directed one at every level until this
 *   rule: next to a second such domain 31 000 against 20 000 acquisitions/s.
 * - a target queued here that the policy refuses (fairness: it is far ahead of the
 *   queue): a plain yield too, for the same reason, where going on spun the rest of the
 *   slice.
 *   Both plain yields only where the policy's yield keeps the yielder's claim
 *   (yield_keeps_claim: credit's engine counts service in vtime, so what it gives up now
 *   it gets back). Elsewhere (sched=credit1's sampled credit, EEVDF's deadline push) a
 *   domain that yields often loses share (the hogs of test_sched_ple went from 33% to 41%
 *   under the credit1 engine sched=credit had until issue 29 retired it); there the
 *   directed yield is made (or v goes on).
 * - no candidate: the spinner goes on (KVM's kvm_vcpu_on_spin returns to the guest). A
 *   plain yield there (sched.ple=yield does it on every exit) hands the rest of the slice
 *   to whatever is queued, another domain's vCPU included, which then runs a whole slice:
 *   a lone spinning vCPU per pCPU falls far below its share (the simulator: 12% of 400% at
 *   8 pCPUs).
 *
 * Accounting: the target's run is charged to the target like any run (exact ns, its
 * vtime/credit moves), and the spinner's yield gives up only its own slice. The policy
 * limits queue jumping to targets not far ahead of their queue (credit.c: at most one
 * slice of vtime ahead of the head; credit1: UNDER), as CFS takes its "next" buddy only
 * when it is not too far ahead of the leftmost (pick_next_entity); otherwise the target
 * waits its turn. Without the limit a sibling targeted
 * on every exit runs at once whatever it already had, and the spinning domain took 47%
 * instead of 33% next to two hogs (Bochs, 2 pCPUs). So the domain's total and every other
 * domain's share stay within a slice of the run without PLE (test_sched_ple). */
#include "sched/sched_priv.h"

/* Candidate classes, best first: did not just spin (anywhere), just spun and queued on
 * the spinner's pCPU, just spun and elsewhere. */
static unsigned candidate_class(const struct sched_vcpu *v, const struct sched_vcpu *t)
{
	if (!SCHED_GET(t->in_spin_loop))
		return 3;
	return SCHED_GET(t->pcpu) == v->pcpu ? 2 : 1;
}

struct sched_vcpu *sched_yield_candidate(const struct sched *s, const struct sched_vcpu *v)
{
	(void)s;
	const struct sched_dom *d = v->dom;
	struct sched_vcpu *best = NULL;
	uint32_t best_dist = 0;
	unsigned best_class = 0;
	/* Siblings on other pCPUs are read as hints (their state, pCPU and spin flag, without
	 * their locks); the policy's yield_to takes the target's lock and checks it again. */
	uint32_t last = SCHED_GET(d->last_boosted);
	for (struct sched_vcpu *t = d->vcpus; t; t = t->next_in_dom) {
		if (t == v || SCHED_GET(t->state) != SCHED_VS_RUNNABLE)
			continue;
		unsigned cl = candidate_class(v, t);
		/* Distance in id order from just after last_boosted (unsigned wrap): the
		 * last boosted vCPU itself is the farthest. */
		uint32_t dist = t->id - last - 1u;
		if (cl > best_class || (cl == best_class && dist < best_dist)) {
			best = t;
			best_dist = dist;
			best_class = cl;
		}
	}
	return best;
}

sched_cpumask_t sched_pause_loop(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state != SCHED_VS_RUNNING)
		return cpumask_none();
	SCHED_PUT(v->in_spin_loop, true);
	v->c.pause_loops++;
	sched_add(&v->dom->c.pause_loops, 1);
	if (s->p.ple == SCHED_PLE_YIELD || (s->p.ple == SCHED_PLE_DIRECTED && !s->ops->yield_to)) {
		s->ops->yield(s, v, now);
		return cpumask_none();
	}
	if (s->p.ple != SCHED_PLE_DIRECTED)
		return cpumask_none();
	struct sched_vcpu *t = sched_yield_candidate(s, v);
	if (!t)
		return cpumask_none();
	unsigned tp = SCHED_GET(t->pcpu);
	bool here = tp == v->pcpu;
	bool may_yield = here && s->ops->yield_keeps_claim && s->ops->yield_keeps_claim(s);
	if (SCHED_GET(t->in_spin_loop) && may_yield) {
		s->ops->yield(s, v, now); /* only waiters left, one here: this queue goes on */
		return cpumask_none();
	}
	/* The policy takes t's pCPU lock (sched_peer) and checks t there; it refuses when it
	 * cannot have it, or t moved, or fairness says no. */
	sched_cpumask_t kick = s->ops->yield_to(s, v, t, now);
	if (!sched_holds(s, tp) || SCHED_GET(t->pcpu) != tp || s->pcpu[tp].yield_next != t) {
		/* Refused: t waits its turn; when that is here, so does v (a plain yield),
		 * else v goes on. */
		if (may_yield)
			s->ops->yield(s, v, now);
		return cpumask_none();
	}
	SCHED_PUT(v->dom->last_boosted, t->id);
	v->c.yield_to++;
	sched_add(&v->dom->c.yield_to, 1);
	t->c.yield_recv++; /* t's lock is held: tp's */
	sched_add(&t->dom->c.yield_recv, 1);
	return kick;
}

struct sched_vcpu *sched_take_yield_next(struct sched *s, unsigned p)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *t = pc->yield_next;
	pc->yield_next = NULL;
	/* t may have moved since (then its fields are another pCPU's: read as hints). */
	if (t && SCHED_GET(t->pcpu) == p && t->state == SCHED_VS_RUNNABLE)
		return t;
	return NULL;
}

void sched_yield_forget(struct sched *s, const struct sched_vcpu *v)
{
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		if (s->pcpu[p].yield_next == v)
			s->pcpu[p].yield_next = NULL;
}
