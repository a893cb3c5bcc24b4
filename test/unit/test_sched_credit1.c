/* Unit tests of sched=credit1 (sched/credit1*.c), Xen 3.0.4's credit scheduler. Each test
 * names the rule of xen/common/sched_credit.c (tag 3.0.4-branched, "3.0.4:NNN") it checks.
 * A small driver plays the core: it calls pick_next at run_until and on every kick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/credit1_priv.h"
#include "sched/sched.h"

#define MS 1000000ull

static struct sched S;
static struct sched_dom D[16];
static struct sched_vcpu V[16];
static uint64_t until[SCHED_MAX_PCPUS];
static uint64_t T; /* the driver's clock */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void kick(sched_cpumask_t m);
static void pick(unsigned p)
{
	struct sched_pick r = sched_pick_next(&S, p, T);
	until[p] = r.run_until;
	kick(r.kick);
}
static void kick(sched_cpumask_t m)
{
	for (unsigned p = 0; p < S.nr_pcpus; p++)
		if (cpumask_test(m, p))
			pick(p);
}

/* Runs the pCPUs' timers up to `end` (vCPUs spin: nothing blocks). */
static void run_to(uint64_t end)
{
	for (;;) {
		unsigned best = 0;
		for (unsigned p = 1; p < S.nr_pcpus; p++)
			if (until[p] < until[best])
				best = p;
		if (until[best] > end)
			break;
		T = until[best];
		pick(best);
	}
	T = end;
}

/* n domains with one vCPU each (weights w[i] or default), pinned to pCPU pin[i] or free. */
static void setup(unsigned pcpus, unsigned n, const uint32_t *w, const int *pin)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	assert_int_equal(sched_config(&S, "sched", "credit1", 0), 0);
	assert_string_equal(S.ops->name, "credit1");
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	T = 0;
	for (unsigned i = 0; i < n; i++) {
		D[i].id = i + 1;
		D[i].weight = w ? w[i] : 0;
		V[i].dom = &D[i];
		V[i].affinity = pin && pin[i] >= 0 ? cpumask_of((unsigned)pin[i]) : cpumask_none();
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	}
	for (unsigned p = 0; p < pcpus; p++)
		until[p] = 0;
}

static void start_all(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		kick(sched_wake(&S, &V[i], T, WAKE_NEW));
	for (unsigned p = 0; p < S.nr_pcpus; p++)
		pick(p);
}

static int credit(unsigned i)
{
	return C1V(&V[i])->credit;
}
static int pri(unsigned i)
{
	return C1V(&V[i])->pri;
}

/* 3.0.4:548 csched_vcpu_acct: each 10 ms tick takes 100 credits from the vCPU running at
 * that instant, whatever it ran before (sampling). The accounting (every third tick)
 * adds the fair share: with two spinners, 150 each per 30 ms. */
static void test_tick_burns_100_of_the_running_vcpu(void **st)
{
	(void)st;
	setup(1, 2, NULL, NULL);
	start_all(2);
	struct sched_vcpu *run = S.pcpu[0].curr;
	assert_non_null(run);
	unsigned r = (unsigned)(run - V), o = 1 - r;
	T = 5 * MS;
	pick(0); /* before the first tick: nothing burnt */
	assert_int_equal(credit(r), 0);
	run_to(10 * MS);
	assert_int_equal(credit(r), -100);
	assert_int_equal(credit(o), 0);
	run_to(20 * MS); /* tick 2: the same one still runs (30 ms slice) */
	assert_int_equal(credit(r), -200);
	/* Tick 3 at 30 ms is also the accounting (3.0.4:1030): r, the only active vCPU,
	 * earns the whole 300; o was never caught by a tick, so it is not active and earns
	 * nothing (3.0.4:558: a vCPU joins the active list when a tick catches it). */
	run_to(30 * MS);
	assert_int_equal(credit(r), -300 + 300);
	assert_int_equal(credit(o), 0);
}

/* 3.0.4:548 + 1021: the tick samples; a vCPU that always runs between two ticks and is
 * descheduled before the next one is never charged, whatever CPU it takes (seeded). */
static void test_sampling_misses_a_vcpu_between_ticks(void **st)
{
	(void)st;
	setup(1, 2, NULL, NULL);
	start_all(2);
	unsigned thief = (unsigned)(S.pcpu[0].curr - V);
	unsigned other = 1 - thief;
	kick(sched_sleep(&S, &V[thief], T));
	pick(0);
	for (unsigned k = 1; k < 200; k++) {
		uint64_t tick = k * 10 * MS;
		run_to(tick + 100000 + rnd(1000000)); /* wake just after a tick */
		kick(sched_wake(&S, &V[thief], T, WAKE_EVENT));
		assert_ptr_equal(S.pcpu[0].curr, &V[thief]); /* boosted: preempts */
		run_to(T + 1 + rnd(8 * MS));		     /* run less than to the next tick */
		assert_true(T < tick + 10 * MS);
		kick(sched_sleep(&S, &V[thief], T));
		pick(0);
	}
	assert_true(credit(thief) >= 0);
	assert_int_equal(pri(thief), C1_PRI_BOOST); /* never caught, never unboosted */
	assert_true(V[thief].c.run_ns > 300 * MS);  /* a third of the CPU, free */
	assert_true(V[other].c.run_ns > 0);
}

/* 3.0.4:687 csched_vcpu_wake: a waking vCPU is boosted only when it is UNDER (and not
 * parked); an OVER one is not; a first start (WAKE_NEW) is not (the interface's rule). */
static void test_boost_only_when_under(void **st)
{
	(void)st;
	setup(1, 2, NULL, NULL);
	start_all(2);
	unsigned a = (unsigned)(S.pcpu[0].curr - V), b = 1 - a;
	assert_int_equal(pri(b), C1_PRI_UNDER); /* WAKE_NEW: not boosted */
	run_to(30 * MS); /* a ran 3 ticks: -300 +300 = 0: UNDER after the accounting */
	run_to(60 * MS); /* now b ran 3 ticks: -300 + 150 (b active) */
	/* b is OVER at the accounting; put it to sleep and wake it: no boost. */
	assert_true(credit(b) < 0);
	assert_int_equal(pri(b), C1_PRI_OVER);
	kick(sched_sleep(&S, &V[b], T));
	if (!S.pcpu[0].curr || S.pcpu[0].curr == &V[b])
		pick(0);
	kick(sched_wake(&S, &V[b], T, WAKE_EVENT));
	assert_int_equal(pri(b), C1_PRI_OVER);
	assert_int_equal(V[b].c.boosts, 0);
	assert_int_equal(V[b].c.boost_deny, 1);
	/* a is UNDER: asleep and woken by an event, it is boosted. */
	assert_int_equal(pri(a), C1_PRI_UNDER);
	kick(sched_sleep(&S, &V[a], T));
	pick(0);
	kick(sched_wake(&S, &V[a], T, WAKE_EVENT));
	assert_int_equal(pri(a), C1_PRI_BOOST);
	assert_int_equal(V[a].c.boosts, 1);
}

/* A wake only because the vCPU moved pCPU (WAKE_MIGRATE) is no event: an UNDER vCPU is
 * not boosted by it (3.0.4 boosted every wake; Xen's 2015-2016 credit1 fix, the rule of the
 * interface), while the same vCPU woken by an event is. */
static void test_migration_wake_not_boosted(void **st)
{
	(void)st;
	setup(2, 2, NULL, NULL);
	start_all(1);
	assert_int_equal(pri(0), C1_PRI_UNDER);
	kick(sched_sleep(&S, &V[0], T + 10));
	T += 20;
	kick(sched_wake(&S, &V[0], T, WAKE_MIGRATE));
	assert_int_equal(pri(0), C1_PRI_UNDER);
	assert_int_equal(V[0].c.boosts, 0);
	kick(sched_sleep(&S, &V[0], T + 10));
	T += 20;
	kick(sched_wake(&S, &V[0], T, WAKE_EVENT));
	assert_int_equal(pri(0), C1_PRI_BOOST);
	assert_int_equal(V[0].c.boosts, 1);
}

/* 3.0.4:542: a boosted vCPU found running at a tick goes back to UNDER; the tick itself
 * does not preempt it (3.0.4:1016 csched_tick raises no softirq). 3.0.4:298: the boosted
 * wake preempted an UNDER spinner at once (no ratelimit: 1 us after its pick). */
static void test_boost_ends_at_the_tick_no_ratelimit(void **st)
{
	(void)st;
	setup(1, 2, NULL, NULL);
	start_all(2);
	unsigned spin = (unsigned)(S.pcpu[0].curr - V), io = 1 - spin;
	kick(sched_sleep(&S, &V[io], 0));
	T = 3 * MS;
	kick(sched_sleep(&S, &V[spin], T)); /* re-pick the spinner at 3 ms + 1 us */
	kick(sched_wake(&S, &V[spin], T, WAKE_NEW));
	pick(0);
	T += 1000;
	kick(sched_wake(&S, &V[io], T, WAKE_EVENT));
	assert_ptr_equal(S.pcpu[0].curr, &V[io]);
	assert_int_equal(pri(io), C1_PRI_BOOST);
	run_to(9 * MS);
	assert_int_equal(pri(io), C1_PRI_BOOST);
	run_to(10 * MS);
	assert_int_equal(pri(io), C1_PRI_UNDER);
	assert_ptr_equal(S.pcpu[0].curr, &V[io]); /* still running */
	assert_int_equal(credit(io), -100);
}

/* 3.0.4:1204 (ret.time = 30 ms) and schedule.c:569: vCPUs of one priority take turns of
 * exactly 30 ms; the ticks in between change nothing. */
static void test_slice_is_30ms(void **st)
{
	(void)st;
	setup(1, 3, NULL, NULL);
	start_all(3);
	struct sched_vcpu *prev = S.pcpu[0].curr;
	uint64_t last = 0;
	unsigned changes = 0;
	for (uint64_t t = MS; t <= 600 * MS; t += MS) {
		run_to(t);
		if (S.pcpu[0].curr != prev) {
			uint64_t len = S.pcpu[0].curr_since - last;
			assert_int_equal(len % (30 * MS), 0);
			last = S.pcpu[0].curr_since;
			prev = S.pcpu[0].curr;
			changes++;
		}
	}
	assert_true(changes >= 600 / 30 / 2);
}

/* 3.0.4:902 credit_fair = credit_total * weight / weight_total: spinners' shares follow
 * their weights (seeded weight pairs, 20 s each, within 2 points of one pCPU). */
static void test_weights_give_shares(void **st)
{
	(void)st;
	for (unsigned k = 0; k < 6; k++) {
		uint32_t w[2] = {64 + rnd(960), 64 + rnd(960)};
		setup(1, 2, w, NULL);
		start_all(2);
		run_to(20000 * MS);
		double share0 = (double)sched_run_ns(&V[0], T) / (double)T;
		double want = (double)w[0] / (w[0] + w[1]);
		assert_true(share0 > want - 0.02 && share0 < want + 0.02);
	}
}

/* 3.0.4:892-900 (credit_cap = cap * 300 / 100, per vCPU), 3.0.4:958 (parked when below
 * -credit_cap), 3.0.4:980 (unparked at credit >= 0, not boosted): a capped spinner next
 * to an uncapped one gets about its cap, and is parked and unparked along the way. */
static void test_cap_parks_and_unparks(void **st)
{
	(void)st;
	for (uint32_t cap = 10; cap <= 40; cap += 15) {
		setup(1, 2, NULL, NULL);
		D[0].cap = cap;
		start_all(2);
		run_to(20000 * MS);
		double share0 = 100.0 * (double)sched_run_ns(&V[0], T) / (double)T;
		assert_true(share0 < cap + 1 && share0 > cap - 1);
		assert_true(V[0].c.parks > 0);
		assert_true(V[0].c.unparks > 0);
		assert_int_equal(V[0].c.boosts, 0);
		assert_int_equal(V[1].c.parks, 0);
	}
}

/* 3.0.4:968 lower bound -300 (one slice); 3.0.4:993 above +300 the vCPU leaves the
 * active list with its credit reset to 0 (and earns nothing until a tick catches it). */
static void test_credit_clipped_to_one_slice(void **st)
{
	(void)st;
	uint32_t w[3] = {256, 256, 65535};
	setup(1, 3, w, NULL);
	start_all(3);
	for (uint64_t t = 30 * MS; t < 3000 * MS; t += 30 * MS) {
		run_to(t);
		for (unsigned i = 0; i < 3; i++)
			assert_true(credit(i) >= -300 && credit(i) <= 300);
	}
	/* The heavy one is never OVER for long; the light ones sit at the bound. */
	assert_true(credit(0) >= -300 && credit(1) >= -300);
	/* A sleeper that earned beyond a slice is inactive with credit 0. */
	unsigned heavy = 2;
	kick(sched_sleep(&S, &V[heavy], T));
	pick(0);
	run_to(T + 300 * MS);
	assert_int_equal(credit(heavy), 0);
	assert_true(c1_list_empty(&C1V(&V[heavy])->active_elem));
}

/* 3.0.4:272 __runq_insert: by priority, FIFO within one (seeded insertion sequences). */
static void test_runq_order(void **st)
{
	(void)st;
	setup(1, 9, NULL, NULL);
	for (unsigned round = 0; round < 20; round++) {
		for (unsigned i = 0; i < 9; i++) {
			static const int p3[3] = {C1_PRI_BOOST, C1_PRI_UNDER, C1_PRI_OVER};
			c1_set_pri(C1V(&V[i]), p3[rnd(3)]);
			c1_runq_insert(&S, 0, &V[i]);
		}
		struct c1_list *rq = &C1P(&S, 0)->runq;
		int last_pri = 1;
		for (struct c1_list *e = rq->next; e != rq; e = e->next) {
			struct c1_vcpu *cv = c1_runq_entry(e);
			assert_true(cv->pri <= last_pri);
			/* FIFO within a priority: insertion order is V order here. */
			if (cv->pri == last_pri)
				assert_true(c1_runq_entry(e->prev)->v < cv->v);
			last_pri = cv->pri;
		}
		for (unsigned i = 0; i < 9; i++)
			c1_runq_remove(&S, &V[i]);
		assert_int_equal(S.pcpu[0].nr_queued, 0);
	}
}

/* 3.0.4:298 __runq_tickle: a boosted wake signals its busy pCPU; an UNDER wake behind an
 * UNDER vCPU does not, but the idle pCPUs of its affinity are signalled and the idle one
 * steals it (3.0.4:1093 csched_load_balance, 3.0.4:1047 csched_runq_steal). */
static void test_tickle_and_idle_steal(void **st)
{
	(void)st;
	int pin[3] = {0, -1, -1};
	setup(2, 3, NULL, pin);
	/* V0 runs on pCPU 0; V1 and V2 were placed on the least loaded pCPU 1 (then 0). */
	kick(sched_wake(&S, &V[0], 0, WAKE_NEW));
	pick(0);
	pick(1);
	assert_ptr_equal(S.pcpu[0].curr, &V[0]);
	assert_null(S.pcpu[1].curr);
	/* V2 (UNDER, WAKE_NEW) queued on busy pCPU 0: no kick for 0, the idler 1 is. */
	assert_int_equal(V[2].pcpu, 0); /* least loaded placement: 0, 1, 0 */
	sched_cpumask_t k = sched_wake(&S, &V[2], MS, WAKE_NEW);
	assert_true(cpumask_equal(k, cpumask_of(1)));
	T = MS;
	kick(k);
	assert_ptr_equal(S.pcpu[1].curr, &V[2]); /* stolen */
	assert_int_equal(V[2].pcpu, 1);
	assert_int_equal(V[2].c.migrations, 1);
	/* V1 sleeps on pCPU 1's list... wake it boosted on pCPU 1: kicks pCPU 1 only. */
	k = sched_wake(&S, &V[1], 2 * MS, WAKE_EVENT);
	assert_int_equal(pri(1), C1_PRI_BOOST);
	assert_true(cpumask_test(k, V[1].pcpu));
}

/* 3.0.4:1076 __csched_vcpu_is_migrateable: an idle pCPU never steals a vCPU whose
 * affinity excludes it; and it steals only from busy peers (3.0.4:1059, 1112). */
static void test_steal_respects_affinity(void **st)
{
	(void)st;
	int pin[3] = {0, 0, 0};
	setup(2, 3, NULL, pin);
	start_all(3);
	run_to(300 * MS);
	assert_null(S.pcpu[1].curr);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(V[i].pcpu, 0);
	/* Unpin one: the next steal moves it. */
	kick(sched_set_affinity(&S, &V[1], cpumask_none(), T));
	kick(sched_take_kicks(&S));
	run_to(T + 200 * MS);
	assert_int_equal(V[1].pcpu, 1);
}

/* 3.0.4:1182: a pCPU whose best local vCPU is OVER looks for better work at its busy
 * peers: four equal spinners on two pCPUs end up with about half a pCPU each. */
static void test_over_pcpu_steals_under(void **st)
{
	(void)st;
	setup(2, 4, NULL, NULL); /* 2 vCPUs per pCPU, least loaded placement */
	start_all(4);
	run_to(3000 * MS);
	/* Two pCPUs, four equal spinners: each gets about half a pCPU, whoever steals. */
	for (unsigned i = 0; i < 4; i++) {
		double sh = (double)sched_run_ns(&V[i], T) / (double)T;
		assert_true(sh > 0.40 && sh < 0.60);
	}
}

/* credit1.tick_us/tslice_us/acct_us: 3.0.4's 10/30/30 ms by default, whole ticks only. */
static void test_config_keys(void **st)
{
	(void)st;
	setup(1, 1, NULL, NULL);
	struct c1_sched *c = C1S(&S);
	assert_int_equal(c->tick_ns, 10 * MS);
	assert_int_equal(c->tslice_ns, 30 * MS);
	assert_int_equal(c->acct_ns, 30 * MS);
	assert_int_equal(sched_config(&S, "credit1.tslice_us", "10000", 0), 0);
	assert_int_equal(c->credits_per_tslice, 100);
	assert_int_equal(sched_config(&S, "credit1.tslice_us", "15000", 0), -22);
	assert_int_equal(sched_config(&S, "credit1.tick_us", "abc", 0), -22);
	assert_int_equal(sched_config(&S, "credit1.acct_us", "60000", 0), 0);
	assert_int_equal(c->ticks_per_acct, 6);
	assert_int_equal(c->credit, 600);
	assert_int_equal(sched_config(&S, "credit1.nosuch", "1", 0), 1);
	assert_int_equal(c->tick_lag_ns, 0); /* an exact grid unless asked */
	assert_int_equal(sched_config(&S, "credit1.tick_lag_ns", "5000", 0), 0);
	assert_int_equal(c->tick_lag_ns, 5000);
	assert_int_equal(c->slop_ns, 0); /* no TIMER_SLOP unless asked */
	assert_int_equal(sched_config(&S, "credit1.timer_slop_ns", "2000000", 0), -22);
	assert_int_equal(sched_config(&S, "credit.tslice_us", "500", 0), 1); /* not ours */
	assert_int_equal(c->tslice_ns, 10 * MS);
}

/* schedule.c:659: the tick re-arms at NOW() + 10 ms after its handler, so with
 * credit1.tick_lag_ns = L tick n comes at n * 10 ms + (n - 1) * L: the accounting
 * (every third tick) moves with it. */
static void test_tick_lag_moves_the_ticks(void **st)
{
	(void)st;
	setup(1, 1, NULL, NULL);
	assert_int_equal(sched_config(&S, "credit1.tick_lag_ns", "7000", 0), 0);
	start_all(1);
	for (unsigned n = 1; n <= 30; n++) {
		uint64_t t = n * 10 * MS + (n - 1) * 7000; /* the first one armed at start */
		run_to(t - 1);
		int before = credit(0);
		run_to(t);
		int after = credit(0);
		if (n % 3)
			assert_int_equal(after, before - 100);
		else /* the accounting: alone, it earns the whole 300 back */
			assert_int_equal(after, before - 100 + 300);
	}
}

/* Xen's TIMER_SLOP (3.0.4 timer.c:28, :308): a tick due less than 50 us after a timer that
 * fires runs with it, before the schedule: a timer wake just before a tick has the tick
 * sample the vCPU still running (not the woken one) and re-arm from the wake. Seeded
 * distances 1..120 us before the tick, timer or event wakes; an event wake, a distance of
 * 50 us or more, or credit1.timer_slop_ns=0 (the default) leaves the tick where it was. */
static void test_timer_slop_runs_the_tick_with_a_timer_wake(void **st)
{
	(void)st;
	for (unsigned slop = 0; slop <= 50000; slop += 50000) {
		setup(1, 2, NULL, NULL);
		char b[16];
		snprintf(b, sizeof(b), "%u", slop);
		assert_int_equal(sched_config(&S, "credit1.timer_slop_ns", b, 0), 0);
		assert_int_equal(C1S(&S)->slop_ns, slop);
		start_all(2);
		unsigned o = (unsigned)(S.pcpu[0].curr - V), sp = 1 - o;
		kick(sched_sleep(&S, &V[o], T));
		pick(0);
		unsigned pulled = 0;
		for (unsigned k = 0; k < 300; k++) {
			struct c1_sched *c = C1S(&S);
			uint64_t nt = c->next_tick, d = 1 + rnd(120000), n = c->tick_n;
			unsigned flags = rnd(2) ? WAKE_TIMER : WAKE_EVENT;
			run_to(nt - d);
			assert_int_equal(c->next_tick, nt); /* no pick moved it */
			int cs = credit(sp), co = credit(o);
			kick(sched_wake(&S, &V[o], T, flags));
			bool due = slop && flags == WAKE_TIMER && d < slop;
			if (due) {
				pulled++;
				assert_int_equal(c->tick_n, n + 1);
				assert_int_equal(c->next_tick, T + 10 * MS);
				if (n % 3) { /* not the accounting: a pure sample */
					assert_int_equal(credit(sp), cs - 100);
					assert_int_equal(credit(o), co);
				}
			} else {
				assert_int_equal(c->tick_n, n);
				assert_int_equal(c->next_tick, nt);
			}
			run_to(T + d + 1 + rnd(5 * MS)); /* the woken one runs, then sleeps */
			kick(sched_sleep(&S, &V[o], T));
			pick(0);
		}
		if (slop)
			assert_true(pulled > 30); /* about 300 * 1/2 * 50/120 */
		else
			assert_int_equal(pulled, 0);
	}
}

/* Directed yield (issue 14; none in 3.0.4): the target runs next on its pCPU. */
static void test_yield_to_runs_target_next(void **st)
{
	(void)st;
	setup(1, 0, NULL, NULL);
	D[0].id = 1;
	for (unsigned i = 0; i < 3; i++) {
		V[i].dom = &D[0];
		V[i].id = i;
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	}
	start_all(3);
	struct sched_vcpu *v = S.pcpu[0].curr;
	struct sched_vcpu *t = c1_runq_entry(C1P(&S, 0)->runq.prev)->v; /* queued last */
	assert_ptr_not_equal(t, v);
	S.p.ple = SCHED_PLE_DIRECTED;
	sched_cpumask_t k = S.ops->yield_to(&S, v, t, MS);
	assert_true(cpumask_empty(k));
	T = MS;
	pick(0);
	assert_ptr_equal(S.pcpu[0].curr, t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tick_burns_100_of_the_running_vcpu),
		cmocka_unit_test(test_sampling_misses_a_vcpu_between_ticks),
		cmocka_unit_test(test_boost_only_when_under),
		cmocka_unit_test(test_migration_wake_not_boosted),
		cmocka_unit_test(test_boost_ends_at_the_tick_no_ratelimit),
		cmocka_unit_test(test_slice_is_30ms),
		cmocka_unit_test(test_weights_give_shares),
		cmocka_unit_test(test_cap_parks_and_unparks),
		cmocka_unit_test(test_credit_clipped_to_one_slice),
		cmocka_unit_test(test_runq_order),
		cmocka_unit_test(test_tickle_and_idle_steal),
		cmocka_unit_test(test_steal_respects_affinity),
		cmocka_unit_test(test_over_pcpu_steals_under),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_tick_lag_moves_the_ticks),
		cmocka_unit_test(test_timer_slop_runs_the_tick_with_a_timer_wake),
		cmocka_unit_test(test_yield_to_runs_target_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
