/* Ticket spinlock with a written rank (lib/lockorder.h; the table of ranks and the Locking
 * rules: core/sched_door.c). The hypervisor runs with interrupts disabled, so there is no
 * irqsave variant: a lock is never taken from an interrupt handler that could preempt its
 * holder.
 *
 * With LOCK_CHECK (on unless built with LOCK_CHECK=0, see mk/platform.mk), every acquire is
 * checked against the locks this pCPU holds: waiting for a lock whose rank is not above all
 * of them panics with both names (spin_lock_bug); the holder is recorded, so code asserts
 * the locks it needs with spin_assert_held. Until the BSP has its per-CPU data (lock_check_on)
 * nothing is checked. */
#ifndef ARCH_X86_64_SPINLOCK_H
#define ARCH_X86_64_SPINLOCK_H
#include "arch/x86_64/cpu.h"
#include <stdnoreturn.h>
#include "lib/lockorder.h"

#ifndef LOCK_CHECK
#define LOCK_CHECK 1
#endif

typedef struct spinlock {
	uint32_t next, owner;	      /* ticket and now-serving */
	const struct lock_class *cls; /* rank and name */
	int16_t idx;		      /* instance of an indexed class, else -1 */
	int16_t holder;		      /* pCPU holding it, -1: none (LOCK_CHECK) */
} spinlock_t;

#define SPINLOCK_INIT(k)                                                                           \
	{                                                                                          \
		0, 0, &(k), -1, -1                                                                 \
	}

extern bool lock_check_on;
noreturn void spin_lock_bug(const spinlock_t *l, const struct lockorder_bad *bad);

static inline void spin_init(spinlock_t *l, const struct lock_class *k, int idx)
{
	*l = (spinlock_t){0, 0, k, (int16_t)idx, -1};
}

/* Checks the order and records l as held by this pCPU (try: it did not wait); before a
 * waiting acquire, since an order violation would deadlock rather than return. */
static inline void spin_note(spinlock_t *l, bool try)
{
#if LOCK_CHECK
	if (!lock_check_on)
		return;
	struct lockorder_bad bad;
	if (!lockorder_acquire(&this_cpu()->locks, l->cls, l->idx, try, &bad))
		spin_lock_bug(l, &bad);
#else
	(void)l, (void)try;
#endif
}

/* l is this pCPU's now (the holder the assertions compare with). */
static inline void spin_own(spinlock_t *l)
{
#if LOCK_CHECK
	if (lock_check_on)
		l->holder = (int16_t)this_cpu()->id;
#else
	(void)l;
#endif
}

static inline void spin_lock(spinlock_t *l)
{
	spin_note(l, false);
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
	spin_own(l);
}

static inline bool spin_take_free(spinlock_t *l)
{
	uint32_t o = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE); /* pairs with the release */
	uint32_t n = o;
	return __atomic_compare_exchange_n(&l->next, &n, o + 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Takes l only if it is free now: never waits, so it may break the rank order. */
static inline bool spin_trylock(spinlock_t *l)
{
	if (!spin_take_free(l))
		return false;
	spin_note(l, true);
	spin_own(l);
	return true;
}

/* The first step of a waiting acquire that wants to know whether it waited (the run-queue
 * locks' statistics): takes l if it is free, checked as a waiting acquire (the rank order
 * holds whether or not it happened to be free); on false the caller calls spin_lock. */
static inline bool spin_lock_if_free(spinlock_t *l)
{
	if (!spin_take_free(l))
		return false;
	spin_note(l, false);
	spin_own(l);
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
#if LOCK_CHECK
	if (lock_check_on) {
		l->holder = -1;
		if (!lockorder_release(&this_cpu()->locks, l->cls, l->idx))
			spin_lock_bug(l, &(struct lockorder_bad){l->cls, 0, l->idx, -1,
								 "released, not held"});
	}
#endif
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

/* This pCPU holds l (always true without LOCK_CHECK, or before checking is on). */
static inline bool spin_held(const spinlock_t *l)
{
#if LOCK_CHECK
	return !lock_check_on || lockorder_holds(&this_cpu()->locks, l->cls, l->idx);
#else
	(void)l;
	return true;
#endif
}

/* The lock's own record agrees that this pCPU holds it (claimed) or not: its holder field,
 * one load (always true without LOCK_CHECK, which keeps none). A caller with its own record
 * of what it holds (core/sched_door.c) checks that record against the lock with it. */
static inline bool spin_record_agrees(const spinlock_t *l, bool claimed)
{
#if LOCK_CHECK
	if (!lock_check_on)
		return true;
	return (__atomic_load_n(&l->holder, __ATOMIC_RELAXED) == (int)this_cpu()->id) == claimed;
#else
	(void)l, (void)claimed;
	return true;
#endif
}

#define spin_assert_held(l)                                                                        \
	do {                                                                                       \
		if (!spin_held(l))                                                                 \
			spin_lock_bug((l), &(struct lockorder_bad){(l)->cls, 0, (l)->idx, -1,      \
								   "needed, not held"});           \
	} while (0)

#endif
