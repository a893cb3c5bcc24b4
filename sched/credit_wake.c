/* Credit policy: wakes (placement, boost or park), sleeps, yields and the directed yield.
 * The engine and the rules: credit.c's header and docs/scheduler.md. */
#include "sched/credit_priv.h"

/* May an event wake of v be boosted? Counts a denial when not. */
static inline __attribute__((always_inline)) bool may_boost(struct sched *s, struct sched_vcpu *v,
							    unsigned flags, uint64_t now)
{
	if (!(flags & (WAKE_EVENT | WAKE_TIMER)) ||
	    (flags & (WAKE_MIGRATE | WAKE_YIELD | WAKE_NEW)))
		return false;
	bool ok = cs(s)->p.boost_ns && cr_boost_budget(s, v) > -(int64_t)cs(s)->p.boost_debt_ns;
	if (ok && capped(v))
		ok = cr_cap_avail_now(s, v->dom, now) > -(int64_t)cs(s)->p.cap_debt_ns;
	if (!ok) {
		v->c.boost_deny++;
		sched_add(&v->dom->c.boost_deny, 1);
	}
	return ok;
}

static inline __attribute__((always_inline)) void boost(struct sched *s, struct sched_vcpu *v,
							uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST) {
		v->c.boosts++;
		sched_add(&v->dom->c.boosts, 1);
	} else {
		cr_boost_used(s, v); /* the latency slice it restarts */
	}
	SCHED_PUT(v->prio, (uint8_t)SCHED_PRI_BOOST);
	cv(v)->boost_left = cs(s)->p.boost_ns;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_BOOST, v, cr_vcredit(s, v));
}

static sched_cpumask_t wake_body(struct sched *s, struct sched_vcpu *v, uint64_t now,
				 unsigned flags)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	if (flags & (WAKE_EVENT | WAKE_TIMER)) {
		v->c.events++;
		sched_add(&v->dom->c.events, 1);
	}
	switch (v->state) {
	case SCHED_VS_RUNNING:
		/* An event for the running vCPU: guarantee it a latency slice from now, so a
		 * slice end or a cap lease does not deschedule it mid-handler. */
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		cr_charge(s, v, now);
		boost(s, v, now); /* (re)starts a full latency slice, debt permitting */
		cr_take_lease(s, v, now);
		/* Its pCPU re-arms for the slice's end when others wait: armed for a slice end
		 * up to 1 ms away, it ran boosted that long, and a boosted vCPU is not preempted
		 * by another one's wake (sched-fuzz seed 50: a wake waited 0.9 ms). */
		if (cr_queued(&s->pcpu[v->pcpu]) &&
		    s->pcpu[v->pcpu].armed > now + cv(v)->boost_left)
			cpumask_set(&kick, v->pcpu);
		return kick;
	case SCHED_VS_RUNNABLE:
		/* An event for a vCPU that waits in the queue: it is as urgent as a wake. */
		if (v->prio == SCHED_PRI_BOOST)
			return kick;
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		cr_heap_del(s, v);
		boost(s, v, now);
		cr_enqueue(s, v);
		return cr_with_kick(kick, cr_tickle(s, v));
	case SCHED_VS_PARKED:
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		cr_unpark(s, v, now);
		boost(s, v, now);
		cr_enqueue(s, v);
		return cr_with_kick(kick, cr_tickle(s, v));
	default:
		break;
	}

	/* BLOCKED: place it, restore its earning state, then boost, park or queue it. */
	v->c.wakes++;
	sched_add(&v->dom->c.wakes, 1);
	unsigned target = v->pcpu;
	/* Allowed on its own pCPU alone (pinned): nowhere else to look (its affinity as set
	 * tells it at once; sched_affinity's words only for the others). */
	bool pinned = cpumask_is_only(&v->affinity, target);
	sched_cpumask_t aff = pinned ? cpumask_of(target) : sched_affinity(s, v);
	if (!pinned && !cpumask_equal(aff, cpumask_of(target)) &&
	    (!cpumask_test(aff, target) || s->pcpu[target].curr || s->pcpu[target].nr_queued)) {
		/* Another pCPU is taken only with its lock: an idle one (a hint) waited for in
		 * the lock order or tried, the others (cr_off_pinned, cr_wake_beside_ahead)
		 * tried; without it v wakes on its own pCPU, where it may run (a vCPU whose
		 * affinity changes while blocked is moved at once). */
		int idle = cr_find_idle(s, aff);
		if (idle >= 0 && sched_peer(s, (unsigned)idle))
			target = (unsigned)idle;
		else if (!cpumask_test(aff, target)) {
			unsigned q = sched_least_loaded(s, aff);
			if (sched_peer(s, q))
				target = q;
		} else if (!(flags & WAKE_NEW)) {
			unsigned off = cr_off_pinned(s, v, target);
			target = off != target ? off : cr_wake_beside_ahead(s, v, target, now);
		}
	}
	if (target != v->pcpu)
		cr_transfer(s, v, target, now);
	struct sched_pcpu *pc = &s->pcpu[target];
	cr_vclock_advance(s, target, now);
	if (cv(v)->heap == HEAP_SLEEP)
		cr_sleeper_del(pc, v); /* still earning: keeps what it earned */
	/* At most one bank of credit, debt kept. The bank in virtual time follows the earning
	 * weight here now, which may have grown since v went to sleep. */
	if (cv(v)->flags & F_IDLE_RET)
		cr_restore_idle_lag(s, v);
	if (!cv(v)->w_acct)
		cr_activate(s, pc, v);
	uint64_t vt = cv(v)->vtime;
	cr_clamp_bank(s, v);
	if (cv(v)->vtime != vt)
		cv(v)->flags |= F_BANK_CUT;
	cv(v)->woke_at = now;
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	bool b = may_boost(s, v, flags, now);
	if (!b && capped(v) && cr_cap_avail_now(s, v->dom, now) <= 0) {
		cr_park(s, v, now);
		return kick;
	}
	if (b)
		boost(s, v, now);
	else
		SCHED_PUT(v->prio,
			  (uint8_t)SCHED_PRI_UNDER); /* cr_enqueue() sets UNDER/OVER from credit */
	cr_enqueue_quiet(s, v);
	credit_note(s, target);
	return cr_with_kick(kick, cr_tickle(s, v));
}

/* Puts a vCPU that stopped being runnable into its sleeping earning state. */
static void to_sleeper(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (cv(v)->w_acct &&
	    (int64_t)(cpc(pc)->vclock - cv(v)->vtime) < (int64_t)cr_bank_vt(s, v)) {
		cv(v)->hn.seq = sched_next_seq(s);
		cr_sleeper_insert(s, v);
	} else {
		cr_deactivate(s, pc, v);
	}
}

static sched_cpumask_t sleep_body(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	cr_vclock_advance(s, v->pcpu, now);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		cr_charge(s, v, now);
		cpumask_set(&kick, v->pcpu);
		break;
	case SCHED_VS_RUNNABLE:
	case SCHED_VS_PARKED:
		cr_heap_del(s, v);
		break;
	default:
		return kick;
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	cv(v)->flags &= (uint8_t) ~(F_YIELD | F_BANK_CUT);
	cr_unboost(s, v, now); /* the latency slice ends when the vCPU blocks */
	to_sleeper(s, v);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, cr_vcredit(s, v));
	cr_sleep_off_narrow(s, v, now);
	return kick;
}

void cr_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state != SCHED_VS_RUNNING)
		return;
	cv(v)->flags |= F_YIELD;
	v->c.yields++;
	sched_add(&v->dom->c.yields, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, cr_vcredit(s, v));
}

/* Directed yield (sched/yield_to.c chose t): t runs next on its own pCPU (set as that
 * pCPU's yield_next); v yields when that is its own pCPU, else the other is kicked with
 * resched set and v goes on. t is not moved to
 * v's pCPU: moving the target there on every exit let a spinning domain take twice its
 * share from hogs (the simulator, 12 lockstress vCPUs + 4 hogs on 8 pCPUs: 800% for an
 * entitlement of 400%); without the move its share stays within 0.2 pt. */
sched_cpumask_t cr_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
			    uint64_t now)
{
	unsigned q = SCHED_GET(t->pcpu);
	if (!sched_peer(s, q) ||
	    SCHED_GET(t->pcpu) != q) /* its pCPU is another's now, or it moved */
		return cpumask_none();
	if (t->state != SCHED_VS_RUNNABLE ||
	    (cv(t)->heap != HEAP_NORM && cv(t)->heap != HEAP_PIN && cv(t)->heap != HEAP_BOOST))
		return cpumask_none();
	/* Fairness: no jump for a target ahead by more than one slice of service of the vCPU
	 * it passes: its queue's head, or the vCPU it would
	 * preempt on another pCPU (vtimes of one pCPU compare), like CFS's next buddy. */
	struct sched_pcpu *tp = &s->pcpu[t->pcpu];
	struct sched_vcpu *h = cr_queue_head(tp), *c = tp->curr;
	if (h == t || (h && cv(h)->heap == HEAP_BOOST))
		h = NULL;
	if (c && c != v && c->state == SCHED_VS_RUNNING) {
		cr_settle_vt(c, now);
		if (!h || (int64_t)(cv(c)->vtime - cv(h)->vtime) < 0)
			h = c;
	}
	if (cv(t)->heap != HEAP_BOOST && h &&
	    (int64_t)(cv(t)->vtime - cv(h)->vtime) >
		    (int64_t)cr_ns_to_vt(cs(s)->p.tslice_ns, ew_of(t)))
		return cpumask_none();
	tp->yield_next = t;
	if (t->pcpu == v->pcpu) {
		cr_yield(s, v, now);
		return cpumask_none();
	}
	/* On another pCPU: t preempts there and v keeps its own pCPU (it exits again after
	 * the next window if the lock is still taken). A yield of v would hand its pCPU to
	 * any queued vCPU, often another domain's, while t's jump may still be overtaken
	 * there (a steal or a hand-over first): the simulator's two lockstress domains on 4
	 * pCPUs went from 50/50 to 25/75. */
	SCHED_PUT(tp->resched, true);
	return cpumask_of(t->pcpu);
}

/* The ops that can change a domain split recompute it before they return. */
sched_cpumask_t cr_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	sched_cpumask_t k = wake_body(s, v, now, flags);
	cr_rw_flush(s, now);
	return k;
}

sched_cpumask_t cr_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t k = sleep_body(s, v, now);
	cr_rw_flush(s, now);
	return k;
}
