/* eevdf: the EEVDF policy as Linux v6.6 runs it (kernel/sched/fair.c of tag v6.6), flattened
 * to one level: a vCPU is a sched_entity, a pCPU a cfs_rq, a domain a task group whose
 * weight is split over its vCPUs. Rules and citations: docs/scheduler.md, "Policy: eevdf".
 *
 * Per entity: vruntime advances by delta * NICE_0_LOAD / weight (update_curr, fair.c:1150;
 * calc_delta_fair, fair.c:311); deadline = vruntime + calc_delta_fair(slice) (update_deadline,
 * fair.c:1019); eligible when its lag against the weighted average of the queue is >= 0
 * (avg_vruntime, fair.c:671; entity_eligible, fair.c:738); the pick is the eligible entity
 * with the earliest deadline (__pick_eevdf, fair.c:875), by an O(n) scan of the pCPU's queue
 * here (Linux: an augmented rb-tree, O(log n)). Lag is kept across sleep, clamped
 * (update_entity_lag, fair.c:710) and restored, scaled, at the wake (place_entity,
 * fair.c:4974). Tickless: the slice end is run_until, not a tick. */
#include "sched/eevdf_priv.h"
#include "lib/cmdline.h"

/* The weighted average of one queue: avg_vruntime()'s sums, recomputed by a scan. */
struct eevdf_avg {
	uint64_t base; /* cfs_rq->min_vruntime (v0 of the keys) */
	int64_t sum;   /* \Sum (v_i - v0) * w_i over the queue and a running curr */
	int64_t load;  /* \Sum w_i */
};

static struct sched_vcpu *running(struct sched *s, unsigned p)
{
	struct sched_vcpu *c = s->pcpu[p].curr;
	return c && c->state == SCHED_VS_RUNNING && c->pcpu == p && EV(c)->on_rq ? c : NULL;
}

static unsigned nr_running(struct sched *s, unsigned p)
{
	return s->pcpu[p].nr_queued + (running(s, p) ? 1u : 0u);
}

static struct eevdf_avg rq_avg(struct sched *s, unsigned p)
{
	struct eevdf_rq *rq = ERQ(s, p);
	struct eevdf_avg a = {rq->min_vruntime, 0, 0};
	for (struct sched_vcpu *v = rq->head; v; v = EV(v)->next) {
		a.sum += (int64_t)(EV(v)->vruntime - a.base) * EV(v)->weight;
		a.load += EV(v)->weight;
	}
	struct sched_vcpu *c = running(s, p);
	if (c) {
		a.sum += (int64_t)(EV(c)->vruntime - a.base) * EV(c)->weight;
		a.load += EV(c)->weight;
	}
	return a;
}

/* avg_vruntime (fair.c:671): floor of the weighted average, so that V itself is eligible. */
static uint64_t avg_vruntime(const struct eevdf_avg *a)
{
	int64_t avg = a->sum;
	if (a->load) {
		if (avg < 0)
			avg -= a->load - 1;
		avg /= a->load;
	}
	return a->base + (uint64_t)avg;
}

/* entity_eligible (fair.c:738): lag >= 0, compared without the division. */
static bool eligible(const struct eevdf_avg *a, const struct sched_vcpu *v)
{
	return a->sum >= (int64_t)(EV(v)->vruntime - a->base) * a->load;
}

/* update_min_vruntime (fair.c:768): the base only moves forward. */
static void update_min_vruntime(struct sched *s, unsigned p)
{
	struct eevdf_rq *rq = ERQ(s, p);
	struct sched_vcpu *c = running(s, p);
	bool have = c != NULL;
	uint64_t vr = c ? EV(c)->vruntime : rq->min_vruntime;
	for (struct sched_vcpu *v = rq->head; v; v = EV(v)->next) {
		if (!have || (int64_t)(EV(v)->vruntime - vr) < 0)
			vr = EV(v)->vruntime;
		have = true;
	}
	if ((int64_t)(vr - rq->min_vruntime) > 0)
		rq->min_vruntime = vr;
}

static void queue_add(struct sched *s, struct sched_vcpu *v)
{
	struct eevdf_rq *rq = ERQ(s, v->pcpu);
	struct eevdf_vcpu *e = EV(v);
	e->next = NULL;
	e->prev = rq->tail;
	if (rq->tail)
		EV(rq->tail)->next = v;
	else
		rq->head = v;
	rq->tail = v;
	s->pcpu[v->pcpu].nr_queued++;
	v->state = SCHED_VS_RUNNABLE;
}

static void queue_del(struct sched *s, struct sched_vcpu *v)
{
	struct eevdf_rq *rq = ERQ(s, v->pcpu);
	struct eevdf_vcpu *e = EV(v);
	if (e->prev)
		EV(e->prev)->next = e->next;
	else
		rq->head = e->next;
	if (e->next)
		EV(e->next)->prev = e->prev;
	else
		rq->tail = e->prev;
	e->next = e->prev = NULL;
	s->pcpu[v->pcpu].nr_queued--;
}

/* update_deadline (fair.c:1019): a used request gets a new deadline and, with others
 * runnable, a reschedule. The core is tickless and the timer lands on the deadline, so the
 * new deadline is counted from the old one (whole slices), where a tick would see it. */
static void update_deadline(struct sched *s, unsigned p, struct sched_vcpu *v)
{
	struct eevdf_vcpu *e = EV(v);
	if ((int64_t)(e->vruntime - e->deadline) < 0)
		return;
	e->slice = ES(s)->slice_ns;
	uint64_t vslice = eevdf_calc_delta_fair(e->slice, e->weight);
	e->deadline += ((e->vruntime - e->deadline) / vslice + 1) * vslice;
	v->in_spin_loop = false; /* it ran a full slice (issue 14) */
	if (nr_running(s, p) > 1)
		s->pcpu[p].resched = true;
}

void eevdf_update_curr(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_vcpu *c = running(s, p);
	if (!c || now <= c->since)
		return;
	uint64_t dt = now - c->since;
	c->since = now;
	c->c.run_ns += dt;
	c->dom->c.run_ns += dt;
	EV(c)->vruntime += eevdf_calc_delta_fair(dt, EV(c)->weight);
	update_deadline(s, p, c);
	update_min_vruntime(s, p);
	eevdf_bw_account(s, c, dt);
}

/* update_entity_lag (fair.c:710): vlag = V - v, limited to the virtual time of
 * max(2 * slice, TICK_NSEC) at its weight. */
static void update_entity_lag(struct sched *s, unsigned p, struct sched_vcpu *v)
{
	struct eevdf_vcpu *e = EV(v);
	struct eevdf_avg a = rq_avg(s, p);
	int64_t lag = (int64_t)(avg_vruntime(&a) - e->vruntime);
	uint64_t lim_ns = 2 * e->slice > ES(s)->tick_ns ? 2 * e->slice : ES(s)->tick_ns;
	int64_t limit = (int64_t)eevdf_calc_delta_fair(lim_ns, e->weight);
	e->vlag = lag > limit ? limit : lag < -limit ? -limit : lag;
}

/* place_entity (fair.c:4974): at V minus the kept lag, inflated by (W + w) / W so that the
 * lag after joining is the lag it left with; half a slice for a first start. */
static void place_entity(struct sched *s, struct sched_vcpu *v, bool initial)
{
	struct eevdf_vcpu *e = EV(v);
	struct eevdf_avg a = rq_avg(s, v->pcpu);
	e->slice = ES(s)->slice_ns;
	uint64_t vslice = eevdf_calc_delta_fair(e->slice, e->weight);
	int64_t lag = 0;
	if (ES(s)->place_lag && nr_running(s, v->pcpu)) {
		lag = e->vlag * (a.load + (int64_t)e->weight);
		lag /= a.load ? a.load : 1;
	}
	e->vruntime = avg_vruntime(&a) - (uint64_t)lag;
	if (initial) /* PLACE_DEADLINE_INITIAL, features.h:8 */
		vslice /= 2;
	e->deadline = e->vruntime + vslice;
}

/* enqueue_entity (fair.c:5080): update_curr, place, queue. */
void eevdf_enqueue(struct sched *s, struct sched_vcpu *v, bool initial)
{
	place_entity(s, v, initial);
	EV(v)->on_rq = true;
	EV(v)->fresh = false;
	queue_add(s, v);
	update_min_vruntime(s, v->pcpu);
}

/* dequeue_entity (fair.c:5167) of a queued or running v: its lag is kept. The caller
 * charged the running vCPU of v's pCPU first. */
void eevdf_dequeue(struct sched *s, struct sched_vcpu *v)
{
	unsigned p = v->pcpu;
	update_entity_lag(s, p, v);
	if (v->state == SCHED_VS_RUNNABLE && EV(v)->on_rq)
		queue_del(s, v);
	EV(v)->on_rq = false;
	if (s->pcpu[p].yield_next == v) /* clear_buddies */
		s->pcpu[p].yield_next = NULL;
	v->state = SCHED_VS_BLOCKED;
	update_min_vruntime(s, p);
}

/* __pick_eevdf (fair.c:875) by a scan: the current one first, kept under RUN_TO_PARITY
 * while it is eligible and has not been given a new deadline since it was picked. */
static struct sched_vcpu *pick_eevdf(struct sched *s, unsigned p)
{
	struct eevdf_avg a = rq_avg(s, p);
	struct sched_vcpu *best = running(s, p);
	if (best && !eligible(&a, best))
		best = NULL;
	if (best && ES(s)->run_to_parity && EV(best)->pick_deadline == EV(best)->deadline)
		return best;
	/* An exact tie with the current one goes to the waiting one: Linux sees the slice end
	 * at a tick, past the deadline, so the current one's next deadline lands later. */
	struct sched_vcpu *left = NULL, *c = best;
	for (struct sched_vcpu *v = ERQ(s, p)->head; v; v = EV(v)->next) {
		if (!left || (int64_t)(EV(v)->vruntime - EV(left)->vruntime) < 0)
			left = v;
		int64_t d = best ? (int64_t)(EV(best)->deadline - EV(v)->deadline) : 1;
		if (eligible(&a, v) && (d > 0 || (d == 0 && best == c)))
			best = v;
	}
	/* pick_eevdf (fair.c:969): none eligible (rounding) -> the leftmost. */
	return best ? best : left ? left : running(s, p);
}

/* check_preempt_wakeup (fair.c:8055): an idle pCPU runs v; a busy one is preempted when
 * the EEVDF pick would now be v. */
sched_cpumask_t eevdf_check_preempt(struct sched *s, struct sched_vcpu *v)
{
	unsigned p = v->pcpu;
	struct sched_pcpu *pc = &s->pcpu[p];
	if (!running(s, p) || pc->resched)
		return SCHED_CPU(p);
	if (ES(s)->wakeup_preempt && pick_eevdf(s, p) == v) {
		pc->resched = true;
		return SCHED_CPU(p);
	}
	/* No preemption, but the running one now has a slice end to arm (tickless). */
	struct sched_vcpu *c = running(s, p);
	int64_t vd = (int64_t)(EV(c)->deadline - EV(c)->vruntime);
	uint64_t end = c->since + (vd > 0 ? eevdf_real_ns((uint64_t)vd, EV(c)->weight) : 1);
	return pc->armed > end ? SCHED_CPU(p) : 0;
}

void eevdf_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	unsigned from = v->pcpu;
	if (from == to)
		return;
	s->pcpu[from].nr_vcpus--;
	s->pcpu[to].nr_vcpus++;
	if (EV(v)->throttled) {
		ERQ(s, from)->nr_throttled--;
		ERQ(s, to)->nr_throttled++;
	}
	v->pcpu = (uint16_t)to;
	v->c.migrations++;
	v->dom->c.migrations++;
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
}

/* Weights: ours (1..65535, 256 = nice 0) x 4 = the group's shares, split evenly over the
 * domain's vCPUs (flattened group scheduling); reweight_entity (fair.c:3629) rescales the
 * relative deadline of a queued entity and the lag of a dequeued one. */
static void reweight_dom(struct sched *s, struct sched_dom *d, uint64_t now)
{
	if (!d->nr_vcpus)
		return;
	uint64_t w64 = (uint64_t)d->weight * (EEVDF_NICE0 / SCHED_DEFAULT_WEIGHT) / d->nr_vcpus;
	uint32_t w = w64 < EEVDF_MIN_WEIGHT ? EEVDF_MIN_WEIGHT : (uint32_t)w64;
	for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
		struct eevdf_vcpu *e = EV(v);
		uint32_t old = e->weight;
		if (old == w)
			continue;
		if (e->on_rq) {
			if (v->state == SCHED_VS_RUNNING)
				eevdf_update_curr(s, v->pcpu, now);
			int64_t rel = (int64_t)(e->deadline - e->vruntime) * old / w;
			e->deadline = e->vruntime + (uint64_t)rel;
		} else if (old) {
			e->vlag = e->vlag * old / w;
		}
		e->weight = w;
	}
}

/* sched_init_granularity -> update_sysctl (fair.c:234, factor fair.c:213):
 * 0.75 ms x (1 + ilog2(min(ncpus, 8))), 3 ms at 8 pCPUs and more. */
static void update_slice(struct sched *s)
{
	struct eevdf_sched *es = ES(s);
	unsigned n = s->nr_pcpus < 8 ? s->nr_pcpus : 8, log = 0;
	while (n >> (log + 1))
		log++;
	es->slice_ns = es->slice_set ? es->slice_set : EEVDF_BASE_SLICE_NS * (1 + log);
}

static void eevdf_init(struct sched *s)
{
	struct eevdf_sched *es = ES(s);
	*es = (struct eevdf_sched){0};
	es->period_ns = EEVDF_BW_PERIOD_NS;
	es->tick_ns = EEVDF_TICK_NS;
	es->run_to_parity = true;
	es->place_lag = true;
	es->wakeup_preempt = true;
	update_slice(s);
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		*ERQ(s, p) = (struct eevdf_rq){0};
}

static int eevdf_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	if (!d)
		return -SCHED_EINVAL;
	if (!d->weight)
		d->weight = SCHED_DEFAULT_WEIGHT;
	if (d->weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	*EV(v) = (struct eevdf_vcpu){0};
	EV(v)->fresh = true;
	EV(v)->slice = ES(s)->slice_ns;
	v->state = SCHED_VS_BLOCKED;
	v->prio = SCHED_PRI_UNDER;
	v->pcpu = (uint16_t)sched_least_loaded(s, sched_affinity(s, v));
	s->pcpu[v->pcpu].nr_vcpus++;
	s->nr_vcpus++;
	if (d->nr_vcpus++ == 0) {
		d->vcpus = NULL;
		*EDOM(d) = (struct eevdf_dom){0};
		eevdf_bw_set(s, d, now);
	}
	v->next_in_dom = d->vcpus;
	d->vcpus = v;
	sched_dom_link(s, d);
	reweight_dom(s, d, now);
	return 0;
}

static void eevdf_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	struct sched_dom *d = v->dom;
	eevdf_update_curr(s, v->pcpu, now);
	if (v->state == SCHED_VS_RUNNABLE || v->state == SCHED_VS_RUNNING)
		eevdf_dequeue(s, v);
	if (EV(v)->throttled) {
		EV(v)->throttled = false;
		ERQ(s, v->pcpu)->nr_throttled--;
	}
	if (pc->curr == v)
		pc->curr = NULL;
	v->state = SCHED_VS_BLOCKED;
	pc->nr_vcpus--;
	s->nr_vcpus--;
	sched_yield_forget(s, v);
	for (struct sched_vcpu **pp = &d->vcpus; *pp; pp = &(*pp)->next_in_dom) {
		if (*pp == v) {
			*pp = v->next_in_dom;
			break;
		}
	}
	v->next_in_dom = NULL;
	if (--d->nr_vcpus == 0)
		sched_dom_unlink(s, d);
	else
		reweight_dom(s, d, now);
}

/* try_to_wake_up -> select_task_rq_fair (simplified, eevdf_bw.c) -> enqueue_entity ->
 * check_preempt_wakeup. A vCPU of a throttled domain waits parked for the refresh. */
static sched_cpumask_t eevdf_wake(struct sched *s, struct sched_vcpu *v, uint64_t now,
				  unsigned flags)
{
	sched_cpumask_t kick = sched_take_kicks(s) | eevdf_bw_refresh(s, now);
	if (flags & (WAKE_EVENT | WAKE_TIMER)) {
		v->c.events++;
		v->dom->c.events++;
	}
	if (v->state != SCHED_VS_BLOCKED)
		return kick;
	v->c.wakes++;
	v->dom->c.wakes++;
	unsigned target = eevdf_select_cpu(s, v);
	eevdf_move(s, v, target, now);
	eevdf_update_curr(s, target, now);
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	if (eevdf_bw_exhausted(s, v, now)) { /* enqueued into a throttled cfs_rq */
		eevdf_bw_throttle(s, v, now);
		/* Its pCPU must be there at the refresh: re-arm it. */
		return kick |
		       (s->pcpu[target].armed > eevdf_bw_next_event(s, target) ? SCHED_CPU(target)
									       : 0);
	}
	eevdf_enqueue(s, v, EV(v)->fresh);
	return kick | eevdf_check_preempt(s, v);
}

static sched_cpumask_t eevdf_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	unsigned p = v->pcpu;
	eevdf_update_curr(s, p, now);
	if (v->state == SCHED_VS_RUNNING) {
		s->pcpu[p].resched = true;
		kick |= SCHED_CPU(p);
	}
	if (v->state == SCHED_VS_RUNNABLE || v->state == SCHED_VS_RUNNING) {
		eevdf_dequeue(s, v);
	} else if (EV(v)->throttled) {
		EV(v)->throttled = false;
		ERQ(s, p)->nr_throttled--;
	}
	v->state = SCHED_VS_BLOCKED;
	eevdf_bw_return(s, v);
	sched_trace_ev(s, p, now, SCHED_EV_SLEEP, v, 0);
	return kick;
}

/* yield_task_fair (fair.c:8335): alone, nothing; else the deadline moves a slice later. */
static void do_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	unsigned p = v->pcpu;
	if (v->state != SCHED_VS_RUNNING || nr_running(s, p) == 1)
		return;
	eevdf_update_curr(s, p, now);
	EV(v)->deadline += eevdf_calc_delta_fair(EV(v)->slice, EV(v)->weight);
	s->pcpu[p].resched = true;
}

static void eevdf_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	v->c.yields++;
	v->dom->c.yields++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
	do_yield(s, v, now);
}

/* yield_to_task_fair (fair.c:8364) through yield_to (core.c:8931): t becomes its cfs_rq's
 * next buddy (pCPU yield_next), v yields, t's pCPU reschedules. Under 6.6's default
 * NEXT_BUDDY=false (features.h:16) pick_next_entity (fair.c:5270) ignores the buddy. */
static sched_cpumask_t eevdf_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				      uint64_t now)
{
	if (t->state != SCHED_VS_RUNNABLE || EV(t)->throttled)
		return 0;
	if (nr_running(s, v->pcpu) == 1 && nr_running(s, t->pcpu) == 1)
		return 0; /* -ESRCH */
	s->pcpu[t->pcpu].yield_next = t;
	do_yield(s, v, now);
	s->pcpu[v->pcpu].resched = true;
	if (t->pcpu == v->pcpu)
		return 0;
	eevdf_update_curr(s, t->pcpu, now);
	s->pcpu[t->pcpu].resched = true;
	return SCHED_CPU(t->pcpu);
}

/* Takes a queued vCPU to run: set_next_entity (fair.c:5220), which stashes the deadline
 * for RUN_TO_PARITY (the HACK, fair.c:5235). */
static void set_next(struct sched *s, unsigned p, struct sched_vcpu *v, uint64_t now)
{
	queue_del(s, v);
	v->state = SCHED_VS_RUNNING;
	v->since = now;
	EV(v)->pick_deadline = EV(v)->deadline;
	EV(v)->last_ran = now;
	if (s->pcpu[p].yield_next == v)
		s->pcpu[p].yield_next = NULL;
}

static struct sched_vcpu *pick_next_entity(struct sched *s, unsigned p)
{
	struct sched_vcpu *b = s->pcpu[p].yield_next;
	if (ES(s)->next_buddy && b && b->state == SCHED_VS_RUNNABLE && b->pcpu == p) {
		struct eevdf_avg a = rq_avg(s, p);
		if (eligible(&a, b))
			return b;
	}
	return pick_eevdf(s, p);
}

static struct sched_pick eevdf_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_pick r = {NULL, SCHED_NEVER, sched_take_kicks(s)};
	pc->picks++;
	eevdf_update_curr(s, p, now);
	r.kick |= eevdf_bw_refresh(s, now);
	struct sched_vcpu *cur = running(s, p), *prev = pc->curr, *next = NULL;
	if (cur && !sched_allowed(s, cur, p)) { /* affinity changed while it ran */
		eevdf_dequeue(s, cur);
		eevdf_move(s, cur, eevdf_select_cpu(s, cur), now);
		eevdf_update_curr(s, cur->pcpu, now);
		eevdf_enqueue(s, cur, false);
		r.kick |= eevdf_check_preempt(s, cur);
		cur->c.preempts++;
		cur->dom->c.preempts++;
		cur = NULL;
	}
	if (cur && !eevdf_bw_runnable(s, cur, now)) { /* check_cfs_rq_runtime, fair.c:6097 */
		eevdf_bw_throttle(s, cur, now);
		cur = NULL;
	}
	if (cur && !pc->resched) {
		next = cur; /* nothing asked for a schedule() */
	} else {
		pc->resched = false;
		next = pick_next_entity(s, p);
		if (cur && next != cur) { /* put_prev_entity: back in the queue, lag intact */
			queue_add(s, cur);
			cur->c.preempts++;
			cur->dom->c.preempts++;
		}
		/* A re-picked current keeps its stash: pick_next_task_fair only calls
		 * set_next_entity for a new one. */
		while (!cur || next != cur) {
			if (!next)
				next = eevdf_newidle_pull(s, p, now);
			if (!next)
				break;
			set_next(s, p, next, now);
			if (eevdf_bw_runnable(s, next, now))
				break;
			eevdf_bw_throttle(s, next, now);
			next = pick_next_entity(s, p);
			cur = NULL;
		}
		if (!ES(s)->next_buddy)
			pc->yield_next = NULL;
	}
	pc->curr = next;
	if (next && next != prev) {
		next->c.switches++;
		next->dom->c.switches++;
		next->run_start = now;
		pc->curr_since = now;
		sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next,
			       prev ? (int64_t)prev->dom->id : -1);
	} else if (!next && prev) {
		pc->last_pick = now;
		pc->curr_since = now;
	}
	if (next) {
		struct eevdf_vcpu *e = EV(next);
		r.vcpu = next;
		if (pc->nr_queued) { /* the slice end (update_deadline's resched) */
			int64_t vd = (int64_t)(e->deadline - e->vruntime);
			r.run_until = now + (vd > 0 ? eevdf_real_ns((uint64_t)vd, e->weight) : 1);
		}
		if (EDOM(next->dom)->quota && e->runtime > 0) /* the lease runs out */
			r.run_until = eevdf_min(r.run_until, now + (uint64_t)e->runtime);
	}
	r.run_until = eevdf_min(r.run_until, eevdf_bw_next_event(s, p));
	if (r.run_until <= now)
		r.run_until = now + 1;
	pc->armed = r.run_until;
	r.kick |= eevdf_kick_idle(s);
	r.kick &= ~SCHED_CPU(p);
	return r;
}

static int eevdf_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			    uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT || cap > 100 * SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	if (weight && weight != d->weight) {
		d->weight = weight;
		reweight_dom(s, d, now);
	}
	if (cap != d->cap) {
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			eevdf_update_curr(s, v->pcpu, now);
		d->cap = cap;
		eevdf_bw_set(s, d, now);
	}
	return 0;
}

static sched_cpumask_t eevdf_set_affinity(struct sched *s, struct sched_vcpu *v,
					  sched_cpumask_t mask, uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu))
		return 0;
	if (v->state == SCHED_VS_RUNNING) {
		s->pcpu[v->pcpu].resched = true;
		return SCHED_CPU(v->pcpu); /* its pick_next moves it */
	}
	if (v->state == SCHED_VS_RUNNABLE) {
		eevdf_update_curr(s, v->pcpu, now);
		eevdf_dequeue(s, v);
		eevdf_move(s, v, eevdf_select_cpu(s, v), now);
		eevdf_update_curr(s, v->pcpu, now);
		eevdf_enqueue(s, v, false);
		return eevdf_check_preempt(s, v);
	}
	eevdf_move(s, v, sched_least_loaded(s, sched_affinity(s, v)), now);
	return 0;
}

static void eevdf_params_changed(struct sched *s, uint64_t now)
{
	(void)now;
	update_slice(s);
}

static int parse_flag(const char *val, size_t vlen, bool *out)
{
	uint64_t x;
	if (!parse_u64_n(val, vlen, &x) || x > 1)
		return -SCHED_EINVAL;
	*out = x != 0;
	return 0;
}

static bool key_is(const char *k, size_t kl, const char *name)
{
	size_t i = 0;
	for (; i < kl && name[i]; i++)
		if (k[i] != name[i])
			return false;
	return i == kl && !name[i];
}

/* eevdf.slice_us (0 = scaled default), eevdf.bw_period_us (cpu.max period, 1 ms..1 s as
 * tg_set_cfs_bandwidth allows), eevdf.tick_us (TICK_NSEC), and the features of
 * features.h: eevdf.run_to_parity, next_buddy, place_lag, wakeup_preemption (0|1). */
static int eevdf_config(struct sched *s, const char *key, size_t klen, const char *val, size_t vlen,
			uint64_t now)
{
	struct eevdf_sched *es = ES(s);
	uint64_t us;
	if (key_is(key, klen, "run_to_parity"))
		return parse_flag(val, vlen, &es->run_to_parity);
	if (key_is(key, klen, "next_buddy"))
		return parse_flag(val, vlen, &es->next_buddy);
	if (key_is(key, klen, "place_lag"))
		return parse_flag(val, vlen, &es->place_lag);
	if (key_is(key, klen, "wakeup_preemption"))
		return parse_flag(val, vlen, &es->wakeup_preempt);
	bool slice = key_is(key, klen, "slice_us"), period = key_is(key, klen, "bw_period_us");
	bool tick = key_is(key, klen, "tick_us");
	if (!slice && !period && !tick)
		return 1;
	if (!parse_u64_n(val, vlen, &us))
		return -SCHED_EINVAL;
	if (slice) {
		if (us && (us < 100 || us > 100000))
			return -SCHED_EINVAL;
		es->slice_set = us * 1000;
		update_slice(s);
	} else if (period) {
		if (us < 1000 || us > 1000000)
			return -SCHED_EINVAL;
		es->period_ns = us * 1000;
		for (struct sched_dom *d = s->doms; d; d = d->next_dom)
			eevdf_bw_set(s, d, now);
	} else {
		if (us < 100 || us > 100000)
			return -SCHED_EINVAL;
		es->tick_ns = us * 1000;
	}
	return 0;
}

static void eevdf_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	const struct eevdf_sched *es = ES(s);
	pr(arg, "sched policy=eevdf pcpus=%u slice_ns=%llu bw_period_ns=%llu run_to_parity=%u\n",
	   s->nr_pcpus, (unsigned long long)es->slice_ns, (unsigned long long)es->period_ns,
	   (unsigned)es->run_to_parity);
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		pr(arg, "sched pcpu%u queued=%u min_vruntime=%llu throttled=%u\n", p,
		   s->pcpu[p].nr_queued, (unsigned long long)ERQ(s, p)->min_vruntime,
		   ERQ(s, p)->nr_throttled);
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		pr(arg,
		   "sched eevdf d%u weight=%u cap=%u pool_ns=%lld periods=%llu throttled=%llu\n",
		   d->id, d->weight, d->cap, (long long)EDOM(d)->pool,
		   (unsigned long long)EDOM(d)->nr_periods,
		   (unsigned long long)EDOM(d)->nr_throttled);
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			const struct eevdf_vcpu *e = EV(v);
			pr(arg,
			   "sched eevdf d%uv%u pcpu=%u state=%u w=%u vruntime=%llu deadline=%llu"
			   " vlag=%lld\n",
			   d->id, v->id, v->pcpu, v->state, e->weight,
			   (unsigned long long)e->vruntime, (unsigned long long)e->deadline,
			   (long long)e->vlag);
		}
	}
}

const struct sched_ops sched_eevdf_ops = {
	.name = "eevdf",
	.init = eevdf_init,
	.vcpu_insert = eevdf_vcpu_insert,
	.vcpu_remove = eevdf_vcpu_remove,
	.wake = eevdf_wake,
	.sleep = eevdf_sleep,
	.yield = eevdf_yield,
	.yield_to = eevdf_yield_to,
	.pick_next = eevdf_pick_next,
	.set_params = eevdf_set_params,
	.set_affinity = eevdf_set_affinity,
	.params_changed = eevdf_params_changed,
	.dump = eevdf_dump,
	.config = eevdf_config,
};
