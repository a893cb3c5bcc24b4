/* Ticket spinlock. The hypervisor runs with interrupts disabled, so there is no irqsave
 * variant: a lock is never taken from an interrupt handler that could preempt its holder. */
#ifndef ARCH_X86_64_SPINLOCK_H
#define ARCH_X86_64_SPINLOCK_H
#include "arch/x86_64/cpu.h"

typedef struct {
	volatile uint32_t next, owner;
} spinlock_t;

#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		0, 0                                                                               \
	}

static inline void spin_lock(spinlock_t *l)
{
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

#endif
