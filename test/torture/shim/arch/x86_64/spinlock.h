/* The host stand-in for arch/x86_64/spinlock.h, so that core/sched_door.c builds unchanged
 * for the torture test: the same ticket lock on C11 atomics (ThreadSanitizer sees its
 * acquire and release), the same rank check (lib/lockorder.h) with one record per thread
 * (a thread is a pCPU), and a hook that makes try-locks fail on purpose (the serial mode's
 * injected contention). */
#ifndef TORTURE_SHIM_SPINLOCK_H
#define TORTURE_SHIM_SPINLOCK_H
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include "lib/lockorder.h"

typedef struct spinlock {
	uint32_t next, owner;
	const struct lock_class *cls;
	int16_t idx;
	int16_t holder;
} spinlock_t;

extern _Thread_local struct lockorder_cpu torture_locks;
extern _Thread_local int torture_cpu;
/* Returns true when this try-lock must fail although the lock may be free (injection). */
extern bool (*torture_trylock_fails)(const spinlock_t *l);
void torture_yield(void); /* POSIX sched_yield (test/torture/host_yield.c) */
noreturn void torture_lock_bug(const spinlock_t *l, const struct lockorder_bad *bad);

static inline void spin_init(spinlock_t *l, const struct lock_class *k, int idx)
{
	*l = (spinlock_t){0, 0, k, (int16_t)idx, -1};
}

static inline void spin_note(spinlock_t *l, bool try)
{
	struct lockorder_bad bad;
	if (!lockorder_acquire(&torture_locks, l->cls, l->idx, try, &bad))
		torture_lock_bug(l, &bad);
}

/* TORTURE_BROKEN_LOCK: the mutant whose runs must fail (mk/torture.mk, torture-mutant):
 * pCPU 1's run-queue lock excludes nobody (its holder is the last taker), so two pCPUs can
 * be inside it at once. The torture's checks, not this file, must notice. */
#ifdef TORTURE_BROKEN_LOCK
#define BROKEN(l) ((l)->cls->indexed && (l)->idx == 1)
#else
#define BROKEN(l) false
#endif

static inline bool spin_broken_take(spinlock_t *l, bool try)
{
	spin_note(l, try);
	__atomic_store_n(&l->holder, (int16_t)torture_cpu, __ATOMIC_RELAXED);
	return true;
}

static inline void spin_lock(spinlock_t *l)
{
	if (BROKEN(l)) {
		spin_broken_take(l, false);
		return;
	}
	spin_note(l, false);
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		torture_yield(); /* more threads than cores: let the holder run */
	if (__atomic_exchange_n(&l->holder, (int16_t)torture_cpu, __ATOMIC_RELAXED) != -1)
		torture_lock_bug(l, &(struct lockorder_bad){l->cls, 0, l->idx, -1, "two holders"});
}

static inline bool spin_trylock(spinlock_t *l)
{
	if (torture_trylock_fails && torture_trylock_fails(l))
		return false;
	if (BROKEN(l))
		return spin_broken_take(l, true);
	uint32_t o = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE); /* pairs with the release */
	uint32_t n = o;
	if (!__atomic_compare_exchange_n(&l->next, &n, o + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	spin_note(l, true);
	if (__atomic_exchange_n(&l->holder, (int16_t)torture_cpu, __ATOMIC_RELAXED) != -1)
		torture_lock_bug(l, &(struct lockorder_bad){l->cls, 0, l->idx, -1, "two holders"});
	return true;
}

/* As arch/x86_64/spinlock.h's: a try checked as a waiting acquire. */
static inline bool spin_lock_if_free(spinlock_t *l)
{
	if (torture_trylock_fails && torture_trylock_fails(l))
		return false;
	if (BROKEN(l))
		return spin_broken_take(l, false);
	uint32_t o = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
	uint32_t n = o;
	if (!__atomic_compare_exchange_n(&l->next, &n, o + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	spin_note(l, false);
	if (__atomic_exchange_n(&l->holder, (int16_t)torture_cpu, __ATOMIC_RELAXED) != -1)
		torture_lock_bug(l, &(struct lockorder_bad){l->cls, 0, l->idx, -1, "two holders"});
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
	if (!lockorder_release(&torture_locks, l->cls, l->idx))
		torture_lock_bug(
			l, &(struct lockorder_bad){l->cls, 0, l->idx, -1, "released, not held"});
	if (BROKEN(l))
		return;
	__atomic_store_n(&l->holder, (int16_t)-1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->owner, __atomic_load_n(&l->owner, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

static inline bool spin_held(const spinlock_t *l)
{
	return lockorder_holds(&torture_locks, l->cls, l->idx);
}

static inline bool spin_record_agrees(const spinlock_t *l, bool claimed)
{
	return (__atomic_load_n(&l->holder, __ATOMIC_RELAXED) == (int16_t)torture_cpu) == claimed;
}

#endif
