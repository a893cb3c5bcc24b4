/* sched/cpumask.h: the CPU set of SCHED_MAX_PCPUS bits, each helper against a plain bool
 * array on random sets (fixed seed; CPUMASK_SEED=s replays another), word boundaries
 * (63/64, 127/128, 255) in every set, and sched_cpumask_format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched/sched.h"

#define N SCHED_MAX_PCPUS

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random set and its reference: dense, sparse or empty, plus boundary pCPUs at random. */
static sched_cpumask_t random_set(bool ref[N])
{
	sched_cpumask_t m = cpumask_none();
	unsigned kind = (unsigned)(rnd() % 4), per = kind == 0 ? 2 : kind == 1 ? 40 : 0;
	for (unsigned p = 0; p < N; p++) {
		static const unsigned edge[] = {0, 63, 64, 127, 128, 191, 192, N - 1};
		bool on = per && rnd() % per == 0;
		for (unsigned k = 0; k < sizeof edge / sizeof edge[0]; k++)
			if (p == edge[k] && kind != 3 && rnd() % 2)
				on = true;
		ref[p] = on;
		if (on)
			cpumask_set(&m, p);
	}
	return m;
}

static void same(sched_cpumask_t m, const bool ref[N])
{
	for (unsigned p = 0; p < N; p++)
		if (cpumask_test(m, p) != ref[p])
			fail_msg("pCPU %u: set says %d, reference %d", p, cpumask_test(m, p),
				 ref[p]);
}

static void test_against_reference(void **st)
{
	(void)st;
	const char *seed = getenv("CPUMASK_SEED");
	if (seed)
		rng = strtoull(seed, NULL, 0) | 1;
	for (unsigned round = 0; round < 2000; round++) {
		bool a[N], b[N], r[N];
		sched_cpumask_t ma = random_set(a), mb = random_set(b);
		same(ma, a);
		unsigned count = 0, first = N;
		bool any = false, eq = true, sub = true, inter = false;
		for (unsigned p = 0; p < N; p++) {
			count += a[p];
			if (a[p] && first == N)
				first = p;
			any |= a[p];
			eq &= a[p] == b[p];
			sub &= !a[p] || b[p];
			inter |= a[p] && b[p];
		}
		assert_int_equal(cpumask_count(ma), count);
		assert_int_equal(cpumask_first(ma), first);
		assert_int_equal(cpumask_empty(ma), !any);
		assert_int_equal(cpumask_equal(ma, mb), eq);
		assert_int_equal(cpumask_subset(ma, mb), sub);
		assert_int_equal(cpumask_intersects(ma, mb), inter);
		for (unsigned p = 0; p < N; p++)
			r[p] = a[p] && b[p];
		same(cpumask_and(ma, mb), r);
		for (unsigned p = 0; p < N; p++)
			r[p] = a[p] || b[p];
		same(cpumask_or(ma, mb), r);
		for (unsigned p = 0; p < N; p++)
			r[p] = a[p] && !b[p];
		same(cpumask_andnot(ma, mb), r);
		unsigned q = (unsigned)(rnd() % N);
		memcpy(r, a, sizeof r);
		r[q] = false;
		same(cpumask_without(ma, q), r);
		/* next / next_from / next_wrap from every position; for_each visits a in order. */
		for (unsigned p = 0; p < N; p++) {
			unsigned want = N;
			for (unsigned x = p; x < N && want == N; x++)
				if (a[x])
					want = x;
			assert_int_equal(cpumask_next_from(ma, p), want);
			assert_int_equal(cpumask_next_wrap(ma, p), want < N ? want : first);
			unsigned after = N;
			for (unsigned x = p + 1; x < N && after == N; x++)
				if (a[x])
					after = x;
			assert_int_equal(cpumask_next(ma, p), after);
		}
		unsigned seen = 0, last = 0;
		cpumask_for_each(p, ma)
		{
			assert_true(a[p]);
			assert_true(!seen || p > last);
			last = p;
			seen++;
		}
		assert_int_equal(seen, count);
		/* The atomic forms do what the plain ones do (one caller here). */
		sched_cpumask_t c = ma;
		cpumask_set_atomic(&c, q);
		cpumask_clear_atomic(&c, (q + 1) % N);
		sched_cpumask_t d = ma;
		cpumask_set(&d, q);
		cpumask_clear(&d, (q + 1) % N);
		assert_true(cpumask_equal(c, d));
		cpumask_or_atomic(&c, mb);
		assert_true(cpumask_equal(c, cpumask_or(d, mb)));
		assert_true(cpumask_equal(cpumask_load(&c), c));
		sched_cpumask_t taken = cpumask_take(&c);
		assert_true(cpumask_equal(taken, cpumask_or(d, mb)));
		assert_true(cpumask_empty(c));
	}
}

static void test_constructors(void **st)
{
	(void)st;
	for (unsigned n = 0; n <= N; n++) {
		sched_cpumask_t m = cpumask_below(n);
		assert_int_equal(cpumask_count(m), n);
		assert_int_equal(cpumask_first(m), n ? 0 : N);
		for (unsigned p = 0; p < N; p++)
			assert_int_equal(cpumask_test(m, p), p < n);
	}
	for (unsigned p = 0; p < N; p++) {
		sched_cpumask_t m = cpumask_of(p);
		assert_int_equal(cpumask_count(m), 1);
		assert_int_equal(cpumask_first(m), p);
		assert_int_equal(cpumask_next(m, p), N);
		assert_int_equal(cpumask_next_wrap(m, p + 1), p); /* wraps round to it */
	}
	assert_false(cpumask_test(cpumask_below(N), N)); /* out of range: never set */
	sched_cpumask_t w = cpumask_from_u64(0x8000000000000001ull);
	assert_int_equal(cpumask_count(w), 2);
	assert_int_equal(cpumask_next(w, 0), 63);
	assert_true(cpumask_empty(cpumask_none()));
}

static void test_format(void **st)
{
	(void)st;
	char b[SCHED_CPUMASK_TEXT];
	assert_int_equal(sched_cpumask_format(b, sizeof b, cpumask_none()), 4);
	assert_string_equal(b, "none");
	sched_cpumask_t m = cpumask_or(cpumask_below(4), cpumask_of(8));
	cpumask_set(&m, 63);
	cpumask_set(&m, 64);
	cpumask_set(&m, 255);
	sched_cpumask_format(b, sizeof b, m);
	assert_string_equal(b, "0-3,8,63-64,255");
	sched_cpumask_format(b, sizeof b, cpumask_below(N));
	assert_string_equal(b, "0-255");
	/* The longest set fits SCHED_CPUMASK_TEXT; a short buffer is cut, never overrun. */
	sched_cpumask_t odd = cpumask_none();
	for (unsigned p = 0; p < N; p += 2)
		cpumask_set(&odd, p);
	size_t n = sched_cpumask_format(b, sizeof b, odd);
	assert_true(n < sizeof b);
	assert_int_equal(strlen(b), n);
	assert_string_equal(b + n - 8, ",252,254");
	char small[6];
	sched_cpumask_format(small, sizeof small, m);
	assert_string_equal(small, "0-3,8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_constructors),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
