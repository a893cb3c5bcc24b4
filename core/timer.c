#include "core/timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/timer_hw.h"

struct timer_cpu {
	struct timerq q;
	uint64_t armed; /* deadline the hardware is armed for, UINT64_MAX if none */
};

static struct timer_cpu timer_cpus[MAX_CPUS];

static struct timer_cpu *this_timers(void)
{
	return this_cpu()->timers;
}

static void reprogram(struct timer_cpu *tc)
{
	struct timerq_node *first = timerq_first(&tc->q);
	uint64_t next = first ? first->deadline : UINT64_MAX;
	if (next == tc->armed)
		return;
	tc->armed = next;
	if (next == UINT64_MAX)
		timer_hw_disarm();
	else
		timer_hw_arm(ns_to_tsc_deadline(next));
}

static void timer_irq(struct irq_frame *f)
{
	(void)f;
	this_timers()->armed = UINT64_MAX; /* the one-shot has fired */
	timer_run_expired();
}

void timer_init_this_cpu(void)
{
	struct percpu *p = this_cpu();
	timer_cpus[p->id].armed = UINT64_MAX;
	p->timers = &timer_cpus[p->id];
	if (p->id == 0)
		irq_register(VEC_TIMER, timer_irq);
	timer_hw_init_this();
}

void timer_init(struct timer *t, timer_fn fn, void *arg)
{
	*t = (struct timer){.fn = fn, .arg = arg};
}

void timer_set(struct timer *t, uint64_t deadline_ns)
{
	struct timer_cpu *tc = this_timers();
	timerq_insert(&tc->q, &t->node, deadline_ns);
	reprogram(tc);
}

void timer_cancel(struct timer *t)
{
	struct timer_cpu *tc = this_timers();
	timerq_remove(&tc->q, &t->node);
	reprogram(tc);
}

bool timer_pending(const struct timer *t)
{
	return t->node.queued;
}

uint64_t timer_next_deadline(void)
{
	struct timerq_node *first = timerq_first(&this_timers()->q);
	return first ? first->deadline : UINT64_MAX;
}

void timer_run_expired(void)
{
	struct timer_cpu *tc = this_timers();
	struct timerq_node *n;
	while ((n = timerq_pop_expired(&tc->q, now_ns()))) {
		struct timer *t = (struct timer *)n; /* node is the first member */
		t->fn(t, t->arg);
	}
	reprogram(tc);
}
