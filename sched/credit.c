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
 */
#include "sched/sched.h"
#include "sched/heap.h"
#include "sched/sched_priv.h"

#define VT_SHIFT       32 /* vtime per ns of service is 2^32 / effective weight */
#define EW_SHIFT       16 /* effective weights: the domain weight << 16, split among vCPUs */
#define EW_MIN	       (1u << 10)
#define VT_CHUNK       ((uint64_t)1 << 36) /* ns per step of the exact divisions */
#define VCLOCK_BASE    ((uint64_t)1 << 62) /* keeps vtime - lag from wrapping below 0 */
#define KEY_PRIO_SHIFT 60

enum { HEAP_NONE = 0, HEAP_BOOST, HEAP_NORM, HEAP_SLEEP, HEAP_PARK };
enum { F_YIELD = 1, F_C1_ACTIVE = 2, F_MOVE = 4, F_C1_PARK = 8, F_MSLEEP = 16 };

static bool c1_mode(const struct sched *s)
{
	return s->p.tick_ns != 0;
}

static uint32_t dweight(const struct sched_dom *d)
{
	return d->weight ? d->weight : SCHED_DEFAULT_WEIGHT;
}

/* The domain weight (credit1 engine: every vCPU competes with it). */
static uint32_t vweight(const struct sched_vcpu *v)
{
	return dweight(v->dom);
}

/* One of n equal parts of weight w, in 1/2^16 units (EW_MIN at least). */
static uint32_t split_ew(uint32_t w, uint32_t n)
{
	uint64_t e = ((uint64_t)w << EW_SHIFT) / (n ? n : 1);
	return e < EW_MIN ? EW_MIN : (uint32_t)e;
}

/* Effective weight of v: its share of the domain weight while it earns, else the share it
 * would get if it started earning now. */
static uint32_t ew_of(const struct sched_vcpu *v)
{
	return v->w_acct ? v->w_acct : split_ew(dweight(v->dom), v->dom->nr_earn + 1);
}

/* ---- virtual time -------------------------------------------------------------------- */

/* floor((hi * 2^32 + add) / d), remainder in *rem; d < 2^47, add < d, hi <= VT_CHUNK, and
 * d >= EW_MIN keeps the quotient below 2^58. Two 64-bit divisions, no 128-bit one. */
static uint64_t div32(uint64_t hi, uint64_t add, uint64_t d, uint64_t *rem)
{
	if (hi < ((uint64_t)1 << 31)) { /* the usual case (< 2 s): one division */
		uint64_t x = (hi << 32) + add;
		*rem = x % d;
		return x / d;
	}
	uint64_t a = hi << 16, q1 = a / d, r1 = a % d;
	uint64_t b = (r1 << 16) + add;
	*rem = b % d;
	return (q1 << 16) + b / d;
}

/* vt + ns * 2^32 / d, exactly: the remainder (< d) is carried in *rem. */
static uint64_t vt_add(uint64_t vt, uint64_t ns, uint64_t d, uint64_t *rem)
{
	if (*rem >= d) {
		vt += *rem / d;
		*rem %= d;
	}
	while (ns) {
		uint64_t c = ns > VT_CHUNK ? VT_CHUNK : ns;
		vt += div32(c, *rem, d, rem);
		ns -= c;
	}
	return vt;
}

static uint64_t ns_to_vt(uint64_t ns, uint32_t ew)
{
	uint64_t rem = 0;
	return vt_add(0, ns, ew, &rem);
}

static uint64_t bank_ns(const struct sched *s)
{
	return s->p.period_ns;
}

/* Credit in ns: positive is UNDER (owed CPU), negative is OVER (in debt). */
static int64_t vcredit(const struct sched *s, const struct sched_vcpu *v)
{
	if (c1_mode(s))
		return v->credit;
	int64_t lag = (int64_t)(s->pcpu[v->pcpu].vclock - v->vtime);
	/* lag * ew / 2^32 rounded toward zero; 128-bit product, shifts only. */
	uint64_t al = lag < 0 ? 0 - (uint64_t)lag : (uint64_t)lag;
	unsigned __int128 m = (unsigned __int128)al * ew_of(v) >> VT_SHIFT;
	int64_t c = m > ((uint64_t)1 << 62) ? (int64_t)1 << 62 : (int64_t)m;
	return lag < 0 ? -c : c;
}

/* Puts d on the list of domains whose split is recomputed at the end of the current call. */
static void rw_mark(struct sched *s, struct sched_dom *d)
{
	if (d->rw_pending)
		return;
	d->rw_pending = true;
	d->rw_next = s->rw_list;
	s->rw_list = d;
}

/* v starts earning on pc with its part of the domain weight (the others' parts shrink). */
static void activate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (!v->w_acct) {
		struct sched_dom *d = v->dom;
		v->w_acct = split_ew(dweight(d), ++d->nr_earn);
		pc->w_active += v->w_acct;
		if (d->nr_earn > 1)
			rw_mark(s, d);
	}
}

static void deactivate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (!v->w_acct)
		return;
	pc->w_active -= v->w_acct;
	v->w_acct = 0;
	if (--v->dom->nr_earn)
		rw_mark(s, v->dom);
}

static void heap_del(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	switch (v->heap) {
	case HEAP_BOOST:
		hn_remove(&pc->rq_boost, &v->hn);
		pc->nr_queued--;
		break;
	case HEAP_NORM:
		hn_remove(&pc->rq_norm, &v->hn);
		pc->nr_queued--;
		break;
	case HEAP_SLEEP:
		hn_remove(&pc->sleepers, &v->hn);
		if (v->flags & F_MSLEEP) {
			v->flags &= (uint8_t)~F_MSLEEP;
			pc->nr_msleep--;
		}
		break;
	case HEAP_PARK:
		hn_remove(&pc->parked, &v->hn);
		break;
	}
	v->heap = HEAP_NONE;
}

/* Queues v (earning, not runnable) as a sleeper of its pCPU: it retires from w_active when
 * its credit reaches the bank, i.e. when the virtual clock reaches `key`. Sleepers of
 * multi-vCPU domains are counted: their retirement changes the split on other pCPUs, so
 * pick_next arms a timer for it instead of leaving it to the next call. */
static void sleeper_insert(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	v->key = v->vtime + ns_to_vt(bank_ns(s), ew_of(v));
	v->heap = HEAP_SLEEP;
	if (v->dom->nr_vcpus > 1) {
		v->flags |= F_MSLEEP;
		pc->nr_msleep++;
	}
	hn_insert(&pc->sleepers, &v->hn);
}

/* ns until pc's virtual clock reaches sleeper sl's key at the current w_active:
 * ceil(((key - vclock) * W - rem) / 2^32), UINT64_MAX when that is out of range. */
static uint64_t retire_ns(const struct sched_pcpu *pc, const struct sched_vcpu *sl)
{
	unsigned __int128 need = (unsigned __int128)(sl->key - pc->vclock) * pc->w_active;
	need = need > pc->vclock_rem ? need - pc->vclock_rem : 0;
	need = (need + ((unsigned __int128)1 << VT_SHIFT) - 1) >> VT_SHIFT;
	return need > ((uint64_t)1 << 62) ? UINT64_MAX : (uint64_t)need;
}

/* Advances pCPU p's virtual clock to `now`, retiring sleepers whose credit reaches the bank
 * at the exact virtual time it happens (they stop earning and stop diluting the others). */
static void vclock_advance(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	if (c1_mode(s) || now <= pc->vclock_last) {
		if (now > pc->vclock_last)
			pc->vclock_last = now;
		return;
	}
	uint64_t dt = now - pc->vclock_last;
	while (dt) {
		uint64_t w = pc->w_active;
		if (!w) {
			pc->vclock_rem = 0;
			break;
		}
		uint64_t chunk = dt > VT_CHUNK ? VT_CHUNK : dt;
		struct sched_vcpu *sl = hn_min(pc->sleepers);
		if (sl && (int64_t)(sl->key - pc->vclock) <= 0) {
			heap_del(s, sl);
			deactivate(s, pc, sl);
			continue;
		}
		if (sl) {
			uint64_t need_ns = retire_ns(pc, sl);
			if (need_ns <= chunk)
				chunk = need_ns;
		}
		pc->vclock = vt_add(pc->vclock, chunk, w, &pc->vclock_rem);
		dt -= chunk;
		if (sl && (int64_t)(sl->key - pc->vclock) <= 0) {
			heap_del(s, sl);
			deactivate(s, pc, sl);
		}
	}
	pc->vclock_last = now;
}

/* ---- caps ------------------------------------------------------------------------------ */

static int64_t cap_depth(const struct sched *s, const struct sched_dom *d)
{
	return (int64_t)(s->p.period_ns * d->cap / 100);
}

/* Budget a parked vCPU waits for: one slice, or the whole bucket if that is smaller. */
static int64_t cap_unpark_thr(const struct sched *s, const struct sched_dom *d)
{
	int64_t thr = (int64_t)s->p.tslice_ns, depth = cap_depth(s, d);
	if (thr > depth)
		thr = depth;
	return thr > 0 ? thr : 1;
}

static void cap_refill(const struct sched *s, struct sched_dom *d, uint64_t now)
{
	if (!d->cap || now <= d->cap_last) {
		if (now > d->cap_last)
			d->cap_last = now;
		return;
	}
	uint64_t dt = now - d->cap_last;
	int64_t depth = cap_depth(s, d);
	d->cap_last = now;
	if (dt > ((uint64_t)1 << 40)) {
		d->cap_tokens = depth;
		d->cap_rem = 0;
		return;
	}
	uint64_t total = dt * d->cap + d->cap_rem;
	d->cap_tokens += (int64_t)(total / 100);
	d->cap_rem = total % 100;
	depth += d->cap_reserved; /* leased budget is being consumed: not part of the fill */
	if (d->cap_tokens >= depth) {
		d->cap_tokens = depth;
		d->cap_rem = 0;
	}
}

static int64_t cap_avail(const struct sched_dom *d)
{
	return d->cap_tokens - d->cap_reserved;
}

static bool capped(const struct sched *s, const struct sched_vcpu *v)
{
	return v->dom->cap && !c1_mode(s);
}

/* ---- queues ---------------------------------------------------------------------------- */

static void enqueue(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	v->state = SCHED_VS_RUNNABLE;
	v->seq = s->seq++;
	if (v->prio == SCHED_PRI_BOOST) {
		/* credit1: FIFO. sliver: least boosted time per weight first (start-time fair
		 * queueing on bvt, the virtual time only boosted ns advance): a vCPU that wakes
		 * often and spends its boost budget cannot queue ahead of one that wakes
		 * rarely, however many wakes it makes (the fuzzer next to an echo domain). */
		v->key = c1_mode(s) ? v->seq : v->bvt;
		v->heap = HEAP_BOOST;
		hn_insert(&pc->rq_boost, &v->hn);
	} else {
		if (c1_mode(s)) {
			v->key = ((uint64_t)v->prio << KEY_PRIO_SHIFT) | v->seq;
		} else {
			v->key = v->vtime;
			v->prio = vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER;
		}
		v->heap = HEAP_NORM;
		hn_insert(&pc->rq_norm, &v->hn);
	}
	pc->nr_queued++;
}

static struct sched_vcpu *queue_head(struct sched_pcpu *pc)
{
	struct sched_vcpu *b = hn_min(pc->rq_boost);
	return b ? b : hn_min(pc->rq_norm);
}

/* At most one bank of credit: raises vtime (and gvt with it) to vclock - bank. */
static void clamp_bank(struct sched *s, struct sched_vcpu *v)
{
	uint64_t floor = s->pcpu[v->pcpu].vclock - ns_to_vt(bank_ns(s), ew_of(v));
	if ((int64_t)(v->vtime - floor) < 0) {
		v->gvt += floor - v->vtime;
		v->vtime = floor;
	}
}

/* Moves a vCPU that is on no run queue (its heap is NONE, SLEEP or PARK) to pCPU `to`,
 * keeping its credit (lag) and its earning state. */
static void transfer(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	unsigned from = v->pcpu;
	if (from == to)
		return;
	struct sched_pcpu *pf = &s->pcpu[from], *pt = &s->pcpu[to];
	vclock_advance(s, from, now);
	vclock_advance(s, to, now);
	uint8_t heap = v->heap;
	if (heap == HEAP_SLEEP || heap == HEAP_PARK)
		heap_del(s, v);
	v->vtime = v->vtime - pf->vclock + pt->vclock;
	v->bvt = v->bvt - pf->vclock + pt->vclock;
	if (v->w_acct) {
		pf->w_active -= v->w_acct;
		pt->w_active += v->w_acct;
	}
	pf->nr_vcpus--;
	pt->nr_vcpus++;
	v->pcpu = (uint16_t)to;
	v->c.migrations++;
	v->dom->c.migrations++;
	sched_trace_ev(s, from, now, SCHED_EV_MIGRATE, v, to);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
	if (heap == HEAP_SLEEP) {
		sleeper_insert(s, v);
	} else if (heap == HEAP_PARK) {
		v->key = v->park_until;
		v->heap = HEAP_PARK;
		hn_insert(&pt->parked, &v->hn);
	}
}

/* An idle pCPU (no current vCPU, nothing queued) of `mask`, or -1. */
static int find_idle(const struct sched *s, sched_cpumask_t mask)
{
	for (unsigned p = 0; p < s->nr_pcpus; p++)
		if ((mask & SCHED_CPU(p)) && !s->pcpu[p].curr && !s->pcpu[p].nr_queued)
			return (int)p;
	return -1;
}

/* Decides whether v, just queued on its pCPU, must preempt what runs there. */
static sched_cpumask_t tickle(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	struct sched_vcpu *cur = pc->curr;
	if (!cur || cur->state != SCHED_VS_RUNNING || v->prio < cur->prio) {
		pc->resched = true;
		return SCHED_CPU(v->pcpu);
	}
	/* Not preempting: let an idle pCPU of its affinity steal it. */
	int idle = find_idle(s, sched_affinity(s, v));
	if (idle >= 0)
		return SCHED_CPU((unsigned)idle);
	/* None: its pCPU must at least arm a slice end (it may have had no timer at all). */
	return pc->armed == SCHED_NEVER ? SCHED_CPU(v->pcpu) : 0;
}

static void park(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	struct sched_dom *d = v->dom;
	if (c1_mode(s)) {
		v->park_until = SCHED_NEVER; /* credit1 unparks at accounting */
	} else {
		int64_t need = cap_unpark_thr(s, d) - cap_avail(d);
		uint64_t wait = need > 0 ? ((uint64_t)need * 100 + d->cap - 1) / d->cap : 0;
		v->park_until = now + (wait ? wait : 1);
	}
	if (v->prio == SCHED_PRI_BOOST) {
		v->prio = SCHED_PRI_OVER;
		v->boost_left = 0;
	}
	v->state = SCHED_VS_PARKED;
	v->key = v->park_until;
	v->seq = s->seq++;
	v->heap = HEAP_PARK;
	hn_insert(&pc->parked, &v->hn);
	v->c.parks++;
	d->c.parks++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_PARK, v, d->cap_tokens);
}

static void unpark(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	heap_del(s, v);
	if (!c1_mode(s))
		clamp_bank(s, v); /* it earned while parked; the bank still bounds it */
	v->c.unparks++;
	v->dom->c.unparks++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNPARK, v, v->dom->cap_tokens);
}

/* Unparks the vCPUs of pCPU p whose refill time has come. */
static void unpark_due(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *v;
	while ((v = hn_min(pc->parked)) && v->park_until <= now) {
		struct sched_dom *d = v->dom;
		cap_refill(s, d, now);
		if (d->cap && cap_avail(d) < cap_unpark_thr(s, d)) {
			/* Another vCPU of the domain used the refill: wait again. */
			heap_del(s, v);
			v->c.parks--;
			d->c.parks--;
			park(s, v, now);
			continue;
		}
		unpark(s, v, now);
		enqueue(s, v);
	}
}

/* ---- charging -------------------------------------------------------------------------- */

/* Adds the run since vt_since to v's vtime (and gvt) at its current effective weight:
 * vt += dt * 2^32 / ew, remainder kept. Done at every charge, and before the weight of a
 * running vCPU changes (the domain split), so each ns is charged at the weight it ran at. */
static void settle_vt(struct sched_vcpu *v, uint64_t now)
{
	if (now <= v->vt_since)
		return;
	uint64_t old = v->vtime;
	v->vtime = vt_add(v->vtime, now - v->vt_since, ew_of(v), &v->vrem);
	v->gvt += v->vtime - old;
	v->vt_since = now;
}

static void charge(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	uint64_t dt = now > v->since ? now - v->since : 0;
	v->since = now;
	if (capped(s, v)) {
		/* Refill first (the lease still counts, so a bucket that was full when the lease
		 * began keeps the refill earned while it drained), then consume. */
		cap_refill(s, d, now);
		d->cap_tokens -= (int64_t)dt;
		d->cap_reserved -= (int64_t)v->lease;
		v->lease = 0;
		if (d->cap_tokens > cap_depth(s, d))
			d->cap_tokens = cap_depth(s, d);
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
		uint64_t used = v->boost_left < dt ? v->boost_left : dt;
		v->boost_left -= used;
		if (!c1_mode(s))
			v->bvt = vt_add(v->bvt, used, ew_of(v), &v->bvrem);
	}
	if (c1_mode(s) && !s->p.burn_sampled)
		v->credit -= (int64_t)dt; /* Xen >= 4.0 burn_credits(): exact */
	if (!c1_mode(s))
		settle_vt(v, now);
	else
		v->vt_since = now;
}

/* ---- the domain split ------------------------------------------------------------------
 * A domain's weight is shared by its earning vCPUs (w_acct != 0: runnable, running, parked,
 * sleepers under the bank): each gets (weight << 16) / n, the remainder handed out one unit
 * each in list order, so the parts add up to exactly weight << 16 wherever they run. When n
 * changes, every part is recomputed at `now`: each pCPU holding a part first advances its
 * virtual clock (and a running vCPU its vtime) under the old parts, so every ns is earned
 * and charged at the weight in force while it passed. Queue keys (vtime) do not move; only
 * sleepers' retirement keys (the bank in vtime) are re-keyed. Cost: O(vCPUs of the domain)
 * per change of n, which happens at wakes from beyond the bank, sleeper retirement and
 * remove, never per decision of a 1-vCPU domain. */
static void reweight(struct sched *s, struct sched_dom *d, uint64_t now)
{
	struct sched_vcpu *v;
	for (v = d->vcpus; v; v = v->next_in_dom)
		if (v->w_acct)
			vclock_advance(s, v->pcpu, now); /* may retire sleepers: nr_earn drops */
	uint32_t n = d->nr_earn, i = 0;
	if (!n)
		return;
	uint64_t tot = (uint64_t)dweight(d) << EW_SHIFT, base = tot / n, extra = tot % n;
	for (v = d->vcpus; v; v = v->next_in_dom) {
		if (!v->w_acct)
			continue;
		uint64_t e = base + (i++ < extra ? 1 : 0);
		if (e < EW_MIN)
			e = EW_MIN;
		if (e == v->w_acct)
			continue;
		struct sched_pcpu *pc = &s->pcpu[v->pcpu];
		if (v->state == SCHED_VS_RUNNING)
			settle_vt(v, now);
		pc->w_active = pc->w_active - v->w_acct + e;
		v->w_acct = (uint32_t)e;
		if (v->heap == HEAP_SLEEP) { /* its bank in vtime changed */
			heap_del(s, v);
			sleeper_insert(s, v);
		}
	}
}

/* Recomputes the split of every domain marked since the last call (end of each op). */
static void rw_flush(struct sched *s, uint64_t now)
{
	struct sched_dom *d;
	while ((d = s->rw_list)) {
		s->rw_list = d->rw_next;
		d->rw_pending = false;
		reweight(s, d, now);
	}
}

static void unboost(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST)
		return;
	v->boost_left = 0;
	v->prio = vcredit(s, v) > 0 ? SCHED_PRI_UNDER : SCHED_PRI_OVER;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNBOOST, v, vcredit(s, v));
}

/* ---- credit1 emulation ----------------------------------------------------------------- */

static void c1_requeue(struct sched *s, struct sched_vcpu *v)
{
	if (v->heap == HEAP_NORM || v->heap == HEAP_BOOST) {
		heap_del(s, v);
		enqueue(s, v);
	}
}

/* Xen credit1's csched_acct(): share period*pCPUs of credit among the active vCPUs by
 * weight, clip, set UNDER/OVER, park capped vCPUs in debt, unpark the others. */
static void c1_acct(struct sched *s, uint64_t now)
{
	uint64_t weight_total = 0;
	const int64_t per_tslice = (int64_t)s->p.tslice_ns;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom)
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			if (v->flags & F_C1_ACTIVE)
				weight_total += vweight(v);
	if (!weight_total)
		return;
	uint64_t credit_total = s->p.period_ns * s->nr_pcpus;
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		uint64_t n_act = 0;
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
			n_act += (v->flags & F_C1_ACTIVE) ? 1 : 0;
		if (!n_act)
			continue;
		uint64_t peak = n_act * s->p.period_ns, credit_cap = 0;
		if (d->cap) {
			credit_cap = (d->cap * s->p.period_ns + 99) / 100;
			if (credit_cap < peak)
				peak = credit_cap;
			credit_cap = (credit_cap + n_act - 1) / n_act;
		}
		uint64_t fair = (credit_total * vweight(d->vcpus) * n_act + weight_total - 1) /
				weight_total;
		if (fair > peak)
			fair = peak;
		int64_t per_vcpu = (int64_t)((fair + n_act - 1) / n_act);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (!(v->flags & F_C1_ACTIVE))
				continue;
			v->credit += per_vcpu;
			uint8_t old = v->prio;
			if (v->credit < 0) {
				v->prio = SCHED_PRI_OVER;
				if (d->cap && v->credit < -(int64_t)credit_cap &&
				    !(v->flags & F_C1_PARK)) {
					v->flags |= F_C1_PARK;
					if (v->state == SCHED_VS_RUNNABLE) {
						heap_del(s, v);
						park(s, v, now);
					}
				}
				if (v->credit < -per_tslice)
					v->credit = -per_tslice;
			} else {
				v->prio = SCHED_PRI_UNDER;
				if (v->flags & F_C1_PARK) {
					v->flags &= (uint8_t)~F_C1_PARK;
					if (v->state == SCHED_VS_PARKED) {
						unpark(s, v, now);
						enqueue(s, v);
						s->kick_pending |= SCHED_CPU(v->pcpu);
						old = v->prio;
					}
				}
				if (v->credit > per_tslice) {
					v->flags &= (uint8_t)~F_C1_ACTIVE;
					v->credit /= 2;
				}
			}
			if (old != v->prio && v->state == SCHED_VS_RUNNABLE)
				c1_requeue(s, v);
		}
	}
}

/* Processes every credit1 tick up to `now`: the vCPU running at a tick pays a whole tick
 * (sampling, as credit1 did) and loses BOOST; accounting runs every period. */
static void c1_catch_up(struct sched *s, uint64_t now)
{
	if (!c1_mode(s))
		return;
	if (!s->next_tick) {
		s->next_tick = (now / s->p.tick_ns + 1) * s->p.tick_ns;
		s->next_acct = (now / s->p.period_ns + 1) * s->p.period_ns;
	}
	while (s->next_tick <= now) {
		uint64_t t = s->next_tick;
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			struct sched_vcpu *cur = s->pcpu[p].curr;
			if (!cur || cur->state != SCHED_VS_RUNNING)
				continue;
			if (s->p.burn_sampled)
				cur->credit -= (int64_t)s->p.tick_ns; /* 3.0.x: sampled */
			cur->flags |= F_C1_ACTIVE;
			if (cur->prio == SCHED_PRI_BOOST) {
				cur->prio = SCHED_PRI_UNDER;
				sched_trace_ev(s, p, t, SCHED_EV_UNBOOST, cur, cur->credit);
			}
		}
		while (s->next_acct <= t) {
			c1_acct(s, t);
			s->next_acct += s->p.period_ns;
		}
		s->next_tick += s->p.tick_ns;
	}
}

/* ---- ops ------------------------------------------------------------------------------- */

static void credit_init(struct sched *s)
{
	for (unsigned p = 0; p < SCHED_MAX_PCPUS; p++)
		s->pcpu[p].vclock = VCLOCK_BASE;
}

static int credit_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	if (!d || d->weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (!d->weight)
		d->weight = SCHED_DEFAULT_WEIGHT;
	c1_catch_up(s, now);
	unsigned p = sched_least_loaded(s, sched_affinity(s, v));
	vclock_advance(s, p, now);
	v->pcpu = (uint16_t)p;
	v->state = SCHED_VS_BLOCKED;
	v->prio = SCHED_PRI_UNDER;
	v->heap = HEAP_NONE;
	v->flags = 0;
	v->vtime = s->pcpu[p].vclock;
	v->gvt = v->vtime;
	v->vrem = 0;
	v->bvt = v->vtime;
	v->bvrem = 0;
	v->vt_since = now;
	v->bal_hold = 0;
	v->credit = 0;
	v->w_acct = 0;
	v->lease = 0;
	v->boost_left = 0;
	v->since = now;
	s->pcpu[p].nr_vcpus++;
	s->nr_vcpus++;
	if (d->nr_vcpus++ == 0) {
		d->nr_earn = 0;
		d->rw_pending = false;
		d->cap_tokens = cap_depth(s, d);
		d->cap_reserved = 0;
		d->cap_last = now;
		d->cap_rem = 0;
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
	vclock_advance(s, v->pcpu, now);
	if (pc->curr == v) {
		if (v->state == SCHED_VS_RUNNING)
			charge(s, v, now);
		pc->curr = NULL;
	}
	heap_del(s, v);
	sched_yield_forget(s, v);
	deactivate(s, pc, v);
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
	rw_flush(s, now);
}

/* The boost budget of v in ns (sliver engine): what its virtual clock has handed it since
 * `bvt`, which only its boosted ns advance, i.e. its entitlement minus its boosted time.
 * At most one period's entitlement: bvt is raised to V - period * 2^32 / W, W being the
 * earning weight of its pCPU with v counted, so boosted time over any window T is at most
 * its entitled share of T + one period's entitlement + boost_debt + one latency slice.
 * Unlike the credit (V - vtime), it does not move with the vCPU's unboosted running: a vCPU
 * that is OVER because of its bulk demand keeps a budget for its events; and it does not
 * depend on the absolute level of V, which falls behind every runner's vtime when a sleeper
 * retires with its bank (the runners then all read OVER by bank / runners). */
static int64_t boost_budget(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	uint64_t w = pc->w_active + (v->w_acct ? 0 : ew_of(v));
	uint64_t rem = 0;
	uint64_t floor = pc->vclock - vt_add(0, s->p.period_ns, w ? w : ew_of(v), &rem);
	if ((int64_t)(v->bvt - floor) < 0) {
		v->bvt = floor;
		v->bvrem = 0;
	}
	int64_t lag = (int64_t)(pc->vclock - v->bvt);
	uint64_t al = lag < 0 ? 0 - (uint64_t)lag : (uint64_t)lag;
	unsigned __int128 m = (unsigned __int128)al * ew_of(v) >> VT_SHIFT;
	int64_t c = m > ((uint64_t)1 << 62) ? (int64_t)1 << 62 : (int64_t)m;
	return lag < 0 ? -c : c;
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
		ok = v->prio <= SCHED_PRI_UNDER && !(v->flags & F_C1_PARK);
	} else {
		ok = s->p.boost_ns && boost_budget(s, v) > -(int64_t)s->p.boost_debt_ns;
		if (ok && capped(s, v)) {
			cap_refill(s, v->dom, now);
			ok = cap_avail(v->dom) > -(int64_t)s->p.cap_debt_ns;
		}
	}
	if (!ok) {
		v->c.boost_deny++;
		v->dom->c.boost_deny++;
	}
	return ok;
}

static bool take_lease(struct sched *s, struct sched_vcpu *v, uint64_t now);

static void boost(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->prio != SCHED_PRI_BOOST) {
		v->c.boosts++;
		v->dom->c.boosts++;
	}
	v->prio = SCHED_PRI_BOOST;
	v->boost_left = s->p.boost_ns;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_BOOST, v, vcredit(s, v));
}

static sched_cpumask_t wake_body(struct sched *s, struct sched_vcpu *v, uint64_t now,
				 unsigned flags)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	c1_catch_up(s, now);
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
		vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		charge(s, v, now);
		boost(s, v, now); /* (re)starts a full latency slice, debt permitting */
		take_lease(s, v, now);
		return kick;
	case SCHED_VS_RUNNABLE:
		/* An event for a vCPU that waits in the queue: it is as urgent as a wake. */
		if (c1_mode(s) || v->prio == SCHED_PRI_BOOST)
			return kick;
		vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		heap_del(s, v);
		boost(s, v, now);
		enqueue(s, v);
		return kick | tickle(s, v);
	case SCHED_VS_PARKED:
		if (c1_mode(s))
			return kick;
		vclock_advance(s, v->pcpu, now);
		if (!may_boost(s, v, flags, now))
			return kick;
		unpark(s, v, now);
		boost(s, v, now);
		enqueue(s, v);
		return kick | tickle(s, v);
	default:
		break;
	}

	/* BLOCKED: place it, restore its earning state, then boost, park or queue it. */
	v->c.wakes++;
	v->dom->c.wakes++;
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned target = v->pcpu;
	if (!(aff & SCHED_CPU(target)) || s->pcpu[target].curr || s->pcpu[target].nr_queued) {
		int idle = find_idle(s, aff);
		if (idle >= 0)
			target = (unsigned)idle;
		else if (!(aff & SCHED_CPU(target)))
			target = sched_least_loaded(s, aff);
	}
	transfer(s, v, target, now);
	struct sched_pcpu *pc = &s->pcpu[target];
	vclock_advance(s, target, now);
	if (!c1_mode(s)) {
		if (v->heap == HEAP_SLEEP) {
			heap_del(s, v); /* still earning: keeps what it earned (< bank) */
		} else if (!v->w_acct) {
			/* Slept past the bank: at most one bank of credit, debt kept. */
			clamp_bank(s, v);
		}
		activate(s, pc, v);
	}
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	bool b = may_boost(s, v, flags, now);
	if (!b && c1_mode(s) && (v->flags & F_C1_PARK)) {
		park(s, v, now);
		return kick;
	}
	if (!b && capped(s, v)) {
		cap_refill(s, v->dom, now);
		if (cap_avail(v->dom) <= 0) {
			park(s, v, now);
			return kick;
		}
	}
	if (b)
		boost(s, v, now);
	else if (!c1_mode(s))
		v->prio = SCHED_PRI_UNDER; /* enqueue() sets UNDER/OVER from credit */
	enqueue(s, v);
	return kick | tickle(s, v);
}

/* Puts a vCPU that stopped being runnable into its sleeping earning state. */
static void to_sleeper(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (c1_mode(s))
		return;
	if (v->w_acct && vcredit(s, v) < (int64_t)bank_ns(s)) {
		v->seq = s->seq++;
		sleeper_insert(s, v);
	} else {
		deactivate(s, pc, v);
	}
}

static sched_cpumask_t sleep_body(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t kick = sched_take_kicks(s);
	c1_catch_up(s, now);
	vclock_advance(s, v->pcpu, now);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		charge(s, v, now);
		kick |= SCHED_CPU(v->pcpu);
		break;
	case SCHED_VS_RUNNABLE:
	case SCHED_VS_PARKED:
		heap_del(s, v);
		break;
	default:
		return kick;
	}
	v->state = SCHED_VS_BLOCKED;
	v->flags &= (uint8_t)~F_YIELD;
	if (!c1_mode(s))
		unboost(s, v, now); /* the latency slice ends when the vCPU blocks */
	to_sleeper(s, v);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, vcredit(s, v));
	return kick;
}

static void credit_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (v->state != SCHED_VS_RUNNING)
		return;
	v->flags |= F_YIELD;
	v->c.yields++;
	v->dom->c.yields++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, vcredit(s, v));
}

/* Directed yield (sched/yield_to.c chose t): v yields, t runs next on its own pCPU (set
 * as that pCPU's yield_next; another pCPU is kicked with resched set). t is not moved to
 * v's pCPU: moving the target there on every exit let a spinning domain take twice its
 * share from hogs (the simulator, 12 lockstress vCPUs + 4 hogs on 8 pCPUs: 800% for an
 * entitlement of 400%); without the move its share stays within 0.2 pt. */
static sched_cpumask_t credit_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				       uint64_t now)
{
	if (t->state != SCHED_VS_RUNNABLE || (t->heap != HEAP_NORM && t->heap != HEAP_BOOST))
		return 0;
	/* Fairness: no jump for a target ahead by more than one slice of service (credit1:
	 * one without credit) of the vCPU it passes: its queue's head, or the vCPU it would
	 * preempt on another pCPU (vtimes of one pCPU compare), like CFS's next buddy. */
	struct sched_pcpu *tp = &s->pcpu[t->pcpu];
	struct sched_vcpu *h = hn_min(tp->rq_norm), *c = tp->curr;
	if (h == t)
		h = NULL;
	if (c && c != v && c->state == SCHED_VS_RUNNING) {
		settle_vt(c, now);
		if (!h || (int64_t)(c->vtime - h->vtime) < 0)
			h = c;
	}
	if (c1_mode(s) ? t->prio == SCHED_PRI_OVER
		       : t->heap == HEAP_NORM && h &&
				 (int64_t)(t->vtime - h->vtime) >
					 (int64_t)ns_to_vt(s->p.tslice_ns, ew_of(t)))
		return 0;
	credit_yield(s, v, now);
	s->pcpu[t->pcpu].yield_next = t;
	if (t->pcpu == v->pcpu)
		return 0;
	s->pcpu[t->pcpu].resched = true;
	return SCHED_CPU(t->pcpu);
}

/* An idle pCPU takes the best queued vCPU another pCPU is not running and it may run. */
static struct sched_vcpu *steal(struct sched *s, unsigned p, uint64_t now)
{
	for (unsigned i = 1; i < s->nr_pcpus; i++) {
		unsigned q = (p + i) % s->nr_pcpus;
		struct sched_pcpu *qc = &s->pcpu[q];
		struct sched_hnode *roots[2] = {qc->rq_boost, qc->rq_norm};
		for (int k = 0; k < 2; k++) {
			/* The root, then its first children: the best few, not a full scan. */
			struct sched_vcpu *v = NULL;
			struct sched_hnode *n = roots[k];
			if (n && sched_allowed(s, HN_VCPU(n), p))
				v = HN_VCPU(n);
			for (n = n ? n->child : NULL; !v && n && k < 64; n = n->next)
				if (sched_allowed(s, HN_VCPU(n), p))
					v = HN_VCPU(n);
			if (!v)
				continue;
			vclock_advance(s, q, now);
			heap_del(s, v);
			transfer(s, v, p, now);
			return v;
		}
	}
	return NULL;
}

/* Sends a RUNNING vCPU whose affinity no longer includes its pCPU to an allowed one. */
static sched_cpumask_t move_away(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t aff = sched_affinity(s, v);
	int idle = find_idle(s, aff);
	unsigned to = idle >= 0 ? (unsigned)idle : sched_least_loaded(s, aff);
	v->flags &= (uint8_t)~F_MOVE;
	v->state = SCHED_VS_BLOCKED;
	unboost(s, v, now);
	transfer(s, v, to, now);
	enqueue(s, v);
	return tickle(s, v);
}

/* Leases cap budget for a run of v; false when there is none (v must park). */
static bool take_lease(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (!capped(s, v))
		return true;
	struct sched_dom *d = v->dom;
	cap_refill(s, d, now);
	int64_t avail = cap_avail(d), lease;
	if (v->prio == SCHED_PRI_BOOST) {
		lease = avail + (int64_t)s->p.cap_debt_ns;
		if (lease > (int64_t)v->boost_left)
			lease = (int64_t)v->boost_left;
	} else {
		lease = avail < (int64_t)s->p.tslice_ns ? avail : (int64_t)s->p.tslice_ns;
	}
	if (lease <= 0)
		return false;
	v->lease = (uint64_t)lease;
	d->cap_reserved += lease;
	return true;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The slice length of v: its latency slice when boosted (sliver), else the time slice. */
static uint64_t slice_of(const struct sched *s, const struct sched_vcpu *v)
{
	return v->prio == SCHED_PRI_BOOST && !c1_mode(s) ? s->p.boost_ns : s->p.tslice_ns;
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
	if (cur->flags & F_MOVE) {
		r->kick |= move_away(s, cur, now);
		return NULL;
	}
	bool park_now = false, was_boosted = false;
	if (c1_mode(s)) {
		park_now = cur->flags & F_C1_PARK;
	} else {
		if (cur->prio == SCHED_PRI_BOOST && cur->boost_left == 0) {
			unboost(s, cur, now);
			was_boosted = true;
		}
		park_now = capped(s, cur) && cap_avail(cur->dom) <= 0 &&
			   (cur->prio != SCHED_PRI_BOOST ||
			    cap_avail(cur->dom) <= -(int64_t)s->p.cap_debt_ns);
	}
	if (park_now) {
		cur->state = SCHED_VS_BLOCKED;
		park(s, cur, now);
		return NULL;
	}
	bool yielded = cur->flags & F_YIELD;
	bool boosted = cur->prio == SCHED_PRI_BOOST && !c1_mode(s);
	/* A latency slice that just ended sends the vCPU back in line (vtime order). */
	bool expired = boosted ? cur->boost_left == 0
			       : was_boosted || now >= pc->curr_since + slice_of(s, cur);
	/* A boosted vCPU finishes its (short) latency slice; others yield to a tickle. */
	bool want = yielded || expired || (pc->resched && !boosted);
	if (expired && !yielded)
		cur->in_spin_loop = false; /* ran a full slice: a directed-yield target again */
	if (want && !yielded && s->p.ratelimit_ns && now < cur->run_start + s->p.ratelimit_ns &&
	    queue_head(pc)) {
		/* Ratelimit: keep it, decide again when it has run long enough. */
		*ratelimit_until = cur->run_start + s->p.ratelimit_ns;
		want = false;
	}
	if (!want && take_lease(s, cur, now))
		return cur;
	cur->state = SCHED_VS_BLOCKED;
	enqueue(s, cur);
	*requeued = true;
	return NULL;
}

/* Balancing between busy pCPUs, tickless. Per-pCPU fairness gives each vCPU its weighted
 * share of the pCPU it is on; when the pCPUs' loads differ (5 spinners on 2 pCPUs), the
 * vCPUs of the busier one fall behind. Each vCPU's gvt (its vtime, never rebased by a
 * migration) measures service per weight across pCPUs. When p has just chosen `next`
 * (not boosted) and a busy pCPU q of lower earning weight runs a vCPU that is ahead of
 * `next` by more than balance_gap of service, one waiting vCPU of p moves to q: those that
 * stay on p get more, q's get less, until the gap has turned the other way. The one that
 * moves is the more advanced (gvt) of the vCPU p just descheduled and its queue head: its
 * own share hardly changes, the most behind stay. It moves only if that does not tip the
 * balance the other way (its part <= W_p - W_q), at most once per balance_hold (no
 * ping-pong: for the same move back the gap must first build up the other way), keeps its
 * credit (lag) and priority (no boost for moving, like WAKE_MIGRATE), and q is kicked to
 * re-decide (it may have had no timer). Cost: one pass over the pCPUs, nothing per queued
 * vCPU. Returns the pCPUs to kick. */
static sched_cpumask_t balance_push(struct sched *s, unsigned p, struct sched_vcpu *next,
				    struct sched_vcpu *prev, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	if (c1_mode(s) || !s->p.balance_gap_ns || s->nr_pcpus < 2 ||
	    next->prio == SCHED_PRI_BOOST || !pc->rq_norm)
		return 0;
	struct sched_vcpu *c = hn_min(pc->rq_norm);
	if (prev && prev->heap == HEAP_NORM && prev->pcpu == p &&
	    (now < c->bal_hold || (int64_t)(prev->gvt - c->gvt) > 0))
		c = prev;
	if (now < c->bal_hold)
		return 0;
	sched_cpumask_t aff = sched_affinity(s, c) & ~SCHED_CPU(p);
	uint64_t gap = ns_to_vt(s->p.balance_gap_ns, ew_of(next));
	int best = -1;
	for (unsigned q = 0; aff && q < s->nr_pcpus; q++) {
		struct sched_pcpu *qc = &s->pcpu[q];
		struct sched_vcpu *t = qc->curr;
		if (!(aff & SCHED_CPU(q)) || !t || t->state != SCHED_VS_RUNNING)
			continue; /* an idle pCPU steals by itself */
		if (qc->w_active >= pc->w_active || c->w_acct > pc->w_active - qc->w_active)
			continue;
		settle_vt(t, now); /* its gvt up to now (a lone vCPU may run for hours) */
		if ((int64_t)(t->gvt - next->gvt) <= (int64_t)gap)
			continue;
		if (best < 0 || qc->w_active < s->pcpu[best].w_active)
			best = (int)q;
	}
	if (best < 0)
		return 0;
	heap_del(s, c);
	transfer(s, c, (unsigned)best, now);
	c->bal_hold = now + s->p.balance_hold_ns;
	enqueue(s, c);
	return SCHED_CPU((unsigned)best);
}

static struct sched_pick credit_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_pick r = {NULL, SCHED_NEVER, 0};
	r.kick = sched_take_kicks(s);
	c1_catch_up(s, now);
	vclock_advance(s, p, now);
	unpark_due(s, p, now);
	pc->picks++;

	struct sched_vcpu *cur = pc->curr;
	bool requeued;
	uint64_t ratelimit_until = 0;
	struct sched_vcpu *next = decide_current(s, p, now, &r, &requeued, &ratelimit_until);
	bool new_slice = next == NULL;
	if (!ratelimit_until)
		pc->resched = false;

	struct sched_vcpu *yielder = requeued && (cur->flags & F_YIELD) ? cur : NULL;
	if (yielder)
		yielder->flags &= (uint8_t)~F_YIELD;
	while (!next) {
		next = sched_take_yield_next(s, p);
		if (!next)
			next = queue_head(pc);
		if (next && next == yielder) {
			/* A yield gives way to anyone else queued here, once. */
			heap_del(s, yielder);
			struct sched_vcpu *other = queue_head(pc);
			enqueue(s, yielder);
			if (other)
				next = other;
		}
		yielder = NULL;
		if (next)
			heap_del(s, next);
		else if (!(next = steal(s, p, now)))
			break;
		next->state = SCHED_VS_RUNNING;
		if (!take_lease(s, next, now)) {
			next->state = SCHED_VS_BLOCKED;
			park(s, next, now);
			next = NULL;
		}
	}
	if (new_slice && next)
		r.kick |= balance_push(s, p, next, requeued ? cur : NULL, now);

	pc->curr = next;
	if (!next) {
		pc->curr_since = now;
	} else {
		if (next != cur) {
			next->c.switches++;
			next->dom->c.switches++;
			next->run_start = now;
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
		next->vt_since = now;
		r.vcpu = next;
		if (!c1_mode(s) && next->prio == SCHED_PRI_BOOST)
			r.run_until = now + next->boost_left;
		else if (queue_head(pc) || c1_mode(s))
			r.run_until = pc->curr_since + s->p.tslice_ns;
		if (ratelimit_until)
			r.run_until = ratelimit_until;
		if (capped(s, next))
			r.run_until = min_u64(r.run_until, now + next->lease);
	}
	struct sched_vcpu *pk = hn_min(pc->parked);
	if (pk)
		r.run_until = min_u64(r.run_until, pk->park_until);
	if (c1_mode(s))
		r.run_until = min_u64(r.run_until, s->next_tick);
	rw_flush(s, now);
	if (pc->nr_msleep && pc->w_active && !c1_mode(s)) {
		/* A sleeper whose retirement changes its domain's split elsewhere: be there. */
		uint64_t ns = retire_ns(pc, hn_min(pc->sleepers));
		if (ns != UINT64_MAX)
			r.run_until = min_u64(r.run_until, now + ns);
	}
	if (r.run_until <= now)
		r.run_until = now + 1;
	pc->armed = r.run_until;
	/* Work this pCPU cannot run now and an idle one could: kick that one to steal. */
	struct sched_vcpu *h = queue_head(pc);
	if (h) {
		int idle = find_idle(s, sched_affinity(s, h) & ~SCHED_CPU(p));
		if (idle >= 0)
			r.kick |= SCHED_CPU((unsigned)idle);
	}
	r.kick &= ~SCHED_CPU(p);
	return r;
}

static int credit_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			     uint64_t now)
{
	if (weight > SCHED_MAX_WEIGHT || cap > 100 * SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	c1_catch_up(s, now);
	if (weight && weight != d->weight) {
		d->weight = weight; /* its vCPUs' parts change at `now` (rw_flush below) */
		rw_mark(s, d);
		rw_flush(s, now);
	}
	if (cap != d->cap) {
		cap_refill(s, d, now);
		uint32_t old = d->cap;
		d->cap = cap;
		d->cap_last = now;
		d->cap_rem = 0;
		if (!old || d->cap_tokens > cap_depth(s, d))
			d->cap_tokens = cap_depth(s, d);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (v->state != SCHED_VS_PARKED)
				continue;
			/* Re-time the unpark under the new cap (now, if uncapped). */
			v->park_until = now;
			heap_del(s, v);
			v->key = now;
			v->heap = HEAP_PARK;
			hn_insert(&s->pcpu[v->pcpu].parked, &v->hn);
			s->kick_pending |= SCHED_CPU(v->pcpu);
		}
		if (!cap)
			for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom)
				v->flags &= (uint8_t)~F_C1_PARK;
	}
	return 0;
}

static sched_cpumask_t set_affinity_body(struct sched *s, struct sched_vcpu *v,
					 sched_cpumask_t mask, uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu))
		return sched_take_kicks(s);
	sched_cpumask_t aff = sched_affinity(s, v);
	switch (v->state) {
	case SCHED_VS_RUNNING:
		v->flags |= F_MOVE;
		s->pcpu[v->pcpu].resched = true;
		return sched_take_kicks(s) | SCHED_CPU(v->pcpu);
	case SCHED_VS_RUNNABLE:
		vclock_advance(s, v->pcpu, now);
		heap_del(s, v);
		transfer(s, v, sched_least_loaded(s, aff), now);
		if (v->prio == SCHED_PRI_BOOST)
			unboost(s, v, now); /* moving is not an event */
		enqueue(s, v);
		return sched_take_kicks(s) | tickle(s, v);
	default:
		transfer(s, v, sched_least_loaded(s, aff), now);
		return sched_take_kicks(s);
	}
}

static void credit_params_changed(struct sched *s, uint64_t now)
{
	/* Engine switch or new period: restart credit1 ticks, re-key the queues. */
	s->next_tick = 0;
	c1_catch_up(s, now);
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		cap_refill(s, d, now);
		if (d->cap_tokens > cap_depth(s, d))
			d->cap_tokens = cap_depth(s, d);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (v->heap == HEAP_NORM || v->heap == HEAP_BOOST) {
				heap_del(s, v);
				enqueue(s, v);
			}
			s->kick_pending |= SCHED_CPU(v->pcpu);
		}
	}
}

/* The ops that can change a domain split recompute it before they return. */
static sched_cpumask_t credit_wake(struct sched *s, struct sched_vcpu *v, uint64_t now,
				   unsigned flags)
{
	sched_cpumask_t k = wake_body(s, v, now, flags);
	rw_flush(s, now);
	return k;
}

static sched_cpumask_t credit_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t k = sleep_body(s, v, now);
	rw_flush(s, now);
	return k;
}

static sched_cpumask_t credit_set_affinity(struct sched *s, struct sched_vcpu *v,
					   sched_cpumask_t mask, uint64_t now)
{
	sched_cpumask_t k = set_affinity_body(s, v, mask, now);
	rw_flush(s, now);
	return k;
}

static const char *const prio_name[] = {"boost", "under", "over", "idle"};
static const char *const state_name[] = {"blocked", "runnable", "running", "parked"};

static void credit_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	const struct sched_params *p = &s->p;
	pr(arg,
	   "sched policy=credit profile=%s pcpus=%u tslice_ns=%llu ratelimit_ns=%llu"
	   " period_ns=%llu tick_ns=%llu boost_ns=%llu boost_debt_ns=%llu cap_debt_ns=%llu\n",
	   p->profile == SCHED_PROFILE_XEN_CREDIT1 ? "xen-credit1" : "sliver", s->nr_pcpus,
	   (unsigned long long)p->tslice_ns, (unsigned long long)p->ratelimit_ns,
	   (unsigned long long)p->period_ns, (unsigned long long)p->tick_ns,
	   (unsigned long long)p->boost_ns, (unsigned long long)p->boost_debt_ns,
	   (unsigned long long)p->cap_debt_ns);
	for (unsigned i = 0; i < s->nr_pcpus; i++) {
		struct sched_pcpu *pc = &s->pcpu[i];
		pr(arg, "sched pcpu%u curr=%s%u queued=%u vcpus=%u w_active=%llu picks=%llu\n", i,
		   pc->curr ? "d" : "idle", pc->curr ? pc->curr->dom->id : 0, pc->nr_queued,
		   pc->nr_vcpus, (unsigned long long)(pc->w_active >> EW_SHIFT),
		   (unsigned long long)pc->picks);
	}
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		pr(arg, "sched dom d%u weight=%u cap=%u cap_tokens_ns=%lld vcpus=%u\n", d->id,
		   d->weight, d->cap, (long long)d->cap_tokens, d->nr_vcpus);
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			pr(arg, "sched vcpu d%uv%u pcpu=%u state=%s prio=%s credit_ns=%lld\n",
			   d->id, v->id, v->pcpu, state_name[v->state & 3], prio_name[v->prio & 3],
			   (long long)vcredit(s, v));
			sched_dump_counters(pr, arg, "vcpu", d->id, (int)v->id, &v->c);
		}
	}
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
	.params_changed = credit_params_changed,
	.dump = credit_dump,
};
