/* core/cpulist: pin= lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "core/cpulist.h"

/* The set's words, low first. */
static void words(sched_cpumask_t m, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3)
{
	_Static_assert(SCHED_CPUMASK_WORDS == 4, "SCHED_MAX_PCPUS is 256");
	assert_int_equal(m.w[0], w0);
	assert_int_equal(m.w[1], w1);
	assert_int_equal(m.w[2], w2);
	assert_int_equal(m.w[3], w3);
}

static void test_good(void **st)
{
	(void)st;
	sched_cpumask_t m = cpumask_none();
	assert_true(cpulist_parse("0", &m));
	words(m, 1, 0, 0, 0);
	assert_true(cpulist_parse("1,3", &m));
	words(m, 0xa, 0, 0, 0);
	assert_true(cpulist_parse("0-3,5", &m));
	words(m, 0x2f, 0, 0, 0);
	assert_true(cpulist_parse("63", &m));
	words(m, 1ull << 63, 0, 0, 0);
	assert_true(cpulist_parse("0-63", &m));
	words(m, ~0ull, 0, 0, 0);
	assert_true(cpulist_parse("2-2", &m));
	words(m, 4, 0, 0, 0);
	/* Past the first 64 (issue 24): across a word boundary, and the last CPU. */
	assert_true(cpulist_parse("64", &m));
	words(m, 0, 1, 0, 0);
	assert_true(cpulist_parse("62-65,255", &m));
	words(m, 3ull << 62, 3, 0, 1ull << 63);
	assert_true(cpulist_parse("0-255", &m));
	words(m, ~0ull, ~0ull, ~0ull, ~0ull);
	assert_int_equal(cpumask_count(m), 256);
	assert_true(cpulist_parse("128-191", &m));
	words(m, 0, 0, ~0ull, 0);
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
					  "256",
					  "0-256",
					  "1 2",
					  "1;2",
					  "99999999999999999999",
					  "1--2"};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sched_cpumask_t m = cpumask_of(42);
		if (cpulist_parse(bad[i], &m))
			fail_msg("accepted '%s'", bad[i]);
		assert_true(cpumask_equal(m, cpumask_of(42)));
	}
}

/* The boot line's APIC IDs (core/main.c): sorted, runs as ranges, cut to the buffer. */
static void test_format_ids(void **st)
{
	(void)st;
	char b[64];
	uint32_t ids[] = {0x22b, 0x200, 0x201, 0x202, 0x300, 0x22a, 0xff, 0x201};
	assert_int_equal(cpulist_format_ids(b, sizeof b, ids, 8), 34);
	assert_string_equal(b, "0xff,0x200-0x202,0x22a-0x22b,0x300");
	uint32_t one = 0;
	cpulist_format_ids(b, sizeof b, &one, 1);
	assert_string_equal(b, "0x0");
	cpulist_format_ids(b, sizeof b, NULL, 0);
	assert_string_equal(b, "");
	uint32_t big[] = {0xffffffffu, 0x12345678};
	cpulist_format_ids(b, 12, big, 2);
	assert_string_equal(b, "0x12345678,");
	uint32_t run[300];
	for (unsigned i = 0; i < 300; i++)
		run[i] = 0x100 + i;
	cpulist_format_ids(b, sizeof b, run, 300);
	assert_string_equal(b, "0x100-0x22b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_format_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
