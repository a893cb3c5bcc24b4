/* The scheduler door's inside, shared by its two files (core/sched_door.c: the entry
 * points; core/sched_door_lock.c: the locks and what the policies call): the run-queue locks,
 * the context of a pCPU's door call, the door's state, and the few steps every call takes.
 * Those steps are static inline here so that every entry point keeps them inline. Nothing
 * outside the door includes this (core/sched_door.h is its interface). */
#ifndef CORE_SCHED_DOOR_PRIV_H
#define CORE_SCHED_DOOR_PRIV_H
#include "core/sched_door.h"
#include "arch/x86_64/spinlock.h"
#include "sched/sched_priv.h"

#define DOM_LOCKS 64

struct rq {
	spinlock_t lock;
	struct sd_lockstat st; /* under the lock, but try_fail */
	uint64_t try_fail;     /* sched_peer refusals: added to without the lock (atomic) */
} __attribute__((aligned(64)));

/* The locks the calling pCPU's current door call holds (only that pCPU touches it). */
struct ctx {
	sched_cpumask_t held;
	sched_cpumask_t base; /* taken on entry (not by sched_peer): kept to the end */
	int max;	      /* highest rq held, -1 */
	unsigned n;
	bool dom;  /* a sched_dom lock is held */
	bool busy; /* inside a door call (a nested one is a bug) */
} __attribute__((aligned(64)));

/* The door's state (core/sched_door_lock.c). */
extern struct sched door_s;
extern const struct sd_port *door_p;
extern unsigned door_nr;
extern struct rq door_rqs[SCHED_MAX_PCPUS];
extern struct ctx door_ctxs[SCHED_MAX_PCPUS];

/* The few steps every door call takes (its context, its own lock, letting go, the kicks):
 * inline in each entry point, a call each cost more than its body (make bench-pingpath). */
#define DOOR_STEP static inline __attribute__((always_inline))

DOOR_STEP struct ctx *me(void)
{
	return &door_ctxs[door_p->self()];
}

DOOR_STEP bool holds(const struct ctx *c, unsigned q)
{
	return cpumask_has(&c->held, q);
}

DOOR_STEP void mark(struct ctx *c, unsigned q)
{
	cpumask_set(&c->held, q);
	c->n++;
	if ((int)q > c->max)
		c->max = (int)q;
}

/* Waits for rq q (rq_lock found it taken) and counts the wait. */
void door_rq_wait(unsigned q);

/* Takes rq q, waiting if need be. */
DOOR_STEP void rq_lock(struct ctx *c, unsigned q)
{
	if (!spin_lock_if_free(&door_rqs[q].lock))
		door_rq_wait(q);
	door_rqs[q].st.acquires++;
	mark(c, q);
}

DOOR_STEP void begin(struct ctx *c)
{
	if (c->busy)
		door_p->bug("sched_door: nested call on pCPU", door_p->self(), 0);
	c->busy = true;
}

/* Lets go of every rq the call holds: word by word, up to the highest held (most calls hold
 * one lock, in the first word). */
DOOR_STEP void release(struct ctx *c)
{
	for (int w = 0; w <= c->max / 64; w++) {
		c->base.w[w] = 0;
		while (c->held.w[w]) {
			unsigned q = w * 64 + (unsigned)__builtin_ctzll(c->held.w[w]);
			c->held.w[w] &= c->held.w[w] - 1;
			spin_unlock(&door_rqs[q].lock);
		}
	}
	c->n = 0;
	c->max = -1;
	c->busy = false;
}

/* Takes every rq, in order (a "wide" call). */
void door_wide_lock(struct ctx *c);

/* The call's own rq (its vCPU's or its pCPU's), taken on entry. */
DOOR_STEP void home_lock(struct ctx *c, unsigned q)
{
	rq_lock(c, q);
	cpumask_set(&c->base, q);
}

/* The words of pCPUs that exist only (most calls kick nobody). NULL: none. Up to 64 pCPUs
 * that is the first word: nothing else is read. */
DOOR_STEP void deliver(const sched_cpumask_t *mask)
{
	if (!mask)
		return;
	if (door_nr <= 64) {
		for (uint64_t m = mask->w[0] & (door_nr == 64 ? ~0ull : (1ull << door_nr) - 1); m;
		     m &= m - 1)
			door_p->kick((unsigned)__builtin_ctzll(m), true);
		return;
	}
	if (cpumask_empty(*mask))
		return;
	for (unsigned w = 0; w * 64 < door_nr; w++)
		for (uint64_t m = mask->w[w]; m; m &= m - 1) {
			unsigned q = w * 64 + (unsigned)__builtin_ctzll(m);
			if (q < door_nr)
				door_p->kick(q, true);
		}
}

/* A policy left work undone for want of a lock: do it now, every rq held. */
void door_finish(void);

/* Ends a call: locks released, then the kicks (NULL: none), then any finish work (wide). */
DOOR_STEP void end(struct ctx *c, const sched_cpumask_t *kick)
{
	release(c);
	deliver(kick);
	if (SCHED_GET(door_s.finish))
		door_finish();
}

static inline struct sd_vcpu *door_vcpu(struct sched_vcpu *sv)
{
	return sv ? (struct sd_vcpu *)(void *)((char *)sv - offsetof(struct sd_vcpu, sv)) : NULL;
}

/* Takes v's rq: the one of sv.pcpu, checked again once held (v moves only under both). */
DOOR_STEP void lock_vcpu(struct ctx *c, struct sd_vcpu *v)
{
	for (;;) {
		unsigned p = SCHED_GET(v->sv.pcpu);
		home_lock(c, p);
		if (SCHED_GET(v->sv.pcpu) == p)
			return;
		release(c);
		c->busy = true;
	}
}

/* The three ways into a call: v's rq, pCPU p's rq, every rq. */
DOOR_STEP struct ctx *enter_vcpu(struct sd_vcpu *v)
{
	struct ctx *c = me();
	begin(c);
	lock_vcpu(c, v);
	return c;
}

struct ctx *door_enter_wide(void);
#endif
