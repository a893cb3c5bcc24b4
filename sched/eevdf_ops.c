/* eevdf: the sched_ops of the EEVDF policy (Linux v6.6, docs/scheduler.md "Policy: eevdf"):
 * insert/remove, wake (select_task_rq_fair -> enqueue_entity -> check_preempt_wakeup), sleep
 * (dequeue_entity), yield and yield_to, pick_next (pick_next_task_fair: put_prev_entity,
 * pick_next_entity, set_next_entity, newidle_balance), weights, caps, affinity, keys, dump.
 * The entity arithmetic is in eevdf.c, bandwidth and balancing in eevdf_bw.c. */
#include "sched/eevdf_priv.h"
#include "lib/cmdline.h"

static void eevdf_init(struct sched *s)
{
	struct eevdf_sched *es = ES(s);
	*es = (struct eevdf_sched){0};
	es->period_ns = EEVDF_BW_PERIOD_NS;
	es->tick_ns = EEVDF_TICK_NS;
	es->run_to_parity = true;
	es->place_lag = true;
	es->wakeup_preempt = true;
	eevdf_update_slice(s);
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
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_PUT(v->prio, (uint8_t)SCHED_PRI_UNDER);
	SCHED_PUT(v->pcpu, (uint16_t)sched_least_loaded(s, sched_affinity(s, v)));
	SCHED_ADD(s->pcpu[v->pcpu].nr_vcpus, 1);
	s->nr_vcpus++;
	if (d->nr_vcpus++ == 0) {
		d->vcpus = NULL;
		*EDOM(d) = (struct eevdf_dom){0};
		eevdf_bw_set(s, d, now);
	}
	sched_dom_add_vcpu(s, v);
	eevdf_reweight_dom(s, d, NULL, now);
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
		SCHED_PUT(EV(v)->throttled, false);
		ERQ(s, v->pcpu)->nr_throttled--;
	}
	if (pc->curr == v)
		SCHED_PUT(pc->curr, (struct sched_vcpu *)NULL);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_ADD(pc->nr_vcpus, -1u);
	s->nr_vcpus--;
	sched_yield_forget(s, v);
	if (sched_dom_del_vcpu(s, v))
		eevdf_reweight_dom(s, d, NULL, now);
}

/* try_to_wake_up -> select_task_rq_fair (simplified, eevdf_bw.c) -> enqueue_entity ->
 * check_preempt_wakeup. A vCPU of a throttled domain waits parked for the refresh. */
static sched_cpumask_t eevdf_wake(struct sched *s, struct sched_vcpu *v, uint64_t now,
				  unsigned flags)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	kick = cpumask_or(kick, eevdf_bw_refresh(s, now));
	if (flags & (WAKE_EVENT | WAKE_TIMER)) {
		v->c.events++;
		sched_add(&v->dom->c.events, 1);
	}
	if (v->state != SCHED_VS_BLOCKED)
		return kick;
	v->c.wakes++;
	sched_add(&v->dom->c.wakes, 1);
	unsigned target = eevdf_place(s, v);
	eevdf_move(s, v, target, now);
	eevdf_update_curr(s, target, now);
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	eevdf_reweight_dom(s, v->dom, v, now); /* update_cfs_group before place_entity */
	if (eevdf_bw_exhausted(s, v, now)) {   /* enqueued into a throttled cfs_rq */
		eevdf_bw_throttle(s, v, now);
		/* Its pCPU must be there at the refresh: re-arm it. */
		if (s->pcpu[target].armed > eevdf_bw_next_event(s, target))
			cpumask_set(&kick, target);
		return cpumask_or(kick, sched_take_kicks(s));
	}
	eevdf_enqueue(s, v, EV(v)->fresh);
	kick = cpumask_or(kick, eevdf_check_preempt(s, v));
	return cpumask_or(kick, sched_take_kicks(s));
}

static sched_cpumask_t eevdf_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	unsigned p = v->pcpu;
	eevdf_update_curr(s, p, now);
	if (v->state == SCHED_VS_RUNNING) {
		SCHED_PUT(s->pcpu[p].resched, true);
		cpumask_set(&kick, p);
	}
	if (v->state == SCHED_VS_RUNNABLE || v->state == SCHED_VS_RUNNING) {
		eevdf_dequeue(s, v);
	} else if (EV(v)->throttled) {
		SCHED_PUT(EV(v)->throttled, false);
		ERQ(s, p)->nr_throttled--;
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	eevdf_bw_return(s, v);
	eevdf_reweight_dom(s, v->dom, NULL, now); /* update_cfs_group after the dequeue */
	sched_trace_ev(s, p, now, SCHED_EV_SLEEP, v, 0);
	return cpumask_or(kick, sched_take_kicks(s));
}

/* yield_task_fair (fair.c:8335): alone, nothing; else the deadline moves a slice later. */
static void do_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	unsigned p = v->pcpu;
	if (v->state != SCHED_VS_RUNNING || eevdf_nr_running(s, p) == 1)
		return;
	eevdf_update_curr(s, p, now);
	EV(v)->deadline += eevdf_calc_delta_fair(EV(v)->slice, EV(v)->weight);
	SCHED_PUT(s->pcpu[p].resched, true);
}

static void eevdf_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	v->c.yields++;
	sched_add(&v->dom->c.yields, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
	do_yield(s, v, now);
}

/* yield_to_task_fair (fair.c:8364) through yield_to (core.c:8931): t becomes its cfs_rq's
 * next buddy (pCPU yield_next), v yields, t's pCPU reschedules. Under 6.6's default
 * NEXT_BUDDY=false (features.h:16) pick_next_entity (fair.c:5270) ignores the buddy. */
static sched_cpumask_t eevdf_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				      uint64_t now)
{
	unsigned tp = SCHED_GET(t->pcpu);
	if (!sched_peer(s, tp) ||
	    SCHED_GET(t->pcpu) != tp) /* its pCPU is another's now, or it moved */
		return cpumask_none();
	if (t->state != SCHED_VS_RUNNABLE || EV(t)->throttled)
		return cpumask_none();
	if (eevdf_nr_running(s, v->pcpu) == 1 && eevdf_nr_running(s, tp) == 1)
		return cpumask_none(); /* -ESRCH */
	s->pcpu[tp].yield_next = t;
	do_yield(s, v, now);
	SCHED_PUT(s->pcpu[v->pcpu].resched, true);
	if (tp == v->pcpu)
		return cpumask_without(sched_take_kicks(s), v->pcpu);
	eevdf_update_curr(s, tp, now);
	SCHED_PUT(s->pcpu[tp].resched, true);
	return cpumask_or(cpumask_of(tp), cpumask_without(sched_take_kicks(s), v->pcpu));
}

/* Takes a queued vCPU to run: set_next_entity (fair.c:5220), which stashes the deadline
 * for RUN_TO_PARITY (the HACK, fair.c:5235). */
static void set_next(struct sched *s, unsigned p, struct sched_vcpu *v, uint64_t now)
{
	eevdf_queue_del(s, v);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNING);
	v->since = now;
	EV(v)->pick_deadline = EV(v)->deadline;
	EV(v)->last_ran = now;
	if (s->pcpu[p].yield_next == v)
		s->pcpu[p].yield_next = NULL;
}

static struct sched_vcpu *pick_next_entity(struct sched *s, unsigned p)
{
	struct sched_vcpu *b = s->pcpu[p].yield_next;
	if (ES(s)->next_buddy && b && SCHED_GET(b->pcpu) == p && b->state == SCHED_VS_RUNNABLE) {
		if (eevdf_eligible(s, p, b))
			return b;
	}
	return eevdf_pick_eevdf(s, p);
}

static struct sched_pick eevdf_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_pick r = {NULL, SCHED_NEVER, sched_take_kicks(s)};
	pc->picks++;
	eevdf_update_curr(s, p, now);
	r.kick = cpumask_or(r.kick, eevdf_bw_refresh(s, now));
	struct sched_vcpu *cur = eevdf_running(s, p), *prev = pc->curr, *next = NULL;
	unsigned to = cur && !sched_allowed(s, cur, p) ? eevdf_select_cpu(s, cur) : p;
	if (to != p && sched_peer(s, to)) { /* affinity changed while it ran (the door
					     * made this pick take every lock) */
		sched_note_preempt(cur);
		eevdf_dequeue(s, cur);
		eevdf_move(s, cur, to, now);
		eevdf_update_curr(s, cur->pcpu, now);
		eevdf_enqueue(s, cur, false);
		r.kick = cpumask_or(r.kick, eevdf_check_preempt(s, cur));
		cur = NULL;
	}
	if (cur && !eevdf_bw_runnable(s, cur, now)) { /* check_cfs_rq_runtime, fair.c:6097 */
		eevdf_bw_throttle(s, cur, now);
		cur = NULL;
	}
	if (cur && !SCHED_GET(pc->resched)) {
		next = cur; /* nothing asked for a schedule() */
	} else {
		SCHED_PUT(pc->resched, false);
		next = pick_next_entity(s, p);
		if (cur && next != cur) { /* put_prev_entity: back in the queue, lag intact */
			eevdf_queue_add(s, cur);
			sched_note_preempt(cur);
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
	SCHED_PUT(pc->curr, next);
	if (next && next != prev) {
		next->c.switches++;
		sched_add(&next->dom->c.switches, 1);
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
	r.kick = cpumask_or(r.kick, eevdf_kick_idle(s));
	r.kick = cpumask_without(cpumask_or(r.kick, sched_take_kicks(s)), p);
	return r;
}

static int eevdf_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			    uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT || cap > 100 * SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	if (weight && weight != d->weight) {
		d->weight = weight;
		eevdf_reweight_dom(s, d, NULL, now);
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
		return cpumask_none();
	if (v->state == SCHED_VS_RUNNING) {
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		return cpumask_of(v->pcpu); /* its pick_next moves it */
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
	return cpumask_none();
}

/* Each queue: RUNNABLE, on_rq, unthrottled vCPUs of its pCPU, nr_queued of them; each
 * pCPU's nr_throttled its throttled vCPUs. */
static unsigned eevdf_audit(const struct sched *s, sched_print_fn pr, void *arg)
{
	struct sched *m = (struct sched *)s;
	unsigned bad = 0;
	uint32_t thr[SCHED_MAX_PCPUS] = {0};
	for (const struct sched_dom *d = s->doms; d; d = d->next_dom)
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			thr[v->pcpu] += EV(v)->throttled;
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		uint32_t n = 0;
		for (struct sched_vcpu *v = ERQ(m, p)->head; v; v = EV(v)->next) {
			if (++n > s->nr_vcpus) {
				pr(arg, "audit: eevdf pCPU %u: queue longer than every vCPU\n", p);
				return bad + 1;
			}
			if (v->state != SCHED_VS_RUNNABLE || v->pcpu != p || !EV(v)->on_rq ||
			    EV(v)->throttled) {
				pr(arg, "audit: eevdf pCPU %u: d%uv%u state=%u pcpu=%u queued\n", p,
				   v->dom->id, v->id, v->state, v->pcpu);
				bad++;
			}
		}
		if (n != s->pcpu[p].nr_queued || thr[p] != ERQ(m, p)->nr_throttled) {
			pr(arg,
			   "audit: eevdf pCPU %u: %u queued (nr_queued %u), %u throttled (%u)\n", p,
			   n, s->pcpu[p].nr_queued, thr[p], ERQ(m, p)->nr_throttled);
			bad++;
		}
	}
	return bad;
}

static void eevdf_params_changed(struct sched *s, uint64_t now)
{
	(void)now;
	eevdf_update_slice(s);
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
		eevdf_update_slice(s);
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

/* The base slice (sched_slice_ns): what a yield95 attacker in the simulator times its
 * yields from. */
static uint64_t eevdf_slice_ns(const struct sched *s)
{
	return ES((struct sched *)s)->slice_ns;
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
	.finish = eevdf_bw_finish,
	.audit = eevdf_audit,
	.config = eevdf_config,
	.slice_ns = eevdf_slice_ns,
};
