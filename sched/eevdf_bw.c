/* eevdf: CFS bandwidth control (cpu.max) and what runs between pCPUs, simplified from
 * Linux v6.6 kernel/sched/fair.c (docs/scheduler.md, "Policy: eevdf").
 *
 * Bandwidth: a capped domain is a task group with quota = cap% x period (default period
 * 100 ms, default_cfs_period fair.c:5376), set by tg_set_cfs_bandwidth (core.c:10829). Its
 * pool (cfs_b->runtime) is handed out in leases of sysctl_sched_cfs_bandwidth_slice, 5 ms
 * (__assign_cfs_rq_runtime, fair.c:5417), each vCPU standing for its cfs_rq on its pCPU;
 * running docks the lease (__account_cfs_rq_runtime, fair.c:5457); a vCPU that has no lease
 * and gets none is throttled (throttle_cfs_rq, fair.c:5560): dequeued with its lag, PARKED;
 * the period timer (do_sched_cfs_period_timer, fair.c:5888) refills the pool to the quota
 * (__refill_cfs_bandwidth_runtime, fair.c:5393) and unthrottles (distribute_cfs_runtime,
 * fair.c:5812). The timer is not a timer here: every call catches up on the periods that
 * ended, and a pCPU holding a throttled vCPU folds the next refresh into run_until.
 *
 * Between pCPUs: wake placement on an idle allowed pCPU (select_idle_sibling, fair.c:7321,
 * without the domains, wake_affine or the waker's CPU: the previous pCPU, then the next idle
 * one), an idle pCPU pulling a waiting vCPU from the busiest one (newidle_balance,
 * fair.c:12068, with detach_tasks' choice of the least recently run), and a busy pCPU with a
 * waiting vCPU kicking an idle one to do that pull (nohz_balancer_kick, simplified). The
 * periodic load balancer (load averages, imbalance types, domains) is left out.
 *
 * Locks (sched/sched.h, "Concurrency"): a domain's pool, quota and refresh time are under its
 * sched_dom_lock (next_refresh also read as a hint); a vCPU's lease, throttled flag and
 * queue under its pCPU's lock. Peers are read as hints (idle, load) and locked before a
 * vCPU is taken from them; a refill that cannot reach a throttled vCPU's pCPU leaves it to
 * the finish op (dist_pending). */
#include "sched/eevdf_priv.h"

static bool capped(const struct sched_dom *d)
{
	return EDOM(d)->quota != 0;
}

/* __assign_cfs_rq_runtime (fair.c:5417): tops the lease up to `target` from the pool,
 * starting the period timer (start_cfs_bandwidth) on first use. v's pCPU lock held. */
static bool assign(struct sched *s, struct sched_vcpu *v, int64_t target, uint64_t now)
{
	struct eevdf_dom *b = EDOM(v->dom);
	struct eevdf_vcpu *e = EV(v);
	sched_dom_lock(s, v->dom);
	if (!b->next_refresh)
		SCHED_PUT(b->next_refresh, now + ES(s)->period_ns);
	int64_t want = target - e->runtime;
	if (b->pool > 0 && want > 0) {
		int64_t amount = b->pool < want ? b->pool : want;
		b->pool -= amount;
		e->runtime += amount;
	}
	sched_dom_unlock(s, v->dom);
	return e->runtime > 0;
}

static sched_cpumask_t unthrottle(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	SCHED_PUT(EV(v)->throttled, false);
	ERQ(s, v->pcpu)->nr_throttled--;
	v->c.unparks++;
	sched_add(&v->dom->c.unparks, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNPARK, v, 0);
	eevdf_update_curr(s, v->pcpu, now);
	eevdf_enqueue(s, v, false);
	return eevdf_check_preempt(s, v);
}

/* Every lock held (set_params, keys). */
void eevdf_bw_set(struct sched *s, struct sched_dom *d, uint64_t now)
{
	struct eevdf_dom *b = EDOM(d);
	b->quota = (uint64_t)d->cap * ES(s)->period_ns / 100;
	b->pool = (int64_t)b->quota;
	SCHED_PUT(b->next_refresh, b->quota ? now + ES(s)->period_ns : 0);
	for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
		EV(v)->runtime = 0; /* cfs_rq->runtime_remaining = 0 */
		if (EV(v)->throttled)
			cpumask_or_atomic(&s->kick_pending, unthrottle(s, v, now));
	}
}

void eevdf_bw_account(struct sched *s, struct sched_vcpu *v, uint64_t dt)
{
	if (!capped(v->dom))
		return;
	EV(v)->runtime -= (int64_t)dt;
	if (EV(v)->runtime > 0)
		return;
	if (!assign(s, v, (int64_t)EEVDF_BW_SLICE_NS, v->since)) {
		SCHED_PUT(s->pcpu[v->pcpu].resched, true);
		sched_kick_later(s, v->pcpu);
	}
}

bool eevdf_bw_runnable(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (!capped(v->dom) || EV(v)->runtime > 0)
		return true;
	return assign(s, v, (int64_t)EEVDF_BW_SLICE_NS, now);
}

bool eevdf_bw_exhausted(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	(void)now;
	if (!capped(v->dom) || EV(v)->runtime > 0)
		return false;
	sched_dom_lock(s, v->dom);
	bool empty = EDOM(v->dom)->pool <= 0;
	sched_dom_unlock(s, v->dom);
	return empty;
}

void eevdf_bw_throttle(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state == SCHED_VS_RUNNING || v->state == SCHED_VS_RUNNABLE)
		eevdf_dequeue(s, v);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_PARKED);
	SCHED_PUT(EV(v)->throttled, true);
	ERQ(s, v->pcpu)->nr_throttled++;
	sched_add(&EDOM(v->dom)->nr_throttled, 1);
	v->c.parks++;
	sched_add(&v->dom->c.parks, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_PARK, v, EV(v)->runtime);
}

/* return_cfs_rq_runtime (fair.c:6015): a sleeper keeps min_cfs_rq_runtime of its lease. */
void eevdf_bw_return(struct sched *s, struct sched_vcpu *v)
{
	int64_t slack = EV(v)->runtime - EEVDF_MIN_RQ_RUNTIME;
	if (!capped(v->dom) || slack <= 0)
		return;
	sched_dom_lock(s, v->dom);
	EDOM(v->dom)->pool += slack;
	sched_dom_unlock(s, v->dom);
	EV(v)->runtime -= slack;
}

static bool pool_left(struct sched *s, struct sched_dom *d)
{
	sched_dom_lock(s, d);
	bool left = EDOM(d)->pool > 0;
	sched_dom_unlock(s, d);
	return left;
}

/* distribute_cfs_runtime: each throttled one gets its debt + 1 ns, in order, while the pool
 * lasts. A vCPU whose pCPU's lock another pCPU has waits for the finish op. */
static sched_cpumask_t distribute(struct sched *s, struct sched_dom *d, uint64_t now)
{
	sched_cpumask_t kick = cpumask_none();
	for (struct sched_vcpu *v = d->vcpus; v && pool_left(s, d); v = v->next_in_dom) {
		unsigned q = SCHED_GET(v->pcpu);
		if (!SCHED_GET(EV(v)->throttled))
			continue;
		if (!sched_peer(s, q) || SCHED_GET(v->pcpu) != q) {
			SCHED_PUT(EDOM(d)->dist_pending, true);
			sched_defer(s);
			break;
		}
		if (!EV(v)->throttled)
			continue;
		if (assign(s, v, 1, now))
			kick = cpumask_or(kick, unthrottle(s, v, now));
	}
	return kick;
}

/* The period timers of every capped domain, caught up to now (do_sched_cfs_period_timer):
 * refill under the domain's lock, then distribute. */
sched_cpumask_t eevdf_bw_refresh(struct sched *s, uint64_t now)
{
	sched_cpumask_t kick = cpumask_none();
	uint64_t period = ES(s)->period_ns;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		struct eevdf_dom *b = EDOM(d);
		uint64_t next = SCHED_GET(b->next_refresh);
		if (!next || now < next)
			continue;
		bool refilled = false;
		sched_dom_lock(s, d);
		if (b->quota && b->next_refresh && now >= b->next_refresh) {
			uint64_t k = (now - b->next_refresh) / period + 1;
			SCHED_PUT(b->next_refresh, b->next_refresh + k * period);
			b->nr_periods += k;
			b->pool += (int64_t)b->quota;
			if (b->pool > (int64_t)b->quota)
				b->pool = (int64_t)b->quota;
			refilled = true;
		}
		sched_dom_unlock(s, d);
		if (refilled)
			kick = cpumask_or(kick, distribute(s, d, now));
	}
	return kick;
}

uint64_t eevdf_bw_next_event(struct sched *s, unsigned p)
{
	uint64_t t = SCHED_NEVER;
	if (!ERQ(s, p)->nr_throttled)
		return t;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		if (!capped(d))
			continue;
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			if (SCHED_GET(v->pcpu) == p && EV(v)->throttled) /* p's own: held */
				t = eevdf_min(t, SCHED_GET(EDOM(d)->next_refresh));
	}
	return t;
}

/* Every lock held: weight splits and refills that could not reach a pCPU. */
sched_cpumask_t eevdf_bw_finish(struct sched *s, uint64_t now)
{
	sched_cpumask_t kick = cpumask_none();
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		if (__atomic_exchange_n(&EDOM(d)->rw_pending, false, __ATOMIC_RELAXED))
			eevdf_reweight_dom(s, d, NULL, now);
		if (__atomic_exchange_n(&EDOM(d)->dist_pending, false, __ATOMIC_RELAXED))
			kick = cpumask_or(kick, distribute(s, d, now));
	}
	return kick;
}

/* Nothing running, nothing queued on q (a hint when q is not held). */
static bool idle(const struct sched *s, unsigned q)
{
	const struct sched_pcpu *pc = &s->pcpu[q];
	const struct sched_vcpu *c = SCHED_GET(pc->curr);
	return !SCHED_GET(pc->nr_queued) &&
	       (!c || SCHED_GET(c->state) != SCHED_VS_RUNNING || SCHED_GET(c->pcpu) != q);
}

/* Where a waking v goes (select_idle_sibling, simplified): its previous pCPU if idle, else
 * the next idle allowed one; none idle: the previous one. Read as hints; the caller takes
 * the target's lock (eevdf_place). */
unsigned eevdf_select_cpu(struct sched *s, struct sched_vcpu *v)
{
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned prev = v->pcpu;
	for (unsigned i = 0; i < s->nr_pcpus; i++) {
		unsigned q = (prev + i) % s->nr_pcpus;
		if (cpumask_test(aff, q) && idle(s, q))
			return q;
	}
	return cpumask_test(aff, prev) ? prev : sched_least_loaded(s, aff);
}

/* eevdf_select_cpu's choice with its lock held, else v's own pCPU (where v may run: a
 * vCPU that may not is moved by set_affinity at once, or by the pick that lets go of it). */
unsigned eevdf_place(struct sched *s, struct sched_vcpu *v)
{
	unsigned t = eevdf_select_cpu(s, v);
	return t == v->pcpu || sched_peer(s, t) ? t : v->pcpu;
}

static unsigned nr_running(const struct sched *s, unsigned q)
{
	const struct sched_vcpu *c = SCHED_GET(s->pcpu[q].curr);
	bool run = c && SCHED_GET(c->state) == SCHED_VS_RUNNING && SCHED_GET(c->pcpu) == q;
	return SCHED_GET(s->pcpu[q].nr_queued) + (run ? 1u : 0u);
}

/* The coldest queued vCPU of q allowed on p (detach_tasks walks cfs_tasks from the tail).
 * q's lock held. */
static struct sched_vcpu *coldest(struct sched *s, unsigned q, unsigned p)
{
	struct sched_vcpu *best = NULL;
	for (struct sched_vcpu *v = ERQ(s, q)->head; v; v = EV(v)->next)
		if (sched_allowed(s, v, p) && (!best || EV(v)->last_ran < EV(best)->last_ran))
			best = v;
	return best;
}

/* The busiest pCPU (by the hint of its count) with a vCPU p may take: each candidate is
 * locked to look at its queue, the loser let go. */
struct sched_vcpu *eevdf_newidle_pull(struct sched *s, unsigned p, uint64_t now)
{
	unsigned busiest = p, most = 1;
	for (unsigned q = 0; q < s->nr_pcpus; q++) {
		unsigned n = nr_running(s, q);
		if (q == p || n <= most || !sched_peek(s, q))
			continue;
		if (coldest(s, q, p)) {
			if (busiest != p)
				sched_unpeer(s, busiest);
			busiest = q;
			most = n;
		} else {
			sched_unpeer(s, q);
		}
	}
	if (busiest == p)
		return NULL;
	struct sched_vcpu *v = coldest(s, busiest, p);
	eevdf_update_curr(s, busiest, now);
	eevdf_dequeue(s, v);
	eevdf_move(s, v, p, now);
	eevdf_enqueue(s, v, false); /* p is empty: placed at its V, the lag is not kept */
	return v;
}

/* nohz_balancer_kick, simplified: an idle pCPU for a vCPU waiting on a busy one. */
sched_cpumask_t eevdf_kick_idle(struct sched *s)
{
	sched_cpumask_t idle_mask = cpumask_none(), kick = cpumask_none();
	for (unsigned q = 0; q < s->nr_pcpus; q++)
		if (idle(s, q))
			cpumask_set(&idle_mask, q);
	if (cpumask_empty(idle_mask))
		return kick;
	for (unsigned q = 0; q < s->nr_pcpus && !cpumask_empty(idle_mask); q++) {
		if (nr_running(s, q) < 2 || !sched_peek(s, q))
			continue;
		for (struct sched_vcpu *v = ERQ(s, q)->head; v && !cpumask_empty(idle_mask);
		     v = EV(v)->next) {
			unsigned one = cpumask_first(cpumask_and(sched_affinity(s, v), idle_mask));
			if (one < SCHED_MAX_PCPUS) {
				cpumask_set(&kick, one);
				cpumask_clear(&idle_mask, one);
				break;
			}
		}
		sched_unpeer(s, q);
	}
	return kick;
}
