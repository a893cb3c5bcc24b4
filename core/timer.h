/* Per-pCPU software timers on one hardware hook (timer_hw_arm). The hardware is always
 * armed exactly at the earliest pending deadline: there is no periodic tick and no slop.
 * A timer belongs to the pCPU that set it and is only touched there, with interrupts
 * disabled (the hypervisor's normal state), so no locks are needed. Callbacks run from
 * the timer interrupt. */
#ifndef CORE_TIMER_H
#define CORE_TIMER_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/tsc.h"
#include "core/timerq.h"

struct timer;
typedef void (*timer_fn)(struct timer *t, void *arg);

struct timer {
	struct timerq_node node; /* deadline in ns since boot */
	timer_fn fn;
	void *arg;
};

void timer_init_this_cpu(void);
void timer_init(struct timer *t, timer_fn fn, void *arg);
/* Arms (or re-arms) t on the current pCPU for deadline_ns (now_ns() time base). */
void timer_set(struct timer *t, uint64_t deadline_ns);
void timer_cancel(struct timer *t);
bool timer_pending(const struct timer *t);
/* The earliest pending deadline on this pCPU, or UINT64_MAX. */
uint64_t timer_next_deadline(void);
/* Runs every expired timer of this pCPU and re-arms the hardware; the VEC_TIMER handler
 * calls it, and so may code that ran with interrupts off past a deadline. */
void timer_run_expired(void);

#endif
