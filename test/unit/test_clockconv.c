/* lib/clockconv: ns <-> TSC conversion error over the clock rates we meet (Bochs' 50 MHz
 * and 1 GHz, QEMU's 1 GHz, hardware 1-5 GHz) and the whole range of inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/clockconv.h"

static uint64_t exact(uint64_t v, uint64_t from, uint64_t to)
{
	return (uint64_t)((unsigned __int128)v * to / from);
}

static void check_pair(uint64_t from, uint64_t to)
{
	struct clockconv c = clockconv_init(from, to);
	assert_true(c.mult > 0 && c.mult < (1ull << 32));
	static const uint64_t inputs[] = {
		0, 1, 999, 1000000, 123456789, 1ull << 40, 3600ull * 1000000000ull * 24 * 365};
	for (unsigned i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		uint64_t v = inputs[i], want = exact(v, from, to), got = clockconv_apply(c, v);
		/* Never above the exact value; below it by at most 1 unit + 2^-30 relative. */
		assert_true(got <= want);
		assert_true(want - got <= 1 + (want >> 30));
	}
}

static void test_rates(void **state)
{
	(void)state;
	static const uint64_t hz[] = {50000000,	  1000000000, 1000003219,
				      2096016863, 3400000000, 4999999999};
	for (unsigned i = 0; i < sizeof(hz) / sizeof(hz[0]); i++) {
		check_pair(hz[i], 1000000000); /* TSC -> ns */
		check_pair(1000000000, hz[i]); /* ns -> TSC */
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	struct clockconv t2n = clockconv_init(2096016863, 1000000000);
	struct clockconv n2t = clockconv_init(1000000000, 2096016863);
	for (uint64_t ns = 1000; ns < 10000000000ull; ns *= 7) {
		uint64_t back = clockconv_apply(t2n, clockconv_apply(n2t, ns));
		assert_true(ns - back <= 2 + (ns >> 29));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
