/* core/cpulist: pin= lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "core/cpulist.h"

static void test_good(void **st)
{
	(void)st;
	uint64_t m = 0;
	assert_true(cpulist_parse("0", &m));
	assert_int_equal(m, 1);
	assert_true(cpulist_parse("1,3", &m));
	assert_int_equal(m, 0xa);
	assert_true(cpulist_parse("0-3,5", &m));
	assert_int_equal(m, 0x2f);
	assert_true(cpulist_parse("63", &m));
	assert_int_equal(m, 1ull << 63);
	assert_true(cpulist_parse("0-63", &m));
	assert_int_equal(m, ~0ull);
	assert_true(cpulist_parse("2-2", &m));
	assert_int_equal(m, 4);
}

static void test_bad(void **st)
{
	(void)st;
	static const char *const bad[] = {"",
					  ",",
					  "1,",
					  ",1",
					  "a",
					  "1-",
					  "-1",
					  "3-1",
					  "64",
					  "0-64",
					  "1 2",
					  "1;2",
					  "99999999999999999999",
					  "1--2"};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t m = 42;
		if (cpulist_parse(bad[i], &m))
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(m, 42);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
