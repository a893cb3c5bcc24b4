/* Round-robin policy: one FIFO per pCPU, fixed slice (rr.tslice_us), no weights, no caps,
 * no boost. Kept small on purpose: a reference for the interface (its private state, its
 * own key) and a fallback (`sched=rr`). Idle pCPUs steal. */
#include "lib/cmdline.h"
#include "sched/sched.h"
#include "sched/sched_priv.h"

#define RR_YIELD 1 /* rr_vcpu.flags: go to the tail at the next pick */

/* rr's part of a vCPU, a pCPU and the instance (their priv bytes, SCHED_PRIV). */
struct rr_vcpu {
	struct sched_vcpu *rq_next, *rq_prev; /* its pCPU's FIFO */
	uint8_t flags;
};

struct rr_pcpu {
	struct sched_vcpu *rr_head, *rr_tail;
};

struct rr_sched {
	uint64_t tslice_ns; /* rr.tslice_us */
};

static inline struct rr_vcpu *rv(struct sched_vcpu *v)
{
	return SCHED_PRIV(struct rr_vcpu, v);
}

static inline struct rr_pcpu *rpc(struct sched_pcpu *pc)
{
	return SCHED_PRIV(struct rr_pcpu, pc);
}

static inline struct rr_sched *rs(const struct sched *s)
{
	return SCHED_PRIV(struct rr_sched, (struct sched *)s);
}

static void rr_enqueue(struct sched_pcpu *pc, struct sched_vcpu *v)
{
	rv(v)->rq_next = NULL;
	rv(v)->rq_prev = rpc(pc)->rr_tail;
	if (rpc(pc)->rr_tail)
		rv(rpc(pc)->rr_tail)->rq_next = v;
	else
		rpc(pc)->rr_head = v;
	rpc(pc)->rr_tail = v;
	pc->nr_queued++;
}

static void rr_dequeue(struct sched_pcpu *pc, struct sched_vcpu *v)
{
	if (rv(v)->rq_prev)
		rv(rv(v)->rq_prev)->rq_next = rv(v)->rq_next;
	else
		rpc(pc)->rr_head = rv(v)->rq_next;
	if (rv(v)->rq_next)
		rv(rv(v)->rq_next)->rq_prev = rv(v)->rq_prev;
	else
		rpc(pc)->rr_tail = rv(v)->rq_prev;
	rv(v)->rq_next = rv(v)->rq_prev = NULL;
	pc->nr_queued--;
}

static void rr_charge(struct sched_vcpu *v, uint64_t now)
{
	if (now > v->since) {
		v->c.run_ns += now - v->since;
		v->dom->c.run_ns += now - v->since;
	}
	v->since = now;
}

static void rr_init(struct sched *s)
{
	rs(s)->tslice_ns = 1000000;
}

/* rr.tslice_us (or bare tslice_us), 10 us .. 1 s. */
static int rr_config(struct sched *s, const char *k, size_t klen, const char *v, size_t vlen,
		     uint64_t now)
{
	(void)now;
	static const char name[] = "tslice_us";
	uint64_t us;
	if (klen != sizeof(name) - 1)
		return 1;
	for (size_t i = 0; i < klen; i++)
		if (k[i] != name[i])
			return 1;
	if (!parse_u64_n(v, vlen, &us) || us < 10 || us > 1000000)
		return -SCHED_EINVAL;
	rs(s)->tslice_ns = us * 1000;
	return 0;
}

static int rr_config_get(const struct sched *s, const char *k, size_t klen, char *buf, size_t n)
{
	static const char name[] = "tslice_us";
	if (klen != sizeof(name) - 1 || n < 2)
		return 1;
	for (size_t i = 0; i < klen; i++)
		if (k[i] != name[i])
			return 1;
	char d[24];
	size_t j = sizeof(d);
	uint64_t us = rs(s)->tslice_ns / 1000;
	d[--j] = '\0';
	do
		d[--j] = (char)('0' + us % 10);
	while ((us /= 10) != 0);
	size_t i = 0;
	for (; i < n - 1 && d[j + i]; i++)
		buf[i] = d[j + i];
	buf[i] = '\0';
	return 0;
}

static void rr_config_show(const struct sched *s, sched_print_fn pr, void *arg)
{
	pr(arg, " rr.tslice_us=%llu", (unsigned long long)(rs(s)->tslice_ns / 1000));
}

static uint64_t rr_slice_ns(const struct sched *s)
{
	return rs(s)->tslice_ns;
}

static int rr_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	(void)now;
	if (!v->dom)
		return -SCHED_EINVAL;
	if (!v->dom->weight)
		v->dom->weight = SCHED_DEFAULT_WEIGHT;
	v->state = SCHED_VS_BLOCKED;
	v->prio = SCHED_PRI_UNDER;
	rv(v)->rq_next = rv(v)->rq_prev = NULL;
	rv(v)->flags = 0;
	v->pcpu = (uint16_t)sched_least_loaded(s, sched_affinity(s, v));
	s->pcpu[v->pcpu].nr_vcpus++;
	v->dom->nr_vcpus++;
	s->nr_vcpus++;
	sched_dom_add_vcpu(s, v);
	return 0;
}

static void rr_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	(void)now;
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	if (v->state == SCHED_VS_RUNNABLE)
		rr_dequeue(pc, v);
	if (pc->curr == v)
		pc->curr = NULL;
	v->state = SCHED_VS_BLOCKED;
	pc->nr_vcpus--;
	s->nr_vcpus--;
	sched_yield_forget(s, v);
	sched_dom_del_vcpu(s, v);
}

static sched_cpumask_t rr_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	if (flags & (WAKE_EVENT | WAKE_TIMER))
		v->c.events++;
	if (v->state != SCHED_VS_BLOCKED)
		return 0;
	v->c.wakes++;
	v->dom->c.wakes++;
	/* Prefer an idle pCPU of its affinity, else stay. */
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned target = v->pcpu;
	if (s->pcpu[target].curr || !(aff & SCHED_CPU(target))) {
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			if ((aff & SCHED_CPU(p)) && !s->pcpu[p].curr && !s->pcpu[p].nr_queued) {
				target = p;
				break;
			}
		}
	}
	if (!(aff & SCHED_CPU(target)))
		target = sched_least_loaded(s, aff);
	if (target != v->pcpu) {
		s->pcpu[v->pcpu].nr_vcpus--;
		s->pcpu[target].nr_vcpus++;
		v->pcpu = (uint16_t)target;
		v->c.migrations++;
		sched_trace_ev(s, target, now, SCHED_EV_MIGRATE, v, target);
	}
	v->state = SCHED_VS_RUNNABLE;
	rr_enqueue(&s->pcpu[target], v);
	sched_trace_ev(s, target, now, SCHED_EV_WAKE, v, flags);
	return s->pcpu[target].curr ? 0 : SCHED_CPU(target);
}

static sched_cpumask_t rr_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	sched_cpumask_t kick = 0;
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(pc, v);
	} else if (v->state == SCHED_VS_RUNNING) {
		rr_charge(v, now);
		kick = SCHED_CPU(v->pcpu);
	}
	v->state = SCHED_VS_BLOCKED;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, 0);
	return kick;
}

static void rr_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	rv(v)->flags |= RR_YIELD; /* go to the tail at the next pick */
	v->c.yields++;
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
}

static struct sched_vcpu *rr_steal(struct sched *s, unsigned p, uint64_t now)
{
	for (unsigned q = 0; q < s->nr_pcpus; q++) {
		struct sched_pcpu *qc = &s->pcpu[q];
		if (q == p)
			continue;
		for (struct sched_vcpu *v = rpc(qc)->rr_head; v; v = rv(v)->rq_next) {
			if (!sched_allowed(s, v, p))
				continue;
			rr_dequeue(qc, v);
			qc->nr_vcpus--;
			s->pcpu[p].nr_vcpus++;
			v->pcpu = (uint16_t)p;
			v->c.migrations++;
			sched_trace_ev(s, p, now, SCHED_EV_MIGRATE, v, p);
			return v;
		}
	}
	return NULL;
}

static struct sched_pick rr_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *cur = pc->curr;
	struct sched_pick r = {NULL, SCHED_NEVER, 0};

	if (cur && cur->state == SCHED_VS_RUNNING) {
		rr_charge(cur, now);
		bool expired =
			now - pc->curr_since >= rs(s)->tslice_ns || (rv(cur)->flags & RR_YIELD);
		if (!rpc(pc)->rr_head || !expired) {
			rv(cur)->flags &= (uint8_t)~RR_YIELD;
			r.vcpu = cur;
			r.run_until =
				rpc(pc)->rr_head ? pc->curr_since + rs(s)->tslice_ns : SCHED_NEVER;
			return r;
		}
		rv(cur)->flags &= (uint8_t)~RR_YIELD;
		cur->state = SCHED_VS_RUNNABLE;
		cur->c.preempts++;
		rr_enqueue(pc, cur);
	}
	struct sched_vcpu *next = rpc(pc)->rr_head;
	if (next)
		rr_dequeue(pc, next);
	else
		next = rr_steal(s, p, now);
	pc->picks++;
	if (!next) {
		if (pc->curr != NULL)
			pc->last_pick = now;
		pc->curr = NULL;
		return r;
	}
	next->state = SCHED_VS_RUNNING;
	next->since = now;
	if (next != cur) {
		next->c.switches++;
		sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next, cur ? (int64_t)cur->dom->id : -1);
	}
	pc->curr = next;
	pc->curr_since = now;
	r.vcpu = next;
	r.run_until = rpc(pc)->rr_head ? now + rs(s)->tslice_ns : SCHED_NEVER;
	return r;
}

static int rr_set_params(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			 uint64_t now)
{
	(void)s, (void)now;
	if (weight > SCHED_MAX_WEIGHT)
		return -SCHED_EINVAL;
	if (weight)
		d->weight = weight;
	d->cap = cap; /* recorded, not enforced by rr */
	return 0;
}

static sched_cpumask_t rr_set_affinity(struct sched *s, struct sched_vcpu *v, sched_cpumask_t mask,
				       uint64_t now)
{
	v->affinity = mask;
	if (sched_allowed(s, v, v->pcpu))
		return 0;
	if (v->state == SCHED_VS_RUNNING)
		return SCHED_CPU(v->pcpu); /* its pick_next will find it not allowed */
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(&s->pcpu[v->pcpu], v);
		v->state = SCHED_VS_BLOCKED;
		return rr_wake(s, v, now, WAKE_MIGRATE);
	}
	s->pcpu[v->pcpu].nr_vcpus--;
	v->pcpu = (uint16_t)sched_least_loaded(s, sched_affinity(s, v));
	s->pcpu[v->pcpu].nr_vcpus++;
	return 0;
}

static void rr_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	pr(arg, "sched policy=rr pcpus=%u tslice_ns=%llu\n", s->nr_pcpus,
	   (unsigned long long)rs(s)->tslice_ns);
	for (struct sched_dom *d = s->doms; d; d = d->next_dom)
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
}

const struct sched_ops sched_rr_ops = {
	.name = "rr",
	.init = rr_init,
	.vcpu_insert = rr_vcpu_insert,
	.vcpu_remove = rr_vcpu_remove,
	.wake = rr_wake,
	.sleep = rr_sleep,
	.yield = rr_yield,
	.pick_next = rr_pick_next,
	.set_params = rr_set_params,
	.set_affinity = rr_set_affinity,
	.params_changed = NULL,
	.dump = rr_dump,
	.config = rr_config,
	.config_get = rr_config_get,
	.config_show = rr_config_show,
	.slice_ns = rr_slice_ns,
};
