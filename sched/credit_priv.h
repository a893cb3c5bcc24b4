/* Private to the credit policy (sched/credit*.c): its constants, small helpers and the
 * functions its files share. Not part of the scheduler interface (sched/sched.h). */
#ifndef SCHED_CREDIT_PRIV_H
#define SCHED_CREDIT_PRIV_H
#include "sched/heap.h"
#include "sched/sched.h"
#include "sched/sched_priv.h"

#define VT_SHIFT       32 /* vtime per ns of service is 2^32 / effective weight */
#define EW_SHIFT       16 /* effective weights: the domain weight << 16, split among vCPUs */
#define EW_MIN	       (1u << 10)
#define VT_CHUNK       ((uint64_t)1 << 36) /* ns per step of the exact divisions */
#define VCLOCK_BASE    ((uint64_t)1 << 62) /* keeps vtime - lag from wrapping below 0 */
#define KEY_PRIO_SHIFT 60
#define BAL_WINDOW     8 /* pCPUs one balancing look examines */

enum { HEAP_NONE = 0, HEAP_BOOST, HEAP_NORM, HEAP_SLEEP, HEAP_PARK, HEAP_PIN };
enum { F_YIELD = 1, F_C1_ACTIVE = 2, F_MOVE = 4, F_C1_PARK = 8, F_MSLEEP = 16, F_PULL = 32 };

static inline bool c1_mode(const struct sched *s)
{
	return s->p.tick_ns != 0;
}

static inline uint32_t dweight(const struct sched_dom *d)
{
	return d->weight ? d->weight : SCHED_DEFAULT_WEIGHT;
}

/* The domain weight (credit1 engine: every vCPU competes with it). */
static inline uint32_t vweight(const struct sched_vcpu *v)
{
	return dweight(v->dom);
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
	return v->w_acct ? v->w_acct : split_ew(dweight(v->dom), v->dom->nr_earn + 1);
}

static inline uint64_t bank_ns(const struct sched *s)
{
	return s->p.period_ns;
}

/* The weight that competes for pCPU p now: its earning weight minus its sleepers' (they
 * earn, but run nothing). What placement and balancing compare between pCPUs. */
static inline uint64_t load_of(const struct sched_pcpu *pc)
{
	return pc->w_active - pc->w_sleep;
}

static inline int64_t cap_avail(const struct sched_dom *d)
{
	return d->cap_tokens - d->cap_reserved;
}

static inline bool capped(const struct sched *s, const struct sched_vcpu *v)
{
	return v->dom->cap && !c1_mode(s);
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Keeps pCPU p's bits of the idle and movable-work summaries true (credit_balance.c reads
 * them instead of scanning every pCPU). */
static inline void credit_note(struct sched *s, unsigned p)
{
	const struct sched_pcpu *pc = &s->pcpu[p];
	sched_cpumask_t b = SCHED_CPU(p);
	if (!pc->curr && !pc->nr_queued)
		s->idle_mask |= b;
	else
		s->idle_mask &= ~b;
	if (pc->rq_boost || pc->rq_norm)
		s->move_mask |= b;
	else
		s->move_mask &= ~b;
	if (pc->rq_pin)
		s->pin_mask |= b;
	else
		s->pin_mask &= ~b;
}

/* An idle pCPU (no current vCPU, nothing queued) of `mask`, or -1. */
static inline int cr_find_idle(const struct sched *s, sched_cpumask_t mask)
{
	mask &= s->idle_mask & sched_all_pcpus(s);
	return mask ? __builtin_ctzll(mask) : -1;
}

/* credit.c: run queues, charging */
void cr_heap_del(struct sched *s, struct sched_vcpu *v);
void cr_enqueue(struct sched *s, struct sched_vcpu *v);
void cr_clamp_bank(struct sched *s, struct sched_vcpu *v);
void cr_transfer(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now);
void cr_unboost(struct sched *s, struct sched_vcpu *v, uint64_t now);

/* credit_vt.c: virtual time, sleepers, the domain split, the boost budget */
uint64_t cr_vt_add(uint64_t vt, uint64_t ns, uint64_t d, uint64_t *rem);
uint64_t cr_ns_to_vt(uint64_t ns, uint32_t ew);
uint64_t cr_bank_vt(struct sched *s, const struct sched_vcpu *v);
int64_t cr_vcredit(const struct sched *s, const struct sched_vcpu *v);
void cr_rw_mark(struct sched *s, struct sched_dom *d);
void cr_activate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v);
void cr_deactivate(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v);
void cr_sleeper_insert(struct sched *s, struct sched_vcpu *v);
uint64_t cr_retire_ns(const struct sched_pcpu *pc, const struct sched_vcpu *sl);
void cr_vclock_advance(struct sched *s, unsigned p, uint64_t now);
void cr_settle_vt(struct sched_vcpu *v, uint64_t now);
void cr_rw_flush(struct sched *s, uint64_t now);
uint64_t cr_start_offset(const struct sched *s, const struct sched_vcpu *v);
int64_t cr_boost_budget(struct sched *s, struct sched_vcpu *v);

/* credit_cap.c: caps */
int64_t cr_cap_depth(const struct sched *s, const struct sched_dom *d);
void cr_cap_refill(const struct sched *s, struct sched_dom *d, uint64_t now);
void cr_park(struct sched *s, struct sched_vcpu *v, uint64_t now);
void cr_unpark(struct sched *s, struct sched_vcpu *v, uint64_t now);
void cr_unpark_due(struct sched *s, unsigned p, uint64_t now);
bool cr_take_lease(struct sched *s, struct sched_vcpu *v, uint64_t now);

/* credit_c1.c: the credit1 engine */
void cr_c1_catch_up(struct sched *s, uint64_t now);

/* credit_balance.c: between pCPUs */
sched_cpumask_t cr_tickle(struct sched *s, struct sched_vcpu *v);
unsigned cr_off_pinned(struct sched *s, struct sched_vcpu *v, unsigned p);
struct sched_vcpu *cr_steal(struct sched *s, unsigned p, uint64_t now);
sched_cpumask_t cr_move_away(struct sched *s, struct sched_vcpu *v, uint64_t now);
sched_cpumask_t cr_balance_push(struct sched *s, unsigned p, struct sched_vcpu *next,
				struct sched_vcpu *prev, uint64_t now);
sched_cpumask_t cr_kick_idle_for_work(struct sched *s);
sched_cpumask_t cr_pull_running(struct sched *s, unsigned p);
bool cr_hand_to_idle(struct sched *s, unsigned p, struct sched_vcpu *next, uint64_t now,
		     sched_cpumask_t *kick);

#endif
