/* Round-robin policy: one FIFO per pCPU, fixed slice (credit.tslice_us), no weights, no
 * caps, no boost. Kept small on purpose: a reference for the interface and a fallback
 * (`sched=rr`) while the credit policy is being integrated. Idle pCPUs steal. */
#include "sched/sched.h"
#include "sched/sched_priv.h"

static void rr_enqueue(struct sched_pcpu *pc, struct sched_vcpu *v)
{
	v->rq_next = NULL;
	v->rq_prev = pc->rr_tail;
	if (pc->rr_tail)
		pc->rr_tail->rq_next = v;
	else
		pc->rr_head = v;
	pc->rr_tail = v;
	pc->nr_queued++;
}

static void rr_dequeue(struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (v->rq_prev)
		v->rq_prev->rq_next = v->rq_next;
	else
		pc->rr_head = v->rq_next;
	if (v->rq_next)
		v->rq_next->rq_prev = v->rq_prev;
	else
		pc->rr_tail = v->rq_prev;
	v->rq_next = v->rq_prev = NULL;
	pc->nr_queued--;
}

static void rr_charge(struct sched_vcpu *v, uint64_t now)
{
	if (now > v->since) {
		v->c.run_ns += now - v->since;
		v->dom->c.run_ns += now - v->since;
	}
	v->since = now;
}

static void rr_init(struct sched *s)
{
	(void)s;
}

static int rr_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	(void)now;
	if (!v->dom)
		return -SCHED_EINVAL;
	if (!v->dom->weight)
		v->dom->weight = SCHED_DEFAULT_WEIGHT;
	v->state = SCHED_VS_BLOCKED;
	v->prio = SCHED_PRI_UNDER;
	v->pcpu = (uint16_t)sched_least_loaded(s, sched_affinity(s, v));
	s->pcpu[v->pcpu].nr_vcpus++;
	v->dom->nr_vcpus++;
	s->nr_vcpus++;
	sched_dom_link(s, v->dom);
	return 0;
}

static void rr_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	(void)now;
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (v->state == SCHED_VS_RUNNABLE)
		rr_dequeue(pc, v);
	if (pc->curr == v)
		pc->curr = NULL;
	v->state = SCHED_VS_BLOCKED;
	pc->nr_vcpus--;
	s->nr_vcpus--;
	if (--v->dom->nr_vcpus == 0)
		sched_dom_unlink(s, v->dom);
}

static sched_cpumask_t rr_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	if (flags & (WAKE_EVENT | WAKE_TIMER))
		v->c.events++;
	if (v->state != SCHED_VS_BLOCKED)
		return 0;
	v->c.wakes++;
	v->dom->c.wakes++;
	/* Prefer an idle pCPU of its affinity, else stay. */
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned target = v->pcpu;
	if (s->pcpu[target].curr || !(aff & SCHED_CPU(target))) {
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			if ((aff & SCHED_CPU(p)) && !s->pcpu[p].curr && !s->pcpu[p].nr_queued) {
				target = p;
				break;
			}
		}
	}
	if (!(aff & SCHED_CPU(target)))
		target = sched_least_loaded(s, aff);
	if (target != v->pcpu) {
		s->pcpu[v->pcpu].nr_vcpus--;
		s->pcpu[target].nr_vcpus++;
		v->pcpu = (uint16_t)target;
		v->c.migrations++;
		sched_trace_ev(s, target, now, SCHED_EV_MIGRATE, v, target);
	}
	v->state = SCHED_VS_RUNNABLE;
	rr_enqueue(&s->pcpu[target], v);
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	return s->pcpu[target].curr ? 0 : SCHED_CPU(target);
}

static sched_cpumask_t rr_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	sched_cpumask_t kick = 0;
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(pc, v);
	} else if (v->state == SCHED_VS_RUNNING) {
		rr_charge(v, now);
		kick = SCHED_CPU(v->pcpu);
	}
	v->state = SCHED_VS_BLOCKED;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, 0);
	return kick;
}

static void rr_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	v->flags |= 1; /* go to the tail at the next pick */
	v->c.yields++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
}

static struct sched_vcpu *rr_steal(struct sched *s, unsigned p, uint64_t now)
{
	for (unsigned q = 0; q < s->nr_pcpus; q++) {
		struct sched_pcpu *qc = &s->pcpu[q];
		if (q == p)
			continue;
		for (struct sched_vcpu *v = qc->rr_head; v; v = v->rq_next) {
			if (!sched_allowed(s, v, p))
				continue;
			rr_dequeue(qc, v);
			qc->nr_vcpus--;
			s->pcpu[p].nr_vcpus++;
			v->pcpu = (uint16_t)p;
			v->c.migrations++;
			sched_trace_ev(s, p, now, SCHED_EV_MIGRATE, v, p);
			return v;
		}
	}
	return NULL;
}

static struct sched_pick rr_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *cur = pc->curr;
	struct sched_pick r = {NULL, SCHED_NEVER, 0};

	if (cur && cur->state == SCHED_VS_RUNNING) {
		rr_charge(cur, now);
		bool expired = now - pc->curr_since >= s->p.tslice_ns || (cur->flags & 1);
		if (!pc->rr_head || !expired) {
			cur->flags &= (uint8_t)~1;
			r.vcpu = cur;
			r.run_until = pc->rr_head ? pc->curr_since + s->p.tslice_ns : SCHED_NEVER;
			return r;
		}
		cur->flags &= (uint8_t)~1;
		cur->state = SCHED_VS_RUNNABLE;
		cur->c.preempts++;
		rr_enqueue(pc, cur);
	}
	struct sched_vcpu *next = pc->rr_head;
	if (next)
		rr_dequeue(pc, next);
	else
		next = rr_steal(s, p, now);
	pc->picks++;
	if (!next) {
		if (pc->curr != NULL)
			pc->last_pick = now;
		pc->curr = NULL;
		return r;
	}
	next->state = SCHED_VS_RUNNING;
	next->since = now;
	if (next != cur) {
		next->c.switches++;
		next->run_start = now;
		sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next, cur ? (int64_t)cur->dom->id : -1);
	}
	pc->curr = next;
	pc->curr_since = now;
	r.vcpu = next;
	r.run_until = pc->rr_head ? now + s->p.tslice_ns : SCHED_NEVER;
	return r;
}

static int rr_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			 uint64_t now)
{
	(void)s, (void)now;
	if (weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (weight)
		d->weight = weight;
	d->cap = cap; /* recorded, not enforced by rr */
	return 0;
}

static sched_cpumask_t rr_set_affinity(struct sched *s, struct sched_vcpu *v, sched_cpumask_t mask,
				       uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu))
		return 0;
	if (v->state == SCHED_VS_RUNNING)
		return SCHED_CPU(v->pcpu); /* its pick_next will find it not allowed */
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(&s->pcpu[v->pcpu], v);
		v->state = SCHED_VS_BLOCKED;
		return rr_wake(s, v, now, WAKE_MIGRATE);
	}
	s->pcpu[v->pcpu].nr_vcpus--;
	v->pcpu = (uint16_t)sched_least_loaded(s, sched_affinity(s, v));
	s->pcpu[v->pcpu].nr_vcpus++;
	return 0;
}

static void rr_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	pr(arg, "sched policy=rr pcpus=%u tslice_ns=%llu\n", s->nr_pcpus,
	   (unsigned long long)s->p.tslice_ns);
	for (struct sched_dom *d = s->doms; d; d = d->next_dom)
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
}

const struct sched_ops sched_rr_ops = {
	.name = "rr",
	.init = rr_init,
	.vcpu_insert = rr_vcpu_insert,
	.vcpu_remove = rr_vcpu_remove,
	.wake = rr_wake,
	.sleep = rr_sleep,
	.yield = rr_yield,
	.pick_next = rr_pick_next,
	.set_params = rr_set_params,
	.set_affinity = rr_set_affinity,
	.params_changed = NULL,
	.dump = rr_dump,
};
