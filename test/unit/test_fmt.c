/* lib/fmt: every conversion the hypervisor and guests use, widths, flags, truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "lib/fmt.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

#define CHECK(expect, ...)                                                                         \
	do {                                                                                       \
		char b[128];                                                                       \
		int n = fmt_snprintf(b, sizeof(b), __VA_ARGS__);                                   \
		assert_string_equal(b, expect);                                                    \
		assert_int_equal(n, strlen(expect));                                               \
	} while (0)

static void test_integers(void **state)
{
	(void)state;
	CHECK("0 -1 42 2147483647 -2147483648", "%d %d %i %d %d", 0, -1, 42, 2147483647,
	      (int)-2147483648ll);
	CHECK("4294967295", "%u", 4294967295u);
	CHECK("ff FF 0", "%x %X %x", 255, 255, 0);
	CHECK("18446744073709551615", "%lu", 18446744073709551615ul);
	CHECK("-9223372036854775808", "%ld", (long)(-9223372036854775807l - 1));
	CHECK("ffffffffffffffff", "%llx", 0xffffffffffffffffull);
	CHECK("123456789012", "%zu", (size_t)123456789012ull);
	CHECK("7", "%hhu", 7);
}

static void test_width_and_flags(void **state)
{
	(void)state;
	CHECK("   42|42   |00042", "%5d|%-5d|%05d", 42, 42, 42);
	CHECK("-0042", "%05d", -42);
	CHECK("0000000000001000", "%016lx", 0x1000ul);
	CHECK("  ab|ab  ", "%4s|%-4s", "ab", "ab");
	CHECK("abc", "%.3s", "abcdef");
	CHECK("  x", "%*c", 3, 'x');
	CHECK("ab", "%.*s", 2, "abc");
	CHECK("   7", "%*d", 4, 7);
}

static void test_misc(void **state)
{
	(void)state;
	CHECK("100%", "%d%%", 100);
	const char *volatile null_str = NULL; /* hidden from the format checker */
	CHECK("(null)", "%s", null_str);
	CHECK("0x1000", "%p", (void *)0x1000);
	CHECK("c=A", "c=%c", 'A');
	const char *volatile unknown = "%y"; /* unknown conversions are printed as they are */
	CHECK("%y", unknown);
}

static void test_truncation(void **state)
{
	(void)state;
	char b[6];
	memset(b, 'X', sizeof(b));
	int n = fmt_snprintf(b, sizeof(b), "hello world %d", 12);
	assert_int_equal(n, 14);
	assert_string_equal(b, "hello");
	assert_int_equal(fmt_snprintf(NULL, 0, "%d", 12345), 5);
}

/* Words from outside stay on one line: control characters escaped, a long one cut. */
static void test_escape(void **state)
{
	(void)state;
	char b[16];
	assert_string_equal(fmt_escape(b, sizeof b, "a\nb\tc\\", 6), "a\\nb\\tc\\\\");
	assert_string_equal(fmt_escape(b, sizeof b, "\x01\x7f", 2), "\\x01\\x7f");
	assert_string_equal(fmt_escape(b, sizeof b, "0123456789abcde", 15), "0123456789abcde");
	assert_string_equal(fmt_escape(b, sizeof b, "0123456789abcdef", 16), "0123456789ab...");
	assert_string_equal(fmt_escape(b, sizeof b, "0123456789ab\n", 13), "0123456789ab\\n");
	assert_string_equal(fmt_escape(b, sizeof b, "0123456789abcd\n", 15), "0123456789ab...");
	assert_string_equal(fmt_escape(b, 5, "abcdef", 6), "a...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers), cmocka_unit_test(test_width_and_flags),
		cmocka_unit_test(test_misc),	 cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
