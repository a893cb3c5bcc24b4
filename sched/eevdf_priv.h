/* What the eevdf policy's files share (sched/eevdf.c, sched/eevdf_bw.c): its private state in
 * the priv bytes of the shared structs, and the Linux 6.6 arithmetic it needs.
 *
 * Citations are to Linux v6.6 (tag v6.6, Makefile SUBLEVEL 0), kernel/sched/fair.c (blob
 * df348aa55d3c), kernel/sched/features.h, kernel/sched/core.c: "fair.c:NNN" is a line of that
 * release. docs/scheduler.md, "Policy: eevdf", has the rules and what is simplified. */
#ifndef SCHED_EEVDF_PRIV_H
#define SCHED_EEVDF_PRIV_H
#include "sched/sched_priv.h"

/* NICE_0_LOAD scaled down (sched.h:167 with scale_load_down): the weight of nice 0. Our
 * SCHED_DEFAULT_WEIGHT 256 maps to it; weights are linear (ours * 4). */
#define EEVDF_NICE0	     1024u
#define EEVDF_MIN_WEIGHT     2u		  /* MIN_SHARES (sched.h), the floor of a group entity */
#define EEVDF_BASE_SLICE_NS  750000ull	  /* normalized_sysctl_sched_base_slice, fair.c:79 */
#define EEVDF_TICK_NS	     1000000ull	  /* TICK_NSEC at CONFIG_HZ=1000 (eevdf.tick_us) */
#define EEVDF_BW_PERIOD_NS   100000000ull /* default_cfs_period, fair.c:5376 */
#define EEVDF_BW_SLICE_NS    5000000ull	  /* sysctl_sched_cfs_bandwidth_slice, fair.c:138 */
#define EEVDF_MIN_RQ_RUNTIME 1000000ll	  /* min_cfs_rq_runtime, fair.c:5943 */

/* A vCPU is a sched_entity (flattened: one level, see docs). */
struct eevdf_vcpu {
	struct sched_vcpu *next, *prev; /* its pCPU's queue (the tree minus curr) */
	uint64_t vruntime;		/* se->vruntime */
	uint64_t deadline;		/* se->deadline: virtual deadline */
	uint64_t pick_deadline;		/* deadline when picked (the HACK of set_next_entity) */
	int64_t vlag;			/* se->vlag, virtual lag V - v kept while dequeued */
	uint64_t slice;			/* se->slice (ns of real time) */
	int64_t runtime;		/* its cfs_rq->runtime_remaining (bandwidth lease) */
	uint64_t last_ran;		/* when last picked (detach_tasks takes the coldest) */
	uint32_t weight;		/* se->load.weight, scaled down (nice 0 = 1024) */
	bool on_rq;			/* queued or running (se->on_rq) */
	bool fresh;			/* never enqueued: the first enqueue is ENQUEUE_INITIAL */
	bool throttled;			/* PARKED by bandwidth control (read as a hint by others) */
};

/* A pCPU is a cfs_rq. avg_vruntime/avg_load are recomputed by the O(n) scan of pick. */
struct eevdf_rq {
	struct sched_vcpu *head, *tail; /* queued, not curr */
	uint64_t min_vruntime;		/* cfs_rq->min_vruntime: monotonic base of the keys */
	uint32_t nr_throttled;		/* PARKED vCPUs assigned here */
};

/* A domain is a task group (cgroup) with cpu.max = cap% x period. */
struct eevdf_dom {
	int64_t pool;	       /* cfs_b->runtime: what is left of this period's quota */
	uint64_t quota;	       /* cfs_b->quota in ns, 0 = RUNTIME_INF */
	uint64_t next_refresh; /* expiry of the period timer (0: not started) */
	uint64_t nr_periods, nr_throttled;
	bool rw_pending;   /* its weight split waits for the finish op (a lock was taken) */
	bool dist_pending; /* its refill waits there to reach its throttled vCPUs */
};

struct eevdf_sched {
	uint64_t slice_ns;   /* sysctl_sched_base_slice in force */
	uint64_t slice_set;  /* eevdf.slice_us in ns, 0 = scaled default */
	uint64_t period_ns;  /* eevdf.bw_period_us: cpu.max period */
	uint64_t tick_ns;    /* eevdf.tick_us: TICK_NSEC of update_entity_lag's limit */
	bool run_to_parity;  /* SCHED_FEAT(RUN_TO_PARITY, true), features.h:9 */
	bool next_buddy;     /* SCHED_FEAT(NEXT_BUDDY, false), features.h:16 */
	bool place_lag;	     /* SCHED_FEAT(PLACE_LAG, true), features.h:7 */
	bool wakeup_preempt; /* SCHED_FEAT(WAKEUP_PREEMPTION, true), features.h:27 */
};

#define EV(v)	  SCHED_PRIV(struct eevdf_vcpu, v)
#define ERQ(s, p) SCHED_PRIV(struct eevdf_rq, &(s)->pcpu[p])
#define EDOM(d)	  SCHED_PRIV(struct eevdf_dom, d)
#define ES(s)	  SCHED_PRIV(struct eevdf_sched, s)

static inline uint64_t eevdf_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* calc_delta_fair (fair.c:311): delta * NICE_0_LOAD / weight. Linux multiplies by a 32-bit
 * inverse (__calc_delta, fair.c:281); an exact 64-bit division here (no 128-bit one). */
static inline uint64_t eevdf_calc_delta_fair(uint64_t delta, uint32_t w)
{
	if (w == EEVDF_NICE0)
		return delta;
	if (delta >> 53)
		return delta / w * EEVDF_NICE0;
	return (delta << 10) / w;
}

/* The inverse, rounded up: real ns for `vdelta` of virtual time at weight w (a timer). */
static inline uint64_t eevdf_real_ns(uint64_t vdelta, uint32_t w)
{
	if (vdelta >> 40)
		return vdelta / EEVDF_NICE0 * w;
	return (vdelta * w + EEVDF_NICE0 - 1) >> 10;
}

/* eevdf.c: the entity arithmetic, shared by the three files. */
struct sched_vcpu *eevdf_running(struct sched *s, unsigned p); /* RUNNING on p, or NULL */
unsigned eevdf_nr_running(struct sched *s, unsigned p);	       /* cfs_rq->nr_running */
void eevdf_queue_add(struct sched *s, struct sched_vcpu *v);
void eevdf_queue_del(struct sched *s, struct sched_vcpu *v);
struct sched_vcpu *eevdf_pick_eevdf(struct sched *s, unsigned p);
bool eevdf_eligible(struct sched *s, unsigned p, const struct sched_vcpu *v);
void eevdf_reweight_dom(struct sched *s, struct sched_dom *d, const struct sched_vcpu *joining,
			uint64_t now);
void eevdf_update_slice(struct sched *s);
void eevdf_update_curr(struct sched *s, unsigned p, uint64_t now);
void eevdf_enqueue(struct sched *s, struct sched_vcpu *v, bool initial);
void eevdf_dequeue(struct sched *s, struct sched_vcpu *v);
sched_cpumask_t eevdf_check_preempt(struct sched *s, struct sched_vcpu *v);
void eevdf_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now);
/* eevdf_bw.c: bandwidth control. */
void eevdf_bw_set(struct sched *s, struct sched_dom *d, uint64_t now);
void eevdf_bw_account(struct sched *s, struct sched_vcpu *v, uint64_t dt);
bool eevdf_bw_runnable(struct sched *s, struct sched_vcpu *v, uint64_t now);
bool eevdf_bw_exhausted(struct sched *s, struct sched_vcpu *v, uint64_t now);
void eevdf_bw_throttle(struct sched *s, struct sched_vcpu *v, uint64_t now);
void eevdf_bw_return(struct sched *s, struct sched_vcpu *v);
sched_cpumask_t eevdf_bw_refresh(struct sched *s, uint64_t now);
uint64_t eevdf_bw_next_event(struct sched *s, unsigned p);
/* eevdf_bw.c: between pCPUs. */
unsigned eevdf_select_cpu(struct sched *s, struct sched_vcpu *v);
unsigned eevdf_place(struct sched *s, struct sched_vcpu *v);
sched_cpumask_t eevdf_bw_finish(struct sched *s, uint64_t now);
struct sched_vcpu *eevdf_newidle_pull(struct sched *s, unsigned p, uint64_t now);
sched_cpumask_t eevdf_kick_idle(struct sched *s);

#endif
