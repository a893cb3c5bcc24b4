/* Unit tests of the directed yield on a PAUSE-loop exit (sched/yield_to.c): the candidate
 * choice (round-robin after the last boosted vCPU, index 0 included, runnable only, no
 * vCPU that just spun), that the target runs next, and that shares stay exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"

#define MS 1000000ull

static struct sched S;
static struct sched_dom D[4];
static struct sched_vcpu V[16];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Domain 0 gets vCPUs [0, n) with ids 0..n-1, vCPU i pinned to pCPU i % pcpus. */
static void setup(unsigned pcpus, unsigned n, const char *ple)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	assert_int_equal(sched_config(&S, "sched.ple", ple, 0), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	D[0].id = 1;
	for (unsigned i = 0; i < n; i++) {
		V[i].dom = &D[0];
		V[i].id = i;
		V[i].affinity = cpumask_of(i % pcpus);
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	}
}

/* The reference: classes (did not spin; spun, on the spinner's pCPU; spun, elsewhere),
 * best first; within one, ids last+1, last+2, ... modulo n, the first runnable one. */
static struct sched_vcpu *reference(unsigned n, const struct sched_vcpu *spinner)
{
	for (unsigned cl = 0; cl < 3; cl++)
		for (unsigned k = 1; k <= n; k++) {
			struct sched_vcpu *t = &V[(D[0].last_boosted + k) % n];
			unsigned tcl = !t->in_spin_loop ? 0 : t->pcpu == spinner->pcpu ? 1 : 2;
			if (t != spinner && t->state == SCHED_VS_RUNNABLE && tcl == cl)
				return t;
		}
	return NULL;
}

static void test_bad_mode_rejected(void **st)
{
	(void)st;
	assert_int_equal(sched_init(&S, 1), 0);
	assert_int_equal(sched_config(&S, "sched.ple", "sometimes", 0), -22);
	assert_int_equal(S.p.ple, SCHED_PLE_OFF);
	assert_int_equal(sched_config(&S, "sched.ple", "yield", 0), 0);
	assert_int_equal(S.p.ple, SCHED_PLE_YIELD);
}

/* last_boosted = 0 (the start, and after vCPU 0 was boosted): vCPU 0 is the last choice,
 * not the first (the 2012 KVM bug), and the choice cycles 1, 2, 3, 0-skipped... */
static void test_wraparound_at_zero(void **st)
{
	(void)st;
	setup(1, 4, "directed");
	for (unsigned i = 0; i < 4; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	struct sched_pick pk = sched_pick_next(&S, 0, 0);
	struct sched_vcpu *spinner = pk.vcpu;
	assert_non_null(spinner);
	/* Whoever runs, with last_boosted 0 the first candidate is id 1 (or 2 if 1 spins). */
	D[0].last_boosted = 0;
	struct sched_vcpu *c = sched_yield_candidate(&S, spinner);
	assert_ptr_equal(c, spinner == &V[1] ? &V[2] : &V[1]);
	/* Round-robin over the sequence of directed yields: each target runs next. */
	uint64_t t = 1 * MS;
	unsigned seen[4] = {0};
	for (unsigned k = 0; k < 12; k++) {
		struct sched_vcpu *run = S.pcpu[0].curr;
		for (unsigned i = 0; i < 4; i++)
			V[i].in_spin_loop = false; /* the round-robin itself is under test here */
		struct sched_vcpu *want = reference(4, run);
		assert_non_null(want);
		sched_pause_loop(&S, run, t);
		assert_int_equal(D[0].last_boosted, want->id);
		pk = sched_pick_next(&S, 0, t);
		assert_ptr_equal(pk.vcpu, want);
		seen[want->id]++;
		t += 100000;
	}
	for (unsigned i = 0; i < 4; i++)
		assert_true(seen[i] >= 2); /* everybody, vCPU 0 included, got its turn */
}

/* Seeded random domains: states made through the API (woken or not, running on one of
 * the pCPUs or queued, some marked as just spun), last_boosted anywhere: the choice is
 * the reference's. */
static void test_candidate_matches_reference(void **st)
{
	(void)st;
	for (unsigned iter = 0; iter < 2000; iter++) {
		unsigned pcpus = 1 + rnd(3), n = 1 + rnd(9);
		setup(pcpus, n, "directed");
		for (unsigned i = 0; i < n; i++)
			if (rnd(4))
				sched_wake(&S, &V[i], 0, WAKE_NEW);
		for (unsigned p = 0; p < pcpus; p++)
			sched_pick_next(&S, p, 1);
		for (unsigned i = 0; i < n; i++)
			V[i].in_spin_loop = rnd(3) == 0;
		D[0].last_boosted = rnd(n);
		for (unsigned i = 0; i < n; i++) {
			struct sched_vcpu *c = sched_yield_candidate(&S, &V[i]);
			assert_ptr_equal(c, reference(n, &V[i]));
			if (c) {
				assert_int_equal(c->state, SCHED_VS_RUNNABLE);
				assert_ptr_not_equal(c, &V[i]);
				/* One that spun only when every candidate spun. */
				for (unsigned j = 0; c->in_spin_loop && j < n; j++)
					assert_true(&V[j] == &V[i] ||
						    V[j].state != SCHED_VS_RUNNABLE ||
						    V[j].in_spin_loop);
			}
		}
	}
}

/* A single-vCPU domain has no candidate: the spinner goes on (no yield, as KVM). */
static void test_single_vcpu_plain_yield(void **st)
{
	(void)st;
	setup(1, 1, "directed");
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	assert_ptr_equal(sched_pick_next(&S, 0, 0).vcpu, &V[0]);
	assert_null(sched_yield_candidate(&S, &V[0]));
	assert_true(cpumask_empty(sched_pause_loop(&S, &V[0], MS)));
	assert_int_equal(V[0].c.yields, 0);
	assert_int_equal(V[0].c.yield_to, 0);
	assert_int_equal(V[0].c.pause_loops, 1);
	assert_true(V[0].in_spin_loop);
	assert_ptr_equal(sched_pick_next(&S, 0, MS).vcpu, &V[0]);
}

/* All siblings blocked or running: no candidate, the spinner goes on; with sched.ple=yield
 * every exit is a plain yield. */
static void test_all_blocked_or_running(void **st)
{
	(void)st;
	setup(2, 4, "directed");
	sched_wake(&S, &V[0], 0, WAKE_NEW); /* pCPU 0 */
	sched_wake(&S, &V[1], 0, WAKE_NEW); /* pCPU 1; V2, V3 stay blocked */
	assert_ptr_equal(sched_pick_next(&S, 0, 0).vcpu, &V[0]);
	assert_ptr_equal(sched_pick_next(&S, 1, 0).vcpu, &V[1]);
	for (unsigned i = 0; i < 2; i++)
		assert_null(sched_yield_candidate(&S, &V[i]));
	sched_pause_loop(&S, &V[0], MS);
	assert_int_equal(V[0].c.yields, 0);
	assert_int_equal(D[0].c.yield_to, 0);
	assert_int_equal(sched_config(&S, "sched.ple", "yield", MS), 0);
	sched_pause_loop(&S, &V[0], 2 * MS);
	assert_int_equal(V[0].c.yields, 1);
}

/* A vCPU that took a PAUSE-loop exit comes after every one that did not, until it has
 * run a full slice; when only such waiters are left and one is queued here, the spinner
 * makes a plain yield (the queue goes on in its order), not a directed one. */
static void test_skip_just_spun(void **st)
{
	(void)st;
	setup(1, 3, "directed");
	for (unsigned i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	struct sched_vcpu *a = sched_pick_next(&S, 0, 0).vcpu;
	D[0].last_boosted = a->id; /* next in line: a->id + 1 */
	struct sched_vcpu *b = &V[(a->id + 1) % 3], *c = &V[(a->id + 2) % 3];
	sched_pause_loop(&S, a, MS); /* a -> b */
	assert_int_equal(D[0].last_boosted, b->id);
	assert_ptr_equal(sched_pick_next(&S, 0, MS).vcpu, b);
	/* b spins: a (spun) is first in line after b, c did not spin: c. */
	assert_ptr_equal(sched_yield_candidate(&S, b), c);
	sched_pause_loop(&S, b, 2 * MS);
	assert_ptr_equal(sched_pick_next(&S, 0, 2 * MS).vcpu, c);
	assert_true(a->in_spin_loop && b->in_spin_loop);
	/* c spins: only waiters left, queued here: a plain yield, no directed one. */
	assert_ptr_equal(sched_yield_candidate(&S, c), a); /* after c in the order */
	uint64_t yields = c->c.yields, dir = D[0].c.yield_to;
	sched_pause_loop(&S, c, 3 * MS);
	assert_int_equal(c->c.yields, yields + 1);
	assert_int_equal(D[0].c.yield_to, dir);
	assert_int_equal(D[0].last_boosted, c->id);
	struct sched_vcpu *n = sched_pick_next(&S, 0, 3 * MS).vcpu;
	assert_true(n == a || n == b); /* the queue's order, not c again */
	/* Whole slices for everybody: none is flagged any more. */
	uint64_t t = 3 * MS;
	for (unsigned k = 0; k < 20; k++)
		t = sched_pick_next(&S, 0, t).run_until;
	assert_false(a->in_spin_loop);
	assert_false(b->in_spin_loop);
	assert_false(c->in_spin_loop);
}

/* One 4-vCPU domain on 2 pCPUs (V0, V2 on pCPU 0; V1, V3 on pCPU 1), each pCPU running one:
 * r0, r1 run, q0, q1 wait on pCPU 0 and 1. */
static void two_by_two(struct sched_vcpu **r0, struct sched_vcpu **q0, struct sched_vcpu **r1,
		       struct sched_vcpu **q1)
{
	setup(2, 4, "directed");
	for (unsigned i = 0; i < 4; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	*r0 = sched_pick_next(&S, 0, 0).vcpu;
	*r1 = sched_pick_next(&S, 1, 0).vcpu;
	*q0 = *r0 == &V[0] ? &V[2] : &V[0];
	*q1 = *r1 == &V[1] ? &V[3] : &V[1];
}

/* Only waiters left, none queued on the spinner's pCPU: the one elsewhere gets the
 * directed yield (kicked there); one here comes before it. */
static void test_spun_here_before_elsewhere(void **st)
{
	(void)st;
	struct sched_vcpu *r0, *q0, *r1, *q1;
	two_by_two(&r0, &q0, &r1, &q1);
	q0->in_spin_loop = q1->in_spin_loop = true;
	D[0].last_boosted = q1->id - 1; /* q1 first in id order */
	assert_ptr_equal(sched_yield_candidate(&S, r0), q0);
	/* q1 did not spin after all: it comes first. */
	q1->in_spin_loop = false;
	assert_ptr_equal(sched_yield_candidate(&S, r0), q1);
	q1->in_spin_loop = true;
	/* q0 blocks: only q1, flagged, elsewhere: the directed yield, q1 kicked there. */
	sched_sleep(&S, q0, MS);
	assert_ptr_equal(sched_yield_candidate(&S, r0), q1);
	sched_cpumask_t k = sched_pause_loop(&S, r0, MS);
	assert_true(cpumask_equal(k, cpumask_of(1)));
	assert_int_equal(D[0].last_boosted, q1->id);
	assert_ptr_equal(sched_pick_next(&S, 1, MS).vcpu, q1);
}

/* A policy that refuses the target (fairness): queued on the spinner's pCPU, the spinner
 * makes a plain yield; queued elsewhere, it goes on. */
static unsigned refused;
static sched_cpumask_t refuse_yield_to(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				       uint64_t now)
{
	(void)s, (void)v, (void)t, (void)now;
	refused++;
	return cpumask_none();
}

static void test_refused_target(void **st)
{
	(void)st;
	struct sched_vcpu *r0, *q0, *r1, *q1;
	two_by_two(&r0, &q0, &r1, &q1);
	struct sched_ops ops = *S.ops;
	ops.yield_to = refuse_yield_to;
	S.ops = &ops;
	refused = 0;
	D[0].last_boosted = q1->id - 1; /* q1 (elsewhere) first */
	assert_true(cpumask_empty(sched_pause_loop(&S, r0, MS)));
	assert_int_equal(refused, 1);
	assert_int_equal(r0->c.yields, 0); /* goes on */
	assert_int_equal(D[0].last_boosted, q1->id - 1);
	D[0].last_boosted = q0->id - 1; /* q0 (here) first */
	assert_true(cpumask_empty(sched_pause_loop(&S, r0, 2 * MS)));
	assert_int_equal(refused, 2);
	assert_int_equal(r0->c.yields, 1); /* a plain yield */
	assert_int_equal(D[0].c.yield_to, 0);
	assert_ptr_equal(sched_pick_next(&S, 0, 2 * MS).vcpu, q0);
	/* A policy whose yield does not keep the yielder's claim: never a plain yield. */
	ops.yield_keeps_claim = NULL;
	D[0].last_boosted = r0->id - 1; /* r0 (queued here now) first */
	assert_true(cpumask_empty(sched_pause_loop(&S, q0, 3 * MS)));
	assert_int_equal(refused, 3);
	assert_int_equal(q0->c.yields, 0);
	r0->in_spin_loop = true; /* only a waiter here: the directed yield, refused too */
	assert_true(cpumask_empty(sched_pause_loop(&S, q0, 4 * MS)));
	assert_int_equal(refused, 4);
	assert_int_equal(q0->c.yields, 0);
}

/* The target on another pCPU that may not run here: kicked there, runs next there. */
static void test_target_on_other_pcpu_kicked(void **st)
{
	(void)st;
	setup(2, 4, "directed"); /* V0, V2 on pCPU 0; V1, V3 on pCPU 1 */
	for (unsigned i = 0; i < 4; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	struct sched_vcpu *r0 = sched_pick_next(&S, 0, 0).vcpu;
	struct sched_vcpu *r1 = sched_pick_next(&S, 1, 0).vcpu;
	struct sched_vcpu *q1 = r1 == &V[1] ? &V[3] : &V[1];
	struct sched_vcpu *q0 = r0 == &V[0] ? &V[2] : &V[0];
	D[0].last_boosted = q1->id - 1; /* q1 first in line */
	sched_cpumask_t k = sched_pause_loop(&S, r0, MS);
	assert_true(cpumask_equal(k, cpumask_of(1)));
	assert_ptr_equal(sched_pick_next(&S, 1, MS).vcpu, q1);
	assert_ptr_equal(sched_pick_next(&S, 0, MS).vcpu, q0);
}

/* Shares stay exact: 2 pCPUs, a spinning domain of `nlock` vCPUs whose running vCPUs take
 * PAUSE-loop exits at random points, next to `nhog` hog vCPUs (one domain, or one domain
 * each: then a spinning vCPU has less weight than a hog on its pCPU, where an unlimited
 * queue jump took the spinning domain from 33% to 47% under Bochs). The hogs' share stays
 * within 1 pt of the run without PLE. */
static void run_mix(const char *ple, unsigned nlock, unsigned nhog, bool hog_doms,
		    double *share_hog, unsigned *yields)
{
	assert_int_equal(sched_init(&S, 2), 0);
	assert_int_equal(sched_config(&S, "sched.ple", ple, 0), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	for (unsigned i = 0; i < 4; i++)
		D[i].id = i + 1;
	const unsigned nv = nlock + nhog;
	for (unsigned i = 0; i < nv; i++) {
		V[i].dom = i < nlock ? &D[0] : &D[hog_doms ? 1 + i - nlock : 1];
		V[i].id = i < nlock || hog_doms ? (i < nlock ? i : 0) : i - nlock;
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	}
	rng = 12345;
	uint64_t next[2];
	for (unsigned p = 0; p < 2; p++)
		next[p] = sched_pick_next(&S, p, 0).run_until;
	const uint64_t end = 10000 * MS;
	uint64_t t = 0;
	while (t < end) {
		unsigned p = next[0] <= next[1] ? 0 : 1;
		/* A spinner of domain 0 exits after a random 0.1..3 ms of its slice. */
		struct sched_vcpu *c = S.pcpu[p].curr;
		uint64_t pl = SCHED_NEVER;
		if (c && c->dom == &D[0] && strcmp(ple, "off") && rnd(2))
			pl = S.pcpu[p].last_pick + (5 + rnd(100)) * 1000ull;
		t = next[p] < pl ? next[p] : pl;
		if (t > end)
			t = end;
		sched_cpumask_t k = cpumask_none();
		if (t == pl)
			k = sched_pause_loop(&S, c, t);
		struct sched_pick pk = sched_pick_next(&S, p, t);
		S.pcpu[p].last_pick = t;
		next[p] = pk.run_until == SCHED_NEVER ? end : pk.run_until;
		k = cpumask_or(k, pk.kick);
		for (unsigned q = 0; q < 2; q++)
			if (q != p && cpumask_test(k, q)) {
				pk = sched_pick_next(&S, q, t);
				S.pcpu[q].last_pick = t;
				next[q] = pk.run_until == SCHED_NEVER ? end : pk.run_until;
			}
	}
	uint64_t tot = 0, hog = 0;
	for (unsigned i = 0; i < nv; i++) {
		uint64_t r = sched_run_ns(&V[i], end);
		tot += r;
		if (i >= nlock)
			hog += r;
	}
	assert_true(tot > 2 * end * 99 / 100); /* both pCPUs kept busy */
	*share_hog = 100.0 * (double)hog / (double)tot;
	*yields = (unsigned)D[0].c.yield_to;
}

static void test_shares_unchanged(void **st)
{
	(void)st;
	static const struct {
		unsigned nlock, nhog;
		bool hog_doms;
		double want; /* the hogs' entitled share, % */
	} mix[] = {{4, 2, false, 50.0}, {2, 2, true, 66.67}};
	for (unsigned k = 0; k < 2; k++) {
		double off, dir;
		unsigned n_off, n_dir;
		run_mix("off", mix[k].nlock, mix[k].nhog, mix[k].hog_doms, &off, &n_off);
		run_mix("directed", mix[k].nlock, mix[k].nhog, mix[k].hog_doms, &dir, &n_dir);
		print_message("hog share: off %.2f directed %.2f (directed yields %u)\n", off, dir,
			      n_dir);
		assert_int_equal(n_off, 0);
		assert_true(n_dir > 100u); /* the directed path ran */
		assert_true(dir - off < 1.0 && off - dir < 1.0);
		assert_true(off > mix[k].want - 1.0 && off < mix[k].want + 1.0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_mode_rejected),
		cmocka_unit_test(test_wraparound_at_zero),
		cmocka_unit_test(test_candidate_matches_reference),
		cmocka_unit_test(test_single_vcpu_plain_yield),
		cmocka_unit_test(test_all_blocked_or_running),
		cmocka_unit_test(test_skip_just_spun),
		cmocka_unit_test(test_spun_here_before_elsewhere),
		cmocka_unit_test(test_refused_target),
		cmocka_unit_test(test_target_on_other_pcpu_kicked),
		cmocka_unit_test(test_shares_unchanged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
