/* The torture test (torture.h, README.md): the pCPU loop as the hypervisor runs it, one step
 * at a time, from threads or from a seeded serial interleaving; the checks it calls are in
 * checks.c. */
#include "torture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "arch/x86_64/spinlock.h"

struct tconf C = {.pcpus = 4, .doms = 6, .seconds = 2, .seed = 1, .policy = "rr"};
struct tdom doms[T_MAX_DOMS];
atomic_int failures;

_Thread_local struct lockorder_cpu torture_locks;
_Thread_local int torture_cpu;
bool (*torture_trylock_fails)(const spinlock_t *l);

struct tcpu cpus[SCHED_MAX_PCPUS];
/* Threads mode: the most host seconds the drain may take (DRAIN_SECONDS with nothing run is
 * a lost wake). */
#define DRAIN_SECONDS 20

static atomic_bool stop;
static atomic_bool draining; /* the end: guests only compute, nothing blocks or changes */
static atomic_ullong vclock = 1000000000ull; /* serial mode's clock, ns */
static uint64_t inject_rng;

uint64_t t_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* ---- the door's port -------------------------------------------------------------------- */

uint64_t t_clock_ns(void)
{
	if (C.serial)
		return atomic_load(&vclock);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned port_self(void)
{
	return (unsigned)torture_cpu;
}

static uint64_t port_now(void)
{
	struct tcpu *c = &cpus[torture_cpu];
	c->last_now = t_clock_ns();
	c->nows[++c->now_calls % 8] = c->last_now;
	return c->last_now;
}

static void port_kick(unsigned cpu, bool resched)
{
	if (resched)
		atomic_store(&cpus[cpu].need_resched, 1);
}

static void port_bug(const char *what, unsigned a, unsigned b)
{
	fprintf(stderr, "torture: FAIL: door bug: %s (%u, %u)\n", what, a, b);
	abort();
}

static bool pending_cb(void *arg);
static const struct sd_port port = {port_self, port_now, t_clock_ns,
				    port_kick, port_bug, pending_cb};

static bool inject(const spinlock_t *l)
{
	(void)l;
	return C.inject && t_rand(&inject_rng) % 1000 < C.inject;
}

/* ---- domains ------------------------------------------------------------------------------ */

static struct tvcpu *random_vcpu(uint64_t *rng)
{
	struct tdom *d = &doms[t_rand(rng) % C.doms];
	return &d->v[t_rand(rng) % d->n];
}

static void dom_start(struct tdom *d, uint64_t *rng)
{
	for (unsigned i = 0; i < d->n; i++) {
		atomic_store(&d->v[i].pending, 0);
		if (sd_insert(&d->v[i].s))
			t_fail("d%u: insert refused", d->sd.id);
	}
	sd_set_params(&d->sd, 1 + (uint32_t)(t_rand(rng) % 2048),
		      t_rand(rng) % 3 ? 0 : 10 + (uint32_t)(t_rand(rng) % 390));
	atomic_store(&d->paused, 0);
	for (unsigned i = 0; i < d->n; i++)
		sd_start(&d->v[i].s, false);
}

static void dom_left(struct tdom *d, unsigned n)
{
	if (n && atomic_fetch_sub(&d->remaining, (int)n) == (int)n)
		atomic_store(&d->state, D_DEAD);
}

static void dom_end(struct tdom *d)
{
	int live = 0;
	for (unsigned i = 0; i < C.doms; i++)
		live += atomic_load(&doms[i].state) == D_LIVE;
	int exp = D_LIVE;
	if (live < 2 || !atomic_compare_exchange_strong(&d->state, &exp, D_DYING))
		return;
	atomic_store(&d->remaining, (int)d->n);
	struct sd_vcpu *v[T_MAX_VCPUS];
	for (unsigned i = 0; i < d->n; i++)
		v[i] = &d->v[i].s;
	dom_left(d, sd_end(v, d->n, NULL));
}

static void dom_recreate(struct tdom *d, uint64_t *rng)
{
	int exp = D_DEAD;
	if (!atomic_compare_exchange_strong(&d->state, &exp, D_BUSY))
		return;
	dom_start(d, rng);
	atomic_store(&d->state, D_LIVE);
}

static void dom_pause_toggle(struct tdom *d)
{
	if (atomic_load(&d->state) != D_LIVE)
		return;
	struct sd_vcpu *v[T_MAX_VCPUS];
	for (unsigned i = 0; i < d->n; i++)
		v[i] = &d->v[i].s;
	if (atomic_exchange(&d->paused, 1) == 0)
		sd_pause(v, d->n);
	else if (atomic_exchange(&d->paused, 0) == 1)
		sd_unpause(v, d->n);
}

/* ---- what the loop knows of its guests --------------------------------------------------- */

static bool pending_cb(void *arg)
{
	struct tvcpu *v = arg;
	return atomic_load(&v->pending) || atomic_load(&v->d->state) != D_LIVE;
}

/* The first `now` the door read since now_calls was `calls` (a call's own; a finish pass
 * after it may read more). */
static uint64_t now_after(const struct tcpu *c, unsigned calls)
{
	return c->nows[(calls + 1) % 8];
}

/* cur's charged interval ends at the door's `now` of the call that stopped it. */
static void account(struct tcpu *c, struct tvcpu *v, uint64_t until)
{
	if (c->running && until > c->run_from)
		atomic_fetch_add(&v->expect_atomic, until - c->run_from);
	c->running = false;
}

/* ---- the loop, one step at a time ---------------------------------------------------------- */

static void do_pick(unsigned id, struct tcpu *c)
{
	struct tvcpu *prev = c->cur;
	c->last_act = -1;
	atomic_store(&c->need_resched, 0);
	uint64_t ru, held;
	unsigned calls = c->now_calls;
	enum sd_then then = prev && c->loaded_ok ? c->then : SD_THEN_RUN;
	c->then = SD_THEN_RUN;
	struct sd_vcpu *sv = sd_pick(id, prev && c->loaded_ok ? &prev->s : NULL, then, &ru, &held);
	if (c->now_calls == calls)
		t_fail("cpu%u: sd_pick read no clock", id);
	uint64_t pick_now = now_after(c, calls);
	struct tvcpu *v = (struct tvcpu *)sv;
	if (prev && c->loaded_ok) {
		account(c, prev, pick_now);
		if (prev != v) {
			atomic_store(&prev->loaded, -1);
			if (atomic_load(&prev->d->state) == D_DYING && sd_leave(&prev->s))
				dom_left(prev->d, 1);
		}
	}
	c->picks++;
	c->want_pick = false;
	c->run_until = ru;
	if (!v) {
		c->idle_picks++;
		c->cur = NULL;
		c->loaded_ok = false;
		return;
	}
	atomic_fetch_add(&v->picks, 1);
	c->running = true;
	c->run_from = pick_now;
	c->refunded = 0;
	c->loaded_ok = v == prev && c->loaded_ok;
	c->cur = v;
	if (!c->loaded_ok) {
		int exp = -1;
		c->loaded_ok = atomic_compare_exchange_strong(&v->loaded, &exp, (int)id);
	}
}

/* One action of the running guest, or of this pCPU on the others (an idle pCPU takes
 * interrupts too: v NULL, the guest's own actions become events for others). */
static void act(struct tcpu *c)
{
	struct tvcpu *v = c->cur && c->running ? c->cur : NULL;
	if (atomic_load(&draining))
		return; /* the guest computes: only its slice's end takes it off */
	uint64_t r = t_rand(&c->rng) % 1000;
	if (!v && (r < 420 || (r >= 560 && r < 630) || r >= 690))
		r = 420 + r % 140; /* idle: an event for some vCPU */
	c->last_act = (int)r;
	unsigned calls = c->now_calls;
	if (r < 290) {
		/* the guest computes */
	} else if (r < 300) {
		/* an exit of v's did work for x (a timer of x's, set where x ran: a vCPU of this
		 * pCPU's queue, as a rule): charged to x (sd_charge_for). Up to 1 us, a tenth of
		 * the time at most: more would starve x for good (it pays what others ran). */
		struct tvcpu *x = random_vcpu(&c->rng);
		uint64_t ns = 1 + t_rand(&c->rng) % 1000, t = t_clock_ns();
		if (__atomic_load_n(&x->s.sv.pcpu, __ATOMIC_RELAXED) != (unsigned)(c - cpus) ||
		    (r & 1))
			x = v;
		uint64_t ran = t > c->run_from + c->refunded ? t - c->run_from - c->refunded : 0;
		if (ns > ran)
			ns = ran; /* never more than it ran since its pick */
		uint64_t moved = c->running && x != v && ns ? sd_charge_for(&v->s, &x->s, ns) : 0;
		c->refunded += moved;
		if (moved) {
			atomic_fetch_sub(&v->expect_atomic, moved);
			atomic_fetch_add(&x->expect_atomic, moved);
		}
	} else if (r < 420) {
		if (r & 1) { /* left to the pick (the hypervisor's HLT) */
			c->then = SD_THEN_BLOCK;
			c->want_pick = true;
		} else if (sd_block(&v->s, pending_cb, v)) {
			account(c, v, now_after(c, calls));
			c->want_pick = true;
		}
	} else if (r < 560) {
		struct tvcpu *x = random_vcpu(&c->rng);
		atomic_fetch_add(&x->n_started, 1);
		atomic_store(&x->pending, 1);
		sd_notify(&x->s, t_rand(&c->rng) & 1 ? WAKE_EVENT : WAKE_TIMER);
		atomic_fetch_add(&x->n_done, 1);
	} else if (r < 600) {
		if (r & 1)
			c->then = SD_THEN_YIELD; /* left to the pick (the hypervisor's yield) */
		else
			sd_yield(&v->s);
		c->want_pick = true;
	} else if (r < 630) {
		sd_pause_loop(&v->s);
		if (sd_sched()->p.ple != SCHED_PLE_OFF)
			c->want_pick = true;
	} else if (r < 640) {
		struct tdom *d = &doms[t_rand(&c->rng) % C.doms];
		sd_set_params(&d->sd, 1 + (uint32_t)(t_rand(&c->rng) % 2048),
			      t_rand(&c->rng) % 3 ? 0 : 10 + (uint32_t)(t_rand(&c->rng) % 390));
	} else if (r < 646) {
		/* One random word per 64 pCPUs (at most 64: the draws of the 64-pCPU runs). */
		sched_cpumask_t m = cpumask_none();
		for (unsigned w = 0; w * 64 < C.pcpus; w++)
			m.w[w] = t_rand(&c->rng);
		m = cpumask_and(m, cpumask_below(C.pcpus));
		if (!cpumask_empty(m))
			sd_set_affinity(&random_vcpu(&c->rng)->s, m);
	} else if (r < 652) {
		dom_pause_toggle(&doms[t_rand(&c->rng) % C.doms]);
	} else if (r < 655) {
		dom_end(&doms[t_rand(&c->rng) % C.doms]);
	} else if (r < 660) {
		dom_recreate(&doms[t_rand(&c->rng) % C.doms], &c->rng);
	} else if (r < 672) {
		audit();
	} else if (r < 690) {
		struct sd_info in;
		sd_info(&random_vcpu(&c->rng)->s, &in);
	} else if (r < 780) {
		atomic_store(&v->pending, 0); /* the guest handled its events */
	}
	(void)calls;
	if (!v)
		return;
	/* An exit saw v's domain paused and another pCPU unpaused it before the call (the
	 * hypervisor's ACT_PAUSE then sd_pause_self, against a racing sd_unpause): the call finds
	 * nothing to do, v runs on. Rare by itself (a toggle in that window), so made here. */
	bool stale_pause = r >= 780 && r < 785;
	/* v's run ends at the call's `now` only when the call took it off (it returns so): a
	 * clock read alone does not say it did. One that found nothing to do (a pause undone by
	 * another pCPU since the flag was read) still reads the clock when it ends in finish
	 * work another pCPU's call left (door_finish); v runs on, charged to the next pick. */
	if (c->running && atomic_load(&v->d->state) == D_DYING) {
		calls = c->now_calls;
		if (sd_stop(&v->s))
			account(c, v, now_after(c, calls));
		c->want_pick = true;
	} else if (c->running && (stale_pause || __atomic_load_n(&v->s.paused, __ATOMIC_RELAXED))) {
		calls = c->now_calls;
		if (sd_pause_self(&v->s))
			account(c, v, now_after(c, calls));
		c->want_pick = true;
	}
}

static void step(unsigned id)
{
	struct tcpu *c = &cpus[id];
	torture_cpu = (int)id;
	c->steps++;
	if (c->cur && !c->loaded_ok) { /* waiting for the pCPU that ran it to let go */
		int exp = -1;
		c->loaded_ok = atomic_compare_exchange_strong(&c->cur->loaded, &exp, (int)id);
		return;
	}
	bool timer = c->run_until != SCHED_NEVER && t_clock_ns() >= c->run_until;
	if (c->want_pick || atomic_load(&c->need_resched) || timer || (!c->cur && c->picks == 0)) {
		do_pick(id, c);
		return;
	}
	if (c->cur && c->running)
		act(c);
	else if (t_rand(&c->rng) % 8 == 0)
		act(c); /* an interrupt on an idle (or blocked-vCPU) pCPU */
	else if (!C.serial)
		torture_yield(); /* idle: waits for a kick or its timer */
}

static void thread_loop(unsigned id)
{
	torture_cpu = (int)id;
	while (!atomic_load(&stop))
		step(id);
}

static int usage(void)
{
	fprintf(stderr, "usage: torture [--pcpus N] [--doms N] [--seconds S] [--seed K] "
			"[--policy rr|credit|credit1|eevdf] [--serial STEPS] [--inject PERMILLE] "
			"[-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *n = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-v"))
			C.verbose = true;
		else if (!n)
			return usage();
		else if (!strcmp(a, "--pcpus"))
			C.pcpus = (unsigned)atoi(n), i++;
		else if (!strcmp(a, "--doms"))
			C.doms = (unsigned)atoi(n), i++;
		else if (!strcmp(a, "--seconds"))
			C.seconds = (unsigned)atoi(n), i++;
		else if (!strcmp(a, "--seed"))
			C.seed = strtoull(n, NULL, 0), i++;
		else if (!strcmp(a, "--policy"))
			C.policy = n, i++;
		else if (!strcmp(a, "--serial"))
			C.serial = true, C.steps = (unsigned)atoi(n), i++;
		else if (!strcmp(a, "--check-every"))
			C.check_every = (unsigned)atoi(n), i++;
		else if (!strcmp(a, "--inject"))
			C.inject = (unsigned)atoi(n), i++;
		else
			return usage();
	}
	if (!C.pcpus || C.pcpus > SCHED_MAX_PCPUS || !C.doms || C.doms > T_MAX_DOMS)
		return usage();
	uint64_t rng = C.seed * 0x9e3779b97f4a7c15ull + 1;
	inject_rng = rng ^ 0x5555;
	torture_trylock_fails = C.serial ? inject : NULL;
	if (sd_init(C.pcpus, &port))
		return 2;
	char word[64];
	snprintf(word, sizeof word, "sched=%s", C.policy);
	if (sd_config_word(word, strlen(word))) {
		fprintf(stderr, "torture: unknown policy %s\n", C.policy);
		return 2;
	}
	if (t_rand(&rng) % 2)
		sd_config_word("sched.ple=directed", 18);
	for (unsigned i = 0; i < C.doms; i++) {
		struct tdom *d = &doms[i];
		d->sd.id = i + 1;
		d->n = 1 + (unsigned)(t_rand(&rng) % T_MAX_VCPUS);
		for (unsigned j = 0; j < d->n; j++) {
			struct tvcpu *v = &d->v[j];
			v->d = d;
			v->idx = j;
			atomic_store(&v->loaded, -1);
			v->s.sv.dom = &d->sd;
			v->s.sv.id = j;
			v->s.sv.owner = v;
		}
		dom_start(d, &rng);
		atomic_store(&d->state, D_LIVE);
	}
	for (unsigned id = 0; id < C.pcpus; id++)
		cpus[id].rng = rng ^ (0x1234567ull * (id + 1)), cpus[id].run_until = SCHED_NEVER;
	uint64_t t0 = t_clock_ns();
	if (C.serial) {
		for (unsigned s = 0; s < C.steps && !atomic_load(&failures); s++) {
			atomic_fetch_add(&vclock, 500 + t_rand(&rng) % 20000);
			unsigned id = (unsigned)(t_rand(&rng) % C.pcpus);
			step(id);
			if (C.check_every && s % C.check_every == 0) {
				torture_cpu = (int)id;
				audit();
				check_run_time_now(s);
				if (atomic_load(&failures))
					fprintf(stderr,
						"torture: at serial step %u (cpu%u, action %d)\n",
						s, id, cpus[id].last_act);
			}
		}
	} else {
		torture_threads(C.pcpus, thread_loop, C.seconds, &stop);
	}
	lost_wake_snapshot();
	atomic_store(&draining, true);
	atomic_store(&stop, false);
	if (C.serial) {
		uint64_t until = atomic_load(&vclock) + 1000000000ull;
		while (atomic_load(&vclock) < until && !atomic_load(&failures)) {
			atomic_fetch_add(&vclock, 500 + t_rand(&rng) % 20000);
			step((unsigned)(t_rand(&rng) % C.pcpus));
		}
	} else {
		/* A second of host time is few decisions on a loaded host (64 pCPU threads under
		 * TSan on 2 busy cores made about 12 per pCPU per second): drain in seconds, up
		 * to DRAIN_SECONDS, until every vCPU runnable at the snapshot has run. */
		for (unsigned sec = 0; sec < DRAIN_SECONDS && !lost_wake_check(false); sec++) {
			atomic_store(&stop, false);
			torture_threads(C.pcpus, thread_loop, 1, &stop);
		}
	}
	lost_wake_check(true);
	torture_cpu = 0;
	uint64_t t_end = t_clock_ns();
	audit();
	check_run_time(t_end);
	uint64_t picks = 0, idle = 0, steps = 0, vpicks = 0;
	for (unsigned id = 0; id < C.pcpus; id++)
		picks += cpus[id].picks, idle += cpus[id].idle_picks, steps += cpus[id].steps;
	unsigned never = 0;
	for (unsigned i = 0; i < C.doms; i++)
		for (unsigned j = 0; j < doms[i].n; j++) {
			vpicks += atomic_load(&doms[i].v[j].picks);
			never += atomic_load(&doms[i].v[j].picks) == 0;
		}
	for (unsigned id = 0; C.verbose && id < C.pcpus; id++) {
		struct tcpu *c = &cpus[id];
		fprintf(stderr,
			"cpu%u steps=%llu picks=%llu cur=%s%u.%u loaded_ok=%d running=%d "
			"want_pick=%d run_until=%llu\n",
			id, (unsigned long long)c->steps, (unsigned long long)c->picks,
			c->cur ? "d" : "-", c->cur ? c->cur->d->sd.id : 0, c->cur ? c->cur->idx : 0,
			c->loaded_ok, c->running, c->want_pick, (unsigned long long)c->run_until);
	}
	struct sd_lockstat ls, tot = {0};
	for (unsigned id = 0; id < C.pcpus; id++) {
		sd_lockstat(id, &ls, false);
		tot.acquires += ls.acquires, tot.waits += ls.waits, tot.try_fail += ls.try_fail;
		tot.finishes += ls.finishes;
	}
	printf("torture policy=%s pcpus=%u doms=%u seed=%llu mode=%s steps=%llu picks=%llu "
	       "idle_picks=%llu vcpu_picks=%llu never_picked=%u acquires=%llu waits=%llu "
	       "try_fail=%llu finishes=%llu elapsed_ms=%llu failures=%d\n",
	       C.policy, C.pcpus, C.doms, (unsigned long long)C.seed,
	       C.serial ? "serial" : "threads", (unsigned long long)steps,
	       (unsigned long long)picks, (unsigned long long)idle, (unsigned long long)vpicks,
	       never, (unsigned long long)tot.acquires, (unsigned long long)tot.waits,
	       (unsigned long long)tot.try_fail, (unsigned long long)tot.finishes,
	       (unsigned long long)((t_end - t0) / 1000000), atomic_load(&failures));
	return atomic_load(&failures) ? 1 : 0;
}
