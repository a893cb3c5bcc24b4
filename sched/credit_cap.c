/* Credit policy: caps, a token bucket per domain leased by each run; parking and
 * unparking at the exact ns (docs/scheduler.md, invariant 8). The bucket is shared by the
 * domain's vCPUs on every pCPU: it is read and changed only under sched_dom_lock. */
#include "sched/credit_priv.h"

int64_t cr_cap_depth(const struct sched *s, const struct sched_dom *d)
{
	return (int64_t)(cs(s)->p.period_ns * d->cap / 100);
}

/* Budget a parked vCPU waits for: one slice, or the whole bucket if that is smaller. */
static int64_t cap_unpark_thr(const struct sched *s, const struct sched_dom *d)
{
	int64_t thr = (int64_t)cs(s)->p.tslice_ns, depth = cr_cap_depth(s, d);
	if (thr > depth)
		thr = depth;
	return thr > 0 ? thr : 1;
}

/* The refill up to now; d's lock held. */
void cr_cap_refill(const struct sched *s, struct sched_dom *d, uint64_t now)
{
	if (!d->cap || now <= cd(d)->cap_last) {
		if (now > cd(d)->cap_last)
			cd(d)->cap_last = now;
		return;
	}
	uint64_t dt = now - cd(d)->cap_last;
	int64_t depth = cr_cap_depth(s, d);
	cd(d)->cap_last = now;
	if (dt > ((uint64_t)1 << 40)) {
		cd(d)->cap_tokens = depth;
		cd(d)->cap_rem = 0;
		return;
	}
	uint64_t total = dt * d->cap + cd(d)->cap_rem;
	cd(d)->cap_tokens += (int64_t)(total / 100);
	cd(d)->cap_rem = total % 100;
	depth += cd(d)->cap_reserved; /* leased budget is being consumed: not part of the fill */
	if (cd(d)->cap_tokens >= depth) {
		cd(d)->cap_tokens = depth;
		cd(d)->cap_rem = 0;
	}
}

/* Into its pCPU's park heap, keyed by hn.key (set by the caller). */
void cr_park_insert(struct sched *s, struct sched_vcpu *v)
{
	cv(v)->heap = HEAP_PARK;
	cpc(&s->pcpu[v->pcpu])->w_park += cv(v)->w_acct;
	hn_insert(&cpc(&s->pcpu[v->pcpu])->parked, &cv(v)->hn);
}

/* The budget d has now (refilled up to now), under its lock. */
int64_t cr_cap_avail_now(struct sched *s, struct sched_dom *d, uint64_t now)
{
	sched_dom_lock(s, d);
	cr_cap_refill(s, d, now);
	int64_t a = cap_avail(d);
	sched_dom_unlock(s, d);
	return a;
}

static int64_t tokens(struct sched *s, struct sched_dom *d)
{
	sched_dom_lock(s, d);
	int64_t t = cd(d)->cap_tokens;
	sched_dom_unlock(s, d);
	return t;
}

void cr_park(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_dom *d = v->dom;
	sched_dom_lock(s, d);
	int64_t need = cap_unpark_thr(s, d) - cap_avail(d), tok = cd(d)->cap_tokens;
	sched_dom_unlock(s, d);
	uint64_t wait = need > 0 ? ((uint64_t)need * 100 + d->cap - 1) / d->cap : 0;
	cv(v)->park_until = now + (wait ? wait : 1);
	if (v->prio == SCHED_PRI_BOOST) {
		SCHED_PUT(v->prio, (uint8_t)SCHED_PRI_OVER);
		cv(v)->boost_left = 0;
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_PARKED);
	cv(v)->hn.key = cv(v)->park_until;
	cv(v)->hn.seq = sched_next_seq(s);
	cr_park_insert(s, v);
	v->c.parks++;
	sched_add(&d->c.parks, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_PARK, v, tok);
}

void cr_unpark(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	cr_heap_del(s, v);
	cr_clamp_bank(s, v); /* it earned while parked; the bank still bounds it */
	v->c.unparks++;
	sched_add(&v->dom->c.unparks, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_UNPARK, v, tokens(s, v->dom));
}

/* Unparks the vCPUs of pCPU p whose refill time has come. */
void cr_unpark_due(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *v;
	while ((v = cr_min(cpc(pc)->parked)) && cv(v)->park_until <= now) {
		struct sched_dom *d = v->dom;
		int64_t avail = cr_cap_avail_now(s, d, now);
		if (d->cap && avail < cap_unpark_thr(s, d)) {
			/* Another vCPU of the domain used the refill: wait again. */
			cr_heap_del(s, v);
			v->c.parks--;
			sched_add(&d->c.parks, -1ull);
			cr_park(s, v, now);
			continue;
		}
		cr_unpark(s, v, now);
		cr_enqueue(s, v);
	}
}

/* Leases cap budget for a run of v; false when there is none (v must park). */
bool cr_take_lease(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	if (!capped(v))
		return true;
	struct sched_dom *d = v->dom;
	sched_dom_lock(s, d);
	cr_cap_refill(s, d, now);
	int64_t avail = cap_avail(d), lease;
	if (v->prio == SCHED_PRI_BOOST) {
		lease = avail + (int64_t)cs(s)->p.cap_debt_ns;
		if (lease > (int64_t)cv(v)->boost_left)
			lease = (int64_t)cv(v)->boost_left;
	} else {
		lease = avail < (int64_t)cs(s)->p.tslice_ns ? avail : (int64_t)cs(s)->p.tslice_ns;
	}
	if (lease > 0)
		cd(d)->cap_reserved += lease;
	sched_dom_unlock(s, d);
	if (lease <= 0)
		return false;
	cv(v)->lease = (uint64_t)lease;
	return true;
}
