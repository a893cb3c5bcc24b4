/* Credit policy: the decision on a pCPU (pick_next): whether the current vCPU keeps it
 * (slice, latency slice, ratelimit, cap, yield), what runs next, and when to decide again
 * (run_until folds every timed event of the policy). */
#include "sched/credit_priv.h"

/* The slice length of v: its latency slice when boosted, else the time slice. */
static uint64_t slice_of(const struct sched *s, const struct sched_vcpu *v)
{
	return v->prio == SCHED_PRI_BOOST ? cs(s)->p.boost_ns : cs(s)->p.tslice_ns;
}

/* Charges the current vCPU and decides whether it keeps the pCPU. Returns it when it does;
 * otherwise it was requeued here (*requeued set), parked, moved or had blocked. A move
 * counts its preemption here; a requeued one is counted by the pick once it knows. */
static struct sched_vcpu *decide_current(struct sched *s, unsigned p, uint64_t now,
					 struct sched_pick *r, bool *requeued,
					 uint64_t *ratelimit_until)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *cur = pc->curr;
	*requeued = false;
	if (!cur || cur->state != SCHED_VS_RUNNING)
		return NULL;
	cr_charge_inline(s, cur, now);
	if (cv(cur)->flags & F_MOVE) {
		sched_note_preempt(cur);
		r->kick = cpumask_or(r->kick, cr_move_away(s, cur, now));
		return NULL;
	}
	if (cv(cur)->flags & F_PULL) {
		/* An idle pCPU asked for it (pull_running): go there if it still idles. */
		cv(cur)->flags &= (uint8_t)~F_PULL;
		int idle = cr_find_idle(s, cpumask_without(sched_affinity(s, cur), p));
		if (idle >= 0 && pc->nr_queued && cur->prio != SCHED_PRI_BOOST &&
		    sched_peek(s, (unsigned)idle)) {
			sched_note_preempt(cur);
			SCHED_PUT(cur->state, (uint8_t)SCHED_VS_BLOCKED);
			cr_transfer(s, cur, (unsigned)idle, now);
			cr_enqueue(s, cur);
			cpumask_set(&r->kick, (unsigned)idle);
			return NULL;
		}
	}
	bool was_boosted = false;
	if (cur->prio == SCHED_PRI_BOOST && cv(cur)->boost_left == 0) {
		cr_unboost(s, cur, now);
		was_boosted = true;
	}
	int64_t avail = 0;
	if (capped(cur)) {
		sched_dom_lock(s, cur->dom);
		avail = cap_avail(cur->dom); /* refilled by the charge above */
		sched_dom_unlock(s, cur->dom);
	}
	if (capped(cur) && avail <= 0 &&
	    (cur->prio != SCHED_PRI_BOOST || avail <= -(int64_t)cs(s)->p.cap_debt_ns)) {
		SCHED_PUT(cur->state, (uint8_t)SCHED_VS_BLOCKED);
		cr_park(s, cur, now);
		return NULL;
	}
	bool yielded = cv(cur)->flags & F_YIELD;
	bool boosted = cur->prio == SCHED_PRI_BOOST;
	/* A latency slice that just ended sends the vCPU back in line (vtime order). */
	bool expired = boosted ? cv(cur)->boost_left == 0
			       : was_boosted || now >= pc->curr_since + slice_of(s, cur);
	/* A boosted vCPU finishes its (short) latency slice unless the boost queue's head
	 * passes it (rule 5); others yield to a tickle. */
	bool want = yielded || expired ||
		    (SCHED_GET(pc->resched) &&
		     (!boosted ||
		      (cpc(pc)->rq_boost && cr_boost_passes(cr_vcpu_of(cpc(pc)->rq_boost), cur))));
	if (expired && !yielded)
		SCHED_PUT(cur->in_spin_loop, false); /* ran a full slice: a yield target again */
	if (want && !yielded && cs(s)->p.ratelimit_ns &&
	    now < cv(cur)->run_start + cs(s)->p.ratelimit_ns && cr_queued(pc)) {
		/* Ratelimit: keep it, decide again when it has run long enough. */
		*ratelimit_until = cv(cur)->run_start + cs(s)->p.ratelimit_ns;
		want = false;
	}
	if (!want && cr_take_lease(s, cur, now))
		return cur;
	SCHED_PUT(cur->state, (uint8_t)SCHED_VS_BLOCKED);
	cr_enqueue_quiet(s, cur); /* noted at the end */
	*requeued = true;
	return NULL;
}

/* A yield hands p to the next queued vCPU only if that one is not more than a slice of its
 * own service ahead of the yielder (vtime on the same pCPU; a boosted one always gets it),
 * as Linux CFS takes its skip buddy's successor only within a wakeup granularity.
 * Otherwise the yielder goes on: two yield95 attackers on one pCPU, weights 7748 and 14,
 * handed each other every slice, 50% each (sched-fuzz seed 647: 0.6% for the light one). */
static bool yield_too_far(const struct sched *s, const struct sched_vcpu *o,
			  const struct sched_vcpu *y)
{
	if (o->prio == SCHED_PRI_BOOST)
		return false;
	int64_t ahead = (int64_t)(cv(o)->vtime - cv(y)->vtime);
	return ahead > (int64_t)cr_ns_to_vt(cs(s)->p.tslice_ns, ew_of(o));
}

struct sched_pick cr_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_pick r = {NULL, SCHED_NEVER, sched_take_kicks(s)};
	cr_vclock_advance(s, p, now);
	if (cpc(pc)->parked && cv(cr_min(cpc(pc)->parked))->park_until <= now)
		cr_unpark_due(s, p, now);
	pc->picks++;

	struct sched_vcpu *cur = pc->curr;
	bool requeued;
	uint64_t ratelimit_until = 0;
	struct sched_vcpu *next = decide_current(s, p, now, &r, &requeued, &ratelimit_until);
	bool new_slice = next == NULL;
	if (!ratelimit_until)
		SCHED_PUT(pc->resched, false);

	struct sched_vcpu *yielder = requeued && (cv(cur)->flags & F_YIELD) ? cur : NULL;
	if (yielder)
		cv(yielder)->flags &= (uint8_t)~F_YIELD;
	while (!next) {
		next = pc->yield_next ? sched_take_yield_next(s, p) : NULL;
		if (!next)
			next = cr_queue_head(pc);
		if (next && next == yielder) {
			/* A yield gives way to the next queued here, once. */
			cr_heap_del(s, yielder);
			struct sched_vcpu *other = cr_queue_head(pc);
			cr_enqueue(s, yielder);
			if (other && !yield_too_far(s, other, yielder))
				next = other;
		}
		yielder = NULL;
		if (next) {
			cr_dequeue_next(s, pc, next);
			if (cr_may_hand_to_idle(s, p, next) &&
			    cr_hand_to_idle(s, p, next, requeued && next == cur, now, &r.kick)) {
				if (next == cur)
					requeued = false; /* counted, and no longer p's */
				next = NULL;
				continue;
			}
		} else if (!(next = cr_steal(s, p, now))) {
			break;
		}
		SCHED_PUT(next->state, (uint8_t)SCHED_VS_RUNNING);
		if (capped(next) && !cr_take_lease(s, next, now)) {
			SCHED_PUT(next->state, (uint8_t)SCHED_VS_BLOCKED);
			cr_park(s, next, now);
			if (next == cur)
				requeued = false; /* parked: not a preemption */
			next = NULL;
		}
	}
	/* Before the balance below may hand cur to another pCPU. */
	if (requeued && next != cur)
		sched_note_preempt(cur);
	if (new_slice && next && cr_may_balance(s, pc))
		r.kick =
			cpumask_or(r.kick, cr_balance_push(s, p, next, requeued ? cur : NULL, now));
	if (!next) {
		r.kick = cpumask_or(r.kick, cr_pull_running(s, p));
		cr_retire_at_idle(s, p);
	}

	SCHED_PUT(pc->curr, next);
	credit_note(s, p);
	if (!next) {
		pc->curr_since = now;
	} else {
		if (next != cur) {
			next->c.switches++;
			sched_add(&next->dom->c.switches, 1);
			cv(next)->run_start = now;
			sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next,
				       cur ? (int64_t)cur->dom->id : -1);
		}
		if (new_slice)
			pc->curr_since = now;
		SCHED_PUT(next->state, (uint8_t)SCHED_VS_RUNNING);
		next->since = now;
		cv(next)->vt_since = now;
		r.vcpu = next;
		if (next->prio == SCHED_PRI_BOOST)
			r.run_until = now + cv(next)->boost_left;
		else if (cr_queued(pc))
			r.run_until = pc->curr_since + cs(s)->p.tslice_ns;
		if (ratelimit_until)
			r.run_until = ratelimit_until;
		if (capped(next))
			r.run_until = min_u64(r.run_until, now + cv(next)->lease);
	}
	struct sched_vcpu *pk = cr_min(cpc(pc)->parked);
	if (pk)
		r.run_until = min_u64(r.run_until, cv(pk)->park_until);
	cr_rw_flush(s, now);
	if (cpc(pc)->nr_msleep && cpc(pc)->w_active) {
		/* A sleeper whose retirement changes its domain's split elsewhere: be there. */
		uint64_t ns = cr_retire_ns(pc, cr_min(cpc(pc)->sleepers));
		if (ns != UINT64_MAX)
			r.run_until = min_u64(r.run_until, now + ns);
	}
	if (r.run_until <= now)
		r.run_until = now + 1;
	pc->armed = r.run_until;
	/* Work queued anywhere that an idle pCPU could run: kick that one to steal. */
	if (cr_idle_any_but(s, SCHED_MAX_PCPUS) && cr_move_any(s))
		r.kick = cpumask_or(r.kick, cr_kick_idle_for_work(s));
	r.kick.w[p / 64] &= ~(1ull << (p % 64)); /* r lies in memory: no copy */
	return r;
}
