/* Credit policy (sched=credit, sliver's own), tickless and exact, with a bounded latency
 * boost. Xen credit1 as it was is a policy of its own, sched=credit1 (sched/credit1*.c).
 *
 * Every pCPU keeps a virtual clock `vclock` that advances at 2^16/W per ns, W being the
 * summed weight of the vCPUs earning credit on it (runnable, running, parked, and sleepers
 * whose credit is below the bank). A vCPU's `vtime` advances by run_ns*2^16/weight at every
 * charge, so its credit in ns is (vclock - vtime) * weight / 2^16: earned in proportion to
 * weight, burned per ns actually run, charged at every switch. Run queue order is BOOST (by
 * `bvt`, below) then vtime, which is "most credit per weight first" and makes UNDER/OVER a
 * reading, not a state.
 * An EVENT or TIMER wake gets a latency slice (BOOST, credit.boost_us) even when OVER, as
 * long as its boost budget allows: a second vtime `bvt` that only boosted ns advance,
 * refilled by the same virtual clock (so at the vCPU's entitled rate), at most one period's
 * entitlement deep, overdrawn by at most credit.boost_debt_us. The slice is charged like any
 * run, so its debt is repaid by running later in the vtime order; the budget only bounds
 * how much of its share a vCPU may take out of order (see docs/scheduler.md, invariants
 * 6-7).
 * Caps: a per-domain token bucket (rate cap%, depth cap% of credit.period_us); a run is
 * leased from it, so the vCPU is parked at the exact ns its budget runs out and unparked at
 * the exact ns the refill reaches one slice.
 *
 * Files: this one has the run queues, charging, insert/remove, domain parameters, affinity
 * and the ops table; credit_wake.c wakes, sleeps and yields; credit_pick.c the decision
 * (pick_next); credit_vt.c the virtual time, sleepers, the domain split and the boost
 * budget; credit_cap.c caps; credit_balance.c everything between pCPUs (placement,
 * stealing, hand-off, pull, balancing); credit_config.c its parameters and `credit.*` keys;
 * credit_priv.h its private state (SCHED_PRIV) and what the files share.
 */
#include "sched/credit_priv.h"

/* Takes v off the heap it is in; true when that was a run queue (the pCPU's summaries may
 * have changed: credit_note). */
static bool heap_del(struct sched *s, struct sched_vcpu *v)
{
	SCHED_HELD(s, v->pcpu);
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	switch (cv(v)->heap) {
	case HEAP_BOOST:
	case HEAP_NORM:
	case HEAP_PIN:
		cr_runq_del(pc, v, cv(v)->heap);
		return true;
	case HEAP_SLEEP:
		cr_sleeper_del(pc, v);
		return false; /* no run queue changed: the summaries stay (credit_note) */
	case HEAP_PARK:
		hn_remove(&cpc(pc)->parked, &cv(v)->hn);
		cpc(pc)->w_park -= cv(v)->w_acct;
		cv(v)->heap = HEAP_NONE;
		return false;
	}
	cv(v)->heap = HEAP_NONE;
	return true;
}

void cr_heap_del(struct sched *s, struct sched_vcpu *v)
{
	if (heap_del(s, v))
		credit_note(s, v->pcpu);
}

/* A pick's own dequeue and requeue on its pCPU: it notes that pCPU once, at its end, and
 * reads no bit of its own before (only other pCPUs' bits, as hints). */
void cr_heap_del_quiet(struct sched *s, struct sched_vcpu *v)
{
	heap_del(s, v);
}

void cr_enqueue(struct sched *s, struct sched_vcpu *v)
{
	cr_enqueue_quiet(s, v);
	credit_note(s, v->pcpu);
}

/* Moves a vCPU that is on no run queue (its heap is NONE, SLEEP or PARK) to pCPU `to`,
 * keeping its credit (lag; a debt only partly, beside a pinned queue) and its earning
 * state. */
void cr_transfer(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	unsigned from = v->pcpu;
	if (from == to)
		return;
	SCHED_HELD(s, from);
	SCHED_HELD(s, to);
	struct sched_pcpu *pf = &s->pcpu[from], *pt = &s->pcpu[to];
	if (pf->curr == v) { /* it blocked there: no longer that pCPU's */
		SCHED_PUT(pf->curr, (struct sched_vcpu *)NULL);
		credit_note(s, from);
	}
	cr_vclock_advance(s, from, now);
	cr_vclock_advance(s, to, now);
	uint8_t heap = cv(v)->heap;
	if (heap == HEAP_SLEEP || heap == HEAP_PARK)
		cr_heap_del(s, v);
	cv(v)->vtime = cv(v)->vtime - cpc(pf)->vclock + cpc(pt)->vclock;
	cv(v)->bvt = cv(v)->bvt - cpc(pf)->bclock + cpc(pt)->bclock;
	cr_by_service_beside_pinned(s, v, to, now);
	if (cv(v)->w_acct) {
		cpc(pf)->w_active -= cv(v)->w_acct;
		cpc(pt)->w_active += cv(v)->w_acct;
	}
	SCHED_ADD(pf->nr_vcpus, -1u);
	SCHED_ADD(pt->nr_vcpus, 1);
	SCHED_PUT(v->pcpu, (uint16_t)to);
	v->c.migrations++;
	sched_add(&v->dom->c.migrations, 1);
	sched_trace_ev(s, from, now, SCHED_EV_MIGRATE, v, to);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
	if (heap == HEAP_SLEEP) {
		cr_sleeper_insert(s, v);
	} else if (heap == HEAP_PARK) {
		cv(v)->hn.key = cv(v)->park_until;
		cr_park_insert(s, v);
	}
}

void cr_charge(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	cr_charge_inline(s, v, now);
}

/* Folds what v's latency slice used (charged up to now) into its request (boost_req), a
 * moving average that gives the new slice a quarter: one short slice of a vCPU that
 * usually runs its whole latency slice (a fuzzer whose timer wake finds a HLT) does not
 * put it ahead of one that always answers in a few us. */
void cr_boost_used(struct sched *s, struct sched_vcpu *v)
{
	uint64_t used = cs(s)->p.boost_ns - min_u64(cv(v)->boost_left, cs(s)->p.boost_ns);
	uint64_t req = cv(v)->boost_req;
	cv(v)->boost_req = req - req / 4 + cr_ns_to_vt(used, ew_of(v)) / 4;
}

void cr_unboost(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST)
		return;
	cr_boost_used(s, v);
	cv(v)->boost_left = 0;
	SCHED_PUT(v->prio, (uint8_t)(cr_vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER));
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNBOOST, v, cr_vcredit(s, v));
}

static void credit_init(struct sched *s)
{
	cr_set_defaults(&cs(s)->p);
	for (unsigned p = 0; p < SCHED_MAX_PCPUS; p++) {
		cpc(&s->pcpu[p])->vclock = VCLOCK_BASE;
		cpc(&s->pcpu[p])->bclock = VCLOCK_BASE;
	}
	cs(s)->idle_mask = sched_all_pcpus(s);
	cs(s)->move_mask = cpumask_none();
	cs(s)->pin_mask = cpumask_none();
}

static int credit_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	if (!d || d->weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (!d->weight)
		d->weight = SCHED_DEFAULT_WEIGHT;
	unsigned p = sched_least_loaded(s, sched_affinity(s, v));
	cr_vclock_advance(s, p, now);
	SCHED_PUT(v->pcpu, (uint16_t)p);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_PUT(v->prio, (uint8_t)SCHED_PRI_UNDER);
	cv(v)->heap = HEAP_NONE;
	cv(v)->flags = 0;
	cv(v)->vtime = cpc(&s->pcpu[p])->vclock + cr_start_offset(s, v);
	cv(v)->gvt = cv(v)->vtime;
	cv(v)->vrem = 0;
	cv(v)->bvt = cpc(&s->pcpu[p])->bclock;
	cv(v)->bvrem = 0;
	cv(v)->vt_since = now;
	cv(v)->bal_hold = 0;
	cv(v)->w_acct = 0;
	cv(v)->lease = 0;
	cv(v)->boost_left = 0;
	cv(v)->boost_req = 0; /* the priv bytes may be another policy's (a policy change) */
	v->since = now;	      /* owed_ns, refund_ns: the caller's (zero for a new vCPU), kept */
	SCHED_ADD(s->pcpu[p].nr_vcpus, 1);
	s->nr_vcpus++;
	if (d->nr_vcpus++ == 0) {
		cd(d)->nr_earn = 0;
		cd(d)->rw_pending = false;
		cd(d)->cap_tokens = cr_cap_depth(s, d);
		cd(d)->cap_reserved = 0;
		cd(d)->cap_last = now;
		cd(d)->cap_rem = 0;
	}
	sched_dom_add_vcpu(s, v);
	return 0;
}

static void credit_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	cr_vclock_advance(s, v->pcpu, now);
	if (pc->curr == v) {
		if (v->state == SCHED_VS_RUNNING)
			cr_charge(s, v, now);
		SCHED_PUT(pc->curr, NULL);
		credit_note(s, v->pcpu);
	}
	cr_heap_del(s, v);
	sched_yield_forget(s, v);
	cr_deactivate(s, pc, v);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_ADD(pc->nr_vcpus, -1u);
	s->nr_vcpus--;
	sched_dom_del_vcpu(s, v);
	cr_rw_flush(s, now);
}

static int credit_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			     uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT || cap > 100 * SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
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
			cr_park_insert(s, v);
			sched_kick_later(s, v->pcpu);
		}
	}
	return 0;
}

static sched_cpumask_t set_affinity_body(struct sched *s, struct sched_vcpu *v,
					 sched_cpumask_t mask, uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu)) {
		bool pin = sched_pinned(s, v, v->pcpu);
		if (cv(v)->heap != (pin ? HEAP_NORM : HEAP_PIN))
			return sched_take_kicks(s);
		/* Queued, and it became movable or pinned: requeue it in the right heap; an
		 * idle pCPU it may now run on is kicked to steal it. */
		cr_heap_del(s, v);
		cr_enqueue(s, v);
		int idle =
			pin ? -1 : cr_find_idle(s, cpumask_without(sched_affinity(s, v), v->pcpu));
		sched_cpumask_t k = sched_take_kicks(s);
		if (idle >= 0)
			cpumask_set(&k, (unsigned)idle);
		return k;
	}
	sched_cpumask_t aff = sched_affinity(s, v);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		cv(v)->flags |= F_MOVE;
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		return cpumask_or(sched_take_kicks(s), cpumask_of(v->pcpu));
	case SCHED_VS_RUNNABLE:
		cr_vclock_advance(s, v->pcpu, now);
		cr_heap_del(s, v);
		cr_transfer(s, v, sched_least_loaded(s, aff), now);
		if (v->prio == SCHED_PRI_BOOST)
			cr_unboost(s, v, now); /* moving is not an event */
		cr_enqueue(s, v);
		return cr_with_kick(sched_take_kicks(s), cr_tickle(s, v));
	default:
		cr_transfer(s, v, sched_least_loaded(s, aff), now);
		return sched_take_kicks(s);
	}
}

static sched_cpumask_t credit_set_affinity(struct sched *s, struct sched_vcpu *v,
					   sched_cpumask_t mask, uint64_t now)
{
	sched_cpumask_t k = set_affinity_body(s, v, mask, now);
	cr_rw_flush(s, now);
	return k;
}

/* Exact ns are charged to vtime: a yielder keeps its place by service. (Not so under
 * sched=credit1, whose credit is burnt by a sampling tick.) */
static bool credit_yield_keeps_claim(const struct sched *s)
{
	(void)s;
	return true;
}

const struct sched_ops sched_credit_ops = {
	.name = "credit",
	.init = credit_init,
	.vcpu_insert = credit_vcpu_insert,
	.vcpu_remove = credit_vcpu_remove,
	.wake = cr_wake,
	.sleep = cr_sleep,
	.yield = cr_yield,
	.yield_to = cr_yield_to,
	.yield_keeps_claim = credit_yield_keeps_claim,
	.charges_owed = true,
	.pick_next = cr_pick_next,
	.set_params = credit_set_params,
	.set_affinity = credit_set_affinity,
	.params_changed = NULL, /* its config op applies its own keys */
	.dump = cr_dump,
	.finish = cr_finish,
	.audit = cr_audit,
	.config = cr_config,
	.config_get = cr_config_get,
	.config_show = cr_config_show,
	.slice_ns = cr_slice_ns,
};
