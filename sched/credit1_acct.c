/* sched=credit1, time-driven part: Xen 3.0.4's 10 ms tick that samples the running vCPU
 * (csched_tick, csched_vcpu_acct), the 30 ms accounting on the master pCPU (csched_acct:
 * credit by weight, caps, parking, clipping, active/inactive) and the run-queue sort.
 * "3.0.4:NNN" is a line of xen/common/sched_credit.c at tag 3.0.4-branched.
 *
 * Tickless: no event here preempts anything (3.0.4's tick raises no softirq; only parking
 * does), so the ticks are processed lazily, in time order, at the start of every call
 * (c1_advance): a tick at time t burns the vCPU that was current on its pCPU at t, which
 * is still pCPU.curr, because curr changes only in pick_next, after c1_advance. The ticks
 * and the accounting are also folded into run_until (credit1.c), as Xen took them. */
#include "sched/credit1_priv.h"

/* 3.0.4:485 __csched_vcpu_acct_start: v earns credit again; its domain joins the active
 * domains and adds its weight to the total. */
void c1_acct_start(struct sched *s, struct c1_vcpu *cv)
{
	struct c1_sched *c = C1S(s);
	struct sched_dom *d = cv->v->dom;
	struct c1_dom *cd = C1D(d);
	if (!c1_list_empty(&cv->active_elem))
		return;
	cd->active_vcpu_count++;
	c1_list_add(&cv->active_elem, &cd->active_vcpu);
	if (c1_list_empty(&cd->active_sdom_elem)) {
		c1_list_add(&cd->active_sdom_elem, &c->active_sdom);
		c->weight += d->weight;
	}
}

/* 3.0.4:510 __csched_vcpu_acct_stop_locked. */
void c1_acct_stop(struct sched *s, struct c1_vcpu *cv)
{
	struct c1_sched *c = C1S(s);
	struct sched_dom *d = cv->v->dom;
	struct c1_dom *cd = C1D(d);
	if (c1_list_empty(&cv->active_elem))
		return;
	cd->active_vcpu_count--;
	c1_list_del_init(&cv->active_elem);
	if (c1_list_empty(&cd->active_vcpu)) {
		c1_list_del_init(&cd->active_sdom_elem);
		c->weight -= d->weight;
	}
}

/* 3.0.4:530 csched_vcpu_acct, the running vCPU of pCPU p at a tick. */
static void c1_vcpu_acct(struct sched *s, unsigned p, uint64_t t)
{
	struct sched_vcpu *v = s->pcpu[p].curr;
	if (!v || v->state != SCHED_VS_RUNNING || (C1V(v)->flags & C1_PARKED))
		return; /* 3.0.4:1021 the idle vCPU is not accounted, nor a parked one */
	struct c1_vcpu *cv = C1V(v);
	/* 3.0.4:542: a boosted vCPU found running at a tick is no longer boosted. */
	if (cv->pri == C1_PRI_BOOST) {
		c1_set_pri(cv, C1_PRI_UNDER);
		sched_trace_ev(s, p, t, SCHED_EV_UNBOOST, v, 0);
	}
	cv->credit -= C1_CREDITS_PER_TICK; /* 3.0.4:548: the whole tick, sampled */
	if (c1_list_empty(&cv->active_elem)) {
		c1_acct_start(s, cv); /* 3.0.4:558 */
	} else if (c1_cpu_pick(s, v) != p) {
		/* 3.0.4:562-567: a better pCPU: migrate at its next schedule. With one
		 * pCPU per core (what the simulator and our hypervisor model) this only
		 * happens when the affinity excludes p. */
		cv->flags |= C1_MOVE;
		SCHED_PUT(s->pcpu[p].resched, true);
		sched_kick_later(s, p);
	}
}

/* Parks v (3.0.4:957-965, vcpu_pause_nosync): it stops being runnable until unparked. */
static void c1_park(struct sched *s, struct c1_vcpu *cv)
{
	struct sched_vcpu *v = cv->v;
	cv->flags |= C1_PARKED;
	v->c.parks++;
	sched_add(&v->dom->c.parks, 1);
	sched_trace_ev(s, v->pcpu, C1S(s)->now, SCHED_EV_PARK, v, cv->credit);
	if (v->state == SCHED_VS_RUNNING) {
		/* 3.0.4:637: its pCPU reschedules. It runs until then (and is charged until
		 * then: counters are exact); that pick parks it (credit1.c). */
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		sched_kick_later(s, v->pcpu);
		C1S(s)->parks_run++;
	} else if (v->state == SCHED_VS_RUNNABLE) { /* 3.0.4:639 */
		c1_runq_remove(s, v);
		SCHED_PUT(v->state, (uint8_t)SCHED_VS_PARKED);
	}
	/* BLOCKED: stays blocked, parked (a wake leaves it PARKED: credit1.c). */
}

/* 3.0.4:982-990: vcpu_unpause, which wakes it (not boosted: the flag is cleared after
 * the wake), then the flag goes. */
static void c1_unpark(struct sched *s, struct c1_vcpu *cv)
{
	struct sched_vcpu *v = cv->v;
	v->c.unparks++;
	sched_add(&v->dom->c.unparks, 1);
	sched_trace_ev(s, v->pcpu, C1S(s)->now, SCHED_EV_UNPARK, v, cv->credit);
	if (v->state == SCHED_VS_PARKED) {
		SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNABLE);
		c1_runq_insert(s, v->pcpu, v);
		cpumask_or_atomic(&s->kick_pending, c1_tickle(s, v->pcpu, v));
	}
	cv->flags &= (uint16_t)~C1_PARKED;
}

/* 3.0.4:820 csched_acct: every credit1.acct_us on the master pCPU. Integer arithmetic
 * and list orders as 3.0.4 did them. */
void c1_acct(struct sched *s, uint64_t now)
{
	struct c1_sched *c = C1S(s);
	const uint32_t cpa = c->credits_per_acct;
	const int32_t cpt = (int32_t)c->credits_per_tslice;
	uint32_t weight_total = c->weight; /* 3.0.4:840 */
	uint32_t credit_total = c->credit;
	(void)now;
	c->accts++;
	/* 3.0.4:843-848: converge the balance towards 0 when it is negative. */
	if (c->credit_balance < 0)
		credit_total += (uint32_t)-c->credit_balance;
	if (weight_total == 0) { /* 3.0.4:850 */
		c->credit_balance = 0;
		return;
	}
	uint32_t weight_left = weight_total, credit_cap = 0;
	int32_t credit_balance = 0;
	bool credit_xtra = false;
	struct c1_list *it, *nx;
	for (it = c->active_sdom.next; it != &c->active_sdom; it = nx) {
		nx = it->next; /* list_for_each_safe: the entry may move or leave */
		struct c1_dom *cd = c1_sdom_entry(it);
		struct sched_dom *d = cd->d;
		const uint32_t n = cd->active_vcpu_count;
		weight_left -= d->weight; /* 3.0.4:874 */
		/* 3.0.4:884-890: at most every active vCPU for a whole period, more only
		 * while the system-wide balance is negative. */
		uint32_t credit_peak = n * cpa;
		if (c->credit_balance < 0)
			credit_peak +=
				((uint32_t)-c->credit_balance * d->weight + weight_total - 1) /
				weight_total;
		/* 3.0.4:892-900: the cap in credits per period, and per vCPU for parking. */
		if (d->cap != 0) {
			credit_cap = (d->cap * cpa + 99) / 100;
			if (credit_cap < credit_peak)
				credit_peak = credit_cap;
			credit_cap = (credit_cap + n - 1) / n;
		}
		/* 3.0.4:902: the fair share by weight among the active domains. */
		uint32_t credit_fair = (credit_total * d->weight + weight_total - 1) / weight_total;
		if (credit_fair < credit_peak) {
			credit_xtra = true; /* 3.0.4:907 */
		} else {
			/* 3.0.4:911-917: what it cannot use goes to the domains after it. */
			if (weight_left != 0)
				credit_total += ((credit_fair - credit_peak) * weight_total +
						 weight_left - 1) /
						weight_left;
			/* 3.0.4:920-930: domains that could take more go to the head. */
			if (credit_xtra) {
				c1_list_del_init(&cd->active_sdom_elem);
				c1_list_add(&cd->active_sdom_elem, &c->active_sdom);
			}
			credit_fair = credit_peak;
		}
		credit_fair = (credit_fair + n - 1) / n; /* 3.0.4:936 per vCPU */
		struct c1_list *iv, *nv;
		for (iv = cd->active_vcpu.next; iv != &cd->active_vcpu; iv = nv) {
			nv = iv->next;
			struct c1_vcpu *cv = c1_active_entry(iv);
			cv->credit += (int32_t)credit_fair; /* 3.0.4:946 */
			int32_t credit = cv->credit;
			if (credit < 0) {
				c1_set_pri(cv, C1_PRI_OVER); /* 3.0.4:955 */
				/* 3.0.4:958: park when over the cap by more than a period's cap. */
				if (d->cap != 0 && credit < -(int32_t)credit_cap &&
				    !(cv->flags & C1_PARKED))
					c1_park(s, cv);
				/* 3.0.4:968: lower bound, one slice of debt. */
				if (credit < -cpt)
					cv->credit = credit = -cpt;
			} else {
				c1_set_pri(cv, C1_PRI_UNDER); /* 3.0.4:977, also ends a boost */
				if (cv->flags & C1_PARKED)    /* 3.0.4:980 */
					c1_unpark(s, cv);
				/* 3.0.4:993: upper bound: more than a slice and it stops
				 * earning (inactive), credit reset to 0. */
				if (credit > cpt) {
					c1_acct_stop(s, cv);
					cv->credit = credit = 0;
				}
			}
			cv->credit_last = credit;
			cv->credit_incr = credit_fair;
			credit_balance += credit;
		}
	}
	c->credit_balance = credit_balance; /* 3.0.4:1007 */
	c->runq_sort++;			    /* 3.0.4:1012 */
}

/* 3.0.4:777 csched_runq_sort: once per accounting epoch, UNDER (and BOOST) vCPUs move up
 * in front of the OVER ones, keeping their order. */
void c1_runq_sort(struct sched *s, unsigned p)
{
	struct c1_sched *c = C1S(s);
	struct c1_pcpu *cp = C1P(s, p);
	if (cp->runq_sort_last == c->runq_sort)
		return;
	cp->runq_sort_last = c->runq_sort;
	struct c1_list *rq = &cp->runq, *e = rq->next, *last_under = rq;
	while (e != rq) {
		struct c1_list *next = e->next;
		if (c1_runq_entry(e)->pri >= C1_PRI_UNDER) {
			if (e->prev != last_under) {
				c1_list_del_init(e);
				c1_list_add(e, last_under);
			}
			last_under = e;
		}
		e = next;
	}
}

/* Time of the next accounting: the master's tick whose number is a multiple of
 * ticks_per_acct (3.0.4:1030-1031). */
uint64_t c1_next_acct(const struct sched *s)
{
	const struct c1_sched *c = SCHED_PRIV(const struct c1_sched, s);
	uint64_t k = (c->ticks_per_acct - c->tick_n % c->ticks_per_acct) % c->ticks_per_acct;
	return c->next_tick + k * (c->tick_ns + c->tick_lag_ns);
}

/* The ticks start again one period after now (first vCPU, new tick length). */
void c1_restart_ticks(struct sched *s, uint64_t now)
{
	struct c1_sched *c = C1S(s);
	SCHED_PUT(c->next_tick, now + c->tick_ns);
	c->tick_n = 1;
}

/* One tick at t on every pCPU (3.0.4:1016 csched_tick): sample the running vCPU, then the
 * master's accounting, then the sort; the next one re-armed from t (schedule.c:659). */
static void c1_tick(struct sched *s, uint64_t t)
{
	struct c1_sched *c = C1S(s);
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		c1_vcpu_acct(s, p, t);
	if (c->tick_n % c->ticks_per_acct == 0)
		c1_acct(s, t); /* 3.0.4:1030 the master (pCPU 0) */
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		c1_runq_sort(s, p); /* 3.0.4:1043 */
	c->tick_n++;
	SCHED_PUT(c->next_tick, t + c->tick_ns + c->tick_lag_ns);
}

/* Processes every tick up to now, in time order (3.0.4:1016 csched_tick on each pCPU:
 * sample the running vCPU, then the master's accounting, then the sort). All pCPUs tick
 * at the same times (Xen started every pCPU's timer together at boot, schedule.c:711).
 *
 * The tick period: schedule.c:659 re-arms the tick at NOW() + 10 ms at the END of the
 * tick handler, so every tick comes later than a fixed grid by the interrupt latency plus
 * the handler's run time (more on the master's accounting ticks). credit1.tick_lag_ns
 * is that lateness (default 0: an exact 10 ms grid). It matters: a guest whose period is
 * a multiple of 10 ms keeps the same phase against an exact grid forever, so the sampling
 * always or never catches it; with a lag the phase walks (docs/scheduler.md). */
void c1_advance(struct sched *s, uint64_t now)
{
	struct c1_sched *c = C1S(s);
	/* A tick is every pCPU's (it samples each running vCPU): it needs every lock. next_tick
	 * only moves with them all held, so a call that finds none due needs none. Without
	 * them (another pCPU has one) the ticks are left to the finish op, run next. */
	if (SCHED_GET(c->next_tick) > now)
		return;
	if (!sched_peer_all(s)) {
		sched_defer(s);
		return;
	}
	c->now = now;
	if (!s->nr_vcpus || (now > c->next_tick && now - c->next_tick > 100000 * c->tick_ns)) {
		/* Nothing to account (or a gap no core leaves): restart the ticks. */
		c1_restart_ticks(s, now);
		return;
	}
	while (c->next_tick <= now)
		c1_tick(s, c->next_tick);
}

/* Xen's timer softirq runs, with the timer that fired, every timer due within TIMER_SLOP
 * (50 us) after it (3.0.4 xen/common/timer.c:28 and :308, timer_softirq_action), in order
 * of expiry. So a tick due less than the slop after a timer that fires now (a guest's own
 * timer that wakes it, a slice end) runs now, before the schedule softirq: it samples the
 * vCPU still current, not the one the timer wakes, and re-arms from now (schedule.c:659).
 * Called by the timer-driven calls (a WAKE_TIMER wake, a pick_next at the slice end)
 * after c1_advance. Simplification: every pCPU's tick moves with it (all tick together
 * here, as at boot); the rows this matters for have one pCPU. credit1.timer_slop_ns=0
 * turns it off (an exact grid, as before). */
void c1_timer_slop(struct sched *s, uint64_t now)
{
	struct c1_sched *c = C1S(s);
	uint64_t next = SCHED_GET(c->next_tick);
	if (c->slop_ns && s->nr_vcpus && next > now && next - now < c->slop_ns) {
		if (!sched_peer_all(s))
			return; /* the tick runs on time instead (as without the slop) */
		if (c->next_tick > now && c->next_tick - now < c->slop_ns) {
			c->now = now;
			c1_tick(s, now);
		}
	}
}
