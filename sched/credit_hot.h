/* Private to the credit policy: the steps on the path of every wake and pick, inline
 * (docs/BENCHMARKS.md, "The ping path, stage by stage"). Included by credit_priv.h at its
 * end, after everything these use; include that, not this. */
#ifndef SCHED_CREDIT_HOT_H
#define SCHED_CREDIT_HOT_H

/* ---- inline: on the path of every wake and pick (credit_vt.c has the rest) ------------ */

/* ns of one period in virtual time at weight w (w may exceed 2^32), from c when it was
 * computed for the same w and ns. */
static inline uint64_t cr_period_vt(struct cr_period_vt *c, uint64_t ns, uint64_t w)
{
	if (w != c->w || ns != c->ns) {
		uint64_t rem = 0;
		c->w = w;
		c->ns = ns;
		c->vt = cr_vt_add(0, ns, w, &rem);
	}
	return c->vt;
}

/* The sleeper bank in virtual time: what pCPU's virtual clock advances in one period at its
 * earning weight W (v counted), the same for every weight. In ns of CPU it is one period's
 * entitlement, period * w_v / W: a heavier vCPU banks more, so two sleepers that both
 * reach the bank stand at the same virtual time and the heavier one, whose vtime then
 * advances more slowly, keeps its lead (a flat period of CPU for every weight put the
 * lighter one always further back in virtual time). */
static inline uint64_t cr_bank_vt(struct sched *s, const struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	uint64_t w = cpc(pc)->w_active + (cv(v)->w_acct ? 0 : ew_of(v));
	if (!w)
		w = ew_of(v);
	return cr_period_vt(&cpc(pc)->bank, bank_ns(s), w);
}

/* Credit in ns: positive is UNDER (owed CPU), negative is OVER (in debt). */
static inline int64_t cr_vcredit(const struct sched *s, const struct sched_vcpu *v)
{
	int64_t lag = (int64_t)(cpc(&s->pcpu[v->pcpu])->vclock - cv(v)->vtime);
	/* lag * ew / 2^32 rounded toward zero; 128-bit product, shifts only. */
	uint64_t al = lag < 0 ? 0 - (uint64_t)lag : (uint64_t)lag;
	unsigned __int128 m = (unsigned __int128)al * ew_of(v) >> VT_SHIFT;
	int64_t c = m > ((uint64_t)1 << 62) ? (int64_t)1 << 62 : (int64_t)m;
	return lag < 0 ? -c : c;
}

/* At most one bank of credit: raises vtime (and gvt with it) to vclock - bank. */
static inline void cr_clamp_bank(struct sched *s, struct sched_vcpu *v)
{
	uint64_t floor = cpc(&s->pcpu[v->pcpu])->vclock - cr_bank_vt(s, v);
	if ((int64_t)(cv(v)->vtime - floor) < 0)
		cr_set_vtime(v, floor);
}

/* Adds the run since vt_since to v's vtime (and gvt) at its current effective weight:
 * vt += dt * 2^32 / ew, remainder kept. Done at every charge, and before the weight of a
 * running vCPU changes (the domain split), so each ns is charged at the weight it ran at. */
static inline void cr_settle_vt(struct sched_vcpu *v, uint64_t now)
{
	if (now <= cv(v)->vt_since)
		return;
	uint64_t old = cv(v)->vtime;
	cv(v)->vtime = cr_vt_add(cv(v)->vtime, now - cv(v)->vt_since, ew_of(v), &cv(v)->vrem);
	cv(v)->gvt += cv(v)->vtime - old;
	cv(v)->vt_since = now;
}

/* The boost budget of v in ns: what its pCPU's budget clock B has handed it
 * since `bvt`, which only its boosted ns advance, i.e. its entitlement minus its boosted
 * time. B advances as V over the earning weight that is not parked: a vCPU parked by its
 * cap runs nothing and does not dilute the others' budgets (sched-fuzz seed 257). At most
 * one period's entitlement: bvt is raised to B - period * 2^32 / W, W being the unparked
 * earning weight of its pCPU with v counted, so boosted time over any window T is at most
 * its share of T (among the unparked) + one period's entitlement + boost_debt + one
 * latency slice. Unlike the credit (V - vtime), it does not move with the vCPU's unboosted
 * running: a vCPU that is OVER because of its bulk demand keeps a budget for its events;
 * and it does not depend on the absolute level of V, which falls behind every runner's
 * vtime when a sleeper retires with its bank (the runners then all read OVER by bank /
 * runners). */
static inline __attribute__((always_inline)) int64_t cr_boost_budget(struct sched *s,
								     struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	uint64_t w = cpc(pc)->w_active - cpc(pc)->w_park +
		     (!cv(v)->w_acct		 ? ew_of(v)
		      : cv(v)->heap == HEAP_PARK ? cv(v)->w_acct
						 : 0);
	if (!w)
		w = ew_of(v);
	uint64_t floor = cpc(pc)->bclock - cr_period_vt(&cpc(pc)->budget, cs(s)->p.period_ns, w);
	if ((int64_t)(cv(v)->bvt - floor) < 0) {
		cv(v)->bvt = floor;
		cv(v)->bvrem = 0;
	}
	int64_t lag = (int64_t)(cpc(pc)->bclock - cv(v)->bvt);
	uint64_t al = lag < 0 ? 0 - (uint64_t)lag : (uint64_t)lag;
	unsigned __int128 m = (unsigned __int128)al * ew_of(v) >> VT_SHIFT;
	int64_t c = m > ((uint64_t)1 << 62) ? (int64_t)1 << 62 : (int64_t)m;
	return lag < 0 ? -c : c;
}

/* Queues v on its pCPU's run queue: by boost budget (bvt) when boosted, else by vtime, a
 * pinned one apart (inline: every pick's requeue of the vCPU it preempts; cr_enqueue also
 * notes the pCPU's summaries). */
static inline void cr_enqueue_quiet(struct sched *s, struct sched_vcpu *v)
{
	SCHED_HELD(s, v->pcpu);
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNABLE);
	cv(v)->hn.seq = sched_next_seq(s);
	if (v->prio == SCHED_PRI_BOOST) {
		/* Earliest virtual deadline first, EEVDF's rule on the boosted: the deadline is
		 * bvt (the virtual time only boosted ns advance; credit1 queues boosts FIFO) plus
		 * the request, what its latency slices used (boost_req). A vCPU that wakes
		 * often and spends its boost budget cannot queue ahead of one that wakes rarely,
		 * however many wakes it makes; and where both have budget to spare (their bvt at
		 * the same floor), one that answers in a few us goes before one that runs its
		 * whole latency slice (the echo domain beside the fuzzers, whose timer wakes each
		 * ran 100 us ahead of the echo's). */
		cv(v)->hn.key = cv(v)->bvt + cv(v)->boost_req;
		cv(v)->heap = HEAP_BOOST;
		hn_insert(&cpc(pc)->rq_boost, &cv(v)->hn);
	} else {
		cv(v)->hn.key = cv(v)->vtime;
		SCHED_PUT(v->prio,
			  (uint8_t)(cr_vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER));
		/* Pinned vCPUs (allowed only here) queue apart, so that the movable ones are
		 * at a heap root where stealing and balancing see them at once, however many
		 * pinned vCPUs are ahead of them in line. */
		if (sched_pinned(s, v, v->pcpu)) {
			cv(v)->heap = HEAP_PIN;
			hn_insert(&cpc(pc)->rq_pin, &cv(v)->hn);
		} else {
			cv(v)->heap = HEAP_NORM;
			hn_insert(&cpc(pc)->rq_norm, &cv(v)->hn);
		}
	}
	SCHED_ADD(pc->nr_queued, 1);
}

/* Charges v's run up to `now` (cr_charge; inline in the pick, where it runs on every
 * decision). */
static inline void cr_charge_inline(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	uint64_t ran = now > v->since ? now - v->since : 0;
	if (ran) /* `now` may be a little behind a peer's (sched.h): never back */
		v->since = now;
	/* sched_charge_for: work done for it in others' time is charged as if it ran it, and
	 * what it ran for others is not (credit: vtime; cap, run_ns, a latency slice's
	 * budget); a refund larger than this run waits for the next. */
	uint64_t back = ran < v->refund_ns ? ran : v->refund_ns, owed = v->owed_ns;
	uint64_t dt = ran - back + owed;
	v->refund_ns -= back;
	v->owed_ns = 0;
	if (capped(v)) {
		/* Refill first (the lease still counts, so a bucket that was full when the lease
		 * began keeps the refill earned while it drained), then consume. */
		sched_dom_lock(s, d);
		cr_cap_refill(s, d, now);
		cd(d)->cap_tokens -= (int64_t)dt;
		cd(d)->cap_reserved -= (int64_t)cv(v)->lease;
		if (cd(d)->cap_tokens > cr_cap_depth(s, d))
			cd(d)->cap_tokens = cr_cap_depth(s, d);
		sched_dom_unlock(s, d);
		cv(v)->lease = 0;
	}
	if (!ran && !owed)
		return;
	v->c.run_ns += dt;
	sched_add(&d->c.run_ns, dt);
	if (v->prio == SCHED_PRI_BOOST) {
		v->c.boost_ns += dt;
		sched_add(&d->c.boost_ns, dt);
		/* The budget pays for the latency slice used, not for the rest of a normal
		 * slice the vCPU already held when an event boosted it while running. */
		uint64_t used = cv(v)->boost_left < dt ? cv(v)->boost_left : dt;
		cv(v)->boost_left -= used;
		cv(v)->bvt = cr_vt_add(cv(v)->bvt, used, ew_of(v), &cv(v)->bvrem);
	}
	cr_settle_vt(v, now); /* the whole run, `back` included: taken off below */
	if (owed != back) {
		uint64_t old = cv(v)->vtime;
		if (owed > back)
			cv(v)->vtime = cr_vt_add(cv(v)->vtime, owed - back, ew_of(v), &cv(v)->vrem);
		else
			cv(v)->vtime -= cr_ns_to_vt(back - owed, ew_of(v));
		cv(v)->gvt += cv(v)->vtime - old;
	}
}

#endif
