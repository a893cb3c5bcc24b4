/* Credit policy, every lock held: the finish op (what calls left for want of a lock) and
 * the audit (its queues, weights and counts against the shared fields; the torture test
 * runs it after its steps). */
#include "sched/credit_priv.h"

/* Weight splits whose pCPUs were another's (cr_rw_flush), and vCPUs queued where they may
 * no longer run (cr_move_away without its target's lock). */
sched_cpumask_t cr_finish(struct sched *s, uint64_t now)
{
	cr_rw_flush(s, now);
	sched_cpumask_t k = cpumask_none();
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (v->state != SCHED_VS_RUNNABLE || sched_allowed(s, v, v->pcpu))
				continue;
			cr_vclock_advance(s, v->pcpu, now);
			cr_heap_del(s, v);
			cr_transfer(s, v, sched_least_loaded(s, sched_affinity(s, v)), now);
			cr_enqueue(s, v);
			k = cr_with_kick(k, cr_tickle(s, v));
		}
	}
	cr_rw_flush(s, now);
	return cpumask_or(k, sched_take_kicks(s));
}

struct tally {
	const struct sched *s;
	unsigned p, n, bad, heap;
	uint64_t w;
	sched_print_fn pr;
	void *arg;
};

/* Every node of one heap: ordered, its vCPU of this pCPU and heap, in the right state. */
static void walk(struct tally *t, const struct sched_hnode *n, const struct sched_hnode *parent,
		 unsigned depth)
{
	static const uint8_t state_of[] = {0,
					   SCHED_VS_RUNNABLE,
					   SCHED_VS_RUNNABLE,
					   SCHED_VS_BLOCKED,
					   SCHED_VS_PARKED,
					   SCHED_VS_RUNNABLE};
	for (; n; n = n->next) {
		const struct sched_vcpu *v = cr_vcpu_of((struct sched_hnode *)n);
		if (++t->n > t->s->nr_vcpus || depth > 4096) {
			t->pr(t->arg, "audit: credit pCPU %u heap %u: not a tree\n", t->p, t->heap);
			t->bad++;
			return;
		}
		if (v->pcpu != t->p || cv(v)->heap != t->heap || v->state != state_of[t->heap] ||
		    (parent && hn_less(n, parent))) {
			t->pr(t->arg,
			      "audit: credit pCPU %u heap %u: d%uv%u pcpu=%u heap=%u state=%u\n",
			      t->p, t->heap, v->dom->id, v->id, v->pcpu, cv(v)->heap, v->state);
			t->bad++;
		}
		t->w += cv(v)->w_acct;
		walk(t, n->child, n, depth + 1);
	}
}

unsigned cr_audit(const struct sched *s, sched_print_fn pr, void *arg)
{
	unsigned bad = 0;
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		const struct sched_pcpu *pc = &s->pcpu[p];
		const struct cr_pcpu *c = cpc(pc);
		const struct sched_hnode *roots[] = {NULL,	  c->rq_boost, c->rq_norm,
						     c->sleepers, c->parked,   c->rq_pin};
		uint64_t w[6] = {0};
		unsigned queued = 0;
		for (unsigned h = HEAP_BOOST; h <= HEAP_PIN; h++) {
			struct tally t = {s, p, 0, 0, h, 0, pr, arg};
			walk(&t, roots[h], NULL, 0);
			bad += t.bad;
			w[h] = t.w;
			if (h == HEAP_BOOST || h == HEAP_NORM || h == HEAP_PIN)
				queued += t.n;
		}
		uint64_t active = 0;
		for (const struct sched_dom *d = s->doms; d; d = d->next_dom)
			for (const struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
				if (v->pcpu == p)
					active += cv(v)->w_acct;
		bool idle = !pc->curr && !pc->nr_queued;
		bool movable = c->rq_boost || c->rq_norm;
		bool in_idle = cpumask_test(cs(s)->idle_mask, p);
		bool in_move = cpumask_test(cs(s)->move_mask, p);
		bool in_pin = cpumask_test(cs(s)->pin_mask, p);
		if (queued != pc->nr_queued || w[HEAP_SLEEP] != c->w_sleep ||
		    w[HEAP_PARK] != c->w_park || active != c->w_active || idle != in_idle ||
		    movable != in_move || !c->rq_pin == in_pin) {
			pr(arg,
			   "audit: credit pCPU %u: queued %u (nr_queued %u), w_sleep %llu (%llu), "
			   "w_park %llu (%llu), w_active %llu (%llu), summaries idle=%d move=%d "
			   "pin=%d\n",
			   p, queued, pc->nr_queued, (unsigned long long)w[HEAP_SLEEP],
			   (unsigned long long)c->w_sleep, (unsigned long long)w[HEAP_PARK],
			   (unsigned long long)c->w_park, (unsigned long long)active,
			   (unsigned long long)c->w_active, in_idle, in_move, in_pin);
			bad++;
		}
	}
	for (const struct sched_dom *d = s->doms; d; d = d->next_dom) {
		uint32_t earn = 0;
		for (const struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			earn += cv(v)->w_acct != 0;
		if (earn != cd(d)->nr_earn) {
			pr(arg, "audit: credit d%u: %u vCPUs earn, nr_earn %u\n", d->id, earn,
			   cd(d)->nr_earn);
			bad++;
		}
	}
	return bad;
}
