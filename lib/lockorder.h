/* Lock ranks and the order check behind every spin lock of the hypervisor (and of the host
 * torture test's stand-in locks). The ranks themselves are written in one table, in
 * core/sched_door.c ("Locking").
 *
 * The rule: a CPU may wait for a lock only when its rank is above the rank of every lock it
 * holds. Locks of one indexed class (the per-pCPU run-queue locks) share a rank and are
 * ordered by index among themselves: with some held, only a higher index may be waited
 * for. A try-lock may take any lock (it never waits, so it cannot close a cycle); what it
 * took counts as held from then on. Release order is free.
 *
 * Pure C: the caller keeps one `struct lockorder_cpu` per CPU (or thread) and turns a
 * violation into a panic naming both locks. */
#ifndef LIB_LOCKORDER_H
#define LIB_LOCKORDER_H
#include <stdbool.h>
#include <stdint.h>

#define LOCKORDER_DEPTH	   8   /* locks of distinct classes held at once */
#define LOCKORDER_IDX_MAX  256 /* instances of the indexed class (one per pCPU) */
#define LOCKORDER_IDX_WORD (LOCKORDER_IDX_MAX / 64)

struct lock_class {
	const char *name;
	uint16_t rank;
	bool indexed; /* many instances, ordered by index (the run-queue locks) */
};

struct lockorder_cpu {
	const struct lock_class *held[LOCKORDER_DEPTH]; /* non-indexed classes held */
	uint8_t n;
	const struct lock_class *idx_class; /* the indexed class, when any instance is held */
	uint16_t nidx;			    /* instances held */
	uint64_t idx[LOCKORDER_IDX_WORD];   /* which */
};

/* What an acquire would break: the lock wanted and the held lock it conflicts with. */
struct lockorder_bad {
	const struct lock_class *want, *held;
	int want_idx, held_idx; /* -1 unless indexed */
	const char *why;
};

/* The general cases of the two below. */
bool lockorder_acquire_slow(struct lockorder_cpu *c, const struct lock_class *k, int idx, bool try,
			    struct lockorder_bad *bad);
bool lockorder_release_slow(struct lockorder_cpu *c, const struct lock_class *k, int idx);

/* Records the acquisition of (k, idx) (idx < 0 unless k->indexed); `try`: it did not wait.
 * Returns false and fills *bad when waiting for it breaks the rule, or when it is already
 * held (a self-deadlock), or the depth is exceeded; nothing is recorded then. Inline for the
 * common case of a pCPU that holds nothing yet (every door call's first lock): nothing can
 * conflict then. */
static inline bool lockorder_acquire(struct lockorder_cpu *c, const struct lock_class *k, int idx,
				     bool try, struct lockorder_bad *bad)
{
	if (c->n | c->nidx)
		return lockorder_acquire_slow(c, k, idx, try, bad);
	if (!k->indexed) {
		c->held[c->n++] = k;
		return true;
	}
	if ((unsigned)idx >= LOCKORDER_IDX_MAX)
		return lockorder_acquire_slow(c, k, idx, try, bad); /* names the error */
	c->idx_class = k;
	c->idx[idx / 64] = 1ull << (idx % 64); /* all words were 0: nothing held */
	c->nidx = 1;
	return true;
}

/* Forgets (k, idx); false when it was not held. Inline for an indexed class, the common case
 * (the run-queue locks). */
static inline bool lockorder_release(struct lockorder_cpu *c, const struct lock_class *k, int idx)
{
	if (!k->indexed || c->idx_class != k || (unsigned)idx >= LOCKORDER_IDX_MAX ||
	    !(c->idx[idx / 64] >> (idx % 64) & 1))
		return lockorder_release_slow(c, k, idx);
	c->idx[idx / 64] &= ~(1ull << (idx % 64));
	if (!--c->nidx)
		c->idx_class = 0;
	return true;
}
bool lockorder_holds(const struct lockorder_cpu *c, const struct lock_class *k, int idx);
/* The highest index of class k held, or -1. */
int lockorder_max_idx(const struct lockorder_cpu *c, const struct lock_class *k);
/* True when nothing is held (every operation ended cleanly). */
bool lockorder_empty(const struct lockorder_cpu *c);

/* The hypervisor's lock classes (lib/lockranks.c; what each protects and why the order is
 * what it is: core/sched_door.c, "Locking"). */
extern const struct lock_class lock_create, lock_conin, lock_dcon, lock_event, lock_vlapic,
	lock_ioapic, lock_pcdev, lock_ping, lock_svc_ping, lock_rq, lock_sched_dom, lock_scrub,
	lock_paging, lock_frames, lock_console;

#endif
