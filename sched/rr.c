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

static void rr_enqueue(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	SCHED_HELD(s, (unsigned)(pc - s->pcpu));
	rv(v)->rq_next = NULL;
	rv(v)->rq_prev = rpc(pc)->rr_tail;
	if (rpc(pc)->rr_tail)
		rv(rpc(pc)->rr_tail)->rq_next = v;
	else
		rpc(pc)->rr_head = v;
	rpc(pc)->rr_tail = v;
	SCHED_ADD(pc->nr_queued, 1);
}

static void rr_dequeue(struct sched *s, struct sched_pcpu *pc, struct sched_vcpu *v)
{
	SCHED_HELD(s, (unsigned)(pc - s->pcpu));
	if (rv(v)->rq_prev)
		rv(rv(v)->rq_prev)->rq_next = rv(v)->rq_next;
	else
		rpc(pc)->rr_head = rv(v)->rq_next;
	if (rv(v)->rq_next)
		rv(rv(v)->rq_next)->rq_prev = rv(v)->rq_prev;
	else
		rpc(pc)->rr_tail = rv(v)->rq_prev;
	rv(v)->rq_next = rv(v)->rq_prev = NULL;
	SCHED_ADD(pc->nr_queued, -1u);
}

static void rr_charge(struct sched_vcpu *v, uint64_t now)
{
	if (now > v->since) { /* `now` may be a little behind a peer's (sched.h) */
		v->c.run_ns += now - v->since;
		sched_add(&v->dom->c.run_ns, now - v->since);
		v->since = now;
	}
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
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_PUT(v->prio, (uint8_t)SCHED_PRI_UNDER);
	rv(v)->rq_next = rv(v)->rq_prev = NULL;
	rv(v)->flags = 0;
	SCHED_PUT(v->pcpu, (uint16_t)sched_least_loaded(s, sched_affinity(s, v)));
	SCHED_ADD(s->pcpu[v->pcpu].nr_vcpus, 1);
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
		rr_dequeue(s, pc, v);
	if (pc->curr == v)
		SCHED_PUT(pc->curr, (struct sched_vcpu *)NULL);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	SCHED_ADD(pc->nr_vcpus, -1u);
	s->nr_vcpus--;
	sched_yield_forget(s, v);
	sched_dom_del_vcpu(s, v);
}

/* Moves v (on no queue, both pCPUs' locks held) from its pCPU to `to`. A vCPU that blocked
 * is still its pCPU's curr until that pCPU picks again: it is no longer once it is gone. */
static void rr_move(struct sched *s, struct sched_vcpu *v, unsigned to, uint64_t now)
{
	if (s->pcpu[v->pcpu].curr == v)
		SCHED_PUT(s->pcpu[v->pcpu].curr, (struct sched_vcpu *)NULL);
	SCHED_ADD(s->pcpu[v->pcpu].nr_vcpus, -1u);
	SCHED_ADD(s->pcpu[to].nr_vcpus, 1);
	SCHED_PUT(v->pcpu, (uint16_t)to);
	v->c.migrations++;
	sched_add(&v->dom->c.migrations, 1);
	sched_trace_ev(s, to, now, SCHED_EV_MIGRATE, v, to);
}

/* A pCPU that looks idle (a hint: nothing running, nothing queued). */
static bool looks_idle(const struct sched *s, unsigned p)
{
	return !SCHED_GET(s->pcpu[p].curr) && !SCHED_GET(s->pcpu[p].nr_queued);
}

/* Queues v (v's lock held; BLOCKED or just taken off a CPU) on an idle pCPU of its affinity if
 * one looks idle and its lock can be had, else on its own pCPU when allowed there, else on
 * the least loaded allowed pCPU whose lock can be had (none: it stays and its pCPU's finish
 * moves it). Returns the pCPU to kick: an idle one, or one that must arm a slice end. */
static sched_cpumask_t rr_place(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_cpumask_t aff = sched_affinity(s, v);
	unsigned target = v->pcpu;
	if (SCHED_GET(s->pcpu[target].curr) || !cpumask_test(aff, target)) {
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			if (p != target && cpumask_test(aff, p) && looks_idle(s, p) &&
			    sched_peer(s, p)) {
				if (s->pcpu[p].curr || s->pcpu[p].nr_queued) {
					sched_unpeer(s, p); /* busy by now */
					continue;
				}
				target = p;
				break;
			}
		}
	}
	if (!cpumask_test(aff, target)) {
		unsigned q = sched_least_loaded(s, aff);
		if (sched_peer(s, q))
			target = q;
		else
			sched_defer(s); /* queued where it may not run: finish moves it */
	}
	if (target != v->pcpu)
		rr_move(s, v, target, now);
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_RUNNABLE);
	struct sched_pcpu *tc = &s->pcpu[target];
	rr_enqueue(s, tc, v);
	/* A pCPU that armed no slice end (nothing it could run waited at its last pick) picks
	 * again to arm one; else v would wait for ever behind a spinner (e2e-smp4 under
	 * sched=rr: the echo never ran again). */
	return !tc->curr || tc->armed == SCHED_NEVER ? cpumask_of(target) : cpumask_none();
}

static sched_cpumask_t rr_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	if (flags & (WAKE_EVENT | WAKE_TIMER))
		v->c.events++;
	if (v->state != SCHED_VS_BLOCKED)
		return cpumask_none();
	v->c.wakes++;
	sched_add(&v->dom->c.wakes, 1);
	sched_cpumask_t k = rr_place(s, v, now);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_WAKE, v, flags);
	return k;
}

static sched_cpumask_t rr_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[v->pcpu];
	sched_cpumask_t kick = cpumask_none();
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(s, pc, v);
	} else if (v->state == SCHED_VS_RUNNING) {
		rr_charge(v, now);
		kick = cpumask_of(v->pcpu);
	}
	SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_SLEEP, v, 0);
	return kick;
}

static void rr_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	rv(v)->flags |= RR_YIELD; /* go to the tail at the next pick */
	v->c.yields++;
	sched_add(&v->dom->c.yields, 1);
	sched_trace_ev(s, v->pcpu, now, SCHED_EV_YIELD, v, 0);
}

/* The first vCPU of p's FIFO allowed on p (one whose affinity changed waits for finish). */
static struct sched_vcpu *rr_first_allowed(struct sched *s, unsigned p)
{
	struct sched_vcpu *v = rpc(&s->pcpu[p])->rr_head;
	while (v && !sched_allowed(s, v, p))
		v = rv(v)->rq_next;
	return v;
}

/* An idle pCPU p takes the first vCPU it may run from the first other pCPU (in number order)
 * that has one queued and whose lock it can get. */
static struct sched_vcpu *rr_steal(struct sched *s, unsigned p, uint64_t now)
{
	for (unsigned q = 0; q < s->nr_pcpus; q++) {
		if (q == p || !SCHED_GET(s->pcpu[q].nr_queued) || !sched_peek(s, q))
			continue;
		struct sched_pcpu *qc = &s->pcpu[q];
		SCHED_HELD(s, q);
		for (struct sched_vcpu *v = rpc(qc)->rr_head; v; v = rv(v)->rq_next) {
			if (!sched_allowed(s, v, p))
				continue;
			rr_dequeue(s, qc, v);
			rr_move(s, v, p, now);
			return v;
		}
		sched_unpeer(s, q);
	}
	return NULL;
}

static struct sched_pick rr_pick(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pcpu *pc = &s->pcpu[p];
	struct sched_vcpu *cur = pc->curr;
	struct sched_pick r = {NULL, SCHED_NEVER, sched_take_kicks(s)};

	if (cur && cur->state == SCHED_VS_RUNNING) {
		rr_charge(cur, now);
		bool allowed = sched_allowed(s, cur, p);
		bool expired =
			now - pc->curr_since >= rs(s)->tslice_ns || (rv(cur)->flags & RR_YIELD);
		bool waiting = rr_first_allowed(s, p) != NULL;
		if (allowed && (!waiting || !expired)) {
			rv(cur)->flags &= (uint8_t)~RR_YIELD;
			r.vcpu = cur;
			r.run_until = waiting ? pc->curr_since + rs(s)->tslice_ns : SCHED_NEVER;
			cpumask_clear(&r.kick, p);
			return r;
		}
		rv(cur)->flags &= (uint8_t)~RR_YIELD;
		sched_note_preempt(cur);
		if (allowed) {
			SCHED_PUT(cur->state, (uint8_t)SCHED_VS_RUNNABLE);
			rr_enqueue(s, pc, cur);
		} else {
			/* Its affinity changed while it ran: it goes where it may run. */
			SCHED_PUT(pc->curr, (struct sched_vcpu *)NULL);
			SCHED_PUT(cur->state, (uint8_t)SCHED_VS_BLOCKED);
			r.kick = cpumask_or(r.kick, rr_place(s, cur, now));
		}
	}
	struct sched_vcpu *next = rr_first_allowed(s, p);
	if (next)
		rr_dequeue(s, pc, next);
	else
		next = rr_steal(s, p, now);
	pc->picks++;
	if (!next) {
		if (pc->curr != NULL)
			pc->last_pick = now;
		SCHED_PUT(pc->curr, (struct sched_vcpu *)NULL);
		cpumask_clear(&r.kick, p);
		return r;
	}
	SCHED_PUT(next->state, (uint8_t)SCHED_VS_RUNNING);
	next->since = now;
	if (next != cur) {
		next->c.switches++;
		sched_add(&next->dom->c.switches, 1);
		sched_trace_ev(s, p, now, SCHED_EV_SWITCH, next, cur ? (int64_t)cur->dom->id : -1);
	}
	SCHED_PUT(pc->curr, next);
	pc->curr_since = now;
	r.vcpu = next;
	r.run_until = rr_first_allowed(s, p) ? now + rs(s)->tslice_ns : SCHED_NEVER;
	cpumask_clear(&r.kick, p);
	return r;
}

/* The pick, and what it armed (rr_place kicks a pCPU that armed no slice end). */
static struct sched_pick rr_pick_next(struct sched *s, unsigned p, uint64_t now)
{
	struct sched_pick r = rr_pick(s, p, now);
	s->pcpu[p].armed = r.run_until;
	return r;
}

/* Every lock held: vCPUs queued where they may no longer run go where they may. */
static sched_cpumask_t rr_finish(struct sched *s, uint64_t now)
{
	sched_cpumask_t k = cpumask_none();
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		struct sched_vcpu *v = rpc(&s->pcpu[p])->rr_head;
		while (v) {
			struct sched_vcpu *n = rv(v)->rq_next;
			if (!sched_allowed(s, v, p)) {
				rr_dequeue(s, &s->pcpu[p], v);
				SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
				k = cpumask_or(k, rr_place(s, v, now));
			}
			v = n;
		}
	}
	return k;
}

/* Each FIFO: linked both ways, only RUNNABLE vCPUs of its pCPU, as many as nr_queued. */
static unsigned rr_audit(const struct sched *s, sched_print_fn pr, void *arg)
{
	unsigned bad = 0;
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		struct sched_pcpu *pc = (struct sched_pcpu *)&s->pcpu[p];
		uint32_t n = 0;
		struct sched_vcpu *prev = NULL;
		for (struct sched_vcpu *v = rpc(pc)->rr_head; v; v = rv(v)->rq_next) {
			if (++n > s->nr_vcpus) {
				pr(arg, "audit: rr pCPU %u: FIFO longer than every vCPU\n", p);
				return bad + 1;
			}
			if (v->state != SCHED_VS_RUNNABLE || v->pcpu != p ||
			    rv(v)->rq_prev != prev) {
				pr(arg, "audit: rr pCPU %u: d%uv%u state=%u pcpu=%u in its FIFO\n",
				   p, v->dom->id, v->id, v->state, v->pcpu);
				bad++;
			}
			prev = v;
		}
		if (prev != rpc(pc)->rr_tail || n != pc->nr_queued) {
			pr(arg, "audit: rr pCPU %u: FIFO of %u, nr_queued %u\n", p, n,
			   pc->nr_queued);
			bad++;
		}
	}
	return bad;
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
		return cpumask_none();
	if (v->state == SCHED_VS_RUNNING)
		return cpumask_of(v->pcpu); /* its pick_next finds it not allowed and moves it */
	if (v->state == SCHED_VS_RUNNABLE) {
		rr_dequeue(s, &s->pcpu[v->pcpu], v);
		SCHED_PUT(v->state, (uint8_t)SCHED_VS_BLOCKED);
		return rr_place(s, v, now);
	}
	rr_move(s, v, sched_least_loaded(s, sched_affinity(s, v)), now);
	return cpumask_none();
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
	.finish = rr_finish,
	.audit = rr_audit,
	.config = rr_config,
	.config_get = rr_config_get,
	.config_show = rr_config_show,
	.slice_ns = rr_slice_ns,
};
