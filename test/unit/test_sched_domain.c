/* Unit tests of the credit policy on several pCPUs: the domain as the unit of weight (its
 * weight split among its earning vCPUs) and balancing between busy pCPUs. Each test drives
 * the ops directly with explicit times, the way the core does: a pCPU calls pick_next at
 * its run_until and at once when it is kicked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/credit_priv.h" /* white box: credit's private state (cv, cd, cpc, cs) */
#include "sched/sched.h"

#define US    1000ull
#define MS    1000000ull
#define EW(w) ((uint64_t)(w) << 16) /* a weight in the policy's split units */

static struct sched S;
static struct sched_dom D[8];
static struct sched_vcpu V[16];
static uint64_t T[SCHED_MAX_PCPUS]; /* next pick_next of each pCPU */

/* Domains with nv[i] vCPUs each, `pcpus` pCPUs, vCPU n pinned to aff[n] (NULL or 0: all);
 * returns the vCPU count. */
static unsigned setup_aff(unsigned pcpus, unsigned ndoms, const unsigned *nv,
			  const sched_cpumask_t *aff)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	unsigned n = 0;
	for (unsigned i = 0; i < ndoms; i++) {
		D[i].id = i + 1;
		for (unsigned k = 0; k < nv[i]; k++, n++) {
			V[n].dom = &D[i];
			V[n].id = k;
			V[n].affinity = aff ? aff[n] : cpumask_none();
			assert_int_equal(sched_vcpu_insert(&S, &V[n], 0), 0);
		}
	}
	for (unsigned p = 0; p < pcpus; p++)
		T[p] = 0;
	return n;
}

static unsigned setup(unsigned pcpus, unsigned ndoms, const unsigned *nv)
{
	return setup_aff(pcpus, ndoms, nv, NULL);
}

static void kick(sched_cpumask_t m, uint64_t now)
{
	for (unsigned p = 0; p < S.nr_pcpus; p++)
		if (cpumask_test(m, p))
			T[p] = now;
}

/* Runs every pCPU until `end` (pick_next at each run_until and at each kick). */
static void run_all(uint64_t end)
{
	for (;;) {
		unsigned p = 0;
		for (unsigned q = 1; q < S.nr_pcpus; q++)
			if (T[q] < T[p])
				p = q;
		uint64_t now = T[p];
		if (now >= end)
			break;
		struct sched_pick pk = sched_pick_next(&S, p, now);
		T[p] = pk.run_until;
		kick(pk.kick, now);
	}
	for (unsigned p = 0; p < S.nr_pcpus; p++) {
		sched_pick_next(&S, p, end); /* charge up to end */
		T[p] = end;
	}
}

static uint64_t w_active_sum(void)
{
	uint64_t w = 0;
	for (unsigned p = 0; p < S.nr_pcpus; p++)
		w += cpc(&S.pcpu[p])->w_active;
	return w;
}

static void assert_near(uint64_t got, uint64_t want, uint64_t tol)
{
	if (got + tol < want || got > want + tol)
		fail_msg("got %llu, want %llu +- %llu", (unsigned long long)got,
			 (unsigned long long)want, (unsigned long long)tol);
}

/* On one pCPU a 2-vCPU domain and a 1-vCPU domain of equal weight get half each. */
static void test_domain_weight_shared_one_pcpu(void **st)
{
	(void)st;
	const unsigned nv[] = {2, 1};
	unsigned n = setup(1, 2, nv);
	for (unsigned i = 0; i < n; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	assert_int_equal(cv(&V[0])->w_acct + cv(&V[1])->w_acct, EW(256));
	assert_int_equal(cv(&V[2])->w_acct, EW(256));
	assert_int_equal(cd(&D[0])->nr_earn, 2);
	run_all(1000 * MS);
	assert_int_equal(D[0].c.run_ns + D[1].c.run_ns, 1000 * MS);
	assert_near(D[0].c.run_ns, 500 * MS, 2 * MS);
	assert_near(V[0].c.run_ns, 250 * MS, 2 * MS);
}

/* The parts add up to exactly the domain weight (remainder handed out), they follow the
 * number of earning vCPUs, and a weight change re-splits. */
static void test_split_exact_and_follows_earners(void **st)
{
	(void)st;
	const unsigned nv[] = {3};
	setup(1, 1, nv);
	D[0].weight = 100;
	for (unsigned i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	assert_int_equal(cv(&V[0])->w_acct + cv(&V[1])->w_acct + cv(&V[2])->w_acct, EW(100));
	assert_true((int64_t)cv(&V[0])->w_acct - (int64_t)cv(&V[2])->w_acct <= 1);
	assert_true((int64_t)cv(&V[2])->w_acct - (int64_t)cv(&V[0])->w_acct <= 1);
	assert_int_equal(cpc(&S.pcpu[0])->w_active, EW(100));
	assert_int_equal(sched_set_params(&S, &D[0], 300, 0, 0), 0);
	assert_int_equal(cv(&V[0])->w_acct, EW(100));
	assert_int_equal(cpc(&S.pcpu[0])->w_active, EW(300));
	/* V2 blocks for longer than the bank: it retires and the other two share 300. */
	sched_pick_next(&S, 0, 0);
	struct sched_vcpu *cur = S.pcpu[0].curr;
	sched_sleep(&S, cur, 1 * MS);
	sched_pick_next(&S, 0, 1 * MS);
	run_all(200 * MS);
	assert_int_equal(cv(cur)->w_acct, 0);
	assert_int_equal(cd(&D[0])->nr_earn, 2);
	assert_int_equal(w_active_sum(), EW(300));
	for (unsigned i = 0; i < 3; i++)
		if (&V[i] != cur)
			assert_int_equal(cv(&V[i])->w_acct, EW(150));
	/* It wakes: three parts again, still exact. */
	sched_wake(&S, cur, 200 * MS, WAKE_EVENT);
	assert_int_equal(w_active_sum(), EW(300));
	assert_int_equal(cd(&D[0])->nr_earn, 3);
}

/* d1's V0 on pCPU 0 and V1 on pCPU 1 beside d2's V2, all spinning for the first 10 ms. */
static void split_domain_10ms(void)
{
	const unsigned nv[] = {2, 1};
	const sched_cpumask_t aff[] = {cpumask_of(0), cpumask_of(1), cpumask_of(1)};
	setup_aff(2, 2, nv, aff);
	for (unsigned i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	run_all(10 * MS);
}

/* The retirement of a sleeper of a multi-vCPU domain changes the split on another pCPU, so
 * its (busy) pCPU arms a timer for it rather than leaving it to chance; a 1-vCPU domain's
 * sleeper needs none (tickless). */
static void test_multi_vcpu_sleeper_retires_on_time(void **st)
{
	(void)st;
	split_domain_10ms();
	sched_sleep(&S, &V[1], 10 * MS); /* V1 blocks on pCPU 1, where V2 goes on */
	struct sched_pick pk = sched_pick_next(&S, 1, 10 * MS);
	assert_ptr_equal(pk.vcpu, &V[2]);
	assert_true(pk.run_until != SCHED_NEVER);
	/* The clock of pCPU 1 reaches V1's bank one period (50 ms) after its lag was zero. */
	assert_true(pk.run_until > 10 * MS && pk.run_until <= 61 * MS);
	assert_int_equal(cv(&V[0])->w_acct, EW(128));
	sched_pick_next(&S, 1, pk.run_until);
	assert_int_equal(cv(&V[1])->w_acct, 0);
	assert_int_equal(cv(&V[0])->w_acct, EW(256)); /* V0 now carries the whole domain weight */
	assert_int_equal(cpc(&S.pcpu[0])->w_active, EW(256));
	pk = sched_pick_next(&S, 1, pk.run_until + 1);
	assert_true(pk.run_until == SCHED_NEVER); /* V2 alone: no timer */
}

/* A pCPU that goes idle retires its sleepers at once, each with the lag it has (invariant
 * 3): credit a pCPU hands out while it idles is taken from no one, and sleepers that all
 * reached the bank that way would come back equal, whatever they ran before. The clock
 * then stands still, and a sleeper retired so wakes with that lag, even after another vCPU
 * has run there meanwhile (sched-fuzz seed 293: two wall-clock duty guests on one pCPU,
 * the one that woke first won every time: 7.4% and 58.5% for 50 each). */
static void test_idle_pcpu_retires_sleepers_with_their_lag(void **st)
{
	(void)st;
	split_domain_10ms();
	/* On pCPU 1, V1 (half of d1, 128) and V2 (d2, 256): both block. */
	sched_sleep(&S, &V[1], 10 * MS);
	run_all(14 * MS);
	sched_sleep(&S, &V[2], 14 * MS);
	int64_t c1 = cr_vcredit(&S, &V[1]), c2 = cr_vcredit(&S, &V[2]);
	struct sched_pick pk = sched_pick_next(&S, 1, 14 * MS);
	assert_null(pk.vcpu);
	assert_true(pk.run_until == SCHED_NEVER); /* nothing to retire later: no timer */
	assert_int_equal(cv(&V[1])->w_acct, 0);
	assert_int_equal(cv(&V[2])->w_acct, 0);
	assert_int_equal(cpc(&S.pcpu[1])->w_active, 0);
	assert_int_equal(cv(&V[0])->w_acct, EW(256)); /* at once, not a bank later */
	/* 1 s later V2 wakes and runs 30 ms alone; V1, retired, earns none of it. */
	sched_wake(&S, &V[2], 1014 * MS, WAKE_EVENT);
	assert_true(cr_vcredit(&S, &V[2]) >= c2 - 1 && cr_vcredit(&S, &V[2]) <= c2 + 1);
	T[1] = 1014 * MS;
	run_all(1044 * MS);
	sched_sleep(&S, &V[2], 1044 * MS);
	sched_pick_next(&S, 1, 1044 * MS);
	sched_wake(&S, &V[1], 1050 * MS, WAKE_EVENT);
	assert_true(cr_vcredit(&S, &V[1]) >= c1 - 1 && cr_vcredit(&S, &V[1]) <= c1 + 1);
}

/* When a domain's split changes, an earning vCPU's boost budget keeps its value in ns (the
 * lag V - bvt rescaled by old / new weight). Kept in virtual time, a debt would scale by
 * new / old: the last awake vCPU of a 22-vCPU echo domain owed 22 times the debt its
 * boosted runs had left, waited seconds and answered no ping (sched-fuzz seed 1008). */
static void test_split_change_keeps_boost_budget_in_ns(void **st)
{
	(void)st;
	split_domain_10ms();
	/* V1 (half of d1, 128, on pCPU 1) has taken 2 ms of boost ahead of its budget. */
	struct cr_vcpu *c = cv(&V[1]);
	c->bvt = cpc(&S.pcpu[1])->vclock + cr_ns_to_vt(2 * MS, c->w_acct);
	int64_t b = cr_boost_budget(&S, &V[1]);
	assert_true(b <= -2 * (int64_t)MS + 1 && b >= -2 * (int64_t)MS - 1);
	/* V0 blocks on pCPU 0, which idles and retires it: V1 carries the whole domain. */
	sched_sleep(&S, &V[0], 10 * MS);
	sched_pick_next(&S, 0, 10 * MS);
	assert_int_equal(c->w_acct, EW(256));
	assert_true(cr_boost_budget(&S, &V[1]) >= b - 2 && cr_boost_budget(&S, &V[1]) <= b + 2);
	/* V0 wakes: half again, the same debt. */
	sched_wake(&S, &V[0], 10 * MS, WAKE_EVENT);
	assert_int_equal(c->w_acct, EW(128));
	assert_true(cr_boost_budget(&S, &V[1]) >= b - 4 && cr_boost_budget(&S, &V[1]) <= b + 4);
}

/* A 2-vCPU and a 1-vCPU domain of equal weight on 2 pCPUs: one pCPU each, and once the
 * balance is found nothing moves any more. */
static void test_domain_weight_two_pcpus_settles(void **st)
{
	(void)st;
	const unsigned nv[] = {2, 1};
	unsigned n = setup(2, 2, nv);
	for (unsigned i = 0; i < n; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	run_all(1000 * MS);
	uint64_t moves = D[0].c.migrations + D[1].c.migrations;
	assert_true(moves <= 3);
	run_all(10000 * MS);
	assert_int_equal(D[0].c.migrations + D[1].c.migrations, moves);
	assert_near(D[0].c.run_ns, 10000 * MS, 100 * MS);
	assert_near(D[1].c.run_ns, 10000 * MS, 100 * MS);
	assert_int_equal(D[0].c.run_ns + D[1].c.run_ns, 20000 * MS);
}

/* 5 spinners on 2 pCPUs: 40% each (not 33/50), bounded migrations, never boosted. */
static void test_balance_five_spinners(void **st)
{
	(void)st;
	const unsigned nv[] = {1, 1, 1, 1, 1};
	setup(2, 5, nv);
	for (unsigned i = 0; i < 5; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	run_all(10000 * MS);
	for (unsigned i = 0; i < 5; i++) {
		assert_near(V[i].c.run_ns, 4000 * MS, 100 * MS); /* 1 point of one pCPU */
		assert_true(V[i].c.migrations <= 250); /* balance_hold alone allows 1000 */
		assert_int_equal(V[i].c.boosts, 0);
	}
	/* Without balancing between busy pCPUs the split is 3/2. */
	setup(2, 5, nv);
	assert_int_equal(sched_config(&S, "credit.balance_gap_us", "0", 0), 0);
	for (unsigned i = 0; i < 5; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	run_all(1000 * MS);
	unsigned low = 0;
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(V[i].c.migrations, 0);
		low += V[i].c.run_ns < 340 * MS;
	}
	assert_int_equal(low, 3);
}

/* Balancing respects affinity, waits balance_hold before moving a vCPU again, and keeps
 * the moved vCPU's credit and priority (no boost for moving). */
static void test_balance_affinity_and_hold(void **st)
{
	(void)st;
	const unsigned nv[] = {1, 1, 1, 1, 1};
	/* Three pinned to pCPU 0, one to pCPU 1, V4 anywhere: the only one balancing may move. */
	const sched_cpumask_t aff[] = {cpumask_of(0), cpumask_of(0), cpumask_of(0), cpumask_of(1),
				       cpumask_none()};
	setup_aff(2, 5, nv, aff);
	for (unsigned i = 0; i < 5; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	uint64_t last_move = 0, last_count = 0, min_gap = UINT64_MAX;
	for (uint64_t t = 1 * MS; t <= 2000 * MS; t += 1 * MS) {
		run_all(t);
		if (V[4].c.migrations != last_count) {
			if (last_count && t - last_move < min_gap)
				min_gap = t - last_move;
			last_count = V[4].c.migrations;
			last_move = t;
		}
	}
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(V[i].c.migrations, 0);
		assert_int_equal(V[i].pcpu, i < 3 ? 0 : 1);
	}
	assert_int_equal(V[4].c.boosts, 0);
	assert_true(min_gap == UINT64_MAX || min_gap + 1 * MS >= cs(&S)->p.balance_hold_ns);
	/* Fair: pCPU 0's three share it (33%), V3 and V4 share pCPU 1 with V4 kept there. */
	assert_near(V[3].c.run_ns, 1000 * MS, 30 * MS);
	assert_near(V[4].c.run_ns, 1000 * MS, 30 * MS);
}

/* A vCPU that may go where the queue head and the vCPU just descheduled may not is moved
 * in their stead (a stand-in), though it is never the balancing candidate itself. pCPUs 0
 * and 1 each hold two vCPUs allowed only on 0-1 and one allowed on 0-2 that stands behind
 * them in service per weight (gvt), as a vCPU that came from a slower pCPU does
 * (sim-beyond-64: a vCPU of hog9, allowed on 38-41, sat on pCPU 38 among hog8's and
 * hog15's for the whole run); pCPU 2 runs one pinned vCPU. Balanced between 0 and 1, the
 * candidates there never move, and without stand-ins the pinned one keeps pCPU 2 (100%)
 * while the other six get 33%. The ideal is 3/7 each (the narrow four take 171% of
 * pCPUs 0-1, the wide two the rest and pCPU 2 with the pinned one): the wide ones share
 * pCPU 2 by turns. */
static void test_balance_moves_a_stand_in_behind_narrow_heads(void **st)
{
	(void)st;
	const unsigned nv[] = {1, 1, 1, 1, 1, 1, 1};
	const sched_cpumask_t n01 = cpumask_from_u64(3), all = cpumask_from_u64(7);
	const sched_cpumask_t aff[] = {n01, n01, n01, n01, all, all, cpumask_of(2)};
	const unsigned home[] = {0, 0, 1, 1, 0, 1, 2};
	setup_aff(3, 7, nv, aff);
	for (unsigned i = 0; i < 7; i++) {
		sched_wake(&S, &V[i], 0, WAKE_NEW);
		cr_heap_del(&S, &V[i]);
		cr_transfer(&S, &V[i], home[i], 0);
		cr_enqueue(&S, &V[i]);
	}
	for (unsigned i = 4; i < 6; i++)
		cv(&V[i])->gvt -= cr_ns_to_vt(5 * MS, cv(&V[i])->w_acct);
	kick(cpumask_from_u64(7), 0);
	run_all(500 * MS);
	uint64_t run0[7];
	for (unsigned i = 0; i < 7; i++)
		run0[i] = V[i].c.run_ns;
	run_all(1500 * MS);
	for (unsigned i = 0; i < 7; i++)
		assert_near(V[i].c.run_ns - run0[i], 1000 * MS * 3 / 7, 30 * MS);
}

/* A wake that does not preempt a vCPU running alone (no timer armed) still makes its pCPU
 * re-decide, so the newcomer is not left waiting until the lone vCPU blocks. */
static void test_wake_next_to_lone_runner_arms_slice(void **st)
{
	(void)st;
	const unsigned nv[] = {1, 1};
	setup(1, 2, nv);
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	struct sched_pick pk = sched_pick_next(&S, 0, 0);
	assert_true(pk.run_until == SCHED_NEVER);
	sched_cpumask_t k = sched_wake(&S, &V[1], 5 * MS, WAKE_NEW);
	assert_true(cpumask_test(k, 0));
	pk = sched_pick_next(&S, 0, 5 * MS);
	assert_true(pk.run_until != SCHED_NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domain_weight_shared_one_pcpu),
		cmocka_unit_test(test_split_exact_and_follows_earners),
		cmocka_unit_test(test_multi_vcpu_sleeper_retires_on_time),
		cmocka_unit_test(test_idle_pcpu_retires_sleepers_with_their_lag),
		cmocka_unit_test(test_split_change_keeps_boost_budget_in_ns),
		cmocka_unit_test(test_domain_weight_two_pcpus_settles),
		cmocka_unit_test(test_balance_five_spinners),
		cmocka_unit_test(test_balance_affinity_and_hold),
		cmocka_unit_test(test_balance_moves_a_stand_in_behind_narrow_heads),
		cmocka_unit_test(test_wake_next_to_lone_runner_arms_slice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
