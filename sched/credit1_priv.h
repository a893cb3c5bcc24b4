/* sched=credit1: Xen 3.0.4's credit scheduler as it was (xen/common/sched_credit.c at tag
 * 3.0.4-branched, 19 Dec 2006; "3.0.4:NNN" below is a line of that file). What credit1.c
 * (the ops, run queues, wake, schedule, balancing), credit1_acct.c (the tick, the
 * accounting, the run-queue sort) and credit1_config.c (keys, dump, audit) share. All
 * state lives in the priv bytes (SCHED_PRIV). */
#ifndef SCHED_CREDIT1_PRIV_H
#define SCHED_CREDIT1_PRIV_H
#include "sched/sched.h"
#include "sched/sched_priv.h"

/* 3.0.4:39-49: 100 credits per 10 ms tick, 3 ticks per slice and per accounting. The
 * durations are keys (credit1.tick_us/tslice_us/acct_us); credits stay 100 per tick. */
#define C1_CREDITS_PER_TICK 100
#define C1_TICK_NS	    10000000ull
#define C1_TSLICE_NS	    30000000ull
#define C1_ACCT_NS	    30000000ull

/* 3.0.4:55-58: priorities, higher is better. */
#define C1_PRI_BOOST 0
#define C1_PRI_UNDER (-1)
#define C1_PRI_OVER  (-2)
#define C1_PRI_IDLE  (-64)

/* 3.0.4:64 CSCHED_FLAG_VCPU_PARKED, plus two of ours: a yield asked for a schedule (Xen's
 * do_yield raised the schedule softirq) and a running vCPU must move pCPU (Xen's
 * _VCPUF_migrating). */
#define C1_PARKED 0x1u
#define C1_YIELD  0x2u
#define C1_MOVE	  0x4u

/* Xen's struct list_head, circular with a head, so that the list orders are Xen's. */
struct c1_list {
	struct c1_list *next, *prev;
};

static inline void c1_list_init(struct c1_list *h)
{
	h->next = h->prev = h;
}
static inline bool c1_list_empty(const struct c1_list *h)
{
	return h->next == h;
}
/* Inserts e between a and b. */
static inline void c1_list_between(struct c1_list *e, struct c1_list *a, struct c1_list *b)
{
	e->prev = a;
	e->next = b;
	a->next = e;
	b->prev = e;
}
static inline void c1_list_add(struct c1_list *e, struct c1_list *h) /* after h */
{
	c1_list_between(e, h, h->next);
}
static inline void c1_list_add_tail(struct c1_list *e, struct c1_list *h) /* before h */
{
	c1_list_between(e, h->prev, h);
}
static inline void c1_list_del_init(struct c1_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	c1_list_init(e);
}

struct c1_vcpu {		    /* 3.0.4:194 struct csched_vcpu */
	struct c1_list runq_elem;   /* on its pCPU's run queue */
	struct c1_list active_elem; /* on its domain's active list (earning credit) */
	struct sched_vcpu *v;
	int32_t credit;
	int16_t pri;
	uint16_t flags;
	int32_t credit_last; /* 3.0.4:1001 stats: credit after the last accounting */
	uint32_t credit_incr;
};

struct c1_dom { /* 3.0.4:217 struct csched_dom (weight and cap: sched_dom's) */
	struct c1_list active_vcpu;
	struct c1_list active_sdom_elem;
	struct sched_dom *d;
	uint32_t active_vcpu_count;
};

struct c1_pcpu { /* 3.0.4:186 struct csched_pcpu, plus its s_timer */
	struct c1_list runq;
	uint32_t runq_sort_last;
	uint64_t slice_end; /* s_timer: last schedule + tslice (schedule.c:569) */
};

struct c1_sched { /* 3.0.4:229 struct csched_private */
	struct c1_list active_sdom;
	uint32_t weight; /* sum of the active domains' weights */
	uint32_t credit; /* credits per accounting for all pCPUs (3.0.4:359) */
	int32_t credit_balance;
	uint32_t runq_sort;
	sched_cpumask_t idlers;
	uint64_t tick_ns, tslice_ns, acct_ns;
	uint32_t credits_per_tslice, credits_per_acct, ticks_per_acct;
	uint64_t next_tick;   /* the next tick not yet processed (all pCPUs tick together) */
	uint64_t tick_n;      /* its number (schedule_data.tick after the increment) */
	uint64_t tick_lag_ns; /* credit1.tick_lag_ns: how late each tick re-arms (see below) */
	uint64_t slop_ns;     /* credit1.timer_slop_ns: Xen's TIMER_SLOP (c1_timer_slop) */
	uint64_t now;	      /* time of the call being served (charging at a park) */
	uint64_t accts, steals, tickles, parks_run;
};

#define C1S(s)	  SCHED_PRIV(struct c1_sched, (s))
#define C1P(s, p) SCHED_PRIV(struct c1_pcpu, &(s)->pcpu[(p)])
#define C1V(v)	  SCHED_PRIV(struct c1_vcpu, (v))
#define C1D(d)	  SCHED_PRIV(struct c1_dom, (d))

static inline struct c1_vcpu *c1_runq_entry(struct c1_list *e)
{
	return (struct c1_vcpu *)(void *)((char *)e - offsetof(struct c1_vcpu, runq_elem));
}
static inline struct c1_vcpu *c1_active_entry(struct c1_list *e)
{
	return (struct c1_vcpu *)(void *)((char *)e - offsetof(struct c1_vcpu, active_elem));
}
static inline struct c1_dom *c1_sdom_entry(struct c1_list *e)
{
	return (struct c1_dom *)(void *)((char *)e - offsetof(struct c1_dom, active_sdom_elem));
}

/* credit1.c */
void c1_set_pri(struct c1_vcpu *cv, int pri);
void c1_charge(struct sched_vcpu *v, uint64_t now);
void c1_runq_insert(struct sched *s, unsigned p, struct sched_vcpu *v);
void c1_runq_remove(struct sched *s, struct sched_vcpu *v);
sched_cpumask_t c1_tickle(struct sched *s, unsigned p, struct sched_vcpu *v);
unsigned c1_cpu_pick(const struct sched *s, const struct sched_vcpu *v);
void c1_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now);

/* credit1_acct.c */
void c1_advance(struct sched *s, uint64_t now);
void c1_timer_slop(struct sched *s, uint64_t now);
void c1_restart_ticks(struct sched *s, uint64_t now);
void c1_acct_start(struct sched *s, struct c1_vcpu *cv);
void c1_acct_stop(struct sched *s, struct c1_vcpu *cv);
void c1_acct(struct sched *s, uint64_t now);
void c1_runq_sort(struct sched *s, unsigned p);
uint64_t c1_next_acct(const struct sched *s);

/* credit1_config.c: the ops that answer the outside */
unsigned c1_audit(const struct sched *s, sched_print_fn pr, void *arg);
void c1_dump(struct sched *s, sched_print_fn pr, void *arg);
int c1_config(struct sched *s, const char *k, size_t kl, const char *val, size_t vl, uint64_t now);
uint64_t c1_slice_ns(const struct sched *s);

#endif
