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
 * fair.c:4974). Tickless: the slice end is run_until, not a tick. The ops are in
 * eevdf_ops.c. */
#include "sched/eevdf_priv.h"

/* The weighted average of one queue: avg_vruntime()'s sums, recomputed by a scan. */
struct eevdf_avg {
	uint64_t base; /* cfs_rq->min_vruntime (v0 of the keys) */
	int64_t sum;   /* \Sum (v_i - v0) * w_i over the queue and a running curr */
	int64_t load;  /* \Sum w_i */
};

struct sched_vcpu *eevdf_running(struct sched *s, unsigned p)
{
	struct sched_vcpu *c = s->pcpu[p].curr;
	return c && c->state == SCHED_VS_RUNNING && c->pcpu == p && EV(c)->on_rq ? c : NULL;
}

unsigned eevdf_nr_running(struct sched *s, unsigned p)
{
	return s->pcpu[p].nr_queued + (eevdf_running(s, p) ? 1u : 0u);
}

static struct eevdf_avg rq_avg(struct sched *s, unsigned p)
{
	struct eevdf_rq *rq = ERQ(s, p);
	struct eevdf_avg a = {rq->min_vruntime, 0, 0};
	for (struct sched_vcpu *v = rq->head; v; v = EV(v)->next) {
		a.sum += (int64_t)(EV(v)->vruntime - a.base) * EV(v)->weight;
		a.load += EV(v)->weight;
	}
	struct sched_vcpu *c = eevdf_running(s, p);
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
	struct sched_vcpu *c = eevdf_running(s, p);
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

void eevdf_queue_add(struct sched *s, struct sched_vcpu *v)
{
	SCHED_HELD(s, v->pcpu);
	struct eevdf_rq *rq = ERQ(s, v->pcpu);
	struct eevdf_vcpu *e = EV(v);
	e->next = NULL;
	e->prev = rq->tail;
	if (rq->tail)
		EV(rq->tail)->next = v;
	else
		rq->head = v;
	rq->tail = v;
	SCHED_ADD(s->pcpu[v->pcpu].nr_queued, 1);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNABLE);
}

void eevdf_queue_del(struct sched *s, struct sched_vcpu *v)
{
	SCHED_HELD(s, v->pcpu);
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
	SCHED_ADD(s->pcpu[v->pcpu].nr_queued, -1u);
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
	SCHED_PUT(v->in_spin_loop, false); /* it ran a full slice (issue 14) */
	if (eevdf_nr_running(s, p) > 1) {  /* resched_curr: that pCPU picks again */
		SCHED_PUT(s->pcpu[p].resched, true);
		sched_kick_later(s, p);
	}
}

void eevdf_update_curr(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_vcpu *c = eevdf_running(s, p);
	if (!c || now <= c->since)
		return;
	uint64_t dt = now - c->since;
	c->since = now;
	c->c.run_ns += dt;
	sched_add(&c->dom->c.run_ns, dt);
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
	if (ES(s)->place_lag && eevdf_nr_running(s, v->pcpu)) {
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
	eevdf_queue_add(s, v);
	update_min_vruntime(s, v->pcpu);
}

/* dequeue_entity (fair.c:5167) of a queued or running v: its lag is kept. The caller
 * charged the running vCPU of v's pCPU first. */
void eevdf_dequeue(struct sched *s, struct sched_vcpu *v)
{
	unsigned p = v->pcpu;
	update_entity_lag(s, p, v);
	if (v->state == SCHED_VS_RUNNABLE && EV(v)->on_rq)
		eevdf_queue_del(s, v);
	EV(v)->on_rq = false;
	if (s->pcpu[p].yield_next == v) /* clear_buddies */
		s->pcpu[p].yield_next = NULL;
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	update_min_vruntime(s, p);
}

/* __pick_eevdf (fair.c:875) by a scan: the current one first, kept under RUN_TO_PARITY
 * while it is eligible and has not been given a new deadline since it was picked. */
struct sched_vcpu *eevdf_pick_eevdf(struct sched *s, unsigned p)
{
	struct eevdf_avg a = rq_avg(s, p);
	struct sched_vcpu *best = eevdf_running(s, p);
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
	return best ? best : left ? left : eevdf_running(s, p);
}

/* check_preempt_wakeup (fair.c:8055): an idle pCPU runs v; a busy one is preempted when
 * the EEVDF pick would now be v. */
sched_cpumask_t eevdf_check_preempt(struct sched *s, struct sched_vcpu *v)
{
	unsigned p = v->pcpu;
	struct sched_pcpu *pc = &s->pcpu[p];
	if (!eevdf_running(s, p) || SCHED_GET(pc->resched))
		return cpumask_of(p);
	if (ES(s)->wakeup_preempt && eevdf_pick_eevdf(s, p) == v) {
		SCHED_PUT(pc->resched, true);
		return cpumask_of(p);
	}
	/* No preemption, but the running one now has a slice end to arm (tickless). */
	struct sched_vcpu *c = eevdf_running(s, p);
	int64_t vd = (int64_t)(EV(c)->deadline - EV(c)->vruntime);
	uint64_t end = c->since + (vd > 0 ? eevdf_real_ns((uint64_t)vd, EV(c)->weight) : 1);
	return pc->armed > end ? cpumask_of(p) : cpumask_none();
}

void eevdf_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	unsigned from = v->pcpu;
	if (from == to)
		return;
	SCHED_HELD(s, from);
	SCHED_HELD(s, to);
	if (s->pcpu[from].curr == v) /* it blocked there: no longer that pCPU's */
		SCHED_PUT(s->pcpu[from].curr, (struct sched_vcpu *)NULL);
	SCHED_ADD(s->pcpu[from].nr_vcpus, -1u);
	SCHED_ADD(s->pcpu[to].nr_vcpus, 1);
	if (EV(v)->throttled) {
		ERQ(s, from)->nr_throttled--;
		ERQ(s, to)->nr_throttled++;
	}
	SCHED_PUT(v->pcpu, (uint16_t)to);
	v->c.migrations++;
	sched_add(&v->dom->c.migrations, 1);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
}

/* Weights: ours (1..65535, 256 = nice 0) x 4 = the group's shares. Flattened group
 * scheduling: each runnable vCPU of the domain is an entity of shares / (runnable vCPUs of the
 * domain), what calc_group_shares (fair.c:3768) gives each CPU's group entity (shares x load
 * here / group load) split among the tasks there, with the instantaneous count for PELT's
 * load. It changes at every wake and sleep of a sibling, as update_cfs_group (fair.c:3807)
 * reweights at every enqueue and dequeue; reweight_entity (fair.c:3629) rescales the relative
 * deadline of a queued entity and the lag of a dequeued one, and keeps vruntime (6.6).
 * `joining` (about to become runnable) counts. Running ones moved are kicked to re-arm. */
void eevdf_reweight_dom(struct sched *s, struct sched_dom *d, const struct sched_vcpu *joining,
			uint64_t now)
{
	/* Every sibling's pCPU, or the finish op does it (update_cfs_group on each CPU). */
	if (!sched_peer_dom(s, d)) {
		SCHED_PUT(EDOM(d)->rw_pending, true);
		sched_defer(s);
		return;
	}
	uint32_t n = 0;
	for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
		n += v->state != SCHED_VS_BLOCKED || v == joining;
	uint64_t w64 = (uint64_t)d->weight * (EEVDF_NICE0 / SCHED_DEFAULT_WEIGHT) / (n ? n : 1);
	uint32_t w = w64 < EEVDF_MIN_WEIGHT ? EEVDF_MIN_WEIGHT : (uint32_t)w64;
	for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
		struct eevdf_vcpu *e = EV(v);
		uint32_t old = e->weight;
		if (old == w)
			continue;
		if (e->on_rq) {
			if (v->state == SCHED_VS_RUNNING) {
				eevdf_update_curr(s, v->pcpu, now);
				sched_kick_later(s, v->pcpu);
			}
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
void eevdf_update_slice(struct sched *s)
{
	struct eevdf_sched *es = ES(s);
	unsigned n = s->nr_pcpus < 8 ? s->nr_pcpus : 8, log = 0;
	while (n >> (log + 1))
		log++;
	es->slice_ns = es->slice_set ? es->slice_set : EEVDF_BASE_SLICE_NS * (1 + log);
}

bool eevdf_eligible(struct sched *s, unsigned p, const struct sched_vcpu *v)
{
	struct eevdf_avg a = rq_avg(s, p);
	return eligible(&a, v);
}
