/* sched=credit1: Xen 3.0.4's credit scheduler as it was (docs/scheduler.md, "Policy:
 * credit1"). "3.0.4:NNN" is a line of xen/common/sched_credit.c at tag 3.0.4-branched
 * (19 Dec 2006), "schedule.c:NNN" of xen/common/schedule.c there. This file: the run
 * queues, wake and tickle, sleep, yield, the schedule (csched_schedule) with its load
 * balancing (csched_load_balance, csched_runq_steal), parameters and affinity, the ops.
 * credit1_acct.c: the tick and the accounting; credit1_config.c: its keys, its dump and
 * its audit.
 *
 * No ratelimit, no exact charging: credit moves only by the tick's samples and the
 * accounting. c.run_ns is exact (charged at every call) but only for the counters. */
#include "sched/credit1_priv.h"

static const uint8_t pri_to_prio[] = {SCHED_PRI_OVER, SCHED_PRI_UNDER, SCHED_PRI_BOOST};

void c1_set_pri(struct c1_vcpu *cv, int pri)
{
	cv->pri = (int16_t)pri;
	SCHED_PUT(cv->v->prio,
		  pri >= C1_PRI_OVER ? pri_to_prio[pri - C1_PRI_OVER] : (uint8_t)SCHED_PRI_IDLE);
}

static int c1_pri_of(const struct sched_vcpu *v) /* the idle vCPU is NULL */
{
	return v ? SCHED_PRIV(const struct c1_vcpu, v)->pri : C1_PRI_IDLE;
}

void c1_charge(struct sched_vcpu *v, uint64_t now)
{
	if (now > v->since) {
		uint64_t d = now - v->since;
		v->c.run_ns += d;
		sched_add(&v->dom->c.run_ns, d);
		if (C1V(v)->pri == C1_PRI_BOOST) {
			v->c.boost_ns += d;
			sched_add(&v->dom->c.boost_ns, d);
		}
		v->since = now; /* `now` may be a little behind a peer's (sched.h) */
	}
}

/* 3.0.4:272 __runq_insert: after every vCPU of the same or better priority (FIFO within a
 * priority), before the first worse one. */
void c1_runq_insert(struct sched *s, unsigned p, struct sched_vcpu *v)
{
	struct c1_list *rq = &C1P(s, p)->runq, *it;
	struct c1_vcpu *cv = C1V(v);
	for (it = rq->next; it != rq; it = it->next)
		if (cv->pri > c1_runq_entry(it)->pri)
			break;
	c1_list_add_tail(&cv->runq_elem, it);
	SCHED_ADD(s->pcpu[p].nr_queued, 1);
}

void c1_runq_remove(struct sched *s, struct sched_vcpu *v) /* 3.0.4:291 */
{
	SCHED_HELD(s, v->pcpu);
	c1_list_del_init(&C1V(v)->runq_elem);
	SCHED_ADD(s->pcpu[v->pcpu].nr_queued, -1u);
}

/* 3.0.4:298 __runq_tickle: v was queued on p. p is signalled if v is strictly better than
 * its current vCPU; if p is busy, every idle pCPU of v's affinity is signalled too (they
 * steal it, csched_load_balance). */
sched_cpumask_t c1_tickle(struct sched *s, unsigned p, struct sched_vcpu *v)
{
	int cur = c1_pri_of(s->pcpu[p].curr);
	sched_cpumask_t m = cpumask_none();
	if (C1V(v)->pri > cur)
		cpumask_set(&m, p);
	if (cur > C1_PRI_IDLE)
		m = cpumask_or(m, cpumask_and(cpumask_load(&C1S(s)->idlers), sched_affinity(s, v)));
	/* Other pCPUs' resched flags are set without their locks: a request, read by their
	 * own pick (Xen's cpu_raise_softirq). */
	cpumask_for_each(q, m) if (q < s->nr_pcpus) SCHED_PUT(s->pcpu[q].resched, true);
	if (!cpumask_empty(m))
		sched_add(&C1S(s)->tickles, 1);
	return m;
}

/* 3.0.4:251 __cycle_cpu: the next pCPU of mask after p, wrapping. */
static unsigned c1_cycle(const struct sched *s, unsigned p, sched_cpumask_t mask)
{
	for (unsigned i = 1; i <= s->nr_pcpus; i++) {
		unsigned q = (p + i) % s->nr_pcpus;
		if (cpumask_test(mask, q))
			return q;
	}
	return p;
}

/* 3.0.4:416 csched_cpu_pick: its current pCPU if allowed, else the next allowed one; then
 * an idle pCPU with more idle neighbours in its core/socket (3.0.4:449-479). With one
 * pCPU per core and socket (our model) no neighbour count ever differs: the loop never
 * moves, so it is left out. */
unsigned c1_cpu_pick(const struct sched *s, const struct sched_vcpu *v)
{
	sched_cpumask_t cpus = sched_affinity(s, v);
	return cpumask_test(cpus, v->pcpu) ? v->pcpu : c1_cycle(s, v->pcpu, cpus);
}

/* v (not queued, not running) now belongs to pCPU `to`. */
void c1_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	if (to == v->pcpu)
		return;
	SCHED_HELD(s, v->pcpu);
	SCHED_HELD(s, to);
	if (s->pcpu[v->pcpu].curr == v) /* it blocked there: no longer that pCPU's */
		SCHED_PUT(s->pcpu[v->pcpu].curr, (struct sched_vcpu *)NULL);
	SCHED_ADD(s->pcpu[v->pcpu].nr_vcpus, -1u);
	SCHED_ADD(s->pcpu[to].nr_vcpus, 1);
	SCHED_PUT(v->pcpu, (uint16_t)to);
	v->c.migrations++;
	sched_add(&v->dom->c.migrations, 1);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
}

static void c1_init(struct sched *s)
{
	struct c1_sched *c = C1S(s);
	c1_list_init(&c->active_sdom);
	c->tick_ns = C1_TICK_NS;
	c->tslice_ns = C1_TSLICE_NS;
	c->acct_ns = C1_ACCT_NS;
	c->ticks_per_acct = 3;
	c->credits_per_tslice = 3 * C1_CREDITS_PER_TICK;
	c->credits_per_acct = 3 * C1_CREDITS_PER_TICK;
	c->credit = s->nr_pcpus * c->credits_per_acct; /* 3.0.4:359 per pCPU */
	c1_restart_ticks(s, 0);
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		c1_list_init(&C1P(s, p)->runq);
		SCHED_PUT(s->pcpu[p].resched, true); /* the first pick_next schedules */
	}
	c->idlers = sched_all_pcpus(s); /* 3.0.4:371 start off idling */
}

static int c1_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	if (!d || d->weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (!d->weight)
		d->weight = SCHED_DEFAULT_WEIGHT; /* 3.0.4:755 */
	if (!s->nr_vcpus) {
		c1_restart_ticks(s, now);
	}
	c1_advance(s, now);
	if (!d->nr_vcpus) { /* 3.0.4:737 csched_dom_init */
		struct c1_dom *cd = C1D(d);
		c1_list_init(&cd->active_vcpu);
		c1_list_init(&cd->active_sdom_elem);
		cd->d = d;
		cd->active_vcpu_count = 0;
	}
	struct c1_vcpu *cv = C1V(v); /* 3.0.4:572 csched_vcpu_init */
	c1_list_init(&cv->runq_elem);
	c1_list_init(&cv->active_elem);
	cv->v = v;
	cv->credit = 0;
	cv->flags = 0;
	c1_set_pri(cv, C1_PRI_UNDER);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	/* Initial placement (Xen's toolstack/domctl chose v->processor): least loaded. */
	SCHED_PUT(v->pcpu, (uint16_t)sched_least_loaded(s, sched_affinity(s, v)));
	SCHED_ADD(s->pcpu[v->pcpu].nr_vcpus, 1);
	d->nr_vcpus++;
	s->nr_vcpus++;
	sched_dom_add_vcpu(s, v);
	return 0;
}

static void c1_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	c1_advance(s, now);
	struct c1_vcpu *cv = C1V(v); /* 3.0.4:607 csched_vcpu_destroy */
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (v->state == SCHED_VS_RUNNABLE)
		c1_runq_remove(s, v);
	c1_acct_stop(s, cv);
	if (pc->curr == v) {
		SCHED_PUT(pc->curr, (struct sched_vcpu *)NULL);
		SCHED_PUT(pc->resched, true);
	}
	sched_yield_forget(s, v);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	cv->flags = 0;
	SCHED_ADD(pc->nr_vcpus, -1u);
	s->nr_vcpus--;
	sched_dom_del_vcpu(s, v);
}

/* 3.0.4:644 csched_vcpu_wake. Events for a running or queued vCPU change nothing
 * (3.0.4:651-660); a parked one is not runnable (schedule.c:186: no wake at all). */
static sched_cpumask_t c1_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	c1_advance(s, now);
	if (flags & WAKE_TIMER)
		c1_timer_slop(s, now); /* its timer fired: a tick due just after runs with it */
	const bool event = (flags & (WAKE_EVENT | WAKE_TIMER)) != 0;
	if (event) {
		v->c.events++;
		sched_add(&v->dom->c.events, 1);
	}
	if (v->state != SCHED_VS_BLOCKED)
		return sched_take_kicks(s);
	struct c1_vcpu *cv = C1V(v);
	if (cv->flags & C1_PARKED) {
		SCHED_PUT(v->state, (uint8_t)SCHED_VS_PARKED); /* runnable once unparked */
		return sched_take_kicks(s);
	}
	v->c.wakes++;
	sched_add(&v->dom->c.wakes, 1);
	/* 3.0.4:687: boost a waking vCPU that is UNDER and not parked. 3.0.4 boosted every
	 * wake; the interface lets only event and timer wakes boost (Xen fixed its
	 * migration wakes in 2015). */
	if (event && cv->pri == C1_PRI_UNDER) {
		c1_set_pri(cv, C1_PRI_BOOST);
		v->c.boosts++;
		sched_add(&v->dom->c.boosts, 1);
		sched_trace_ev(s, v->pcpu, now, SCHED_EV_BOOST, v, cv->credit);
	} else if (event && cv->pri == C1_PRI_OVER) {
		v->c.boost_deny++;
		sched_add(&v->dom->c.boost_deny, 1);
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNABLE);
	c1_runq_insert(s, v->pcpu, v); /* 3.0.4:694: on its own pCPU, no cpu_pick */
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_WAKE, v, flags);
	return cpumask_or(c1_tickle(s, v->pcpu, v), sched_take_kicks(s)); /* 3.0.4:695 */
}

/* 3.0.4:629 csched_vcpu_sleep. */
static sched_cpumask_t c1_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	c1_advance(s, now);
	sched_cpumask_t kick = cpumask_none();
	if (v->state == SCHED_VS_RUNNING) {
		c1_charge(v, now);
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		kick = cpumask_of(v->pcpu);
	} else if (v->state == SCHED_VS_RUNNABLE) {
		c1_runq_remove(s, v);
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, 0);
	return cpumask_or(kick, sched_take_kicks(s));
}

/* schedule.c do_yield: raise the schedule softirq; csched_schedule requeues the current
 * vCPU behind the others of its priority (3.0.4:1168). */
static void c1_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	c1_advance(s, now);
	c1_charge(v, now);
	C1V(v)->flags |= C1_YIELD;
	v->c.yields++;
	sched_add(&v->dom->c.yields, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
}

/* Directed yield (issue 14). Xen 3.0.4 had none (its guests could only SCHEDOP_yield).
 * The least we can add: t jumps to the front of its pCPU's queue for the next schedule
 * there (pCPU.yield_next), with no credit or priority change, and v yields as 3.0.4
 * would when t is on its pCPU; otherwise t's pCPU is kicked and v goes on. */
static sched_cpumask_t c1_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				   uint64_t now)
{
	c1_advance(s, now);
	unsigned tp = SCHED_GET(t->pcpu);
	if (!sched_peer(s, tp) || SCHED_GET(t->pcpu) != tp || t->state != SCHED_VS_RUNNABLE)
		return sched_take_kicks(s); /* refused: t's pCPU is busy elsewhere, or t moved */
	s->pcpu[tp].yield_next = t;
	if (tp == v->pcpu) {
		c1_yield(s, v, now);
		return sched_take_kicks(s);
	}
	SCHED_PUT(s->pcpu[tp].resched, true);
	return cpumask_or(cpumask_of(tp), sched_take_kicks(s));
}

/* 3.0.4:1047 csched_runq_steal: the first queued vCPU of peer strictly better than pri
 * that may run on p; none from a peer whose current vCPU is idle. */
static struct sched_vcpu *c1_runq_steal(struct sched *s, unsigned peer, unsigned p, int pri)
{
	/* 3.0.4 tried the peer's lock and went on when it was taken (csched_load_balance). */
	if (!sched_peek(s, peer))
		return NULL;
	if (!s->pcpu[peer].curr) {
		sched_unpeer(s, peer);
		return NULL;
	}
	struct c1_list *rq = &C1P(s, peer)->runq;
	for (struct c1_list *it = rq->next; it != rq; it = it->next) {
		struct c1_vcpu *cv = c1_runq_entry(it);
		if (cv->pri <= pri)
			break; /* 3.0.4:1069 */
		if (sched_allowed(s, cv->v, p)) {
			c1_runq_remove(s, cv->v);
			return cv->v;
		}
	}
	sched_unpeer(s, peer);
	return NULL;
}

/* 3.0.4:1093 csched_load_balance: peers that are not idle, from p's neighbour on. */
static struct sched_vcpu *c1_load_balance(struct sched *s, unsigned p, int pri, uint64_t now)
{
	sched_cpumask_t workers = cpumask_without(
		cpumask_andnot(sched_all_pcpus(s), cpumask_load(&C1S(s)->idlers)), p);
	unsigned peer = p;
	while (!cpumask_empty(workers)) {
		peer = c1_cycle(s, peer, workers);
		cpumask_clear(&workers, peer);
		struct sched_vcpu *v = c1_runq_steal(s, peer, p, pri);
		if (v) {
			c1_move(s, v, p, now);
			sched_add(&C1S(s)->steals, 1);
			return v;
		}
	}
	return NULL;
}

/* Where pCPU p's timer must fire: its slice end (s_timer), its next tick while it runs a
 * vCPU (t_timer; the idle vCPU's ticks do nothing, 3.0.4:1021), and on the master the
 * accounting. */
static uint64_t c1_until(struct sched *s, unsigned p)
{
	struct c1_sched *c = C1S(s);
	uint64_t u = C1P(s, p)->slice_end;
	if (s->pcpu[p].curr && c->next_tick < u)
		u = c->next_tick;
	if (p == 0 && s->nr_vcpus) {
		uint64_t a = c1_next_acct(s);
		if (a < u)
			u = a;
	}
	return u;
}

/* 3.0.4:1153 csched_schedule. It runs only when the pCPU was signalled (tickle, sleep,
 * yield, park), at its slice end, or when idle; any other pick_next (a tick, the core's
 * own timer) keeps the current vCPU, as Xen's tick did not reschedule. */
static struct sched_pick c1_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	c1_advance(s, now);
	struct sched_pcpu *pc = &s->pcpu[p];
	struct c1_pcpu *cp = C1P(s, p);
	if (now >= cp->slice_end)
		c1_timer_slop(s, now); /* the s_timer fired: a tick due just after runs with it */
	struct sched_vcpu *prev = pc->curr, *next = NULL;
	struct sched_pick r = {NULL, SCHED_NEVER, {{0}}};
	bool runs = prev && prev->state == SCHED_VS_RUNNING;
	if (runs)
		c1_charge(prev, now);
	if (!SCHED_GET(pc->resched) && now < cp->slice_end && runs &&
	    !(C1V(prev)->flags & (C1_YIELD | C1_MOVE | C1_PARKED)) && !pc->yield_next) {
		r.vcpu = prev;
		r.run_until = c1_until(s, p);
		r.kick = cpumask_without(sched_take_kicks(s), p);
		return r;
	}
	SCHED_PUT(pc->resched, false);
	pc->picks++;
	bool move = false;
	if (runs && (C1V(prev)->flags & C1_PARKED)) {
		/* Parked by the accounting while it ran: off the pCPU, not runnable. */
		C1V(prev)->flags &= (uint16_t) ~(C1_YIELD | C1_MOVE);
		SCHED_PUT(prev->state, (uint8_t)SCHED_VS_PARKED);
	} else if (runs) { /* 3.0.4:1167: the current vCPU goes back in the queue */
		struct c1_vcpu *cv = C1V(prev);
		move = (cv->flags & C1_MOVE) || !sched_allowed(s, prev, p);
		cv->flags &= (uint16_t) ~(C1_YIELD | C1_MOVE);
		SCHED_PUT(prev->state, (uint8_t)SCHED_VS_RUNNABLE);
		if (!move)
			c1_runq_insert(s, p, prev);
	}
	next = sched_take_yield_next(s, p);
	if (next) {
		c1_runq_remove(s, next);
	} else {
		struct c1_list *rq = &cp->runq;
		struct sched_vcpu *head = c1_list_empty(rq) ? NULL : c1_runq_entry(rq->next)->v;
		int pri = c1_pri_of(head);
		/* 3.0.4:1182: only when the best local vCPU is OVER (or none) look at the
		 * peers for better work. */
		if (pri <= C1_PRI_OVER)
			next = c1_load_balance(s, p, pri, now);
		if (!next && head) {
			c1_runq_remove(s, head);
			next = head;
		}
	}
	if (move) { /* schedule.c:219 vcpu_migrate: pick_cpu, then wake there */
		unsigned to = c1_cpu_pick(s, prev);
		if (sched_peer(s, to)) {
			c1_move(s, prev, to, now);
			c1_runq_insert(s, prev->pcpu, prev);
			cpumask_or_atomic(&s->kick_pending, c1_tickle(s, prev->pcpu, prev));
		} else {
			c1_runq_insert(s, p, prev); /* where it may not run: finish moves it */
			sched_defer(s);
		}
	}
	/* 3.0.4:1191-1199: the idlers mask (each pCPU its own bit, atomically). */
	if (next)
		cpumask_clear_atomic(&C1S(s)->idlers, p);
	else
		cpumask_set_atomic(&C1S(s)->idlers, p);
	cp->slice_end = now + C1S(s)->tslice_ns; /* 3.0.4:1204, schedule.c:569 */
	if (prev && prev != next && prev->state == SCHED_VS_RUNNABLE) {
		sched_note_preempt(prev);
	}
	if (next) {
		SCHED_PUT(next->state, (uint8_t)SCHED_VS_RUNNING);
		next->since = now;
		if (next != prev) {
			next->c.switches++;
			sched_add(&next->dom->c.switches, 1);
			sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next,
				       prev ? (int64_t)prev->dom->id : -1);
		}
		if (next->in_spin_loop && next != prev)
			SCHED_PUT(next->in_spin_loop, false);
	}
	if (next != prev)
		pc->last_pick = now;
	SCHED_PUT(pc->curr, next);
	pc->curr_since = now;
	r.vcpu = next;
	r.run_until = c1_until(s, p);
	r.kick = cpumask_without(sched_take_kicks(s), p);
	return r;
}

/* 3.0.4:699 csched_dom_cntl: a new weight moves the active total; the cap is read by the
 * next accounting. */
static int c1_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			 uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	c1_advance(s, now);
	if (weight) {
		if (d->nr_vcpus && !c1_list_empty(&C1D(d)->active_sdom_elem))
			C1S(s)->weight = C1S(s)->weight - d->weight + weight;
		d->weight = weight;
	}
	d->cap = cap;
	return 0;
}

/* schedule.c vcpu_set_affinity: a vCPU off its allowed pCPUs moves through cpu_pick. */
static sched_cpumask_t c1_set_affinity(struct sched *s, struct sched_vcpu *v, sched_cpumask_t mask,
				       uint64_t now)
{
	c1_advance(s, now);
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu))
		return cpumask_none();
	if (v->state == SCHED_VS_RUNNING) {
		C1V(v)->flags |= C1_MOVE;
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		return cpumask_of(v->pcpu);
	}
	bool queued = v->state == SCHED_VS_RUNNABLE;
	if (queued)
		c1_runq_remove(s, v);
	c1_move(s, v, c1_cpu_pick(s, v), now);
	if (!queued)
		return cpumask_none();
	c1_runq_insert(s, v->pcpu, v);
	return c1_tickle(s, v->pcpu, v);
}

/* Every lock held: the ticks a call could not process, and vCPUs queued where their
 * affinity no longer lets them run (a move whose target's lock was taken). */
static sched_cpumask_t c1_finish(struct sched *s, uint64_t now)
{
	c1_advance(s, now);
	sched_cpumask_t k = cpumask_none();
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		struct c1_list *rq = &C1P(s, p)->runq, *it, *nx;
		for (it = rq->next; it != rq; it = nx) {
			nx = it->next;
			struct sched_vcpu *v = c1_runq_entry(it)->v;
			if (sched_allowed(s, v, p))
				continue;
			c1_runq_remove(s, v);
			c1_move(s, v, c1_cpu_pick(s, v), now);
			c1_runq_insert(s, v->pcpu, v);
			k = cpumask_or(k, c1_tickle(s, v->pcpu, v));
		}
	}
	return cpumask_or(k, sched_take_kicks(s));
}

const struct sched_ops sched_credit1_ops = {
	.name = "credit1",
	.init = c1_init,
	.vcpu_insert = c1_vcpu_insert,
	.vcpu_remove = c1_vcpu_remove,
	.wake = c1_wake,
	.sleep = c1_sleep,
	.yield = c1_yield,
	.yield_to = c1_yield_to,
	.pick_next = c1_pick_next,
	.set_params = c1_set_params,
	.set_affinity = c1_set_affinity,
	.params_changed = NULL,
	.dump = c1_dump,
	.finish = c1_finish,
	.audit = c1_audit,
	.config = c1_config,
	.slice_ns = c1_slice_ns,
};
