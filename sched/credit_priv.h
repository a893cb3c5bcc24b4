/* Private to the credit policy (sched/credit*.c): its constants, small helpers and the
 * functions its files share. Not part of the scheduler interface (sched/sched.h). */
#ifndef SCHED_CREDIT_PRIV_H
#define SCHED_CREDIT_PRIV_H
#include "sched/heap.h"
#include "sched/sched.h"
#include "sched/sched_priv.h"

#define VT_SHIFT    32 /* vtime per ns of service is 2^32 / effective weight */
#define EW_SHIFT    16 /* effective weights: the domain weight << 16, split among vCPUs */
#define EW_MIN	    (1u << 10)
#define VT_CHUNK    ((uint64_t)1 << 36) /* ns per step of the exact divisions */
#define VCLOCK_BASE ((uint64_t)1 << 62) /* keeps vtime - lag from wrapping below 0 */
#define BAL_WINDOW  8			/* pCPUs one balancing look examines */
#define BAL_CAND    16			/* queued vCPUs one balancing look considers */

enum { HEAP_NONE = 0, HEAP_BOOST, HEAP_NORM, HEAP_SLEEP, HEAP_PARK, HEAP_PIN };
enum {
	F_YIELD = 1,
	F_MOVE = 4,
	F_MSLEEP = 16,
	F_PULL = 32,
	F_IDLE_RET = 64, /* retired when its pCPU idled: idle_lag holds its lag (invariant 3) */
	F_BANK_CUT = 128 /* its credit was cut to one bank at its last wake (until it blocks) */
};

/* credit's parameters: its `credit.<key>=` keys (credit_config.c), at boot and at run time. */
struct credit_params {
	uint64_t tslice_ns;	  /* credit.tslice_us: normal slice */
	uint64_t ratelimit_ns;	  /* credit.ratelimit_us: min run before a preemption */
	uint64_t period_ns;	  /* credit.period_us: accounting window (bank, cap bucket) */
	uint64_t boost_ns;	  /* credit.boost_us: latency slice of an event wake */
	uint64_t boost_debt_ns;	  /* credit.boost_debt_us: deepest boost-budget debt still boosted
				   * (boosted ns taken ahead of the budget) */
	uint64_t cap_debt_ns;	  /* credit.cap_debt_us: cap budget debt a latency slice may take */
	uint64_t balance_gap_ns;  /* credit.balance_gap_us: service lag that moves a vCPU to a
				   * less loaded busy pCPU, 0 = no balancing between busy pCPUs */
	uint64_t balance_hold_ns; /* credit.balance_hold_us: min stay after such a move */
};

/* credit's part of a vCPU (sched_vcpu.priv). */
struct cr_vcpu {
	struct sched_hnode hn;	  /* run queue, sleeper or park heap; hn.key, hn.seq its order */
	uint8_t heap;		  /* which heap hn is in (HEAP_*), HEAP_NONE = none */
	uint8_t flags;		  /* F_* */
	uint64_t vtime;		  /* weighted service received (weighted ns) */
	uint64_t vrem;		  /* remainder of the vtime division */
	uint64_t run_start;	  /* when it was last picked after another vCPU */
	uint64_t boost_left;	  /* ns of latency slice left */
	uint64_t park_until;	  /* unpark time when PARKED */
	uint64_t lease;		  /* cap budget leased for the current run */
	uint32_t w_acct;	  /* its share of the domain weight (1/2^16 units) counted in its
				   * pCPU's w_active, 0 = inactive (not earning) */
	uint64_t vt_since;	  /* start of the interval not yet added to vtime */
	uint64_t gvt;		  /* vtime never rebased by migration: comparable across pCPUs */
	uint64_t bal_hold;	  /* not moved by balancing before this time */
	uint64_t bvt;		  /* boost budget: a vtime charged only by boosted ns */
	uint64_t boost_req;	  /* its latency slices' boosted ns (a moving average), in
				   * vtime at its weight: the request of its boost deadline */
	uint64_t bvrem;		  /* remainder of its division */
	uint64_t idle_lag;	  /* F_IDLE_RET: vclock - vtime when it retired */
	uint64_t cyc_at, cyc_run; /* start of its use window (a block), c.run_ns then */
	uint64_t woke_at;	  /* its last wake (balancing places movers by service only after
				     balance_hold) */
};

/* credit's part of a domain (sched_dom.priv). */
struct cr_dom {
	int64_t cap_tokens;	   /* cap budget in ns of CPU, continuous refill */
	int64_t cap_reserved;	   /* ns leased to its running vCPUs */
	uint64_t cap_last;	   /* time of the last refill */
	uint64_t cap_rem;	   /* remainder of the refill division */
	bool rw_pending;	   /* its vCPUs' weight split must be recomputed (rw_list) */
	uint32_t nr_earn;	   /* vCPUs earning credit (w_acct != 0): they share weight;
				    * changed atomically by their pCPUs, read as a hint */
	struct sched_dom *rw_next; /* cr_sched.rw_list link while rw_pending */
};

/* One period in virtual time at earning weight w (period * 2^32 / w), kept for the last w and
 * period asked: a division per change of either, not per call (cr_period_vt). */
struct cr_period_vt {
	uint64_t w, ns, vt;
};

/* credit's part of a pCPU (sched_pcpu.priv). */
struct cr_pcpu {
	struct sched_hnode *rq_boost, *rq_norm, *sleepers, *parked;
	struct sched_hnode *rq_pin; /* queued vCPUs allowed only here (not movable) */
	uint32_t nr_msleep;	    /* sleepers here of domains with more than one vCPU */
	uint64_t vclock;	    /* virtual clock, weighted ns */
	uint64_t vclock_rem;	    /* remainder of its division */
	uint64_t vclock_last;
	uint64_t w_active;	     /* sum of w_acct of the vCPUs earning credit here */
	uint64_t w_sleep;	     /* the part of w_active that is sleepers' */
	uint64_t w_park;	     /* the part of w_active that is parked (capped) */
	uint64_t bclock, bclock_rem; /* the boost budget's clock: as vclock, over
				      * w_active - w_park (invariant 7) */
	uint64_t bal_next;	     /* no balancing look from here before this time */
	uint16_t bal_cursor;	     /* first pCPU of the next balancing look */
	uint16_t wake_cursor;	     /* next pCPU cr_wake_beside_ahead compares */
	struct cr_period_vt bank;    /* the sleepers' bank in vtime (cr_bank_vt) */
	struct cr_period_vt budget;  /* the boost budget's depth in vtime (cr_boost_budget) */
};

/* credit's part of the instance (sched.priv). */
struct cr_sched {
	struct credit_params p;
	/* Summaries each pCPU keeps of itself (its bit, atomically), read by all as hints. */
	sched_cpumask_t idle_mask; /* pCPUs with no current vCPU and nothing queued */
	sched_cpumask_t move_mask; /* pCPUs with movable queued vCPUs (steal sources) */
	sched_cpumask_t pin_mask;  /* pCPUs with pinned vCPUs queued */
	struct sched_dom *rw_list; /* domains whose weight split changed (sched_dom_lock NULL) */
};

static inline struct cr_vcpu *cv(const struct sched_vcpu *v)
{
	return SCHED_PRIV(struct cr_vcpu, (struct sched_vcpu *)v);
}

static inline struct cr_dom *cd(const struct sched_dom *d)
{
	return SCHED_PRIV(struct cr_dom, (struct sched_dom *)d);
}

static inline struct cr_pcpu *cpc(const struct sched_pcpu *pc)
{
	return SCHED_PRIV(struct cr_pcpu, (struct sched_pcpu *)pc);
}

static inline struct cr_sched *cs(const struct sched *s)
{
	return SCHED_PRIV(struct cr_sched, (struct sched *)s);
}

/* The vCPU whose credit state holds heap node n (NULL for NULL). */
static inline struct sched_vcpu *cr_vcpu_of(const struct sched_hnode *n)
{
	if (!n)
		return NULL;
	const char *c = (const char *)n - offsetof(struct cr_vcpu, hn);
	return (struct sched_vcpu *)(void *)(c - offsetof(struct sched_vcpu, priv));
}

/* The first vCPU of a heap, or NULL. */
static inline struct sched_vcpu *cr_min(struct sched_hnode *root)
{
	return cr_vcpu_of(root);
}

static inline uint32_t dweight(const struct sched_dom *d)
{
	return d->weight ? d->weight : SCHED_DEFAULT_WEIGHT;
}

/* One of n equal parts of weight w, in 1/2^16 units (EW_MIN at least). */
static inline uint32_t split_ew(uint32_t w, uint32_t n)
{
	uint64_t e = ((uint64_t)w << EW_SHIFT) / (n ? n : 1);
	return e < EW_MIN ? EW_MIN : (uint32_t)e;
}

/* Effective weight of v: its share of the domain weight while it earns, else the share it
 * would get if it started earning now. */
static inline uint32_t ew_of(const struct sched_vcpu *v)
{
	return cv(v)->w_acct ? cv(v)->w_acct
			     : split_ew(dweight(v->dom), SCHED_GET(cd(v->dom)->nr_earn) + 1);
}

static inline uint64_t bank_ns(const struct sched *s)
{
	return cs(s)->p.period_ns;
}

/* The weight that competes for pCPU p now: its earning weight minus its sleepers' (they
 * earn, but run nothing). What placement and balancing compare between pCPUs. */
static inline uint64_t load_of(const struct sched_pcpu *pc)
{
	return cpc(pc)->w_active - cpc(pc)->w_sleep;
}

static inline int64_t cap_avail(const struct sched_dom *d)
{
	return cd(d)->cap_tokens - cd(d)->cap_reserved;
}

static inline bool capped(const struct sched_vcpu *v)
{
	return v->dom->cap != 0;
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Keeps pCPU p's bits of the idle and movable-work summaries true (credit_balance.c reads
 * them instead of scanning every pCPU): bit b of one word of each, atomically. */
static inline void cr_note_bit(uint64_t *w, uint64_t b, bool on)
{
	if (on)
		__atomic_fetch_or(w, b, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(w, ~b, __ATOMIC_RELAXED);
}

static inline void credit_note(struct sched *s, unsigned p)
{
	const struct sched_pcpu *pc = &s->pcpu[p];
	unsigned i = p / 64;
	uint64_t b = 1ull << (p % 64);
	cr_note_bit(&cs(s)->idle_mask.w[i], b, !pc->curr && !pc->nr_queued);
	cr_note_bit(&cs(s)->move_mask.w[i], b, cpc(pc)->rq_boost || cpc(pc)->rq_norm);
	cr_note_bit(&cs(s)->pin_mask.w[i], b, cpc(pc)->rq_pin != NULL);
}

/* The summaries, read as hints (another pCPU may change its bit at any time). */
static inline sched_cpumask_t cr_idle_mask(const struct sched *s)
{
	return cpumask_load(&cs(s)->idle_mask);
}
static inline sched_cpumask_t cr_move_mask(const struct sched *s)
{
	return cpumask_load(&cs(s)->move_mask);
}
static inline sched_cpumask_t cr_pin_mask(const struct sched *s)
{
	return cpumask_load(&cs(s)->pin_mask);
}

/* Whether any pCPU is idle / has movable work queued, besides pCPU `but` (SCHED_MAX_PCPUS:
 * none excepted): the first word alone on a one-word instance (sched_one_word). */
static inline bool cr_idle_any_but(const struct sched *s, unsigned but)
{
	if (sched_one_word(s))
		return __atomic_load_n(&cs(s)->idle_mask.w[0], __ATOMIC_RELAXED) &
		       ~(but < 64 ? 1ull << but : 0);
	return !cpumask_empty(cpumask_without(cr_idle_mask(s), but));
}
static inline bool cr_move_any(const struct sched *s)
{
	if (sched_one_word(s))
		return __atomic_load_n(&cs(s)->move_mask.w[0], __ATOMIC_RELAXED);
	return !cpumask_empty(cr_move_mask(s));
}

/* An idle pCPU (no current vCPU, nothing queued) of `mask`, the lowest, or -1. */
static inline int cr_find_idle(const struct sched *s, sched_cpumask_t mask)
{
	unsigned q =
		cpumask_first(cpumask_and(mask, cpumask_and(cr_idle_mask(s), sched_all_pcpus(s))));
	return q < SCHED_MAX_PCPUS ? (int)q : -1;
}

/* The cheap first tests of cr_balance_push and cr_hand_to_idle (a pick makes them inline). */
static inline bool cr_may_balance(const struct sched *s, const struct sched_pcpu *pc)
{
	return cs(s)->p.balance_gap_ns && s->nr_pcpus >= 2 && cpc(pc)->rq_norm;
}
static inline bool cr_may_hand_to_idle(const struct sched *s, unsigned p,
				       const struct sched_vcpu *next)
{
	return s->pcpu[p].nr_queued && next->prio != SCHED_PRI_BOOST && cr_idle_any_but(s, p);
}

/* credit.c: run queues, charging */
void cr_heap_del(struct sched *s, struct sched_vcpu *v);
void cr_enqueue(struct sched *s, struct sched_vcpu *v);
static inline void cr_enqueue_quiet(struct sched *s, struct sched_vcpu *v);
void cr_heap_del_quiet(struct sched *s, struct sched_vcpu *v);
/* The vCPU that runs next on pc: the boost queue's head, else the lesser of the movable
 * and the pinned queue's heads (NULL: nothing queued). */
static inline struct sched_vcpu *cr_queue_head(struct sched_pcpu *pc)
{
	struct sched_hnode *b = cpc(pc)->rq_boost, *n = cpc(pc)->rq_norm, *q = cpc(pc)->rq_pin;
	if (b)
		return cr_vcpu_of(b);
	if (!q || (n && hn_less(n, q)))
		return cr_vcpu_of(n);
	return cr_vcpu_of(q);
}
/* Takes sleeper v off pc's sleeper heap (it keeps earning until the caller says). */
static inline void cr_sleeper_del(struct sched_pcpu *pc, struct sched_vcpu *v)
{
	hn_remove(&cpc(pc)->sleepers, &cv(v)->hn);
	cpc(pc)->w_sleep -= cv(v)->w_acct;
	if (cv(v)->flags & F_MSLEEP) {
		cv(v)->flags &= (uint8_t)~F_MSLEEP;
		cpc(pc)->nr_msleep--;
	}
	cv(v)->heap = HEAP_NONE;
}

/* Takes v off the run queue it is in on pc: h, its heap, is HEAP_BOOST, HEAP_NORM or HEAP_PIN. */
static inline __attribute__((always_inline)) void cr_runq_del(struct sched_pcpu *pc,
							      struct sched_vcpu *v, uint8_t h)
{
	hn_remove(h == HEAP_BOOST  ? &cpc(pc)->rq_boost
		  : h == HEAP_NORM ? &cpc(pc)->rq_norm
				   : &cpc(pc)->rq_pin,
		  &cv(v)->hn);
	SCHED_ADD(pc->nr_queued, -1u);
	cv(v)->heap = HEAP_NONE;
}

/* A pick's dequeue of the vCPU it runs (cr_heap_del_quiet), inline where that is a run
 * queue's vCPU (its head, but for a directed yield's target). */
static inline void cr_dequeue_next(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	uint8_t h = cv(v)->heap;
	if (h != HEAP_BOOST && h != HEAP_NORM && h != HEAP_PIN)
		cr_heap_del_quiet(s, v);
	else
		cr_runq_del(pc, v, h);
}

/* Anything queued on pc (cr_queue_head would not be NULL), without choosing. */
static inline bool cr_queued(const struct sched_pcpu *pc)
{
	return cpc(pc)->rq_boost || cpc(pc)->rq_norm || cpc(pc)->rq_pin;
}
void cr_charge(struct sched *s, struct sched_vcpu *v, uint64_t now);
/* Places v at vtime vt; gvt (service per weight, never rebased) moves by the same amount. */
static inline void cr_set_vtime(struct sched_vcpu *v, uint64_t vt)
{
	cv(v)->gvt += vt - cv(v)->vtime;
	cv(v)->vtime = vt;
}
void cr_retire_at_idle(struct sched *s, unsigned p);
void cr_restore_idle_lag(struct sched *s, struct sched_vcpu *v);
void cr_transfer(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now);
void cr_boost_used(struct sched *s, struct sched_vcpu *v);
void cr_unboost(struct sched *s, struct sched_vcpu *v, uint64_t now);

/* credit_wake.c: wakes, sleeps, yields (ops) */
sched_cpumask_t cr_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags);
sched_cpumask_t cr_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now);
void cr_yield(struct sched *s, struct sched_vcpu *v, uint64_t now);
sched_cpumask_t cr_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
			    uint64_t now);

/* credit_pick.c: the decision (op) */
struct sched_pick cr_pick_next(struct sched *s, unsigned p, uint64_t now);

/* credit_vt.c: virtual time, sleepers, the domain split, the boost budget */
uint64_t cr_vt_add_slow(uint64_t vt, uint64_t ns, uint64_t d, uint64_t *rem);
/* vt + ns * 2^32 / d, exactly: the remainder (< d) is carried in *rem. Inline for the
 * usual case, under 2 s and the remainder in range: one division (every charge and clock
 * step of a wake and a pick takes it). */
static inline uint64_t cr_vt_add(uint64_t vt, uint64_t ns, uint64_t d, uint64_t *rem)
{
	if (ns < ((uint64_t)1 << 31) && *rem < d) {
		uint64_t x = (ns << 32) + *rem;
		*rem = x % d;
		return vt + x / d;
	}
	return cr_vt_add_slow(vt, ns, d, rem);
}
uint64_t cr_ns_to_vt(uint64_t ns, uint32_t ew);
void cr_rw_mark(struct sched *s, struct sched_dom *d);
void cr_activate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v);
void cr_deactivate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v);
void cr_sleeper_insert(struct sched *s, struct sched_vcpu *v);
uint64_t cr_retire_ns(const struct sched_pcpu *pc, const struct sched_vcpu *sl);
void cr_vclock_advance_slow(struct sched *s, unsigned p, uint64_t now);
void cr_rw_flush_list(struct sched *s, uint64_t now);

/* The budget clock's step for the `chunk` ns the virtual clock just took from (v0, r0). */
static inline void cr_bclock_step(struct sched_pcpu *pc, uint64_t v0, uint64_t r0, uint64_t chunk)
{
	uint64_t w = cpc(pc)->w_active;
	if (!cpc(pc)->w_park && cpc(pc)->bclock_rem == r0) {
		/* The same division from the same remainder: the same step, exactly (no second
		 * division where nothing is parked). */
		cpc(pc)->bclock += cpc(pc)->vclock - v0;
		cpc(pc)->bclock_rem = cpc(pc)->vclock_rem;
	} else {
		/* Only parked vCPUs earn: as vclock (a retired vCPU's budget no worse). */
		uint64_t wb = w > cpc(pc)->w_park ? w - cpc(pc)->w_park : w;
		cpc(pc)->bclock = cr_vt_add(cpc(pc)->bclock, chunk, wb, &cpc(pc)->bclock_rem);
	}
}

/* Advances pCPU p's virtual clock to `now`. Inline, the usual step (a wake, the pick after
 * it): one chunk in which no sleeper retires, i.e. the first sleeper's key is still ahead
 * of the clock at its end; the slow path (credit_vt.c) takes it in the same division, with
 * the retirements on the way. */
static inline __attribute__((always_inline)) void cr_vclock_advance(struct sched *s, unsigned p,
								    uint64_t now)
{
	SCHED_HELD(s, p);
	struct sched_pcpu *pc = &s->pcpu[p];
	if (now <= cpc(pc)->vclock_last)
		return;
	uint64_t dt = now - cpc(pc)->vclock_last;
	if (cpc(pc)->w_active && dt <= VT_CHUNK) {
		uint64_t v0 = cpc(pc)->vclock, r0 = cpc(pc)->vclock_rem, rem = r0;
		uint64_t v1 = cr_vt_add(v0, dt, cpc(pc)->w_active, &rem);
		struct sched_vcpu *sl = cr_min(cpc(pc)->sleepers);
		if (!sl || (int64_t)(cv(sl)->hn.key - v1) > 0) {
			cpc(pc)->vclock = v1;
			cpc(pc)->vclock_rem = rem;
			cr_bclock_step(pc, v0, r0, dt);
			cpc(pc)->vclock_last = now;
			return;
		}
	}
	cr_vclock_advance_slow(s, p, now);
}
/* The end of every op: the splits of the domains marked meanwhile (usually none). */
static inline void cr_rw_flush(struct sched *s, uint64_t now)
{
	if (SCHED_GET(cs(s)->rw_list))
		cr_rw_flush_list(s, now);
}
uint64_t cr_start_offset(const struct sched *s, const struct sched_vcpu *v);

/* credit_cap.c: caps */
int64_t cr_cap_depth(const struct sched *s, const struct sched_dom *d);
void cr_cap_refill(const struct sched *s, struct sched_dom *d, uint64_t now);
int64_t cr_cap_avail_now(struct sched *s, struct sched_dom *d, uint64_t now);
void cr_park_insert(struct sched *s, struct sched_vcpu *v);
void cr_park(struct sched *s, struct sched_vcpu *v, uint64_t now);
void cr_unpark(struct sched *s, struct sched_vcpu *v, uint64_t now);
void cr_unpark_due(struct sched *s, unsigned p, uint64_t now);
bool cr_take_lease(struct sched *s, struct sched_vcpu *v, uint64_t now);

/* credit_config.c: parameters, keys, dump */
void cr_set_defaults(struct credit_params *p);
int cr_config(struct sched *s, const char *k, size_t klen, const char *v, size_t vlen,
	      uint64_t now);
int cr_config_get(const struct sched *s, const char *k, size_t klen, char *buf, size_t n);
void cr_config_show(const struct sched *s, sched_print_fn pr, void *arg);
uint64_t cr_slice_ns(const struct sched *s);
void cr_dump(struct sched *s, sched_print_fn pr, void *arg);

/* credit_check.c: every lock held */
sched_cpumask_t cr_finish(struct sched *s, uint64_t now);
unsigned cr_audit(const struct sched *s, sched_print_fn pr, void *arg);

/* credit_balance.c: between pCPUs */
int cr_tickle_slow(struct sched *s, struct sched_vcpu *v);
/* Whether boosted v, queued on the pCPU where boosted cur runs, preempts it (rule 5): v's
 * deadline in the boost queue (hn.key: bvt + boost_req) is before cur's, its bvt charged
 * so far plus what is left of its latency slice. An echo's wake then no longer waits for
 * the rest of a fuzzer's latency slice; two that spend alike stay in their order. */
static inline bool cr_boost_passes(const struct sched_vcpu *v, const struct sched_vcpu *cur)
{
	return (int64_t)(cv(v)->hn.key - cv(cur)->bvt -
			 cr_ns_to_vt(cv(cur)->boost_left, ew_of(cur))) < 0;
}

/* The pCPU to kick for a vCPU just queued (-1: none): its own when it preempts the current
 * vCPU there (inline: every event wake), else cr_tickle_slow's answer. */
static inline int cr_tickle(struct sched *s, struct sched_vcpu *v)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	struct sched_vcpu *cur = pc->curr;
	if (!cur || cur->state != SCHED_VS_RUNNING || v->prio < cur->prio ||
	    (v->prio == SCHED_PRI_BOOST && cur->prio == SCHED_PRI_BOOST &&
	     cr_boost_passes(v, cur))) {
		SCHED_PUT(pc->resched, true);
		return v->pcpu;
	}
	return cr_tickle_slow(s, v);
}
/* k with pCPU q (cr_tickle's answer; -1: k as it is). */
static inline sched_cpumask_t cr_with_kick(sched_cpumask_t k, int q)
{
	if (q >= 0)
		cpumask_set(&k, (unsigned)q);
	return k;
}
unsigned cr_off_pinned(struct sched *s, struct sched_vcpu *v, unsigned p);
void cr_sleep_off_narrow(struct sched *s, struct sched_vcpu *v, uint64_t now);
unsigned cr_wake_beside_ahead(struct sched *s, struct sched_vcpu *v, unsigned p, uint64_t now);
void cr_by_service_beside_pinned(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now);
struct sched_vcpu *cr_steal(struct sched *s, unsigned p, uint64_t now);
sched_cpumask_t cr_move_away(struct sched *s, struct sched_vcpu *v, uint64_t now);
sched_cpumask_t cr_balance_push(struct sched *s, unsigned p, struct sched_vcpu *next,
				struct sched_vcpu *prev, uint64_t now);
sched_cpumask_t cr_kick_idle_for_work(struct sched *s);
sched_cpumask_t cr_pull_running(struct sched *s, unsigned p);
bool cr_hand_to_idle(struct sched *s, unsigned p, struct sched_vcpu *next, bool preempted,
		     uint64_t now, sched_cpumask_t *kick);

#include "sched/credit_hot.h"

#endif
