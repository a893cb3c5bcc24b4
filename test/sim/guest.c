/* The guests of the simulator: what each kind does with the CPU time the engine (sim.c)
 * gives it, and what it asks of the scheduler. Spinners and duty cycles (CPU-time or
 * wall-clock bursts, sleeps on a guest tick grid), echoes that answer pings, the accounting
 * attackers (sleep-acct, yield95, self-wake) and, with lock.c, lockstress; and the ping
 * source with its jitter. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "test/sim/engine.h"

/* A vCPU's guest at the start of the run: a spinner spins for ever, a duty cycle starts at
 * a seeded point of its period (and of its tick grid), lockstress takes its first phase;
 * every vCPU has its start-up run (boot_us) to do first. */
void guest_init(struct sim_vcpu *v, unsigned i)
{
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
	v->boot_left = d->boot_ns;
}

bool has_work(const struct sim_vcpu *v)
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

/* How far into its slice the yield95 attacker yields: 95% of the policy's slice (1 ms when
 * a policy names none: a zero would yield forever at the same instant). */
uint64_t yield95_at(void)
{
	uint64_t sl = sched_slice_ns(G.s);
	return (sl ? sl : 1000000) * 95 / 100;
}

/* Applies the guest work done since exec_from (pings first: they are interrupts). */
void progress(struct sim_vcpu *v, uint64_t now)
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

void guest_arm(struct sim_vcpu *v, uint64_t now)
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

void on_guest(struct sim_vcpu *v, uint64_t now)
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

void on_ping(struct sim_dom *d, uint64_t now)
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

void on_sleep_end(struct sim_vcpu *v, uint64_t now)
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
