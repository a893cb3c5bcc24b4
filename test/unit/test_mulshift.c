/* The guests' clock (guests/lib/mulshift.h) must agree exactly with the hypervisor's
 * (lib/clockconv): a guest sleeping until t and the hypervisor firing its timer at t use
 * the same time base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "guests/lib/mulshift.h"
#include "lib/clockconv.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_rate(uint64_t hz)
{
	struct clockconv c = clockconv_init(hz, 1000000000ull);
	uint64_t s = 0x9e3779b97f4a7c15ull ^ hz;
	/* Up to ~10 years of ticks: the product still fits the ns result. */
	uint64_t limit = hz * 3600ull * 24 * 3650;
	for (int i = 0; i < 100000; i++) {
		uint64_t t = next(&s) % limit;
		assert_int_equal(mul_u64_u32_shr(t, (uint32_t)c.mult, c.shift),
				 clockconv_apply(c, t));
	}
	for (uint64_t t = 0; t < 5000; t++)
		assert_int_equal(mul_u64_u32_shr(t, (uint32_t)c.mult, c.shift),
				 clockconv_apply(c, t));
}

static void test_bochs_rate(void **st)
{
	(void)st;
	check_rate(50000000ull); /* Bochs ips=50000000: shift 27 */
	check_rate(49999000ull);
}

static void test_fast_rates(void **st)
{
	(void)st;
	check_rate(1000000000ull); /* QEMU */
	check_rate(2999999000ull); /* a 3 GHz part: shift above 32 */
	check_rate(4700000000ull);
}

static void test_shifts(void **st)
{
	(void)st;
	for (uint32_t sh = 0; sh < 64; sh++) {
		struct clockconv c = {0xfedcba98u, sh};
		uint64_t t = 0x123456789abull;
		if (sh >= 8) /* keep the result within 64 bits */
			assert_int_equal(mul_u64_u32_shr(t, 0xfedcba98u, sh),
					 clockconv_apply(c, t));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bochs_rate),
		cmocka_unit_test(test_fast_rates),
		cmocka_unit_test(test_shifts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
