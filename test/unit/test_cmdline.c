/* lib/cmdline: GRUB-style command lines as the hypervisor, guests and simulator read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "lib/cmdline.h"

static const char *line = "/guests/echo.elf name=echo weight=256 cap=0 duty=3500/6500 "
			  "autorun=\"ping 4 -c 10; lat\" selftest weight=512 hex=0x1F";

static void test_get(void **state)
{
	(void)state;
	char b[64];
	assert_true(cmdline_get(line, "name", b, sizeof(b)));
	assert_string_equal(b, "echo");
	assert_true(cmdline_get(line, "duty", b, sizeof(b)));
	assert_string_equal(b, "3500/6500");
	assert_true(cmdline_get(line, "autorun", b, sizeof(b)));
	assert_string_equal(b, "ping 4 -c 10; lat");
	assert_true(cmdline_get(line, "selftest", b, sizeof(b)));
	assert_string_equal(b, "");
	assert_false(cmdline_get(line, "nam", b, sizeof(b)));
	assert_false(cmdline_get(line, "missing", b, sizeof(b)));
	assert_false(cmdline_get(line, "autorun", b, 5)); /* does not fit */
	/* GRUB moves the quote to the start of the word: `"key=a b"`. */
	const char *grub = "name=service \"autorun=pause 2; list\" x=1";
	assert_true(cmdline_get(grub, "autorun", b, sizeof(b)));
	assert_string_equal(b, "pause 2; list");
	assert_true(cmdline_get(grub, "x", b, sizeof(b)));
	assert_string_equal(b, "1");
}

static void test_numbers(void **state)
{
	(void)state;
	uint64_t v = 99;
	assert_true(cmdline_get_u64(line, "weight", &v));
	assert_int_equal(v, 512); /* the last occurrence wins */
	assert_true(cmdline_get_u64(line, "hex", &v));
	assert_int_equal(v, 31);
	v = 99;
	assert_false(cmdline_get_u64(line, "duty", &v));
	assert_false(cmdline_get_u64(line, "missing", &v));
	assert_int_equal(v, 99);
	assert_false(parse_u64("18446744073709551616", &v));
	assert_true(parse_u64("18446744073709551615", &v));
	assert_int_equal(v, UINT64_MAX);
	assert_false(parse_u64("", &v));
	assert_false(parse_u64("0x", &v));
	assert_false(parse_u64("12a", &v));
}

static void test_has_and_words(void **state)
{
	(void)state;
	assert_true(cmdline_has(line, "selftest"));
	assert_true(cmdline_has(line, "cap"));
	assert_false(cmdline_has(line, "self"));
	size_t n, count = 0;
	for (const char *w = line; (w = cmdline_next(w, &n)); w += n)
		count++;
	assert_int_equal(count, 9);
	assert_null(cmdline_next("   ", &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_has_and_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
