/* Credit policy, tickless and exact, with a bounded latency boost.
 *
 * Two engines behind one ops table, chosen by credit.tick_us:
 *
 * tick_us = 0 (sliver, the default): every pCPU keeps a virtual clock `vclock` that advances
 *   at 2^16/W per ns, W being the summed weight of the vCPUs earning credit on it (runnable,
 *   running, parked, and sleepers whose credit is below the bank). A vCPU's `vtime` advances
 *   by run_ns*2^16/weight at every charge, so its credit in ns is
 *   (vclock - vtime) * weight / 2^16: earned in proportion to weight, burned per ns actually
 *   run, charged at every switch. Run queue order is BOOST (by `bvt`, below) then vtime, which is
 *   "most credit per weight first" and makes UNDER/OVER a reading, not a state.
 *   An EVENT or TIMER wake gets a latency slice (BOOST, credit.boost_us) even when OVER,
 *   as long as its boost budget allows: a second vtime `bvt` that only boosted ns advance,
 *   refilled by the same virtual clock (so at the vCPU's entitled rate), at most one
 *   period's entitlement deep, overdrawn by at most credit.boost_debt_us. The slice is
 *   charged like any run, so its debt is repaid by running later in the vtime order;
 *   the budget only bounds how much of its share a vCPU may take out of order (see
 *   docs/scheduler.md, invariants 6-7).
 *   Caps: a per-domain token bucket (rate cap%, depth cap% of credit.period_us); a run is
 *   leased from it, so the vCPU is parked at the exact ns its budget runs out and unparked
 *   at the exact ns the refill reaches one slice.
 *
 * tick_us > 0 (credit.profile=xen-credit1): Xen credit1 as measured in 2006: credit burned
 *   by sampling the running vCPU at each tick, distributed to active vCPUs every period,
 *   clipped to one slice either way; BOOST for an UNDER vCPU that wakes, until the next tick
 *   that finds it running; FIFO within a priority; caps by parking at accounting.
 *
 * Files: this one has the run queues, charging and the ops; credit_vt.c the virtual time,
 * sleepers, the domain split and the boost budget; credit_cap.c caps; credit_c1.c the
 * credit1 engine; credit_balance.c everything between pCPUs (placement, stealing,
 * hand-off, pull, balancing); credit_priv.h what they share.
 */
#include "sched/credit_priv.h"

void cr_heap_del(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	switch (cv(v)->heap) {
	case HEAP_BOOST:
		hn_remove(&cpc(pc)->rq_boost, &cv(v)->hn);
		pc->nr_queued--;
		break;
	case HEAP_NORM:
		hn_remove(&cpc(pc)->rq_norm, &cv(v)->hn);
		pc->nr_queued--;
		break;
	case HEAP_PIN:
		hn_remove(&cpc(pc)->rq_pin, &cv(v)->hn);
		pc->nr_queued--;
		break;
	case HEAP_SLEEP:
		hn_remove(&cpc(pc)->sleepers, &cv(v)->hn);
		cpc(pc)->w_sleep -= cv(v)->w_acct;
		if (cv(v)->flags & F_MSLEEP) {
			cv(v)->flags &= (uint8_t)~F_MSLEEP;
			cpc(pc)->nr_msleep--;
		}
		break;
	case HEAP_PARK:
		hn_remove(&cpc(pc)->parked, &cv(v)->hn);
		break;
	}
	cv(v)->heap = HEAP_NONE;
	credit_note(s, v->pcpu);
}

void cr_enqueue(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	v->state = SCHED_VS_RUNNABLE;
	cv(v)->hn.seq = s->seq++;
	if (v->prio == SCHED_PRI_BOOST) {
		/* credit1: FIFO. sliver: least boosted time per weight first (start-time fair
		 * queueing on bvt, the virtual time only boosted ns advance): a vCPU that wakes
		 * often and spends its boost budget cannot queue ahead of one that wakes
		 * rarely, however many wakes it makes (the fuzzer next to an echo domain). */
		cv(v)->hn.key = c1_mode(s) ? cv(v)->hn.seq : cv(v)->bvt;
		cv(v)->heap = HEAP_BOOST;
		hn_insert(&cpc(pc)->rq_boost, &cv(v)->hn);
	} else {
		if (c1_mode(s)) {
			cv(v)->hn.key = ((uint64_t)v->prio << KEY_PRIO_SHIFT) | cv(v)->hn.seq;
		} else {
			cv(v)->hn.key = cv(v)->vtime;
			v->prio = cr_vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER;
		}
		/* Pinned vCPUs (allowed only here) queue apart, so that the movable ones are
		 * at a heap root where stealing and balancing see them at once, however many
		 * pinned vCPUs are ahead of them in line. */
		if (sched_affinity(s, v) == SCHED_CPU(v->pcpu)) {
			cv(v)->heap = HEAP_PIN;
			hn_insert(&cpc(pc)->rq_pin, &cv(v)->hn);
		} else {
			cv(v)->heap = HEAP_NORM;
			hn_insert(&cpc(pc)->rq_norm, &cv(v)->hn);
		}
	}
	pc->nr_queued++;
	credit_note(s, v->pcpu);
}

static struct sched_vcpu *queue_head(struct sched_pcpu *pc)
{
	struct sched_vcpu *b = cr_min(cpc(pc)->rq_boost);
	if (b)
		return b;
	if (!cpc(pc)->rq_pin || (cpc(pc)->rq_norm && hn_less(cpc(pc)->rq_norm, cpc(pc)->rq_pin)))
		return cr_min(cpc(pc)->rq_norm);
	return cr_min(cpc(pc)->rq_pin);
}

/* Moves a vCPU that is on no run queue (its heap is NONE, SLEEP or PARK) to pCPU `to`,
 * keeping its credit (lag; a debt only partly, beside a pinned queue) and its earning
 * state. */
void cr_transfer(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	unsigned from = v->pcpu;
	if (from == to)
		return;
	struct sched_pcpu *pf = &s->pcpu[from], *pt = &s->pcpu[to];
	cr_vclock_advance(s, from, now);
	cr_vclock_advance(s, to, now);
	uint8_t heap = cv(v)->heap;
	if (heap == HEAP_SLEEP || heap == HEAP_PARK)
		cr_heap_del(s, v);
	cv(v)->vtime = cv(v)->vtime - cpc(pf)->vclock + cpc(pt)->vclock;
	cv(v)->bvt = cv(v)->bvt - cpc(pf)->vclock + cpc(pt)->vclock;
	cr_by_service_beside_pinned(s, v, to, now);
	if (cv(v)->w_acct) {
		cpc(pf)->w_active -= cv(v)->w_acct;
		cpc(pt)->w_active += cv(v)->w_acct;
	}
	pf->nr_vcpus--;
	pt->nr_vcpus++;
	v->pcpu = (uint16_t)to;
	v->c.migrations++;
	v->dom->c.migrations++;
	sched_trace_ev(s, from, now, SCHED_EV_MIGRATE, v, to);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
	if (heap == HEAP_SLEEP) {
		cr_sleeper_insert(s, v);
	} else if (heap == HEAP_PARK) {
		cv(v)->hn.key = cv(v)->park_until;
		cv(v)->heap = HEAP_PARK;
		hn_insert(&cpc(pt)->parked, &cv(v)->hn);
	}
}

static void charge(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	uint64_t dt = now > v->since ? now - v->since : 0;
	v->since = now;
	if (capped(s, v)) {
		/* Refill first (the lease still counts, so a bucket that was full when the lease
		 * began keeps the refill earned while it drained), then consume. */
		cr_cap_refill(s, d, now);
		cd(d)->cap_tokens -= (int64_t)dt;
		cd(d)->cap_reserved -= (int64_t)cv(v)->lease;
		cv(v)->lease = 0;
		if (cd(d)->cap_tokens > cr_cap_depth(s, d))
			cd(d)->cap_tokens = cr_cap_depth(s, d);
	}
	if (!dt)
		return;
	v->c.run_ns += dt;
	d->c.run_ns += dt;
	if (v->prio == SCHED_PRI_BOOST) {
		v->c.boost_ns += dt;
		d->c.boost_ns += dt;
		/* The budget pays for the latency slice used, not for the rest of a normal
		 * slice the vCPU already held when an event boosted it while running. */
		uint64_t used = cv(v)->boost_left < dt ? cv(v)->boost_left : dt;
		cv(v)->boost_left -= used;
		if (!c1_mode(s))
			cv(v)->bvt = cr_vt_add(cv(v)->bvt, used, ew_of(v), &cv(v)->bvrem);
	}
	if (c1_mode(s) && !cs(s)->p.burn_sampled)
		cv(v)->credit -= (int64_t)dt; /* Xen >= 4.0 burn_credits(): exact */
	if (!c1_mode(s))
		cr_settle_vt(v, now);
	else
		cv(v)->vt_since = now;
}

void cr_unboost(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST)
		return;
	cv(v)->boost_left = 0;
	v->prio = cr_vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNBOOST, v, cr_vcredit(s, v));
}

static void credit_init(struct sched *s)
{
	cr_apply_profile(&cs(s)->p, CREDIT_PROFILE_SLIVER);
	for (unsigned p = 0; p < SCHED_MAX_PCPUS; p++)
		cpc(&s->pcpu[p])->vclock = VCLOCK_BASE;
	cs(s)->idle_mask = sched_all_pcpus(s);
	cs(s)->move_mask = 0;
	cs(s)->pin_mask = 0;
}

static int credit_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	if (!d || d->weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (!d->weight)
		d->weight = SCHED_DEFAULT_WEIGHT;
	cr_c1_catch_up(s, now);
	unsigned p = sched_least_loaded(s, sched_affinity(s, v));
	cr_vclock_advance(s, p, now);
	v->pcpu = (uint16_t)p;
	v->state = SCHED_VS_BLOCKED;
	v->prio = SCHED_PRI_UNDER;
	cv(v)->heap = HEAP_NONE;
	cv(v)->flags = 0;
	cv(v)->vtime = cpc(&s->pcpu[p])->vclock + cr_start_offset(s, v);
	cv(v)->gvt = cv(v)->vtime;
	cv(v)->vrem = 0;
	cv(v)->bvt = cv(v)->vtime;
	cv(v)->bvrem = 0;
	cv(v)->vt_since = now;
	cv(v)->bal_hold = 0;
	cv(v)->credit = 0;
	cv(v)->w_acct = 0;
	cv(v)->lease = 0;
	cv(v)->boost_left = 0;
	v->since = now;
	s->pcpu[p].nr_vcpus++;
	s->nr_vcpus++;
	if (d->nr_vcpus++ == 0) {
		cd(d)->nr_earn = 0;
		cd(d)->rw_pending = false;
		cd(d)->cap_tokens = cr_cap_depth(s, d);
		cd(d)->cap_reserved = 0;
		cd(d)->cap_last = now;
		cd(d)->cap_rem = 0;
	}
	v->next_in_dom = d->vcpus;
	d->vcpus = v;
	sched_dom_link(s, d);
	return 0;
}

static void credit_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	struct sched_dom *d = v->dom;
	cr_vclock_advance(s, v->pcpu, now);
	if (pc->curr == v) {
		if (v->state == SCHED_VS_RUNNING)
			charge(s, v, now);
		pc->curr = NULL;
		credit_note(s, v->pcpu);
	}
	cr_heap_del(s, v);
	sched_yield_forget(s, v);
	cr_deactivate(s, pc, v);
	v->state = SCHED_VS_BLOCKED;
	pc->nr_vcpus--;
	s->nr_vcpus--;
	struct sched_vcpu **pp = &d->vcpus;
	while (*pp && *pp != v)
		pp = &(*pp)->next_in_dom;
	if (*pp)
		*pp = v->next_in_dom;
	if (--d->nr_vcpus == 0)
		sched_dom_unlink(s, d);
	cr_rw_flush(s, now);
}

/* May an event wake of v be boosted? Counts a denial when not. */
static bool may_boost(struct sched *s, struct sched_vcpu *v, unsigned flags, uint64_t now)
{
	bool ok;
	if (!(flags & (WAKE_EVENT | WAKE_TIMER)) ||
	    (flags & (WAKE_MIGRATE | WAKE_YIELD | WAKE_NEW)))
		return false;
	if (c1_mode(s)) {
		/* credit1: only an UNDER (or still BOOST) vCPU that is not parked. */
		ok = v->prio <= SCHED_PRI_UNDER && !(cv(v)->flags & F_C1_PARK);
	} else {
		ok = cs(s)->p.boost_ns && cr_boost_budget(s, v) > -(int64_t)cs(s)->p.boost_debt_ns;
		if (ok && capped(s, v)) {
			cr_cap_refill(s, v->dom, now);
			ok = cap_avail(v->dom) > -(int64_t)cs(s)->p.cap_debt_ns;
		}
	}
	if (!ok) {
		v->c.boost_deny++;
		v->dom->c.boost_deny++;
	}
	return ok;
}

static void boost(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST) {
		v->c.boosts++;
		v->dom->c.boosts++;
	}
	v->prio = SCHED_PRI_BOOST;
	cv(v)->boost_left = cs(s)->p.boost_ns;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_BOOST, v, cr_vcredit(s, v));
}

static sched_cpumask_t wake_body(struct sched *s, struct sched_vcpu *v, uint64_t now,
				 unsigned flags)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	cr_c1_catch_up(s, now);
	if (flags & (WAKE_EVENT | WAKE_TIMER)) {
		v->c.events++;
		v->dom->c.events++;
	}
	switch (v->state) {
	case SCHED_VS_RUNNING:
		/* An event for the running vCPU: guarantee it a latency slice from now, so a
		 * slice end or a cap lease does not deschedule it mid-handler. */
		if (c1_mode(s))
			return kick;
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		charge(s, v, now);
		boost(s, v, now); /* (re)starts a full latency slice, debt permitting */
		cr_take_lease(s, v, now);
		return kick;
	case SCHED_VS_RUNNABLE:
		/* An event for a vCPU that waits in the queue: it is as urgent as a wake. */
		if (c1_mode(s) || v->prio == SCHED_PRI_BOOST)
			return kick;
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		cr_heap_del(s, v);
		boost(s, v, now);
		cr_enqueue(s, v);
		return kick | cr_tickle(s, v);
	case SCHED_VS_PARKED:
		if (c1_mode(s))
			return kick;
		cr_vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		cr_unpark(s, v, now);
		boost(s, v, now);
		cr_enqueue(s, v);
		return kick | cr_tickle(s, v);
	default:
		break;
	}

	/* BLOCKED: place it, restore its earning state, then boost, park or queue it. */
	v->c.wakes++;
	v->dom->c.wakes++;
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned target = v->pcpu;
	if (!(aff & SCHED_CPU(target)) || s->pcpu[target].curr || s->pcpu[target].nr_queued) {
		int idle = cr_find_idle(s, aff);
		if (idle >= 0)
			target = (unsigned)idle;
		else if (!(aff & SCHED_CPU(target)))
			target = sched_least_loaded(s, aff);
		else if (!(flags & WAKE_NEW))
			target = cr_off_pinned(s, v, target);
	}
	cr_transfer(s, v, target, now);
	struct sched_pcpu *pc = &s->pcpu[target];
	cr_vclock_advance(s, target, now);
	if (!c1_mode(s)) {
		if (cv(v)->heap == HEAP_SLEEP)
			cr_heap_del(s, v); /* still earning: keeps what it earned */
		/* At most one bank of credit, debt kept. The bank in virtual time follows the
		 * earning weight here now, which may have grown since v went to sleep. */
		cr_activate(s, pc, v);
		cr_clamp_bank(s, v);
	}
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	bool b = may_boost(s, v, flags, now);
	if (!b && c1_mode(s) && (cv(v)->flags & F_C1_PARK)) {
		cr_park(s, v, now);
		return kick;
	}
	if (!b && capped(s, v)) {
		cr_cap_refill(s, v->dom, now);
		if (cap_avail(v->dom) <= 0) {
			cr_park(s, v, now);
			return kick;
		}
	}
	if (b)
		boost(s, v, now);
	else if (!c1_mode(s))
		v->prio = SCHED_PRI_UNDER; /* cr_enqueue() sets UNDER/OVER from credit */
	cr_enqueue(s, v);
	return kick | cr_tickle(s, v);
}

/* Puts a vCPU that stopped being runnable into its sleeping earning state. */
static void to_sleeper(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (c1_mode(s))
		return;
	if (cv(v)->w_acct && (int64_t)(cpc(pc)->vclock - cv(v)->vtime) < (int64_t)cr_bank_vt(s, v)) {
		cv(v)->hn.seq = s->seq++;
		cr_sleeper_insert(s, v);
	} else {
		cr_deactivate(s, pc, v);
	}
}

static sched_cpumask_t sleep_body(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	cr_c1_catch_up(s, now);
	cr_vclock_advance(s, v->pcpu, now);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		charge(s, v, now);
		kick |= SCHED_CPU(v->pcpu);
		break;
	case SCHED_VS_RUNNABLE:
	case SCHED_VS_PARKED:
		cr_heap_del(s, v);
		break;
	default:
		return kick;
	}
	v->state = SCHED_VS_BLOCKED;
	cv(v)->flags &= (uint8_t)~F_YIELD;
	if (!c1_mode(s))
		cr_unboost(s, v, now); /* the latency slice ends when the vCPU blocks */
	to_sleeper(s, v);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, cr_vcredit(s, v));
	return kick;
}

static void credit_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state != SCHED_VS_RUNNING)
		return;
	cv(v)->flags |= F_YIELD;
	v->c.yields++;
	v->dom->c.yields++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, cr_vcredit(s, v));
}

static struct sched_vcpu *queue_head(struct sched_pcpu *pc);

/* Directed yield (sched/yield_to.c chose t): t runs next on its own pCPU (set as that
 * pCPU's yield_next); v yields when that is its own pCPU, else the other is kicked with
 * resched set and v goes on. t is not moved to
 * v's pCPU: moving the target there on every exit let a spinning domain take twice its
 * share from hogs (the simulator, 12 lockstress vCPUs + 4 hogs on 8 pCPUs: 800% for an
 * entitlement of 400%); without the move its share stays within 0.2 pt. */
static sched_cpumask_t credit_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				       uint64_t now)
{
	if (t->state != SCHED_VS_RUNNABLE ||
	    (cv(t)->heap != HEAP_NORM && cv(t)->heap != HEAP_PIN && cv(t)->heap != HEAP_BOOST))
		return 0;
	/* Fairness: no jump for a target ahead by more than one slice of service (credit1:
	 * one without credit) of the vCPU it passes: its queue's head, or the vCPU it would
	 * preempt on another pCPU (vtimes of one pCPU compare), like CFS's next buddy. */
	struct sched_pcpu *tp = &s->pcpu[t->pcpu];
	struct sched_vcpu *h = queue_head(tp), *c = tp->curr;
	if (h == t || (h && cv(h)->heap == HEAP_BOOST))
		h = NULL;
	if (c && c != v && c->state == SCHED_VS_RUNNING) {
		cr_settle_vt(c, now);
		if (!h || (int64_t)(cv(c)->vtime - cv(h)->vtime) < 0)
			h = c;
	}
	if (c1_mode(s) ? t->prio == SCHED_PRI_OVER
		       : cv(t)->heap != HEAP_BOOST && h &&
				 (int64_t)(cv(t)->vtime - cv(h)->vtime) >
					 (int64_t)cr_ns_to_vt(cs(s)->p.tslice_ns, ew_of(t)))
		return 0;
	tp->yield_next = t;
	if (t->pcpu == v->pcpu) {
		credit_yield(s, v, now);
		return 0;
	}
	/* On another pCPU: t preempts there and v keeps its own pCPU (it exits again after
	 * the next window if the lock is still taken). A yield of v would hand its pCPU to
	 * any queued vCPU, often another domain's, while t's jump may still be overtaken
	 * there (a steal or a hand-over first): the simulator's two lockstress domains on 4
	 * pCPUs went from 50/50 to 25/75. */
	tp->resched = true;
	return SCHED_CPU(t->pcpu);
}

/* The slice length of v: its latency slice when boosted (sliver), else the time slice. */
static uint64_t slice_of(const struct sched *s, const struct sched_vcpu *v)
{
	return v->prio == SCHED_PRI_BOOST && !c1_mode(s) ? cs(s)->p.boost_ns : cs(s)->p.tslice_ns;
}

/* Charges the current vCPU and decides whether it keeps the pCPU. Returns it when it does;
 * otherwise it was requeued (*requeued set), parked, moved or had blocked. */
static struct sched_vcpu *decide_current(struct sched *s, unsigned p, uint64_t now,
					 struct sched_pick *r, bool *requeued,
					 uint64_t *ratelimit_until)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *cur = pc->curr;
	*requeued = false;
	if (!cur || cur->state != SCHED_VS_RUNNING)
		return NULL;
	charge(s, cur, now);
	if (cv(cur)->flags & F_MOVE) {
		r->kick |= cr_move_away(s, cur, now);
		return NULL;
	}
	if (cv(cur)->flags & F_PULL) {
		/* An idle pCPU asked for it (pull_running): go there if it still idles. */
		cv(cur)->flags &= (uint8_t)~F_PULL;
		int idle = cr_find_idle(s, sched_affinity(s, cur) & ~SCHED_CPU(p));
		if (idle >= 0 && pc->nr_queued && cur->prio != SCHED_PRI_BOOST) {
			cur->state = SCHED_VS_BLOCKED;
			cr_transfer(s, cur, (unsigned)idle, now);
			cr_enqueue(s, cur);
			r->kick |= SCHED_CPU((unsigned)idle);
			return NULL;
		}
	}
	bool park_now = false, was_boosted = false;
	if (c1_mode(s)) {
		park_now = cv(cur)->flags & F_C1_PARK;
	} else {
		if (cur->prio == SCHED_PRI_BOOST && cv(cur)->boost_left == 0) {
			cr_unboost(s, cur, now);
			was_boosted = true;
		}
		park_now = capped(s, cur) && cap_avail(cur->dom) <= 0 &&
			   (cur->prio != SCHED_PRI_BOOST ||
			    cap_avail(cur->dom) <= -(int64_t)cs(s)->p.cap_debt_ns);
	}
	if (park_now) {
		cur->state = SCHED_VS_BLOCKED;
		cr_park(s, cur, now);
		return NULL;
	}
	bool yielded = cv(cur)->flags & F_YIELD;
	bool boosted = cur->prio == SCHED_PRI_BOOST && !c1_mode(s);
	/* A latency slice that just ended sends the vCPU back in line (vtime order). */
	bool expired = boosted ? cv(cur)->boost_left == 0
			       : was_boosted || now >= pc->curr_since + slice_of(s, cur);
	/* A boosted vCPU finishes its (short) latency slice; others yield to a tickle. */
	bool want = yielded || expired || (pc->resched && !boosted);
	if (expired && !yielded)
		cur->in_spin_loop = false; /* ran a full slice: a directed-yield target again */
	if (want && !yielded && cs(s)->p.ratelimit_ns && now < cv(cur)->run_start + cs(s)->p.ratelimit_ns &&
	    queue_head(pc)) {
		/* Ratelimit: keep it, decide again when it has run long enough. */
		*ratelimit_until = cv(cur)->run_start + cs(s)->p.ratelimit_ns;
		want = false;
	}
	if (!want && cr_take_lease(s, cur, now))
		return cur;
	cur->state = SCHED_VS_BLOCKED;
	cr_enqueue(s, cur);
	*requeued = true;
	return NULL;
}

static struct sched_pick credit_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_pick r = {NULL, SCHED_NEVER, 0};
	r.kick = sched_take_kicks(s);
	cr_c1_catch_up(s, now);
	cr_vclock_advance(s, p, now);
	cr_unpark_due(s, p, now);
	pc->picks++;

	struct sched_vcpu *cur = pc->curr;
	bool requeued;
	uint64_t ratelimit_until = 0;
	struct sched_vcpu *next = decide_current(s, p, now, &r, &requeued, &ratelimit_until);
	bool new_slice = next == NULL;
	if (!ratelimit_until)
		pc->resched = false;

	struct sched_vcpu *yielder = requeued && (cv(cur)->flags & F_YIELD) ? cur : NULL;
	if (yielder)
		cv(yielder)->flags &= (uint8_t)~F_YIELD;
	while (!next) {
		next = sched_take_yield_next(s, p);
		if (!next)
			next = queue_head(pc);
		if (next && next == yielder) {
			/* A yield gives way to anyone else queued here, once. */
			cr_heap_del(s, yielder);
			struct sched_vcpu *other = queue_head(pc);
			cr_enqueue(s, yielder);
			if (other)
				next = other;
		}
		yielder = NULL;
		if (next) {
			cr_heap_del(s, next);
			if (cr_hand_to_idle(s, p, next, now, &r.kick)) {
				next = NULL;
				continue;
			}
		} else if (!(next = cr_steal(s, p, now))) {
			break;
		}
		next->state = SCHED_VS_RUNNING;
		if (!cr_take_lease(s, next, now)) {
			next->state = SCHED_VS_BLOCKED;
			cr_park(s, next, now);
			next = NULL;
		}
	}
	if (new_slice && next)
		r.kick |= cr_balance_push(s, p, next, requeued ? cur : NULL, now);
	if (!next)
		r.kick |= cr_pull_running(s, p);

	pc->curr = next;
	credit_note(s, p);
	if (!next) {
		pc->curr_since = now;
	} else {
		if (next != cur) {
			next->c.switches++;
			next->dom->c.switches++;
			cv(next)->run_start = now;
			if (cur && cur->state == SCHED_VS_RUNNABLE) {
				cur->c.preempts++;
				cur->dom->c.preempts++;
			}
			sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next,
				       cur ? (int64_t)cur->dom->id : -1);
		}
		if (new_slice)
			pc->curr_since = now;
		next->state = SCHED_VS_RUNNING;
		next->since = now;
		cv(next)->vt_since = now;
		r.vcpu = next;
		if (!c1_mode(s) && next->prio == SCHED_PRI_BOOST)
			r.run_until = now + cv(next)->boost_left;
		else if (queue_head(pc) || c1_mode(s))
			r.run_until = pc->curr_since + cs(s)->p.tslice_ns;
		if (ratelimit_until)
			r.run_until = ratelimit_until;
		if (capped(s, next))
			r.run_until = min_u64(r.run_until, now + cv(next)->lease);
	}
	struct sched_vcpu *pk = cr_min(cpc(pc)->parked);
	if (pk)
		r.run_until = min_u64(r.run_until, cv(pk)->park_until);
	if (c1_mode(s))
		r.run_until = min_u64(r.run_until, cs(s)->next_tick);
	cr_rw_flush(s, now);
	if (cpc(pc)->nr_msleep && cpc(pc)->w_active && !c1_mode(s)) {
		/* A sleeper whose retirement changes its domain's split elsewhere: be there. */
		uint64_t ns = cr_retire_ns(pc, cr_min(cpc(pc)->sleepers));
		if (ns != UINT64_MAX)
			r.run_until = min_u64(r.run_until, now + ns);
	}
	if (r.run_until <= now)
		r.run_until = now + 1;
	pc->armed = r.run_until;
	/* Work queued anywhere that an idle pCPU could run: kick that one to steal. */
	if (cs(s)->idle_mask && cs(s)->move_mask)
		r.kick |= cr_kick_idle_for_work(s);
	r.kick &= ~SCHED_CPU(p);
	return r;
}

static int credit_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			     uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT || cap > 100 * SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	cr_c1_catch_up(s, now);
	if (weight && weight != d->weight) {
		d->weight = weight; /* its vCPUs' parts change at `now` (rw_flush below) */
		cr_rw_mark(s, d);
		cr_rw_flush(s, now);
	}
	if (cap != d->cap) {
		cr_cap_refill(s, d, now);
		uint32_t old = d->cap;
		d->cap = cap;
		cd(d)->cap_last = now;
		cd(d)->cap_rem = 0;
		if (!old || cd(d)->cap_tokens > cr_cap_depth(s, d))
			cd(d)->cap_tokens = cr_cap_depth(s, d);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (v->state != SCHED_VS_PARKED)
				continue;
			/* Re-time the unpark under the new cap (now, if uncapped). */
			cv(v)->park_until = now;
			cr_heap_del(s, v);
			cv(v)->hn.key = now;
			cv(v)->heap = HEAP_PARK;
			hn_insert(&cpc(&s->pcpu[v->pcpu])->parked, &cv(v)->hn);
			s->kick_pending |= SCHED_CPU(v->pcpu);
		}
		if (!cap)
			for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
				cv(v)->flags &= (uint8_t)~F_C1_PARK;
	}
	return 0;
}

static sched_cpumask_t set_affinity_body(struct sched *s, struct sched_vcpu *v,
					 sched_cpumask_t mask, uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu)) {
		bool pin = sched_affinity(s, v) == SCHED_CPU(v->pcpu);
		if (cv(v)->heap != (pin ? HEAP_NORM : HEAP_PIN))
			return sched_take_kicks(s);
		/* Queued, and it became movable or pinned: requeue it in the right heap; an
		 * idle pCPU it may now run on is kicked to steal it. */
		cr_heap_del(s, v);
		cr_enqueue(s, v);
		int idle = pin ? -1 : cr_find_idle(s, sched_affinity(s, v) & ~SCHED_CPU(v->pcpu));
		return sched_take_kicks(s) | (idle >= 0 ? SCHED_CPU((unsigned)idle) : 0);
	}
	sched_cpumask_t aff = sched_affinity(s, v);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		cv(v)->flags |= F_MOVE;
		s->pcpu[v->pcpu].resched = true;
		return sched_take_kicks(s) | SCHED_CPU(v->pcpu);
	case SCHED_VS_RUNNABLE:
		cr_vclock_advance(s, v->pcpu, now);
		cr_heap_del(s, v);
		cr_transfer(s, v, sched_least_loaded(s, aff), now);
		if (v->prio == SCHED_PRI_BOOST)
			cr_unboost(s, v, now); /* moving is not an event */
		cr_enqueue(s, v);
		return sched_take_kicks(s) | cr_tickle(s, v);
	default:
		cr_transfer(s, v, sched_least_loaded(s, aff), now);
		return sched_take_kicks(s);
	}
}

/* The ops that can change a domain split recompute it before they return. */
static sched_cpumask_t credit_wake(struct sched *s, struct sched_vcpu *v, uint64_t now,
				   unsigned flags)
{
	sched_cpumask_t k = wake_body(s, v, now, flags);
	cr_rw_flush(s, now);
	return k;
}

static sched_cpumask_t credit_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t k = sleep_body(s, v, now);
	cr_rw_flush(s, now);
	return k;
}

static sched_cpumask_t credit_set_affinity(struct sched *s, struct sched_vcpu *v,
					   sched_cpumask_t mask, uint64_t now)
{
	sched_cpumask_t k = set_affinity_body(s, v, mask, now);
	cr_rw_flush(s, now);
	return k;
}

const struct sched_ops sched_credit_ops = {
	.name = "credit",
	.init = credit_init,
	.vcpu_insert = credit_vcpu_insert,
	.vcpu_remove = credit_vcpu_remove,
	.wake = credit_wake,
	.sleep = credit_sleep,
	.yield = credit_yield,
	.yield_to = credit_yield_to,
	.pick_next = credit_pick_next,
	.set_params = credit_set_params,
	.set_affinity = credit_set_affinity,
	.params_changed = NULL, /* its config op applies its own keys */
	.dump = cr_dump,
	.config = cr_config,
	.config_get = cr_config_get,
	.config_show = cr_config_show,
	.slice_ns = cr_slice_ns,
};
