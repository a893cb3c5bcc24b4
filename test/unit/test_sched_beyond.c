/* Unit tests of the rules added for issue 10 (docs/scheduler.md, invariants 13 and 14),
 * pinned vCPUs and the movable ones beside them: a pinned queue never hides a movable vCPU
 * (stealing and hand-off to an idle pCPU, the idle/movable pCPU summaries agree with the
 * queues), a move beside pinned vCPUs is placed by service, a busy sleeper leaves a pinned
 * or narrow pCPU, a heavy vCPU between two pinned groups gets its share. Seeded random
 * drivers (test/unit/sched_drive.c), several seeds each. Weights, bank and balancing:
 * test_sched_beyond_share.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/credit_priv.h" /* white box: credit's private state (cv, cd, cpc, cs) */
#include "sched/sched.h"
#include "test/unit/sched_drive.h"

/* The affinity trap, randomized: pCPU 0 carries `pinned` spinners pinned to it,
 * a few movable spinners and duty vCPUs may run on 0-1 or anywhere, pCPU 1.. have duty
 * vCPUs pinned to them that leave them idle at random times. A movable vCPU queued behind
 * the pinned ones must be taken by any allowed pCPU that goes idle (the old code only
 * looked at the queue root and its first children, and kept running a movable vCPU on a
 * pCPU with a pinned queue while another allowed pCPU idled). */
static void test_no_idle_pcpu_while_movable_work_waits(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		rng_state = seed;
		unsigned pcpus = 2 + (unsigned)rnd(3), pinned = 8 + (unsigned)rnd(8), n = 0;
		unsigned duty[NV] = {0};
		assert_int_equal(sched_init(&S, pcpus), 0);
		memset(D, 0, sizeof(D));
		memset(V, 0, sizeof(V));
		D[0].id = 1; /* the pinned domain */
		for (unsigned k = 0; k < pinned; k++, n++) {
			V[n].dom = &D[0];
			V[n].id = k;
			V[n].affinity = cpumask_of(0);
		}
		for (unsigned i = 0; i < 3; i++, n++) { /* movable: spinners, then a duty one */
			D[n].id = n + 1;
			V[n].dom = &D[n];
			V[n].affinity =
				rnd(2) ? cpumask_or(cpumask_of(0), cpumask_of(1)) : cpumask_none();
			duty[n] = i == 2 ? 300 + (unsigned)rnd(3000) : 0;
		}
		for (unsigned p = 1; p < pcpus; p++, n++) { /* pinned duty vCPUs on 1.. */
			D[n].id = n + 1;
			V[n].dom = &D[n];
			V[n].affinity = cpumask_of(p);
			duty[n] = 200 + (unsigned)rnd(4000);
		}
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
			Wt[i] = SCHED_NEVER;
		}
		/* Everyone starts on pCPU 0's queue: the movable ones behind the pinned ones. */
		for (unsigned i = 0; i < n; i++) {
			kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
			Rt[i] = duty[i] * US;
		}
		for (unsigned p = 0; p < pcpus; p++)
			T[p] = 0;
		drive(300 * MS, duty, n);
		/* And the movable vCPUs were moved at all (they all started on pCPU 0). */
		uint64_t moves = 0;
		for (unsigned i = pinned; i < pinned + 3; i++)
			moves += V[i].c.migrations;
		assert_true(moves > 0);
	}
}

/* The trap's rules, step by step. pCPU 0: four spinners pinned to it; a movable vCPU M
 * runs there. pCPU 1 goes idle: it pulls M (M's pCPU is kicked, M moves at its next
 * decision, pCPU 1 runs it). Then M's neighbour E (movable, last on pCPU 0, blocked) wakes
 * with M running alone on pCPU 1: E goes there, beside the lone runner, not behind the
 * pinned queue (no heavier than pCPU 0: 256 + 256 <= 256 + 256). */
static void test_pinned_queue_pull_and_wake_placement(void **st)
{
	(void)st;
	assert_int_equal(sched_init(&S, 2), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	D[0].id = 1; /* the pinned domain, four vCPUs */
	for (unsigned k = 0; k < 4; k++) {
		V[k].dom = &D[0];
		V[k].id = k;
		V[k].affinity = cpumask_of(0);
	}
	D[1].id = 2; /* M */
	V[4].dom = &D[1];
	V[4].affinity = cpumask_of(0);
	D[2].id = 3; /* E */
	V[5].dom = &D[2];
	V[5].affinity = cpumask_of(0);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	for (unsigned i = 0; i < 6; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	uint64_t t = 0;
	while (sched_pick_next(&S, 0, t).vcpu != &V[4])
		t += MS;
	sched_sleep(&S, &V[5], t);			  /* E blocks on pCPU 0 */
	sched_set_affinity(&S, &V[4], cpumask_none(), t); /* now both may run anywhere */
	sched_set_affinity(&S, &V[5], cpumask_none(), t);
	struct sched_pick pk = sched_pick_next(&S, 1, t);
	assert_null(pk.vcpu);
	assert_true(cpumask_test(pk.kick, 0)); /* pull M */
	pk = sched_pick_next(&S, 0, t);
	assert_ptr_not_equal(pk.vcpu, &V[4]);
	assert_int_equal(V[4].pcpu, 1);
	assert_true(cpumask_test(pk.kick, 1));
	assert_ptr_equal(sched_pick_next(&S, 1, t).vcpu, &V[4]);
	assert_int_equal(V[4].c.boosts, 0); /* moving is not an event */
	/* E wakes: pCPU 0 has pinned vCPUs waiting, pCPU 1 runs M alone. */
	sched_cpumask_t k = sched_wake(&S, &V[5], t + MS, WAKE_EVENT);
	assert_int_equal(V[5].pcpu, 1);
	assert_true(cpumask_test(k, 1));
}

/* The affinity trap's move, step by step. pCPU 0: P0, P1 pinned (one domain). pCPU 1: F
 * runs alone for 40 ms beside E, asleep under its bank: F ran all of pCPU 1 while earning
 * half of it, so it stands 20 ms of credit in debt there, a debt to E. E wakes (event) and
 * preempts F; F, queued, is moved to pCPU 0 (affinity). Its service per weight equals the
 * pinned vCPUs' (each ran 20 ms at half the weight), so F must not carry pCPU 1's debt
 * beside them: it runs within a few slices. The old code kept its lag (20 ms behind V of
 * pCPU 0): the pinned vCPUs ran 40 ms before it (in the affinity trap: pinned 89.3% and
 * the free spinner 75.7% for 82.45% each). Nor may a move hand out credit: F's lag after
 * the move is never above zero. */
static void test_trap_move_beside_pinned_by_service(void **st)
{
	(void)st;
	unsigned duty[NV] = {0};
	assert_int_equal(sched_init(&S, 2), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	for (unsigned i = 0; i < 4; i++) {
		unsigned d = i < 2 ? 0 : i - 1;
		D[d].id = d + 1;
		V[i].dom = &D[d];
		V[i].id = i < 2 ? i : 0;
		V[i].affinity = cpumask_of(i < 2 ? 0 : 1);
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
		Wt[i] = SCHED_NEVER;
	}
	struct sched_vcpu *F = &V[2], *E = &V[3];
	for (unsigned i = 0; i < 4; i++)
		kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
	sched_sleep(&S, E, 0);
	T[0] = T[1] = 0;
	drive(40 * MS, duty, 4);
	assert_int_equal(F->pcpu, 1);
	assert_true((int64_t)(cpc(&S.pcpu[1])->vclock - cv(F)->vtime) < 0); /* in debt there */
	kick(sched_wake(&S, E, 40 * MS, WAKE_EVENT), 40 * MS);
	drive(40 * MS + 10 * US, duty, 4);
	assert_int_equal(F->state, SCHED_VS_RUNNABLE);
	kick(sched_set_affinity(&S, F, cpumask_of(0), 40 * MS + 10 * US), 40 * MS + 10 * US);
	assert_int_equal(F->pcpu, 0);
	assert_true((int64_t)(cpc(&S.pcpu[0])->vclock - cv(F)->vtime) <= 0);
	uint64_t ran = sched_run_ns(F, 40 * MS + 10 * US);
	drive(45 * MS, duty, 4);
	if (sched_run_ns(F, 45 * MS) == ran)
		fail_msg("F waited 5 ms behind the pinned vCPUs");
}

/* A movable vCPU that uses a sixteenth of its time or more sleeps off a pinned pCPU whose
 * pinned queue is behind (cr_sleep_off_narrow): pCPU 0 carries the three spinners of a
 * domain pinned to it (weight 1024), pCPU 1 two spinners of weight 128 allowed on 0-1,
 * and E (weight 4096), allowed on 0-1 and started on 0, runs 20 us per wake and sleeps
 * 1-40 us (half of its time). A wake places a vCPU on its own pCPU first and pCPU 1 always
 * has one queued, so without the rule E came back to 0 at every wake and held 50% of it,
 * the pinned domain's, which may run nowhere else (entitled to all of pCPU 0). Sleeping
 * 100 times longer (1% of its time) E takes next to nothing from it and stays. */
static void test_busy_sleeper_leaves_the_pinned_pcpu(void **st)
{
	(void)st;
	for (unsigned slow = 1; slow <= 100; slow += 99) {
		unsigned duty[NV] = {0};
		assert_int_equal(sched_init(&S, 2), 0);
		memset(D, 0, sizeof(D));
		memset(V, 0, sizeof(V));
		rng_state = 7;
		/* V0-V2: the pinned domain; V3, V4: spinners H1, H2; V5: E. */
		for (unsigned i = 0; i < 6; i++) {
			unsigned d = i < 3 ? 0 : i - 2;
			uint32_t w = d == 3 ? 4096 : d ? 128 : 1024; /* E : H : the pinned */
			start_vcpu(i, d, w, i < 3 ? i : 0, cpumask_of(i < 3 || i == 5 ? 0 : 1));
		}
		for (unsigned i = 3; i < 6; i++)
			sched_set_affinity(&S, &V[i], cpumask_or(cpumask_of(0), cpumask_of(1)), 0);
		duty[5] = 20;
		Rt[5] = duty[5] * US;
		Slow[5] = slow;
		T[0] = T[1] = 0;
		drive(100 * MS, duty, 6);
		uint64_t before = 0, after = 0;
		for (unsigned i = 0; i < 3; i++)
			before += sched_run_ns(&V[i], 100 * MS);
		drive(300 * MS, duty, 6);
		for (unsigned i = 0; i < 3; i++)
			after += sched_run_ns(&V[i], 300 * MS);
		double pinned = (double)(after - before) / (200 * MS);
		printf("E asleep %ux: pinned domain %.1f%% of pCPU 0, E on pCPU %u, moved %llu "
		       "times\n",
		       slow, 100 * pinned, V[5].pcpu, (unsigned long long)V[5].c.migrations);
		assert_true(pinned > (slow == 1 ? 0.97 : 0.95));
		if (slow > 1) /* E stays beside the pinned queue */
			assert_int_equal(V[5].c.migrations, 0);
		Slow[5] = 0;
	}
}

/* The same beside a narrow domain (cr_sleep_off_narrow): N, four spinners of a domain
 * allowed on pCPUs 0-1 (weight 1024, entitled to both), two spinners of weight 128 on
 * pCPU 2, then allowed on 0-2, and E (weight 4096), allowed on 0-2 and started on 0,
 * running 20 us per wake and sleeping 1-40 us. Without the rule E came back to 0 at every
 * wake (0 and 2 always have a vCPU queued) and took 50% of pCPU 0 from N; with it E
 * sleeps on pCPU 2, the only one of its pCPUs that N may not use. */
static void test_busy_sleeper_leaves_narrow_waiters(void **st)
{
	(void)st;
	unsigned duty[NV] = {0};
	assert_int_equal(sched_init(&S, 3), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	rng_state = 11;
	/* V0-V3: N; V4, V5: spinners H1, H2; V6: E. */
	for (unsigned i = 0; i < 7; i++) {
		unsigned d = i < 4 ? 0 : i - 3;
		uint32_t w = d == 3 ? 4096 : d ? 128 : 1024; /* E : H : N */
		unsigned p = i < 4 ? i % 2 : i == 6 ? 0 : 2;
		start_vcpu(i, d, w, i < 4 ? i : 0, cpumask_of(p));
	}
	for (unsigned i = 0; i < 7; i++)
		sched_set_affinity(&S, &V[i], cpumask_from_u64(i < 4 ? 3 : 7), 0);
	duty[6] = 20;
	Rt[6] = duty[6] * US;
	T[0] = T[1] = T[2] = 0;
	drive(100 * MS, duty, 7);
	uint64_t before = 0, after = 0;
	for (unsigned i = 0; i < 4; i++)
		before += sched_run_ns(&V[i], 100 * MS);
	drive(300 * MS, duty, 7);
	for (unsigned i = 0; i < 4; i++)
		after += sched_run_ns(&V[i], 300 * MS);
	double narrow = (double)(after - before) / (200 * MS);
	printf("narrow domain %.1f%% of pCPUs 0-1 (of 200), E on pCPU %u, moved %llu times\n",
	       100 * narrow, V[6].pcpu, (unsigned long long)V[6].c.migrations);
	assert_true(narrow > 1.95);
	assert_int_equal(V[6].pcpu, 2);
}

/* One heavy movable vCPU between two pinned groups (sim-beyond-heavy, ahead_of_pinned):
 * 7 spinners of a domain pinned to pCPU 0 and 3 of one pinned to pCPU 1 (weight 256
 * each), and H, one spinner of weight 468 allowed on both. The weighted max-min ideal
 * gives H 95.5% (2 * 468 / 980) and each group 52.2%; placed by its lag at each balancing
 * move, H got its weight's part of whichever pCPU it was on, 64.6%. */
static void test_heavy_vcpu_between_pinned_groups(void **st)
{
	(void)st;
	unsigned duty[NV] = {0};
	assert_int_equal(sched_init(&S, 2), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	rng_state = 3;
	/* V0-V6: pinned to 0; V7: H; V8-V10: pinned to 1. */
	for (unsigned i = 0; i < 11; i++) {
		unsigned d = i < 7 ? 0 : i == 7 ? 1 : 2;
		start_vcpu(i, d, d == 1 ? 468 : 256,
			   i < 7    ? i
			   : i == 7 ? 0
				    : i - 8,
			   cpumask_from_u64(d == 1   ? 3
					    : d == 0 ? 1
						     : 2));
	}
	T[0] = T[1] = 0;
	drive(500 * MS, duty, 11);
	uint64_t before = sched_run_ns(&V[7], 500 * MS);
	drive(2500 * MS, duty, 11);
	double h = (double)(sched_run_ns(&V[7], 2500 * MS) - before) / (2000 * MS);
	printf("heavy vCPU %.1f%% (ideal 95.5), moved %llu times\n", 100 * h,
	       (unsigned long long)V[7].c.migrations);
	assert_true(h > 0.93);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_idle_pcpu_while_movable_work_waits),
		cmocka_unit_test(test_pinned_queue_pull_and_wake_placement),
		cmocka_unit_test(test_trap_move_beside_pinned_by_service),
		cmocka_unit_test(test_busy_sleeper_leaves_the_pinned_pcpu),
		cmocka_unit_test(test_busy_sleeper_leaves_narrow_waiters),
		cmocka_unit_test(test_heavy_vcpu_between_pinned_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
