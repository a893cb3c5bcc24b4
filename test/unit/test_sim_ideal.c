/* Unit tests of the simulator's ideal (test/sim/ideal.c): hand-computed allocations (weights,
 * caps, demands, pinned and partial affinities, the affinity trap of issue 10) and seeded
 * random instances checked against independent closed forms where one exists (one pCPU;
 * every vCPU free; every domain on one pCPU of its own choosing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test/sim/ideal.h"

#define TOL 1e-6

static double W[1100], CAP[1100], SH[1100];
static struct ideal_group G[4096];

static void solve(unsigned pcpus, unsigned nd, unsigned ng)
{
	assert_int_equal(ideal_solve(pcpus, nd, W, CAP, ng, G, SH), 0);
}

static void near(double got, double want)
{
	if (got < want - TOL || got > want + TOL)
		fail_msg("got %.9f, want %.9f", got, want);
}

static void reset(void)
{
	memset(W, 0, sizeof(W));
	memset(CAP, 0, sizeof(CAP));
	memset(G, 0, sizeof(G));
	for (unsigned i = 0; i < 1100; i++)
		W[i] = 256;
}

/* A group allowed on pCPUs 0..63 of `mask` (0: all). */
static void grp(unsigned i, unsigned dom, uint64_t mask, double demand, unsigned count)
{
	G[i] = (struct ideal_group){dom, {mask}, demand, count};
}

/* Past 64 pCPUs (issue 24): 256 pCPUs, d0's 300 spinners allowed on 192..255 only (the last
 * word), d1's 300 anywhere, equal weights: d0 gets its 64 pCPUs, d1 the other 192; with d0
 * on 60..67 (across a word boundary) it gets those 8. */
static void test_256_pcpus(void **st)
{
	(void)st;
	reset();
	W[0] = W[1] = 256;
	G[0] = (struct ideal_group){0, {0, 0, 0, ~0ull}, 1, 300};
	grp(1, 1, 0, 1, 300);
	solve(256, 2, 2);
	near(SH[0], 64);
	near(SH[1], 192);
	G[0] = (struct ideal_group){0, {0xfull << 60, 0xf, 0, 0}, 1, 300};
	solve(256, 2, 2);
	near(SH[0], 8);
	near(SH[1], 248);
	assert_int_equal(ideal_solve(257, 2, W, CAP, 2, G, SH), -1);
}

static void test_one_pcpu_weights(void **st)
{
	(void)st;
	reset();
	for (unsigned d = 0; d < 4; d++) {
		W[d] = 256 << d;
		grp(d, d, 1, 1, 1);
	}
	solve(1, 4, 4);
	for (unsigned d = 0; d < 4; d++)
		near(SH[d], (double)(1 << d) / 15);
}

static void test_one_pcpu_caps(void **st)
{
	(void)st;
	reset();
	CAP[0] = 0.10, CAP[1] = 0.25, CAP[2] = 0.50;
	for (unsigned d = 0; d < 4; d++)
		grp(d, d, 0, 1, 1);
	solve(1, 4, 4);
	near(SH[0], 0.10), near(SH[1], 0.25), near(SH[2], 0.325), near(SH[3], 0.325);
	CAP[3] = 0.05; /* now the 50% cap binds: 0.1/0.25/0.5/0.05 */
	solve(1, 4, 4);
	near(SH[0], 0.10), near(SH[1], 0.25), near(SH[2], 0.50), near(SH[3], 0.05);
}

/* A 0.1 demand is met; the rest is split by weight: 2006 table shape. */
static void test_one_pcpu_demand(void **st)
{
	(void)st;
	reset();
	grp(0, 0, 0, 0.1, 1);
	grp(1, 1, 0, 1, 1);
	grp(2, 2, 0, 1, 1);
	grp(3, 3, 0, 0, 1); /* idle: wants nothing */
	solve(1, 4, 4);
	near(SH[0], 0.1), near(SH[1], 0.45), near(SH[2], 0.45), near(SH[3], 0);
	/* Issue 10: hogs + echo w512 40% + echo w256 35% -> 20/20/40/20. */
	reset();
	W[2] = 512;
	grp(0, 0, 0, 1, 1);
	grp(1, 1, 0, 1, 1);
	grp(2, 2, 0, 0.40, 1);
	grp(3, 3, 0, 0.35, 1);
	solve(1, 4, 4);
	near(SH[0], 0.2), near(SH[1], 0.2), near(SH[2], 0.4), near(SH[3], 0.2);
}

/* A domain's weight is the domain's: 2 or 4 vCPUs compete like one. */
static void test_domain_weight(void **st)
{
	(void)st;
	for (unsigned nv = 2; nv <= 4; nv += 2) {
		reset();
		grp(0, 0, 0, 1, nv);
		grp(1, 1, 0, 1, 1);
		solve(2, 2, 2);
		near(SH[0], 1), near(SH[1], 1);
	}
	/* 4 domains of 1, 2, 3, 4 vCPUs on 4 pCPUs: one pCPU each. */
	reset();
	for (unsigned d = 0; d < 4; d++)
		grp(d, d, 0, 1, d + 1);
	solve(4, 4, 4);
	for (unsigned d = 0; d < 4; d++)
		near(SH[d], 1);
}

/* A domain of 15 vCPUs pinned to pCPU 0 is entitled to that pCPU and no more (the old
 * entitlement asked 108-116% of it); a free spinner gets the other pCPU. */
static void test_pinned_domain_at_most_its_pcpu(void **st)
{
	(void)st;
	reset();
	grp(0, 0, 1, 1, 15);
	grp(1, 1, 0, 1, 1);
	solve(2, 2, 2);
	near(SH[0], 1), near(SH[1], 1);
	/* Three pinned to 0 and a free one: the free one has pCPU 1 alone, not half of two. */
	reset();
	for (unsigned d = 0; d < 3; d++)
		grp(d, d, 1, 1, 1);
	grp(3, 3, 0, 1, 1);
	solve(2, 4, 4);
	for (unsigned d = 0; d < 3; d++)
		near(SH[d], 1.0 / 3);
	near(SH[3], 1);
}

/* Issue 10's trap: an echo allowed on 0-1 (ping load 0.1%), 15 vCPUs pinned to 0, a free
 * spinner: the echo belongs on pCPU 1, the pinned domain gets (almost) all of pCPU 0. */
static void test_affinity_trap(void **st)
{
	(void)st;
	reset();
	grp(0, 0, 3, 0.001, 1);
	grp(1, 1, 1, 1, 15);
	grp(2, 2, 0, 1, 1);
	solve(2, 3, 3);
	near(SH[0], 0.001), near(SH[1], 0.9995), near(SH[2], 0.9995);
	/* With a 35% echo the free pCPU is shared: the pinned domain and the spinner level at
	 * (2 - 0.35) / 2. */
	G[0].demand = 0.35;
	solve(2, 3, 3);
	near(SH[0], 0.35), near(SH[1], 0.825), near(SH[2], 0.825);
}

/* Partial affinities on 3 pCPUs: A on 0, B on 0-1, C on 0-2, D on 2: 0.75 each. */
static void test_partial_affinity(void **st)
{
	(void)st;
	reset();
	grp(0, 0, 1, 1, 1);
	grp(1, 1, 3, 1, 1);
	grp(2, 2, 7, 1, 1);
	grp(3, 3, 4, 1, 1);
	solve(3, 4, 4);
	for (unsigned d = 0; d < 4; d++)
		near(SH[d], 0.75);
	/* Weighted: A (1) on 0, B (3, 2 vCPUs) and C (1) free on 2 pCPUs: 0.4/1.2/0.4. */
	reset();
	W[0] = 1, W[1] = 3, W[2] = 1;
	grp(0, 0, 1, 1, 1);
	grp(1, 1, 0, 1, 2);
	grp(2, 2, 0, 1, 1);
	solve(2, 3, 3);
	near(SH[0], 0.4), near(SH[1], 1.2), near(SH[2], 0.4);
	/* Two levels: A, B, C pinned to 0 with D on 0-1 and E on 1-2 and F on 2: pCPU 0 is
	 * shared by three (1/3 each); D, E, F take 1-2 (2/3 each). */
	reset();
	for (unsigned d = 0; d < 3; d++)
		grp(d, d, 1, 1, 1);
	grp(3, 3, 3, 1, 1);
	grp(4, 4, 6, 1, 1);
	grp(5, 5, 4, 1, 1);
	solve(3, 6, 6);
	for (unsigned d = 0; d < 3; d++)
		near(SH[d], 1.0 / 3);
	for (unsigned d = 3; d < 6; d++)
		near(SH[d], 2.0 / 3);
	/* A domain whose vCPUs are pinned apart (v0 on 0, v1 on 1) beside a spinner on 0:
	 * domain-level max-min gives each one pCPU (the spinner all of pCPU 0). */
	reset();
	grp(0, 0, 1, 1, 1);
	grp(1, 0, 2, 1, 1);
	grp(2, 1, 1, 1, 1);
	solve(2, 2, 3);
	near(SH[0], 1), near(SH[1], 1);
}

/* A capped multi-vCPU domain and a capped domain whose cap exceeds what its affinity
 * allows. */
static void test_caps_smp(void **st)
{
	(void)st;
	reset();
	CAP[0] = 0.6;
	grp(0, 0, 0, 1, 2);
	grp(1, 1, 0, 1, 2);
	grp(2, 2, 0, 1, 1);
	solve(2, 3, 3);
	near(SH[0], 0.6), near(SH[1], 0.7), near(SH[2], 0.7);
	reset();
	CAP[0] = 1.5;
	grp(0, 0, 1, 1, 4);
	grp(1, 1, 0, 1, 1);
	solve(2, 2, 2);
	near(SH[0], 1), near(SH[1], 1);
}

static void test_bad_input(void **st)
{
	(void)st;
	reset();
	grp(0, 0, 0, 1.5, 1);
	assert_int_equal(ideal_solve(1, 1, W, CAP, 1, G, SH), -1);
	grp(0, 1, 0, 1, 1);
	assert_int_equal(ideal_solve(1, 1, W, CAP, 1, G, SH), -1);
	grp(0, 0, 2, 1, 1); /* only pCPU 1, with 1 pCPU */
	assert_int_equal(ideal_solve(1, 1, W, CAP, 1, G, SH), -1);
	assert_int_equal(ideal_solve(0, 0, W, CAP, 0, G, SH), -1);
	W[0] = 0;
	grp(0, 0, 0, 1, 1);
	assert_int_equal(ideal_solve(1, 1, W, CAP, 1, G, SH), -1);
}

/* ---- seeded random instances vs closed forms -------------------------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static double unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Textbook weighted water-filling of `capacity` among items with limits. */
static void water_fill(unsigned n, const double *w, const double *lim, double capacity, double *out)
{
	char done[1100] = {0};
	for (;;) {
		double ws = 0;
		for (unsigned i = 0; i < n; i++)
			if (!done[i])
				ws += w[i];
		if (ws <= 0)
			return;
		int changed = 0;
		for (unsigned i = 0; i < n; i++)
			if (!done[i] && lim[i] <= capacity * w[i] / ws) {
				out[i] = lim[i];
				capacity -= lim[i];
				done[i] = 1;
				changed = 1;
			}
		if (!changed) {
			for (unsigned i = 0; i < n; i++)
				if (!done[i])
					out[i] = capacity * w[i] / ws;
			return;
		}
	}
}

/* Random domains (weights 1-65535, some capped, 1-8 vCPUs of random demands): with every
 * vCPU free the pCPUs are one pool; with each domain on one pCPU, each pCPU is divided on
 * its own. */
static void test_random_vs_closed_form(void **st)
{
	(void)st;
	double lim[1100], want[1100];
	for (unsigned round = 0; round < 400; round++) {
		reset();
		unsigned pcpus = 1 + rnd() % 8, nd = 1 + rnd() % 40, ng = 0;
		int pinned = round & 1;
		unsigned home[1100];
		for (unsigned d = 0; d < nd; d++) {
			W[d] = 1 + rnd() % 65535;
			unsigned nv = 1 + rnd() % 8;
			home[d] = rnd() % pcpus;
			double dem = 0;
			for (unsigned v = 0; v < nv; v++) {
				double x = rnd() % 3 ? unit() : 1;
				grp(ng++, d, pinned ? 1ull << home[d] : 0, x, 1);
				dem += x;
			}
			CAP[d] = rnd() % 4 ? 0 : 0.05 + unit() * nv;
			lim[d] = CAP[d] > 0 && CAP[d] < dem ? CAP[d] : dem;
			if (pinned && lim[d] > 1)
				lim[d] = 1;
		}
		solve(pcpus, nd, ng);
		if (!pinned) {
			water_fill(nd, W, lim, pcpus, want);
		} else {
			for (unsigned p = 0; p < pcpus; p++) {
				double w[1100], l[1100], o[1100] = {0};
				unsigned map[1100] = {0}, k = 0;
				for (unsigned d = 0; d < nd; d++)
					if (home[d] == p) {
						w[k] = W[d], l[k] = lim[d];
						map[k++] = d;
					}
				water_fill(k, w, l, 1, o);
				for (unsigned j = 0; j < k; j++)
					want[map[j]] = o[j];
			}
		}
		for (unsigned d = 0; d < nd; d++)
			if (SH[d] < want[d] - 1e-5 || SH[d] > want[d] + 1e-5)
				fail_msg("round %u (%s, %u pCPUs) d%u: got %.9f want %.9f", round,
					 pinned ? "pinned" : "free", pcpus, d, SH[d], want[d]);
	}
}

/* General random affinities: the allocation is feasible (total <= pCPUs, each domain within
 * its limit, the domains confined to any mask fit in its pCPUs) and work-conserving where
 * that is checkable without the flow (one mask for all). Also: a scale instance of 1024
 * domains x 64 vCPUs on 64 pCPUs solves and hands out every pCPU. */
static void test_random_affinities_feasible(void **st)
{
	(void)st;
	for (unsigned round = 0; round < 200; round++) {
		reset();
		unsigned pcpus = 1 + rnd() % 16, nd = 1 + rnd() % 30, ng = 0;
		uint64_t all = pcpus == 64 ? ~0ull : (1ull << pcpus) - 1;
		uint64_t mask[1100];
		double lim[1100];
		for (unsigned d = 0; d < nd; d++) {
			W[d] = 1 + rnd() % 65535;
			mask[d] = rnd() & all;
			if (!mask[d])
				mask[d] = all;
			unsigned nv = 1 + rnd() % 4;
			double x = rnd() % 2 ? 1 : unit();
			grp(ng++, d, mask[d], x, nv);
			lim[d] = x * nv;
		}
		solve(pcpus, nd, ng);
		double tot = 0;
		for (unsigned d = 0; d < nd; d++) {
			tot += SH[d];
			assert_true(SH[d] <= lim[d] + 1e-6);
			assert_true(SH[d] >= -1e-9);
		}
		assert_true(tot <= pcpus + 1e-6);
		/* Hall-type bound on every mask: the domains confined to it fit in it. */
		for (unsigned a = 0; a < nd; a++) {
			double in = 0;
			for (unsigned d = 0; d < nd; d++)
				if (!(mask[d] & ~mask[a]))
					in += SH[d];
			assert_true(in <= __builtin_popcountll(mask[a]) + 1e-6);
		}
		/* Work conservation: a domain below its limit is short because pCPUs it may
		 * use are taken; on a single mask shared by everyone that means all of them. */
		int one_mask = 1;
		for (unsigned d = 0; d < nd; d++)
			one_mask &= mask[d] == mask[0];
		for (unsigned d = 0; one_mask && d < nd; d++)
			if (SH[d] < lim[d] - 1e-6)
				near(tot, __builtin_popcountll(mask[0]));
	}
	reset();
	for (unsigned d = 0; d < 1024; d++) {
		W[d] = 1 + rnd() % 65535;
		grp(d, d, rnd() % 3 ? 0 : rnd(), 1, 64);
	}
	solve(64, 1024, 1024);
	double tot = 0;
	for (unsigned d = 0; d < 1024; d++)
		tot += SH[d];
	near(tot, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_pcpu_weights),
		cmocka_unit_test(test_one_pcpu_caps),
		cmocka_unit_test(test_one_pcpu_demand),
		cmocka_unit_test(test_domain_weight),
		cmocka_unit_test(test_pinned_domain_at_most_its_pcpu),
		cmocka_unit_test(test_affinity_trap),
		cmocka_unit_test(test_partial_affinity),
		cmocka_unit_test(test_caps_smp),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_random_vs_closed_form),
		cmocka_unit_test(test_random_affinities_feasible),
		cmocka_unit_test(test_256_pcpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
