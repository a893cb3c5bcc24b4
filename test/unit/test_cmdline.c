/* lib/cmdline: GRUB-style command lines as the hypervisor, guests and simulator read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "lib/cmdcheck.h"
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

/* --- lib/cmdcheck: the checked keys --- */

static const struct cmdkey keys[] = {
	{"console", CMDKEY_ANY, 0, 0, 0},
	{"sim.*", CMDKEY_ANY, 0, 0, 0},
	{"run_ms", CMDKEY_U64, 0, 1000000000, 0},
	{"ping.interval_us", CMDKEY_U64, 10, 1000000000, 10000},
	{"ping.seed", CMDKEY_U64, 0, UINT64_MAX, 1},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static enum cmdcheck_result check(const char *w, char *msg)
{
	const struct cmdkey *k;
	msg[0] = 0;
	return cmdcheck_word(keys, NKEYS, w, strlen(w), &k, msg, 200);
}

static void test_check_cases(void **state)
{
	(void)state;
	char msg[200];
	assert_int_equal(check("run_ms=400", msg), CMDCHECK_OK);
	assert_string_equal(msg, "");
	/* A quoted word with a newline inside stays one line of output (issue 30). */
	assert_int_equal(check("\"a\nb\"=1", msg), CMDCHECK_UNKNOWN);
	assert_string_equal(msg, "unknown setting '\"a\\nb\"=1' (a typo?): ignored");
	assert_int_equal(check("run_ms=4\n", msg), CMDCHECK_MALFORMED);
	assert_null(strchr(msg, '\n'));
	assert_int_equal(check("console=com1", msg), CMDCHECK_OK);
	assert_int_equal(check("console", msg), CMDCHECK_OK);
	assert_int_equal(check("\"run_ms=0x10\"", msg), CMDCHECK_OK);
	assert_int_equal(check("ping.seed=18446744073709551615", msg), CMDCHECK_OK);
	assert_int_equal(check("run_ms=18446744073709551615", msg), CMDCHECK_RANGE);
	assert_string_equal(msg, "bad setting 'run_ms=18446744073709551615': out of range "
				 "(0..1000000000): using the default 0");
	assert_int_equal(check("run_ms=18446744073709551616", msg), CMDCHECK_OVERFLOW);
	assert_int_equal(check("run_ms=12a", msg), CMDCHECK_MALFORMED);
	assert_string_equal(msg, "bad setting 'run_ms=12a': not a number (0..1000000000): "
				 "using the default 0");
	assert_int_equal(check("run_ms=", msg), CMDCHECK_MALFORMED);
	assert_int_equal(check("run_ms", msg), CMDCHECK_MALFORMED);
	assert_int_equal(check("ping.interval_us=5", msg), CMDCHECK_RANGE);
	assert_int_equal(check("run_mss=400", msg), CMDCHECK_UNKNOWN);
	assert_string_equal(msg, "unknown setting 'run_mss=400' (a typo?): ignored");
	assert_int_equal(check("run", msg), CMDCHECK_UNKNOWN);
	assert_int_equal(check("sim.pcpus=2", msg), CMDCHECK_OK); /* a family: "sim.*" */
	assert_int_equal(check("sim.", msg), CMDCHECK_UNKNOWN);
	assert_int_equal(check("sim", msg), CMDCHECK_UNKNOWN);
	assert_int_equal(check("simx=1", msg), CMDCHECK_UNKNOWN);
	assert_int_equal(check("=5", msg), CMDCHECK_UNKNOWN);
	/* A very long word is shown cut, on one line. */
	char big[600];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	assert_int_equal(check(big, msg), CMDCHECK_UNKNOWN);
	assert_true(strlen(msg) < 120);
	assert_non_null(strstr(msg, "..."));
}

static void test_check_values(void **state)
{
	(void)state;
	const struct cmdkey *run = cmdcheck_find(keys, NKEYS, "run_ms");
	const struct cmdkey *iv = cmdcheck_find(keys, NKEYS, "ping.interval_us");
	assert_non_null(run);
	assert_null(cmdcheck_find(keys, NKEYS, "run"));
	assert_int_equal(cmdcheck_u64("a run_ms=400 b", run), 400);
	assert_int_equal(cmdcheck_u64("run_ms=400 run_ms=18446744073709551615", run), 0);
	assert_int_equal(cmdcheck_u64("run_ms=18446744073709551615 run_ms=400", run), 400);
	assert_int_equal(cmdcheck_u64("x=1", iv), 10000);
	assert_int_equal(cmdcheck_u64("ping.interval_us=9", iv), 10000);
	assert_int_equal(cmdcheck_u64("ping.interval_us=10", iv), 10);
	assert_int_equal(cmdcheck_u64("ping.interval_us=junk", iv), 10000);
}

/* Generator: random words built from key fragments, digits, quotes and junk. Whatever the
 * word, the check must return, produce exactly one non-empty line when it refuses, and
 * the value read back must lie in the key's range. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_check_random(void **state)
{
	(void)state;
	static const char *const parts[] = {
		"run_ms",
		"ping.interval_us",
		"ping.seed",
		"console",
		"=",
		"\"",
		"0x",
		"0",
		"9",
		"18446744073709551615",
		"18446744073709551616",
		"ff",
		"-",
		" ",
		"\t",
		"x",
		"=",
		"1000000000",
		"1000000001",
		"\xff",
		"run",
		"ms",
	};
	unsigned refused = 0, good = 0;
	for (unsigned i = 0; i < 200000; i++) {
		char w[300];
		size_t n = 0;
		unsigned np = 1 + (unsigned)(rnd() % 8);
		for (unsigned p = 0; p < np; p++) {
			const char *s = parts[rnd() % (sizeof parts / sizeof parts[0])];
			size_t l = strlen(s);
			if (n + l >= sizeof w)
				break;
			memcpy(w + n, s, l);
			n += l;
		}
		w[n] = 0;
		size_t wl;
		const char *word = cmdline_next(w, &wl);
		if (!word)
			continue;
		char msg[200];
		const struct cmdkey *k;
		memset(msg, 0, sizeof msg);
		enum cmdcheck_result r = cmdcheck_word(keys, NKEYS, word, wl, &k, msg, sizeof msg);
		if (r == CMDCHECK_OK) {
			good++;
			assert_non_null(k);
			assert_int_equal(msg[0], 0);
		} else {
			refused++;
			assert_true(strlen(msg) > 10);
			assert_null(strchr(msg, '\n'));
			assert_true(r == CMDCHECK_UNKNOWN || k != NULL);
		}
		for (size_t j = 0; j < NKEYS; j++) {
			if (keys[j].kind != CMDKEY_U64)
				continue;
			uint64_t v = cmdcheck_u64(w, &keys[j]);
			assert_true(v >= keys[j].min && v <= keys[j].max);
		}
	}
	/* The generator reaches both outcomes often. */
	assert_true(good > 1000);
	assert_true(refused > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),	      cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_has_and_words), cmocka_unit_test(test_check_cases),
		cmocka_unit_test(test_check_values),  cmocka_unit_test(test_check_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
