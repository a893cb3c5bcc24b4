/* Credit policy, credit1 engine (credit.profile=xen-credit1): tick sampling and the
 * periodic accounting of Xen credit1 as measured in 2006 (docs/scheduler.md, "The credit1
 * profile"). */
#include "sched/credit_priv.h"

static void c1_requeue(struct sched *s, struct sched_vcpu *v)
{
	if (cv(v)->heap == HEAP_NORM || cv(v)->heap == HEAP_PIN || cv(v)->heap == HEAP_BOOST) {
		cr_heap_del(s, v);
		cr_enqueue(s, v);
	}
}

/* Xen credit1's csched_acct(): share period*pCPUs of credit among the active vCPUs by
 * weight, clip, set UNDER/OVER, park capped vCPUs in debt, unpark the others. */
static void c1_acct(struct sched *s, uint64_t now)
{
	uint64_t weight_total = 0;
	const int64_t per_tslice = (int64_t)cs(s)->p.tslice_ns;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom)
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			if (cv(v)->flags & F_C1_ACTIVE)
				weight_total += vweight(v);
	if (!weight_total)
		return;
	uint64_t credit_total = cs(s)->p.period_ns * s->nr_pcpus;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		uint64_t n_act = 0;
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			n_act += (cv(v)->flags & F_C1_ACTIVE) ? 1 : 0;
		if (!n_act)
			continue;
		uint64_t peak = n_act * cs(s)->p.period_ns, credit_cap = 0;
		if (d->cap) {
			credit_cap = (d->cap * cs(s)->p.period_ns + 99) / 100;
			if (credit_cap < peak)
				peak = credit_cap;
			credit_cap = (credit_cap + n_act - 1) / n_act;
		}
		uint64_t fair = (credit_total * vweight(d->vcpus) * n_act + weight_total - 1) /
				weight_total;
		if (fair > peak)
			fair = peak;
		int64_t per_vcpu = (int64_t)((fair + n_act - 1) / n_act);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (!(cv(v)->flags & F_C1_ACTIVE))
				continue;
			cv(v)->credit += per_vcpu;
			uint8_t old = v->prio;
			if (cv(v)->credit < 0) {
				v->prio = SCHED_PRI_OVER;
				if (d->cap && cv(v)->credit < -(int64_t)credit_cap &&
				    !(cv(v)->flags & F_C1_PARK)) {
					cv(v)->flags |= F_C1_PARK;
					if (v->state == SCHED_VS_RUNNABLE) {
						cr_heap_del(s, v);
						cr_park(s, v, now);
					}
				}
				if (cv(v)->credit < -per_tslice)
					cv(v)->credit = -per_tslice;
			} else {
				v->prio = SCHED_PRI_UNDER;
				if (cv(v)->flags & F_C1_PARK) {
					cv(v)->flags &= (uint8_t)~F_C1_PARK;
					if (v->state == SCHED_VS_PARKED) {
						cr_unpark(s, v, now);
						cr_enqueue(s, v);
						s->kick_pending |= SCHED_CPU(v->pcpu);
						old = v->prio;
					}
				}
				if (cv(v)->credit > per_tslice) {
					cv(v)->flags &= (uint8_t)~F_C1_ACTIVE;
					cv(v)->credit /= 2;
				}
			}
			if (old != v->prio && v->state == SCHED_VS_RUNNABLE)
				c1_requeue(s, v);
		}
	}
}

/* Processes every credit1 tick up to `now`: the vCPU running at a tick pays a whole tick
 * (sampling, as credit1 did) and loses BOOST; accounting runs every period. */
void cr_c1_catch_up(struct sched *s, uint64_t now)
{
	if (!c1_mode(s))
		return;
	if (!cs(s)->next_tick) {
		cs(s)->next_tick = (now / cs(s)->p.tick_ns + 1) * cs(s)->p.tick_ns;
		cs(s)->next_acct = (now / cs(s)->p.period_ns + 1) * cs(s)->p.period_ns;
	}
	while (cs(s)->next_tick <= now) {
		uint64_t t = cs(s)->next_tick;
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			struct sched_vcpu *cur = s->pcpu[p].curr;
			if (!cur || cur->state != SCHED_VS_RUNNING)
				continue;
			if (cs(s)->p.burn_sampled)
				cv(cur)->credit -= (int64_t)cs(s)->p.tick_ns; /* 3.0.x: sampled */
			cv(cur)->flags |= F_C1_ACTIVE;
			if (cur->prio == SCHED_PRI_BOOST) {
				cur->prio = SCHED_PRI_UNDER;
				sched_trace_ev(s, p, t, SCHED_EV_UNBOOST, cur, cv(cur)->credit);
			}
		}
		while (cs(s)->next_acct <= t) {
			c1_acct(s, t);
			cs(s)->next_acct += cs(s)->p.period_ns;
		}
		cs(s)->next_tick += cs(s)->p.tick_ns;
	}
}
