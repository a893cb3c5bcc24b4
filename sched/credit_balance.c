/* Credit policy between pCPUs: the idle and movable-work summaries, wake placement,
 * stealing, the hand-off to idle pCPUs, pulling from beside pinned queues and balancing
 * between busy pCPUs, and where a vCPU moved beside a pinned queue stands (docs/scheduler.md,
 * invariants 4 and 12-14). */
#include "sched/credit_priv.h"

/* Decides whether v, just queued on its pCPU, must preempt what runs there: the one pCPU to
 * kick, or -1 (a number, not a set: every wake returns through here, cr_with_kick). */
int cr_tickle_slow(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	/* Not preempting: let an idle pCPU of its affinity steal it (pinned to its own pCPU,
	 * which is busy, it has none: no set to build). */
	int idle =
		cpumask_is_only(&v->affinity, v->pcpu) ? -1 : cr_find_idle(s, sched_affinity(s, v));
	if (idle >= 0)
		return idle;
	/* None: its pCPU must at least arm a slice end (it may have had no timer at all). */
	return pc->armed == SCHED_NEVER ? (int)v->pcpu : -1;
}

/* Wake placement of a movable vCPU whose pCPU p has pinned vCPUs waiting (its floor: they
 * can run nowhere else) and no idle pCPU to go to: an allowed pCPU q without pinned
 * waiters, running a non-boosted vCPU, that v would not make heavier than p is now
 * (W_q + w_v <= W_p, v counted on p if it earns there) takes it instead, the lightest
 * such q. The waiters behind p's pinned queue are then only those that must be there.
 * A scan of v's affinity, only in that case. */
unsigned cr_off_pinned(struct sched *s, struct sched_vcpu *v, unsigned p)
{
	const struct sched_pcpu *pc = &s->pcpu[p];
	if (!cpc(pc)->rq_pin)
		return p;
	uint64_t wv = ew_of(v),
		 wp = load_of(pc) + (cv(v)->heap == HEAP_SLEEP || !cv(v)->w_acct ? wv : 0);
	sched_cpumask_t m = cpumask_without(sched_affinity(s, v), p);
	unsigned best = p;
	uint64_t best_w = UINT64_MAX;
	/* Each candidate is looked at under its lock if free (sched_peek); the best one's lock
	 * is kept for the move, the others' let go. */
	cpumask_for_each(q, m)
	{
		if (SCHED_GET(s->pcpu[q].nr_queued) || !sched_peek(s, q))
			continue;
		const struct sched_pcpu *qc = &s->pcpu[q];
		if (qc->nr_queued || !qc->curr || qc->curr->prio == SCHED_PRI_BOOST ||
		    load_of(qc) + wv > wp || load_of(qc) >= best_w) {
			sched_unpeer(s, q);
			continue;
		}
		if (best != p)
			sched_unpeer(s, best);
		best = q;
		best_w = load_of(qc);
	}
	return best;
}

/* v, movable, has just blocked on a pCPU p where vCPUs with fewer choices wait: pinned to p,
 * or allowed on a strict subset of v's pCPUs. A wake places a vCPU on its own pCPU first,
 * so an echo allowed on pCPUs 0-1 that once ran on 0 beside a pinned queue comes back to 0
 * at every wake, and its bursts (35% of a pCPU in sim-beyond-64) come out of the pinned
 * domain's share, which has nowhere else to go (65-97% of 100 in 14 of 20 seeds); the
 * same for echoes allowed on 4-7 beside a domain allowed on 6-7 (sim-beyond-narrow: 106.3
 * for 132 on seed 2, the echoes taking 38 points of 6-7). So it sleeps instead on the
 * least loaded pCPU q of its affinity outside the waiter's (for a pinned one, any other)
 * and without pinned waiters (a sleeper's move: its lag and earning state go with it,
 * cr_transfer), when:
 * - it used a sixteenth or more of its time over its last accounting period (measured
 *   from sleep to sleep, one look per period): one that runs microseconds per wake (an echo
 *   pinged every 5 ms) takes nothing measurable from the waiters, and moved it would
 *   preempt movable vCPUs at each wake instead, which then wait (sim-beyond-8x128b: 0.3%
 *   -> 5% needless waiting in all 20 seeds when every sleeper moved);
 * - the waiter is under-served, as balancing judges it: q's runner ahead of it in service
 *   per weight (gvt) by more than balance_gap (where the pinned domain is entitled to less
 *   than all of p, others are meant to run there: 1079 random scenarios 228 -> 234 without
 *   this test).
 * The waiter is the pinned queue's head, else the most behind (gvt) narrower one among the
 * first BAL_CAND of p's movable queue. At most once per period and
 * vCPU, a walk of BAL_CAND queued vCPUs and a scan of v's affinity. */
void cr_sleep_off_narrow(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	const struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	uint64_t ran = v->c.run_ns - cv(v)->cyc_run, span = now - cv(v)->cyc_at;
	if (span < bank_ns(s))
		return;
	cv(v)->cyc_at = now;
	cv(v)->cyc_run = v->c.run_ns;
	if (!cs(s)->p.balance_gap_ns || ran * 16 < span)
		return;
	sched_cpumask_t av = cpumask_and(sched_affinity(s, v), sched_all_pcpus(s));
	sched_cpumask_t keep = cpumask_of(v->pcpu);
	struct sched_vcpu *w = cr_min(cpc(pc)->rq_pin);
	if (!w && cpc(pc)->rq_norm) {
		struct sched_hnode *cand[BAL_CAND];
		unsigned n = hn_first(cpc(pc)->rq_norm, cand, BAL_CAND);
		for (unsigned i = 0; i < n; i++) {
			struct sched_vcpu *u = cr_vcpu_of(cand[i]);
			sched_cpumask_t au = cpumask_and(sched_affinity(s, u), sched_all_pcpus(s));
			if (cpumask_subset(au, av) && !cpumask_equal(au, av) &&
			    (!w || (int64_t)(cv(u)->gvt - cv(w)->gvt) < 0)) {
				w = u;
				keep = au;
			}
		}
	}
	if (!w)
		return;
	int q = -1;
	sched_cpumask_t others = cpumask_andnot(av, keep);
	cpumask_for_each(o, others)
	{
		if (!sched_peek(s, o))
			continue;
		if (!cpc(&s->pcpu[o])->rq_pin &&
		    (q < 0 || load_of(&s->pcpu[o]) < load_of(&s->pcpu[q]))) {
			if (q >= 0)
				sched_unpeer(s, (unsigned)q);
			q = (int)o;
		} else {
			sched_unpeer(s, o);
		}
	}
	struct sched_vcpu *t = q >= 0 ? s->pcpu[q].curr : NULL;
	if (!t || t->state != SCHED_VS_RUNNING || t->prio == SCHED_PRI_BOOST)
		return;
	cr_settle_vt(t, now);
	uint64_t gap = cr_ns_to_vt(cs(s)->p.balance_gap_ns, ew_of(w));
	if ((int64_t)(cv(t)->gvt - cv(w)->gvt) > (int64_t)gap)
		cr_transfer(s, v, (unsigned)q, now);
}

/* Where a woken vCPU v goes when every allowed pCPU is busy (issue 10, sched-fuzz min-1):
 * waking always on its own pCPU p, a vCPU that runs in short bursts (an echo) takes its
 * CPU from the vCPU that runs there only; a lone spinner on another pCPU never gives any,
 * and balancing cannot help (the spinners are never queued long enough to move). So each
 * wake compares p's running vCPU with the one running on another allowed pCPU q (one per
 * wake, rotating over the affinity: O(1)), and v wakes on q when q's runner is ahead of
 * p's in service per weight (gvt) by more than balance_gap and q has nothing queued: the
 * burst goes to the most served runner, and the runners' service evens out. A boosted
 * runner is not compared (its gvt says nothing of its share). */
unsigned cr_wake_beside_ahead(struct sched *s, struct sched_vcpu *v, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *a = pc->curr;
	sched_cpumask_t aff = cpumask_without(sched_affinity(s, v), p);
	if (!cs(s)->p.balance_gap_ns || cpumask_empty(aff) || !a || a->prio == SCHED_PRI_BOOST)
		return p;
	/* The first allowed pCPU from the cursor on, wrapping. */
	unsigned q = cpumask_next_wrap(aff, cpc(pc)->wake_cursor % s->nr_pcpus);
	cpc(pc)->wake_cursor = (uint16_t)((q + 1) % s->nr_pcpus);
	struct sched_pcpu *qc = &s->pcpu[q];
	if (!sched_peek(s, q))
		return p;
	struct sched_vcpu *b = qc->curr;
	if (!b || b->prio == SCHED_PRI_BOOST || qc->nr_queued || cpc(qc)->rq_pin) {
		sched_unpeer(s, q);
		return p;
	}
	cr_settle_vt(a, now);
	cr_settle_vt(b, now);
	uint64_t gap = cr_ns_to_vt(cs(s)->p.balance_gap_ns, ew_of(a));
	if ((int64_t)(cv(b)->gvt - cv(a)->gvt) > (int64_t)gap)
		return q; /* its lock held for the move */
	sched_unpeer(s, q);
	return p;
}

/* Called by cr_transfer once v's lag has been carried to pCPU `to` (docs/scheduler.md,
 * invariants 4 and 13). */
void cr_by_service_beside_pinned(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	struct sched_pcpu *pt = &s->pcpu[to];
	struct sched_vcpu *t = pt->curr;
	if (v->state == SCHED_VS_RUNNABLE && cpc(pt)->rq_pin && t && t->state == SCHED_VS_RUNNING &&
	    t->prio != SCHED_PRI_BOOST) {
		/* A waiting vCPU moved beside a runner: placed by service per weight relative to
		 * it (gvt, comparable across pCPUs), not by the lag it had on a pCPU it left
		 * (a debt owed to that pCPU's vCPUs, not to these). It only forgives such debt,
		 * and only down to zero credit (V here): never more credit than it had (a floor
		 * of one bank instead let attackers that sleep or yield, whose gvt stands
		 * behind, gain 3-5 points by moving). */
		cr_settle_vt(t, now);
		uint64_t vt = cv(t)->vtime + (cv(v)->gvt - cv(t)->gvt);
		uint64_t floor = cpc(pt)->vclock;
		if ((int64_t)(vt - floor) < 0)
			vt = floor;
		if ((int64_t)(vt - cv(v)->vtime) > 0)
			vt = cv(v)->vtime;
		cr_set_vtime(v, vt);
	}
}

/* An idle pCPU takes the best queued vCPU another pCPU is not running and it may run. */
struct sched_vcpu *cr_steal(struct sched *s, unsigned p, uint64_t now)
{
	/* Sources in the order p+1, p+2, ... (wrapping), only pCPUs with movable work. */
	sched_cpumask_t src = cpumask_without(cpumask_and(cr_move_mask(s), sched_all_pcpus(s)), p);
	for (unsigned q = cpumask_next_wrap(src, p + 1); q < SCHED_MAX_PCPUS;
	     q = cpumask_next_wrap(src, q + 1)) {
		cpumask_clear(&src, q);
		if (!sched_peek(s, q)) /* a source another pCPU has: the next one */
			continue;
		struct sched_pcpu *qc = &s->pcpu[q];
		struct sched_hnode *roots[2] = {cpc(qc)->rq_boost, cpc(qc)->rq_norm};
		for (int k = 0; k < 2; k++) {
			/* The root, then its first children: the best few, not a full scan.
			 * Pinned vCPUs are in rq_pin, so they never hide a movable one. */
			struct sched_vcpu *v = NULL;
			struct sched_hnode *n = roots[k];
			if (n && sched_allowed(s, cr_vcpu_of(n), p))
				v = cr_vcpu_of(n);
			unsigned seen = 0;
			for (n = n ? n->child : NULL; !v && n && seen < 64; n = n->next, seen++)
				if (sched_allowed(s, cr_vcpu_of(n), p))
					v = cr_vcpu_of(n);
			if (!v)
				continue;
			cr_vclock_advance(s, q, now);
			cr_heap_del(s, v);
			cr_transfer(s, v, p, now);
			return v;
		}
		sched_unpeer(s, q);
	}
	return NULL;
}

/* Sends a RUNNING vCPU whose affinity no longer includes its pCPU to an allowed one. */
sched_cpumask_t cr_move_away(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t aff = sched_affinity(s, v);
	int idle = cr_find_idle(s, aff);
	unsigned to = idle >= 0 ? (unsigned)idle : sched_least_loaded(s, aff);
	cv(v)->flags &= (uint8_t)~F_MOVE;
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	cr_unboost(s, v, now);
	/* The door took every lock for this pick (sd_set_affinity's move_pending); a target
	 * another pCPU holds all the same: queued here, where it may not run, and the finish
	 * op moves it. */
	if (sched_peer(s, to))
		cr_transfer(s, v, to, now);
	else
		sched_defer(s);
	cr_enqueue(s, v);
	return cr_with_kick(cpumask_none(), cr_tickle(s, v));
}

/* c, runnable without a wake for balance_hold, has just been moved by balancing to q,
 * where pinned vCPUs run or wait. It carried its lag, so it stands level with them and
 * gets its weight's part of q, as it did of the pCPU it left, while the pinned vCPUs there
 * had q to themselves meanwhile: a single vCPU of weight 468 between 7 vCPUs pinned to
 * pCPU 0 and 3 pinned to pCPU 1 (weight 256 each) got 64.6 for its 95.5
 * (sim-beyond-heavy). Placed instead behind q's runner by its own shortfall in service per
 * weight (gvt) against the runner and q's first queued vCPU, at most one bank, it runs
 * on each pCPU in turn nearly all the time, as a global order would have it (95.45). Only
 * vtime moves (gvt is what it got); not for vCPUs that woke in the last balance_hold
 * (self-waking attackers, whose gvt is behind by design, gained up to 9 points), and not
 * against a runner whose gvt a bank cut raised at its wake (echoes lost 30 points in
 * sim-beyond-64). */
static void ahead_of_pinned(struct sched *s, struct sched_vcpu *c, unsigned q, uint64_t now)
{
	struct sched_pcpu *qc = &s->pcpu[q];
	struct sched_vcpu *t = qc->curr, *h = cr_min(cpc(qc)->rq_norm);
	if (!t || t->state != SCHED_VS_RUNNING || t->prio == SCHED_PRI_BOOST ||
	    (cv(t)->flags & F_BANK_CUT) || now - cv(c)->woke_at < cs(s)->p.balance_hold_ns ||
	    (!cpc(qc)->rq_pin && !sched_pinned(s, t, q)))
		return;
	int64_t d = (int64_t)(cv(t)->gvt - cv(c)->gvt);
	if (h && (int64_t)(cv(h)->gvt - cv(c)->gvt) < d)
		d = (int64_t)(cv(h)->gvt - cv(c)->gvt);
	if (d <= 0)
		return;
	uint64_t bank = cr_bank_vt(s, c);
	uint64_t vt = cv(t)->vtime - ((uint64_t)d < bank ? (uint64_t)d : bank);
	if ((int64_t)(vt - cv(c)->vtime) < 0)
		cv(c)->vtime = vt;
}

/* Who of p's candidates would go to q (its lock held) in a balancing look, or NULL: c, else
 * the most behind (gvt) other candidate allowed there, when q runs a vCPU far enough ahead
 * of `next` in service per weight and is lighter (cr_balance_push). */
static struct sched_vcpu *balance_mover(struct sched *s, unsigned p, unsigned q,
					struct sched_vcpu *c, struct sched_vcpu *next,
					struct sched_hnode **cand, unsigned nf, uint64_t gap,
					uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p], *qc = &s->pcpu[q];
	struct sched_vcpu *t = qc->curr;
	if (!t || t->state != SCHED_VS_RUNNING)
		return NULL; /* an idle pCPU steals by itself */
	/* Who would go to q: c, else the most behind (gvt) other candidate allowed. */
	struct sched_vcpu *m = sched_allowed(s, c, q) ? c : NULL;
	for (unsigned i = 0; m != c && i < nf; i++) {
		struct sched_vcpu *o = cr_vcpu_of(cand[i]);
		if (now >= cv(o)->bal_hold && sched_allowed(s, o, q) &&
		    (!m || (int64_t)(cv(o)->gvt - cv(m)->gvt) < 0))
			m = o;
	}
	if (!m)
		return NULL;
	/* Lighter in earning weight; or (below) far ahead, two gaps, and not heavier than p
	 * in runnable weight once m is there: sleepers that earn on q (an echo pinged every
	 * 300 us) make it look as loaded as p while its runner takes all of q
	 * (sim-sleeper-load). */
	uint64_t lq = cpc(qc)->w_active, lp = cpc(pc)->w_active;
	bool by_load = lq < lp;
	if (!by_load && load_of(qc) + ew_of(m) > load_of(pc))
		return NULL;
	/* A stand-in only where it fits (q no heavier than p was): it is no rotation of
	 * equals, and a heavy one would take q from those that can run nowhere else. */
	if (m != c && lq + ew_of(m) > lp)
		return NULL;
	cr_settle_vt(t, now); /* its gvt up to now (a lone vCPU may run for hours) */
	int64_t ahead = (int64_t)(cv(t)->gvt - cv(next)->gvt);
	if (ahead <= (int64_t)gap || (!by_load && ahead <= 2 * (int64_t)gap))
		return NULL;
	/* A stand-in goes only where it gains: q's runner ahead of it too. */
	if (m != c && (int64_t)(cv(t)->gvt - cv(m)->gvt) <= (int64_t)gap)
		return NULL;
	return m;
}

/* Balancing between busy pCPUs, tickless. Per-pCPU fairness gives each vCPU its weighted
 * share of the pCPU it is on; when the pCPUs' loads differ (5 spinners on 2 pCPUs), the
 * vCPUs of the busier one fall behind. Each vCPU's gvt (its vtime, never rebased by a
 * migration) measures service per weight across pCPUs. When p has just chosen `next`
 * (not boosted) and a busy pCPU q of lower earning weight runs a vCPU that is ahead of
 * `next` by more than balance_gap of service, one waiting vCPU of p moves to q: those that
 * stay on p get more, q's get less, until the gap has turned the other way. The one that
 * moves is the more advanced (gvt) of the vCPU p just descheduled and its queue head: its
 * own share hardly changes, the most behind stay. Where that candidate may not go, the most
 * behind of the first BAL_CAND others queued on p that may stands in for it, if it fits
 * (W_q + w <= W_p) and q's runner is ahead of it too. The move may make q the heavier (when
 * no part fits W_p - W_q, weights can only be held across pCPUs by rotation, as for 5
 * spinners on 2 pCPUs); it moves at most once per balance_hold (no ping-pong: for the
 * same move back the gap must first build up the other way), keeps its
 * credit (lag) and priority (no boost for moving, like WAKE_MIGRATE), and q is kicked to
 * re-decide (it may have had no timer). Cost: at most BAL_WINDOW pCPUs, each against at
 * most BAL_CAND queued vCPUs. Returns the pCPUs to kick. */
sched_cpumask_t cr_balance_push(struct sched *s, unsigned p, struct sched_vcpu *next,
				struct sched_vcpu *prev, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	if (!cr_may_balance(s, pc))
		return cpumask_none();
	struct sched_vcpu *c = cr_min(cpc(pc)->rq_norm);
	if (prev && cv(prev)->heap == HEAP_NORM && prev->pcpu == p &&
	    (now < cv(c)->bal_hold || (int64_t)(cv(prev)->gvt - cv(c)->gvt) > 0))
		c = prev;
	if (now < cv(c)->bal_hold || now < cpc(pc)->bal_next)
		return cpumask_none();
	/* A boosted `next` is no measure of p's service: compare with the candidate. Nor is
	 * one whose credit was cut to the bank at its wake (an echo back from a sleep, for the
	 * rest of its burst): the cut raised its gvt to the bank line, not service, so a
	 * runner elsewhere looked no further ahead than that line and vCPUs waiting behind the
	 * echo stayed (sim-beyond-64: hog2, allowed on 22-23 beside an echo, 138.5 for 142.1,
	 * the visitors on 22-23 26.5 points where the ideal leaves them 22.9). */
	if (next->prio == SCHED_PRI_BOOST || (cv(next)->flags & F_BANK_CUT))
		next = c;
	/* The first few others queued here (not held) stand in for c on the pCPUs c may not
	 * use: a vCPU allowed on pCPUs 38-41 queued behind vCPUs allowed on 38-39 only is the
	 * only one that can relieve them, however far back it stands (sim-beyond-64). */
	struct sched_hnode *cand[BAL_CAND];
	sched_cpumask_t aff = sched_affinity(s, c);
	/* A candidate allowed everywhere needs none (the common case costs no walk). */
	unsigned nf = cpumask_subset(sched_all_pcpus(s), aff)
			      ? 0
			      : hn_first(cpc(pc)->rq_norm, cand, BAL_CAND);
	for (unsigned i = 0; i < nf; i++)
		if (now >= cv(cr_vcpu_of(cand[i]))->bal_hold)
			aff = cpumask_or(aff, sched_affinity(s, cr_vcpu_of(cand[i])));
	/* The pCPUs looked at are those the candidates may use (candidates allowed on 2 of 64
	 * pCPUs are looked for on those 2 at every look, not once in 8 looks). */
	aff = cpumask_without(cpumask_and(aff, sched_all_pcpus(s)), p);
	/* Each look covers BAL_WINDOW pCPUs (beyond that many, the next ones, rotating) and
	 * looks are spaced so that a whole sweep takes half of the gap: a gap builds
	 * up over gap / (share difference) ns, so a move is delayed by a fraction of that,
	 * and a decision never costs more than BAL_WINDOW pCPUs' worth, at any number. */
	unsigned n = cpumask_count(aff);
	unsigned sweeps = (n + BAL_WINDOW - 1) / BAL_WINDOW;
	cpc(pc)->bal_next = now + cs(s)->p.balance_gap_ns / 2 / (sweeps ? sweeps : 1);
	sched_cpumask_t look = aff;
	if (n > BAL_WINDOW) {
		/* From the cursor on (wrapping), the first BAL_WINDOW of them. */
		sched_cpumask_t rest = aff;
		unsigned q = cpc(pc)->bal_cursor % s->nr_pcpus;
		look = cpumask_none();
		for (unsigned i = 0; i < BAL_WINDOW; i++) {
			q = cpumask_next_wrap(rest, q);
			cpumask_clear(&rest, q);
			cpumask_set(&look, q);
			cpc(pc)->bal_cursor = (uint16_t)((q + 1) % s->nr_pcpus);
		}
	}
	uint64_t gap = cr_ns_to_vt(cs(s)->p.balance_gap_ns, ew_of(next));
	int best = -1;
	struct sched_vcpu *mover = NULL;
	cpumask_for_each(q, look)
	{
		if (!sched_peek(s, q))
			continue; /* another pCPU has it: looked at again at a later look */
		struct sched_vcpu *m = balance_mover(s, p, q, c, next, cand, nf, gap, now);
		if (m && (best < 0 || cpc(&s->pcpu[q])->w_active < cpc(&s->pcpu[best])->w_active)) {
			if (best >= 0)
				sched_unpeer(s, (unsigned)best);
			best = (int)q;
			mover = m;
		} else {
			sched_unpeer(s, q);
		}
	}
	if (best < 0)
		return cpumask_none();
	c = mover;
	cr_heap_del(s, c);
	cr_transfer(s, c, (unsigned)best, now);
	ahead_of_pinned(s, c, (unsigned)best, now);
	cv(c)->bal_hold = now + cs(s)->p.balance_hold_ns;
	cr_enqueue(s, c);
	return cpumask_of((unsigned)best);
}

/* Idle pCPUs for the movable vCPUs queued anywhere (the roots of each pCPU's boost and
 * movable heaps and their first children), one idle pCPU per vCPU, so that two offers never go to
 * the same idle pCPU while another stays idle. Only while some pCPU idles and movable work waits.
 */
sched_cpumask_t cr_kick_idle_for_work(struct sched *s)
{
	sched_cpumask_t idle = cpumask_and(cr_idle_mask(s), sched_all_pcpus(s)),
			kick = cpumask_none();
	sched_cpumask_t m = cpumask_and(cr_move_mask(s), sched_all_pcpus(s));
	for (unsigned q = cpumask_first(m); q < SCHED_MAX_PCPUS && !cpumask_empty(idle);
	     q = cpumask_next(m, q)) {
		if (!sched_peek(s, q))
			continue;
		struct sched_hnode *roots[2] = {cpc(&s->pcpu[q])->rq_boost,
						cpc(&s->pcpu[q])->rq_norm};
		for (int k = 0; k < 2 && !cpumask_empty(idle); k++) {
			/* The root and its first children: what a stealing pCPU looks at. */
			struct sched_hnode *n = roots[k];
			for (unsigned i = 0; n && !cpumask_empty(idle) && i < 64; i++) {
				unsigned b = cpumask_first(
					cpumask_and(sched_affinity(s, cr_vcpu_of(n)), idle));
				if (b < SCHED_MAX_PCPUS) { /* the lowest */
					cpumask_set(&kick, b);
					cpumask_clear(&idle, b);
				}
				n = i ? n->next : roots[k]->child;
			}
		}
		sched_unpeer(s, q);
	}
	return kick;
}

/* p found nothing to run or steal: a movable vCPU running on a pCPU where pinned vCPUs
 * wait (they can run nowhere else) and allowed on p is asked to come (F_PULL, its pCPU
 * kicked; it moves at that pCPU's next decision if p still idles). Without this, p idles
 * until that vCPU's slice ends while the pinned ones wait. */
sched_cpumask_t cr_pull_running(struct sched *s, unsigned p)
{
	sched_cpumask_t m = cpumask_without(cpumask_and(cr_pin_mask(s), sched_all_pcpus(s)), p);
	cpumask_for_each(q, m)
	{
		if (!sched_peek(s, q))
			continue;
		struct sched_vcpu *t = s->pcpu[q].curr;
		if (t && t->state == SCHED_VS_RUNNING && t->prio != SCHED_PRI_BOOST &&
		    sched_allowed(s, t, p) && !(cv(t)->flags & F_PULL)) {
			cv(t)->flags |= F_PULL;
			SCHED_PUT(s->pcpu[q].resched, true);
			return cpumask_of(q);
		}
		sched_unpeer(s, q);
	}
	return cpumask_none();
}

/* `next`, just taken off p's queue, is movable and p has other work queued: if an idle pCPU
 * of its affinity exists, send it there (queued, that pCPU kicked) instead of running it
 * here, so that nothing runnable waits behind p's (pinned) queue while an allowed pCPU
 * idles. Not a boost (10): it keeps its lag and priority. `preempted`: it is the vCPU p
 * just descheduled, whose preemption is counted before another pCPU can run it. */
bool cr_hand_to_idle(struct sched *s, unsigned p, struct sched_vcpu *next, bool preempted,
		     uint64_t now, sched_cpumask_t *kick)
{
	/* Pinned to p: no other pCPU to look for (no set built). */
	if (!cr_may_hand_to_idle(s, p, next) || cpumask_is_only(&next->affinity, p))
		return false;
	int idle = cr_find_idle(s, cpumask_without(sched_affinity(s, next), p));
	if (idle < 0 || !sched_peek(s, (unsigned)idle))
		return false;
	if (preempted) /* it ran here until this pick */
		sched_note_preempt(next);
	cr_transfer(s, next, (unsigned)idle, now);
	cr_enqueue(s, next);
	cpumask_set(kick, (unsigned)idle);
	return true;
}
