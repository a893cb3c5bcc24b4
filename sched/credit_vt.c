/* Credit policy: virtual time (exact divisions), the per-pCPU virtual clock, sleepers and
 * their bank, the domain split of weights, the boost budget (docs/scheduler.md, invariants
 * 1-3, 7 and 11). */
#include "sched/credit_priv.h"

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

/* cr_vt_add beyond its one-division case (credit_priv.h). */
uint64_t cr_vt_add_slow(uint64_t vt, uint64_t ns, uint64_t d, uint64_t *rem)
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

uint64_t cr_ns_to_vt(uint64_t ns, uint32_t ew)
{
	uint64_t rem = 0;
	return cr_vt_add(0, ns, ew, &rem);
}

/* Puts d on the list of domains whose split is recomputed at the end of the current call
 * (the list is the instance's, under sched_dom_lock(s, NULL), a leaf: any pCPU's call may
 * recompute any domain on it once it holds that domain's pCPUs). */
void cr_rw_mark(struct sched *s, struct sched_dom *d)
{
	sched_dom_lock(s, NULL);
	if (!cd(d)->rw_pending) {
		cd(d)->rw_pending = true;
		cd(d)->rw_next = cs(s)->rw_list;
		SCHED_PUT(cs(s)->rw_list, d);
	}
	sched_dom_unlock(s, NULL);
}

/* v starts earning on pc with its part of the domain weight (the others' parts shrink). */
void cr_activate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (!cv(v)->w_acct) {
		struct sched_dom *d = v->dom;
		uint32_t n = __atomic_add_fetch(&cd(d)->nr_earn, 1, __ATOMIC_RELAXED);
		cv(v)->w_acct = split_ew(dweight(d), n);
		cpc(pc)->w_active += cv(v)->w_acct;
		if (n > 1)
			cr_rw_mark(s, d);
	}
}

void cr_deactivate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (!cv(v)->w_acct)
		return;
	cpc(pc)->w_active -= cv(v)->w_acct;
	cv(v)->w_acct = 0;
	if (__atomic_sub_fetch(&cd(v->dom)->nr_earn, 1, __ATOMIC_RELAXED))
		cr_rw_mark(s, v->dom);
}

/* Queues v (earning, not runnable) as a sleeper of its pCPU: it retires from w_active when
 * its credit reaches the bank, i.e. when the virtual clock reaches `key`. Sleepers of
 * multi-vCPU domains are counted: their retirement changes the split on other pCPUs, so
 * pick_next arms a timer for it instead of leaving it to the next call. */
void cr_sleeper_insert(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	cv(v)->hn.key = cv(v)->vtime + cr_bank_vt(s, v);
	cv(v)->heap = HEAP_SLEEP;
	cpc(pc)->w_sleep += cv(v)->w_acct;
	if (v->dom->nr_vcpus > 1) {
		cv(v)->flags |= F_MSLEEP;
		cpc(pc)->nr_msleep++;
	}
	hn_insert(&cpc(pc)->sleepers, &cv(v)->hn);
}

/* ns until pc's virtual clock reaches sleeper sl's key at the current w_active:
 * ceil(((key - vclock) * W - rem) / 2^32), UINT64_MAX when that is out of range. */
uint64_t cr_retire_ns(const struct sched_pcpu *pc, const struct sched_vcpu *sl)
{
	unsigned __int128 need =
		(unsigned __int128)(cv(sl)->hn.key - cpc(pc)->vclock) * cpc(pc)->w_active;
	need = need > cpc(pc)->vclock_rem ? need - cpc(pc)->vclock_rem : 0;
	need = (need + ((unsigned __int128)1 << VT_SHIFT) - 1) >> VT_SHIFT;
	return need > ((uint64_t)1 << 62) ? UINT64_MAX : (uint64_t)need;
}

/* cr_vclock_advance beyond its inline step (credit_priv.h): chunks, and the sleepers that
 * retire on the way, each at the exact virtual time it happens (they stop earning and stop
 * diluting the others). */
void cr_vclock_advance_slow(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	uint64_t dt = now - cpc(pc)->vclock_last;
	while (dt) {
		uint64_t w = cpc(pc)->w_active;
		if (!w) {
			cpc(pc)->vclock_rem = 0;
			cpc(pc)->bclock_rem = 0;
			break;
		}
		uint64_t chunk = dt > VT_CHUNK ? VT_CHUNK : dt;
		struct sched_vcpu *sl = cr_min(cpc(pc)->sleepers);
		if (sl && (int64_t)(cv(sl)->hn.key - cpc(pc)->vclock) <= 0) {
			cr_sleeper_del(pc, sl);
			cr_deactivate(s, pc, sl);
			continue;
		}
		if (sl) {
			uint64_t need_ns = cr_retire_ns(pc, sl);
			if (need_ns <= chunk)
				chunk = need_ns;
		}
		uint64_t v0 = cpc(pc)->vclock, r0 = cpc(pc)->vclock_rem;
		cpc(pc)->vclock = cr_vt_add(v0, chunk, w, &cpc(pc)->vclock_rem);
		cr_bclock_step(pc, v0, r0, chunk);
		dt -= chunk;
		if (sl && (int64_t)(cv(sl)->hn.key - cpc(pc)->vclock) <= 0) {
			cr_sleeper_del(pc, sl);
			cr_deactivate(s, pc, sl);
		}
	}
	cpc(pc)->vclock_last = now;
}

/* p has nothing to run: its sleepers stop earning now, each keeping the lag it has. Credit
 * earned while a pCPU idles is taken from no one, and two sleepers that both reached the
 * bank that way would come back equal, whatever they ran before: the one that wakes first
 * wins every time (two wall-clock duty guests on one pCPU, sched-fuzz seed 293: 7.4% and
 * 58.5% for 50 each). With no earner left, the clock stands still until one comes back
 * (docs/scheduler.md, invariant 3). */
void cr_retire_at_idle(struct sched *s, unsigned p)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *sl;
	while ((sl = cr_min(cpc(pc)->sleepers))) {
		cr_heap_del(s, sl);
		cv(sl)->idle_lag = cpc(pc)->vclock - cv(sl)->vtime;
		cv(sl)->flags |= F_IDLE_RET;
		cr_deactivate(s, pc, sl);
	}
}

/* A vCPU retired by cr_retire_at_idle wakes with the lag it had then (the clock of the
 * pCPU it wakes on may have moved on since, without it earning). */
void cr_restore_idle_lag(struct sched *s, struct sched_vcpu *v)
{
	if (!(cv(v)->flags & F_IDLE_RET))
		return;
	cv(v)->flags &= (uint8_t)~F_IDLE_RET;
	cr_set_vtime(v, cpc(&s->pcpu[v->pcpu])->vclock - cv(v)->idle_lag);
}

/* v's weight changes from `from` to `to`: its boost budget B - bvt, earned along its
 * pCPU's budget clock B at the old weight, keeps its value in ns (rescaled by from / to,
 * as Linux's reweight_eevdf keeps a lag). Kept in virtual time it would scale by to /
 * from: the last awake vCPU of a 22-vCPU echo domain, whose part grew 22 times, owed 22
 * times the budget debt its boosted runs had left, waited seconds for it and answered no
 * ping (sched-fuzz seed 1008). The queue order (vtime) and the sleepers' bank keep their
 * virtual time: V is not where the runners stand (a retired sleeper's bank offsets them,
 * 7), so a lag rescaled against V would move runners among themselves (sim-smp-mix: 71.2 /
 * 68.8 for 70 / 70), and a sleeper rescaled against its bank loses what it banked (57.5
 * for 60.1). */
static void keep_budget_ns(struct sched *s, struct sched_vcpu *v, uint32_t from, uint32_t to)
{
	uint64_t B = cpc(&s->pcpu[v->pcpu])->bclock, lag = B - cv(v)->bvt;
	bool debt = (int64_t)lag < 0;
	unsigned __int128 m = (unsigned __int128)(debt ? 0 - lag : lag) * from >> VT_SHIFT;
	/* at most 2^40 ns: far beyond one period's budget, the most it is read as */
	uint64_t vt = cr_ns_to_vt(m > ((uint64_t)1 << 40) ? (uint64_t)1 << 40 : (uint64_t)m, to);
	cv(v)->bvt = debt ? B + vt : B - vt;
	cv(v)->bvrem = 0;
}

/* ---- the domain split ------------------------------------------------------------------
 * A domain's weight is shared by its earning vCPUs (w_acct != 0: runnable, running, parked,
 * sleepers under the bank): each gets (weight << 16) / n, the remainder handed out one unit
 * each in list order, so the parts add up to exactly weight << 16 wherever they run. When n
 * changes, every part is recomputed at `now`: each pCPU holding a part first advances its
 * virtual clock (and a running vCPU its vtime) under the old parts, so every ns is earned
 * and charged at the weight in force while it passed. Queue keys (vtime) do not move; only
 * sleepers' retirement keys (the bank in vtime) are re-keyed. The boost budget is kept in
 * ns (keep_budget_ns). Cost: O(vCPUs of the domain) per change of n, which happens at
 * wakes from beyond the bank, sleeper retirement and remove, never per decision of a
 * 1-vCPU domain. */
static bool reweight(struct sched *s, struct sched_dom *d, uint64_t now)
{
	/* Every pCPU the domain's vCPUs are on (their parts and those pCPUs' weights move
	 * together); else the finish op does it. nr_earn cannot change meanwhile: a vCPU
	 * starts or stops earning only under its pCPU's lock. */
	if (!sched_peer_dom(s, d))
		return false;
	struct sched_vcpu *v;
	for (v = d->vcpus; v; v = v->next_in_dom)
		if (cv(v)->w_acct)
			cr_vclock_advance(s, v->pcpu, now); /* may retire sleepers: nr_earn drops */
	uint32_t n = SCHED_GET(cd(d)->nr_earn), i = 0;
	if (!n)
		return true;
	uint64_t tot = (uint64_t)dweight(d) << EW_SHIFT, base = tot / n, extra = tot % n;
	for (v = d->vcpus; v; v = v->next_in_dom) {
		if (!cv(v)->w_acct)
			continue;
		uint64_t e = base + (i++ < extra ? 1 : 0);
		if (e < EW_MIN)
			e = EW_MIN;
		if (e == cv(v)->w_acct)
			continue;
		struct sched_pcpu *pc = &s->pcpu[v->pcpu];
		if (v->state == SCHED_VS_RUNNING)
			cr_settle_vt(v, now);
		/* Re-keyed: a sleeper's bank in vtime changes, a boosted vCPU's bvt; a parked
		 * one's part is counted apart (w_park). */
		uint8_t heap = cv(v)->heap;
		if (heap == HEAP_SLEEP || heap == HEAP_BOOST || heap == HEAP_PARK)
			cr_heap_del(s, v);
		keep_budget_ns(s, v, cv(v)->w_acct, (uint32_t)e);
		cpc(pc)->w_active = cpc(pc)->w_active - cv(v)->w_acct + e;
		cv(v)->w_acct = (uint32_t)e;
		if (heap == HEAP_SLEEP)
			cr_sleeper_insert(s, v);
		else if (heap == HEAP_BOOST)
			cr_enqueue(s, v);
		else if (heap == HEAP_PARK)
			cr_park_insert(s, v); /* hn.key is still its park_until */
	}
	return true;
}

/* Recomputes the split of every domain marked since the last call (end of each op), most
 * recently marked first; a reweight marks others in turn (retired sleepers). A domain whose
 * pCPUs another call holds goes back on the list, and the rest with it, for the finish
 * op (sched_defer), which holds every lock. */
void cr_rw_flush_list(struct sched *s, uint64_t now)
{
	struct sched_dom *d;
	for (;;) {
		sched_dom_lock(s, NULL);
		d = cs(s)->rw_list;
		if (d) {
			SCHED_PUT(cs(s)->rw_list, cd(d)->rw_next);
			cd(d)->rw_pending = false;
		}
		sched_dom_unlock(s, NULL);
		if (!d)
			return;
		if (!reweight(s, d, now)) {
			cr_rw_mark(s, d);
			sched_defer(s);
			return;
		}
	}
}

/* A start-up debt below 1/64 of a slice, from a hash of (domain, vCPU): vCPUs inserted together
 * would otherwise tie in vtime and run in insertion order on every pCPU, so that all the
 * pCPUs run the same domain at the same time (lockstep round robins: a 15-vCPU domain on
 * 7 pCPUs then gets its service in one burst per round, not spread). */
uint64_t cr_start_offset(const struct sched *s, const struct sched_vcpu *v)
{
	uint32_t h = (v->dom->id * 0x9e3779b1u) ^ (v->id * 0x85ebca6bu);
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 13;
	return cr_ns_to_vt(h % (cs(s)->p.tslice_ns / 64 + 1), ew_of(v));
}
