/* The event loop: pCPUs that call the real scheduler exactly as the core does (pick_next on
 * timer, kick, block and yield; wake on events), a VM switch cost, and the run from start to
 * end. What the guests and the ping source do is guest.c (with lock.c), the invariant
 * sampler inv.c, the lock model door.c; the state the first three share is engine.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test/sim/engine.h"

struct sim_engine G;

/* ---- event heap ------------------------------------------------------------------------ */

static bool ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void ev_push(uint64_t t, uint32_t type, uint32_t id, uint64_t gen)
{
	if (G.hn == G.hcap) {
		G.hcap = G.hcap ? G.hcap * 2 : 1024;
		G.h = realloc(G.h, G.hcap * sizeof(*G.h));
		if (!G.h) {
			perror("sliver-sim");
			exit(2);
		}
	}
	size_t i = G.hn++;
	struct ev e = {t, G.seq++, gen, type, id};
	while (i && ev_less(&e, &G.h[(i - 1) / 2])) {
		G.h[i] = G.h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	G.h[i] = e;
}

static struct ev ev_pop(void)
{
	struct ev top = G.h[0], last = G.h[--G.hn];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct ev *best = &last;
		if (l < G.hn && ev_less(&G.h[l], best))
			m = l, best = &G.h[l];
		if (l + 1 < G.hn && ev_less(&G.h[l + 1], best))
			m = l + 1;
		if (m == i)
			break;
		G.h[i] = G.h[m];
		i = m;
	}
	if (G.hn)
		G.h[i] = last;
	return top;
}

/* xorshift64*: deterministic for a given sim.seed. */
uint64_t rnd(void)
{
	G.rng ^= G.rng >> 12;
	G.rng ^= G.rng << 25;
	G.rng ^= G.rng >> 27;
	return G.rng * 2685821657736338717ull;
}

/* ---- the core's paths on a pCPU ------------------------------------------------------- */

/* Kicks pCPUs (an IPI each in the hypervisor). With a lock model, kicks to a pCPU that
 * has one pending coalesce, as IPIs do (a flag, then one pick): each pick costs its hold. */
void kick_mask(sched_cpumask_t m, uint64_t now)
{
	cpumask_for_each(p, m)
	{
		if (p >= G.c->pcpus)
			break;
		if (door_on() && G.pc[p].kick_pending && G.pc[p].kick_at <= now)
			continue; /* one is on its way, no later than this one */
		G.pc[p].kick_pending = door_on();
		G.pc[p].kick_at = now;
		ev_push(now, EV_KICK, p, 0);
	}
}

/* The core's reschedule path on pCPU p, one door call: `then` the running vCPU blocks or
 * yields, then the pick. With a lock model (door.c) the call starts when p and its locks
 * are free, decides at `at` (its locks held) and lets go at `done`: the vCPU picked starts
 * then (plus the switch), and the one that ran stood still from `now`. */
void resched_then(unsigned p, uint64_t now, enum then then)
{
	struct pcpu_sim *ps = &G.pc[p];
	struct sim_vcpu *cur = ps->cur;
	if (cur)
		progress(cur, now);
	static const enum door_kind kinds[] = {DOOR_PICK, DOOR_BLOCK, DOOR_YIELD};
	door_begin(p, now, kinds[then]);
	if (then != THEN_RUN && cur->sv.pcpu != p) { /* moved while it ran: both, in order */
		door_home(cur->sv.pcpu < p ? cur->sv.pcpu : p);
		door_home(cur->sv.pcpu < p ? p : cur->sv.pcpu);
	} else {
		door_home(p);
	}
	uint64_t at = door_now(now);
	sched_cpumask_t k = cpumask_none();
	if (then == THEN_BLOCK)
		k = cpumask_without(sched_sleep(G.s, &cur->sv, at), p);
	else if (then == THEN_YIELD)
		sched_yield(G.s, &cur->sv, at);
	door_decision();
	struct sched_pick pk = sched_pick_next(G.s, p, at);
	uint64_t done = door_end(now, &k);
	kick_mask(k, done);
	struct sim_vcpu *next = pk.vcpu ? (struct sim_vcpu *)pk.vcpu->owner : NULL;
	if (cur && cur != next) {
		cur->sched_ns += at - cur->picked_at;
		cur->running_on = -1;
		cur->gen++;
	}
	if (next && next != cur) {
		next->picked_at = at;
		next->running_on = (int)p;
		next->ran_on = p;
		next->exec_from = done + (ps->last_exec != next ? G.c->switch_ns : 0);
		ps->last_exec = next;
		G.switches++;
		if (next->lat_pending) {
			if (next->woke_at >= G.c->warmup_ns)
				samples_add(&next->lat, next->exec_from - next->woke_at);
			next->lat_pending = false;
		}
		guest_arm(next, now);
	} else if (next && next->d->attack == ATK_YIELD95 &&
		   now >= next->picked_at + yield95_at()) {
		/* Re-picked after its yield: a new slice to game. The time it held so far is
		 * counted now, since picked_at restarts here. */
		next->sched_ns += at - next->picked_at;
		next->picked_at = at;
		if (done > next->exec_from)
			next->exec_from = done;
		guest_arm(next, now);
	} else if (next && done > now) {
		/* The same vCPU again: it stood still while its pCPU was in the door. */
		if (done > next->exec_from)
			next->exec_from = done;
		guest_arm(next, now);
	}
	ps->cur = next;
	ps->timer_gen++;
	if (pk.run_until != SCHED_NEVER)
		ev_push(pk.run_until, EV_TIMER, p, ps->timer_gen);
	kick_mask(pk.kick, done);
}

void resched(unsigned p, uint64_t now)
{
	resched_then(p, now, THEN_RUN);
}

/* A pCPU that took an interrupt for a door call (a timer's wake) ran no guest code from
 * `now` until the call was done. */
static void stall(unsigned agent, uint64_t now, uint64_t done)
{
	if (agent >= G.c->pcpus || done <= now || !G.pc[agent].cur)
		return;
	struct sim_vcpu *cur = G.pc[agent].cur;
	progress(cur, now);
	if (done > cur->exec_from)
		cur->exec_from = done;
	guest_arm(cur, now);
}

/* An event for v, made by `agent`: a pCPU (v's own timer fires on the pCPU it last ran on,
 * where it armed it, as core/vcpu.c's per-pCPU timers do) or the pinger. */
void vcpu_notify(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent)
{
	door_begin(agent, now, DOOR_WAKE);
	door_home(v->sv.pcpu);
	sched_cpumask_t k = sched_wake(G.s, &v->sv, door_now(now), flags);
	uint64_t done = door_end(now, &k);
	kick_mask(k, done);
	stall(agent, now, done);
}

void vcpu_wake(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent)
{
	if (v->sv.state == SCHED_VS_BLOCKED) {
		v->lat_pending = true;
		v->woke_at = now;
		v->runnable_since = now;
	}
	vcpu_notify(v, now, flags, agent);
}

void vcpu_block(struct sim_vcpu *v, uint64_t now)
{
	unsigned p = (unsigned)v->running_on;
	if (v->runnable_since != UINT64_MAX) {
		v->runnable_ns += now - v->runnable_since;
		v->runnable_since = UINT64_MAX;
	}
	resched_then(p, now, THEN_BLOCK);
}

/* ---- the run ------------------------------------------------------------------------- */

static void warmup_snapshot(uint64_t now)
{
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		progress(v, now);
		if (v->running_on >= 0 && now > v->picked_at) {
			v->sched_ns += now - v->picked_at;
			v->picked_at = now;
		}
		v->sched_ns = 0;
		v->runnable_ns = 0;
		if (v->runnable_since != UINT64_MAX)
			v->runnable_since = now;
		v->useful_ns = 0;
	}
}

int sim_run(struct sim_cfg *c, struct sched *s, struct sim_result *res)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&G, 0, sizeof(G));
	G.c = c;
	G.s = s;
	door_init(c, s);
	G.rng = c->seed * 0x9e3779b97f4a7c15ull + 1;
	for (unsigned i = 0; i < c->ndoms; i++)
		G.nv += c->doms[i].nvcpus;
	G.v = calloc(G.nv ? G.nv : 1, sizeof(*G.v));
	if (!G.v)
		return -1;
	unsigned n = 0;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		d->sd.id = d->id;
		d->sd.weight = d->weight;
		d->sd.cap = d->cap;
		for (unsigned k = 0; k < d->nvcpus; k++, n++) {
			struct sim_vcpu *v = &G.v[n];
			v->d = d;
			v->idx = k;
			v->running_on = -1;
			v->sv.dom = &d->sd;
			v->sv.id = k;
			v->sv.affinity = d->pin;
			v->sv.owner = v;
			if (sched_vcpu_insert(s, &v->sv, 0)) {
				fprintf(stderr, "sliver-sim: d%u: vcpu_insert failed\n", d->id);
				return -1;
			}
			v->ran_on = v->sv.pcpu;
		}
	}
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		guest_init(v, i);
		v->runnable_since = UINT64_MAX;
		if (has_work(v)) {
			v->runnable_since = 0;
			kick_mask(sched_wake(s, &v->sv, 0, WAKE_NEW), 0);
		}
	}
	for (unsigned p = 0; p < c->pcpus; p++)
		ev_push(0, EV_KICK, p, 0);
	if (c->ping_dom) {
		uint64_t j = c->ping_jitter_ns;
		ev_push(c->ping_interval_ns - j + (j ? rnd() % (2 * j + 1) : 0), EV_PING,
			c->ping_dom, 0);
	}
	if (c->warmup_ns)
		ev_push(c->warmup_ns, EV_WARMUP, 0, 0);
	if (c->inv_ns) {
		size_t nd = c->ndoms ? c->ndoms : 1;
		G.ahead = calloc(nd, sizeof(double));
		G.ahead_e = calloc(nd, sizeof(double));
		G.ahead_b = calloc(nd, sizeof(double));
		G.held = calloc(nd, sizeof(double));
		G.prev_held = calloc(nd, sizeof(double));
		if (!G.ahead || !G.ahead_e || !G.ahead_b || !G.held || !G.prev_held)
			return -1;
		ev_push(c->warmup_ns + c->inv_ns, EV_INV, 0, 0);
	}

	while (G.hn) {
		struct ev e = ev_pop();
		if (e.t > c->duration_ns)
			break;
		G.now = e.t;
		G.events++;
		switch (e.type) {
		case EV_TIMER:
			if (e.gen == G.pc[e.id].timer_gen)
				resched(e.id, e.t);
			break;
		case EV_KICK:
			if (e.t == G.pc[e.id].kick_at)
				G.pc[e.id].kick_pending = false;
			resched(e.id, e.t);
			break;
		case EV_GUEST:
			if (e.gen == G.v[e.id].gen)
				on_guest(&G.v[e.id], e.t);
			break;
		case EV_SLEEP_END:
			on_sleep_end(&G.v[e.id], e.t);
			break;
		case EV_HOLD_END:
			if (G.v[e.id].sv.state == SCHED_VS_BLOCKED)
				vcpu_wake(&G.v[e.id], e.t, WAKE_TIMER, G.v[e.id].ran_on);
			break;
		case EV_PING:
			on_ping(&c->doms[e.id - 1], e.t);
			break;
		case EV_WARMUP:
			warmup_snapshot(e.t);
			break;
		case EV_INV:
			inv_sample(e.t);
			break;
		}
	}
	uint64_t end = c->duration_ns;
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		progress(v, end);
		if (v->running_on >= 0 && end > v->picked_at)
			v->sched_ns += end - v->picked_at;
		if (v->runnable_since != UINT64_MAX)
			v->runnable_ns += end - v->runnable_since;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->events = G.events;
	res->switches = G.switches;
	res->inv_samples = G.inv_samples;
	res->inv_idle = G.inv_idle;
	free(G.ahead);
	free(G.ahead_e);
	free(G.ahead_b);
	free(G.held);
	free(G.prev_held);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

/* Accessors for main.c. */
unsigned sim_nvcpus(void);
struct sim_vcpu *sim_vcpu(unsigned i);
unsigned sim_nvcpus(void)
{
	return G.nv;
}
struct sim_vcpu *sim_vcpu(unsigned i)
{
	return &G.v[i];
}
