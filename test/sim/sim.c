/* The event loop: pCPUs that call the real scheduler exactly as the core does (pick_next on
 * timer, kick, block and yield; wake on events), guests that spin, sleep, answer pings and
 * attack the accounting, a ping source with jitter, and a VM switch cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test/sim/sim.h"

enum ev_type { EV_TIMER, EV_GUEST, EV_SLEEP_END, EV_PING, EV_KICK, EV_HOLD_END, EV_WARMUP, EV_INV };

struct ev {
	uint64_t t, seq, gen;
	uint32_t type, id;
};

struct pcpu_sim {
	struct sim_vcpu *cur;
	struct sim_vcpu *last_exec; /* the vCPU whose state is loaded (no switch cost) */
	uint64_t timer_gen;
	bool kick_pending; /* an EV_KICK is queued for kick_at (lock model: kicks coalesce) */
	uint64_t kick_at;
};

static struct {
	struct sim_cfg *c;
	struct sched *s;
	struct ev *h;
	size_t hn, hcap;
	uint64_t seq, rng, events, switches, inv_samples, inv_idle;
	double *ahead; /* per domain: service minus its ideal, ns, decaying with inv_tau */
	double *ahead_e, *ahead_b; /* the same against its band's upper and lower edges */
	double *held, *prev_held;
	struct pcpu_sim pc[SCHED_MAX_PCPUS];
	struct sim_vcpu *v;
	unsigned nv;
	uint64_t now;
} G;

/* ---- event heap ------------------------------------------------------------------------ */

static bool ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ev_push(uint64_t t, uint32_t type, uint32_t id, uint64_t gen)
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
static uint64_t rnd(void)
{
	G.rng ^= G.rng >> 12;
	G.rng ^= G.rng << 25;
	G.rng ^= G.rng >> 27;
	return G.rng * 2685821657736338717ull;
}

/* ---- guests ---------------------------------------------------------------------------- */

static unsigned vid(const struct sim_vcpu *v)
{
	return (unsigned)(v - G.v);
}

static bool has_work(const struct sim_vcpu *v)
{
	if (v->d->kind == G_LOCK)
		return true;
	return v->pq_n || v->boot_left || (v->spinning && v->spin_left);
}

static void ping_push(struct sim_vcpu *v, uint64_t t)
{
	if (v->pq_n == v->pq_cap) {
		size_t nc = v->pq_cap ? v->pq_cap * 2 : 16;
		uint64_t *q = malloc(nc * sizeof(*q));
		if (!q) {
			perror("sliver-sim");
			exit(2);
		}
		for (size_t i = 0; i < v->pq_n; i++)
			q[i] = v->pq[(v->pq_head + i) % v->pq_cap];
		free(v->pq);
		v->pq = q;
		v->pq_cap = nc;
		v->pq_head = 0;
	}
	if (!v->pq_n)
		v->ping_left = v->d->service_ns;
	v->pq[(v->pq_head + v->pq_n++) % v->pq_cap] = t;
}

/* Applies the guest work done since exec_from (pings first: they are interrupts). */
/* A duty-cycle burst timed by the wall clock (duty_clock=wall), not a forever spinner. */
static bool wall_duty(const struct sim_vcpu *v)
{
	return v->d->duty_wall && v->d->spin_ns && v->spin_left != UINT64_MAX;
}

/* When a duty sleep begun at t ends. With jiffy_us (a tick-based guest OS, such as the
 * 2006 Linux 2.6.16 dom0 whose script slept in select()): the timeout is rounded up to whole
 * jiffies (sys_select: ROUND_UP(usec, 1000000/HZ)) and counted from the jiffy the guest is
 * in, so the sleep ends on its own tick grid: J * (floor(t/J) + ceil(sleep/J)), grid phase
 * jiffy_off. The guest's clock is taken as current at t (it runs then, and a tick that fell
 * while it was preempted is delivered when it is entered). */
static uint64_t duty_sleep_end(const struct sim_vcpu *v, uint64_t t)
{
	uint64_t j = v->d->jiffy_ns, s = v->d->sleep_ns;
	if (!j)
		return t + s;
	uint64_t k = (t + j - v->jiffy_off) / j; /* the grid shifted so that it is non-negative */
	uint64_t end = (k + (s + j - 1) / j) * j + v->jiffy_off - j;
	return end > t ? end : t; /* select() with a zero timeout returns at once */
}

static void wall_burst_end(struct sim_vcpu *v, uint64_t t)
{
	v->spinning = false;
	v->spin_left = 0;
	v->spin_until = 0;
	v->sleep_end = duty_sleep_end(v, t);
	ev_push(v->sleep_end, EV_SLEEP_END, vid(v), 0);
}

static void guest_arm(struct sim_vcpu *v, uint64_t now);

/* How far into its slice the yield95 attacker yields: 95% of the policy's slice (1 ms when
 * a policy names none: a zero would yield forever at the same instant). */
static uint64_t yield95_at(void)
{
	uint64_t sl = sched_slice_ns(G.s);
	return (sl ? sl : 1000000) * 95 / 100;
}

static void progress(struct sim_vcpu *v, uint64_t now)
{
	if (v->running_on >= 0 && now == v->exec_from && !v->pq_n && !v->boot_left && v->spinning &&
	    v->spin_left && wall_duty(v) && v->spin_until && now >= v->spin_until)
		wall_burst_end(v, now); /* back on the CPU after its deadline: sees it at once */
	if (v->running_on < 0 || now <= v->exec_from)
		return;
	uint64_t el = now - v->exec_from;
	v->exec_from = now;
	v->useful_ns += el;
	if (v->d->kind == G_LOCK) {
		struct sim_vcpu *n = lock_progress(v, now - el, el);
		if (n && n->running_on >= 0)
			guest_arm(n, now); /* it sees the lock is its own */
		return;
	}
	while (el) {
		if (v->pq_n) {
			uint64_t take = el < v->ping_left ? el : v->ping_left;
			v->ping_left -= take;
			el -= take;
			if (!v->ping_left) {
				uint64_t done = now - el, arr = v->pq[v->pq_head];
				if (arr >= G.c->warmup_ns)
					samples_add(&v->d->ping, done - arr);
				v->pq_head = (v->pq_head + 1) % v->pq_cap;
				v->pq_n--;
				v->ping_left = v->d->service_ns;
			}
		} else if (v->boot_left) {
			uint64_t take = el < v->boot_left ? el : v->boot_left;
			v->boot_left -= take;
			el -= take;
		} else if (v->spinning && v->spin_left == UINT64_MAX) {
			el = 0;
		} else if (v->spinning && v->spin_left && wall_duty(v)) {
			/* rt_spin_us: spin until the clock reads start + spin, whatever CPU it
			 * got meanwhile; the guest sees the end only when it executes. */
			uint64_t t = now - el;
			if (!v->spin_until)
				v->spin_until = t + v->d->spin_ns;
			if (t >= v->spin_until) {
				wall_burst_end(v, t);
				continue;
			}
			uint64_t take = v->spin_until - t;
			if (take > el)
				take = el;
			el -= take;
		} else if (v->spinning && v->spin_left) {
			uint64_t take = el < v->spin_left ? el : v->spin_left;
			v->spin_left -= take;
			el -= take;
			if (!v->spin_left) {
				/* Burst done: sleep from the moment it finished. */
				v->spinning = false;
				v->sleep_end = duty_sleep_end(v, now - el);
				ev_push(v->sleep_end, EV_SLEEP_END, vid(v), 0);
			}
		} else {
			v->useful_ns -= el;
			el = 0;
		}
	}
}

/* The attacker's sleep window around accounting point k*P: [kP - lead, kP + after). */
static bool in_hold_window(const struct sim_dom *d, uint64_t t, uint64_t *until)
{
	uint64_t P = d->atk_period_ns, k = (t + d->atk_lead_ns) / P;
	if (k == 0)
		return false;
	uint64_t start = k * P - d->atk_lead_ns, end = k * P + d->atk_after_ns;
	if (t >= start && t < end) {
		*until = end;
		return true;
	}
	return false;
}

static uint64_t next_hold_start(const struct sim_dom *d, uint64_t t)
{
	uint64_t P = d->atk_period_ns, k = (t + d->atk_lead_ns) / P + 1;
	return k * P - d->atk_lead_ns;
}

static void guest_arm(struct sim_vcpu *v, uint64_t now)
{
	uint64_t base = v->exec_from > now ? v->exec_from : now, t = UINT64_MAX;
	v->gen++;
	if (v->pq_n)
		t = base + v->ping_left;
	else if (v->boot_left)
		t = base + v->boot_left;
	else if (v->spinning && v->spin_left && wall_duty(v))
		t = v->spin_until ? (v->spin_until > base ? v->spin_until : base)
				  : base + v->d->spin_ns;
	else if (v->spinning && v->spin_left != UINT64_MAX && v->spin_left)
		t = base + v->spin_left;
	else if (!has_work(v))
		t = now;
	if (v->d->kind == G_LOCK) {
		bool ple = G.s->p.ple != SCHED_PLE_OFF;
		t = lock_next_event(v, base, ple ? G.c->ple_window_ns : 0);
		v->ple_at = v->lphase == LP_WAIT ? t : UINT64_MAX;
	} else if (v->d->attack == ATK_YIELD95) {
		uint64_t y = v->picked_at + yield95_at();
		if (y < t)
			t = y > now ? y : now;
	} else if (v->d->attack == ATK_SELF_WAKE) {
		uint64_t y = v->picked_at + v->d->atk_lead_ns;
		if (y < t)
			t = y > now ? y : now;
	} else if (v->d->attack == ATK_SLEEP_ACCT) {
		uint64_t until, y = next_hold_start(v->d, now);
		if (in_hold_window(v->d, now, &until))
			y = now;
		if (y < t)
			t = y;
	}
	if (t != UINT64_MAX)
		ev_push(t, EV_GUEST, vid(v), v->gen);
}

/* Kicks pCPUs (an IPI each in the hypervisor). With a lock model, kicks to a pCPU that
 * has one pending coalesce, as IPIs do (a flag, then one pick): each pick costs its hold. */
static void kick_mask(sched_cpumask_t m, uint64_t now)
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

/* What the exit folds into the pick (core/sched_door.c, sd_pick's `then`). */
enum then { THEN_RUN, THEN_BLOCK, THEN_YIELD };

/* The core's reschedule path on pCPU p, one door call: `then` the running vCPU blocks or
 * yields, then the pick. With a lock model (door.c) the call starts when p and its locks
 * are free, decides at `at` (its locks held) and lets go at `done`: the vCPU picked starts
 * then (plus the switch), and the one that ran stood still from `now`. */
static void resched_then(unsigned p, uint64_t now, enum then then)
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

static void resched(unsigned p, uint64_t now)
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
static void vcpu_notify(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent)
{
	door_begin(agent, now, DOOR_WAKE);
	door_home(v->sv.pcpu);
	sched_cpumask_t k = sched_wake(G.s, &v->sv, door_now(now), flags);
	uint64_t done = door_end(now, &k);
	kick_mask(k, done);
	stall(agent, now, done);
}

static void vcpu_wake(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent)
{
	if (v->sv.state == SCHED_VS_BLOCKED) {
		v->lat_pending = true;
		v->woke_at = now;
		v->runnable_since = now;
	}
	vcpu_notify(v, now, flags, agent);
}

static void vcpu_block(struct sim_vcpu *v, uint64_t now)
{
	unsigned p = (unsigned)v->running_on;
	if (v->runnable_since != UINT64_MAX) {
		v->runnable_ns += now - v->runnable_since;
		v->runnable_since = UINT64_MAX;
	}
	resched_then(p, now, THEN_BLOCK);
}

static void on_guest(struct sim_vcpu *v, uint64_t now)
{
	if (v->running_on < 0)
		return;
	progress(v, now);
	uint64_t until;
	if (v->d->attack == ATK_SLEEP_ACCT && in_hold_window(v->d, now, &until)) {
		v->hold_until = until;
		ev_push(until, EV_HOLD_END, vid(v), 0);
		vcpu_block(v, now);
		return;
	}
	if (v->d->attack == ATK_SELF_WAKE && now >= v->picked_at + v->d->atk_lead_ns) {
		/* Block on a timer that fires almost at once: every wake asks for a boost. */
		v->hold_until = now + v->d->atk_after_ns;
		ev_push(v->hold_until, EV_HOLD_END, vid(v), 0);
		vcpu_block(v, now);
		return;
	}
	if (v->d->attack == ATK_YIELD95 && now >= v->picked_at + yield95_at()) {
		resched_then((unsigned)v->running_on, now, THEN_YIELD);
		return;
	}
	if (v->d->kind == G_LOCK && v->lphase == LP_WAIT && now >= v->ple_at) {
		/* PAUSE-loop exit: the core's exit_pause_loop, then a fresh window. Two door
		 * calls (sd_pause_loop, then the pick). */
		unsigned p = (unsigned)v->running_on;
		door_begin(p, now, DOOR_PAUSE_LOOP);
		door_home(v->sv.pcpu);
		sched_cpumask_t k =
			cpumask_without(sched_pause_loop(G.s, &v->sv, door_now(now)), p);
		kick_mask(k, door_end(now, &k));
		resched(p, now);
		if (G.pc[p].cur == v)
			guest_arm(v, now);
		return;
	}
	if (!has_work(v)) {
		vcpu_block(v, now);
		return;
	}
	guest_arm(v, now);
}

static void on_ping(struct sim_dom *d, uint64_t now)
{
	struct sim_vcpu *v = (struct sim_vcpu *)d->sd.vcpus->owner;
	for (struct sched_vcpu *sv = d->sd.vcpus; sv; sv = sv->next_in_dom)
		if (((struct sim_vcpu *)sv->owner)->idx == 0)
			v = sv->owner;
	uint64_t j = G.c->ping_jitter_ns;
	uint64_t next = now + G.c->ping_interval_ns - j + (j ? rnd() % (2 * j + 1) : 0);
	ev_push(next, EV_PING, d->id, 0);
	if (v->running_on >= 0) {
		/* The core tells the scheduler about every event, running vCPU included. */
		progress(v, now);
		ping_push(v, now);
		guest_arm(v, now);
		if (!G.c->wake_blocked_only)
			vcpu_notify(v, now, WAKE_EVENT, door_pinger());
		return;
	}
	ping_push(v, now);
	if (!G.c->wake_blocked_only || v->sv.state == SCHED_VS_BLOCKED)
		vcpu_wake(v, now, WAKE_EVENT, door_pinger());
}

static void on_sleep_end(struct sim_vcpu *v, uint64_t now)
{
	if (v->spinning || now != v->sleep_end)
		return;
	if (v->running_on >= 0)
		progress(v, now);
	v->spinning = true;
	v->spin_left = v->d->spin_ns;
	v->spin_until = 0;
	v->boot_left += v->d->wake_ns; /* its wake path runs first (done before the spin) */
	if (v->running_on >= 0)
		guest_arm(v, now);
	else
		vcpu_wake(v, now, WAKE_TIMER, v->ran_on);
}

/* An attacker's shortfall is its own (README.md, "Invariants"): a yield95 attacker gives
 * its pCPU away itself, a self-wake or sleep-acct one is denied the boosts it games. Its
 * share is checked for gain only, and its waiting is not counted either. */
static bool own_shortfall(const struct sim_dom *d)
{
	return d->kind == G_HOSTILE && d->attack != ATK_NONE;
}

/* The balancing invariant, seen from outside (README.md, "Invariants"). A migratable vCPU
 * that waits in a queue, or runs on a pCPU whose queue holds a waiter, counts one sample
 * when another pCPU of its affinity idles or runs a non-boosted vCPU of a domain more than
 * inv_margin further ahead of its ideal per vCPU than the waiter's domain (the waiter:
 * itself, or the neediest vCPU queued where it runs, which it keeps out). "Ahead" is
 * service minus the ideal, each sample's difference decaying with time constant
 * inv_tau, so the comparison is about the recent past, not the whole run; it is divided
 * by the domain's vCPUs because a domain's credit is (README.md). */
static void inv_sample(uint64_t now)
{
	struct sim_cfg *c = G.c;
	double dt = (double)c->inv_ns, decay = exp(-dt / (double)c->inv_tau_ns);
	for (unsigned i = 0; i < c->ndoms; i++)
		G.held[i] = 0;
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		double held = (double)v->sched_ns;
		if (v->running_on >= 0 && now > v->picked_at) /* a lock model's pick may be ahead */
			held += (double)(now - v->picked_at);
		G.held[v->d->id - 1] += held;
	}
	for (unsigned i = 0; i < c->ndoms; i++) {
		double got = G.held[i] - G.prev_held[i];
		G.prev_held[i] = G.held[i];
		const struct sim_dom *d = &c->doms[i];
		bool band = c->exp_wall_bound != 0;
		G.ahead_e[i] = G.ahead_e[i] * decay + got - (band ? d->upper : d->entitled) * dt;
		G.ahead_b[i] = G.ahead_b[i] * decay + got - (band ? d->bound : d->entitled) * dt;
		/* With the band on (README.md), a domain is ahead above its band, behind below
		 * it, and neither inside it (the shares are checked the same way). */
		G.ahead[i] = G.ahead_e[i] > 0 ? G.ahead_e[i] : G.ahead_b[i] < 0 ? G.ahead_b[i] : 0;
		G.ahead[i] /= d->nvcpus; /* per vCPU, as priority is (README.md) */
	}
	sched_cpumask_t all = cpumask_below(c->pcpus);
	double margin = (double)c->inv_margin_ns, waiter[SCHED_MAX_PCPUS];
	for (unsigned p = 0; p < c->pcpus; p++)
		waiter[p] = HUGE_VAL;
	for (unsigned i = 0; i < G.nv; i++) {
		const struct sim_vcpu *v = &G.v[i];
		double a = G.ahead[v->d->id - 1];
		if (v->sv.state == SCHED_VS_RUNNABLE && !own_shortfall(v->d) &&
		    a < waiter[v->sv.pcpu])
			waiter[v->sv.pcpu] = a;
	}
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		sched_cpumask_t m =
			cpumask_and(cpumask_empty(v->sv.affinity) ? all : v->sv.affinity, all);
		if (cpumask_count(m) <= 1 || own_shortfall(v->d))
			continue; /* pinned to one pCPU, or it gives way itself */
		double ref;
		if (v->sv.state == SCHED_VS_RUNNABLE)
			ref = G.ahead[v->d->id - 1]; /* it waits */
		else if (v->running_on >= 0 && waiter[v->running_on] != HUGE_VAL)
			ref = waiter[v->running_on]; /* it keeps the neediest waiter there out */
		else
			continue;
		cpumask_clear(&m, v->sv.pcpu);
		cpumask_for_each(q, m)
		{
			const struct sim_vcpu *u = G.pc[q].cur;
			if (!u || (u->sv.prio != SCHED_PRI_BOOST &&
				   G.ahead[u->d->id - 1] > ref + margin)) {
				v->stuck++;
				G.inv_idle += !u;
				break;
			}
		}
	}
	G.inv_samples++;
	ev_push(now + c->inv_ns, EV_INV, 0, 0);
}

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
		const struct sim_dom *d = v->d;
		if (d->kind == G_SPINNER || (d->kind == G_HOSTILE && d->attack != ATK_NONE)) {
			v->spinning = true;
			v->spin_left = UINT64_MAX;
		} else if (d->spin_ns) {
			/* Duty cycles start at a seeded point of their period. */
			v->spinning = false;
			v->sleep_end = rnd() % (d->spin_ns + d->sleep_ns) + 1;
			if (d->jiffy_ns) { /* its tick grid's phase; the first wake on the grid */
				uint64_t j = d->jiffy_ns;
				v->jiffy_off = rnd() % j;
				v->sleep_end += (v->jiffy_off + j - v->sleep_end % j) % j;
			}
			ev_push(v->sleep_end, EV_SLEEP_END, i, 0);
		}
		if (d->kind == G_LOCK)
			lock_start(v, rnd());
		v->runnable_since = UINT64_MAX;
		v->boot_left = d->boot_ns;
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
