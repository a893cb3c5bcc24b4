/* core/evpolicy: who may raise which port, and the evt.allow= parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "core/evpolicy.h"

/* The rules of sliver/event.h written out once more, the slow way, as the model. */
static bool bit(const struct domset *s, unsigned d)
{
	return s->w[d / 64] >> (d % 64) & 1;
}

static bool model(unsigned from, bool from_svc, const struct domset *from_signalled_by, unsigned to,
		  bool to_svc, const struct domset *allow)
{
	if (from_svc)
		return true; /* the service domain may signal any port */
	if (to_svc)
		return true; /* anyone may signal the service domain */
	if (from == to)
		return true; /* one's own ports */
	for (unsigned d = 1; d < SLIVER_MAX_DOMS; d++)
		if (d == from && bit(allow, d))
			return true; /* the owner allowed this sender */
	for (unsigned d = 1; d < SLIVER_MAX_DOMS; d++)
		if (d == to && bit(from_signalled_by, d))
			return true; /* a reply to a domain that signalled us */
	return false;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Sparse random sets over ids below `span`: most bits clear, so both answers come up
 * often; bit 0 (the hypervisor) never. */
static struct domset sparse(unsigned span)
{
	struct domset s = {{0}};
	for (unsigned i = 0; i < span / 16; i++) {
		unsigned d = 1 + (unsigned)(rnd() % (span - 1));
		s.w[d / 64] |= 1ull << (d % 64);
	}
	return s;
}

static struct domset one(unsigned d)
{
	struct domset s = {{0}};
	s.w[d / 64] |= 1ull << (d % 64);
	return s;
}

static void test_policy_random(void **state)
{
	(void)state;
	unsigned yes = 0, no = 0;
	for (unsigned i = 0; i < 500000; i++) {
		/* Half the cases among 64 ids (dense), half over all 1024 (every word). */
		unsigned span = i % 2 ? SLIVER_MAX_DOMS : 64;
		struct domset sig = sparse(span), allow = sparse(span), none = {{0}};
		if (span == 64)
			sig.w[0] |= rnd() & rnd() & ~1ull, allow.w[0] |= rnd() & rnd() & ~1ull;
		struct ev_side f = {1 + (unsigned)(rnd() % (span - 1)), rnd() % 16 == 0, &sig};
		struct ev_side t = {1 + (unsigned)(rnd() % (span - 1)), rnd() % 16 == 0, &none};
		bool got = ev_may_send(&f, &t, &allow);
		assert_int_equal(got,
				 model(f.id, f.service, f.signalled_by, t.id, t.service, &allow));
		got ? yes++ : no++;
	}
	assert_true(yes > 50000 && no > 50000);
}

static void test_policy_cases(void **state)
{
	(void)state;
	struct domset none = {{0}}, s3 = one(3), s5 = one(5), s1000 = one(1000), hv = one(0);
	struct ev_side a = {3, false, &none}, b = {4, false, &none}, svc = {1, true, &none};
	struct ev_side far = {1000, false, &none};
	assert_false(ev_may_send(&a, &b, &none));  /* a stranger's port */
	assert_true(ev_may_send(&a, &b, &s3));	   /* allowed */
	assert_false(ev_may_send(&a, &b, &s5));	   /* another domain allowed */
	assert_true(ev_may_send(&a, &a, &none));   /* itself */
	assert_true(ev_may_send(&a, &svc, &none)); /* the service domain */
	assert_true(ev_may_send(&svc, &b, &none)); /* from the service domain */
	b.signalled_by = &s3;			   /* a signalled b ... */
	assert_true(ev_may_send(&b, &a, &none));   /* ... so b may reply */
	assert_false(ev_may_send(&a, &b, &none));  /* but not the other way */
	b.signalled_by = &hv;			   /* the hypervisor's pings */
	assert_false(ev_may_send(&b, &a, &none));  /* open nothing */
	/* Ids past the first word: allowed, replies, and 1000's bit is not 1000 % 64's. */
	assert_true(ev_may_send(&far, &b, &s1000));
	assert_false(ev_may_send(&far, &b, &(struct domset){{1ull << (1000 % 64)}}));
	b.signalled_by = &s1000;
	assert_true(ev_may_send(&b, &far, &none));
}

struct names {
	const char *name[4];
	unsigned id[4];
};

static unsigned lookup(const char *name, size_t n, void *ctx)
{
	const struct names *t = ctx;
	for (unsigned i = 0; i < 4; i++)
		if (t->name[i] && strlen(t->name[i]) == n && !memcmp(t->name[i], name, n))
			return t->id[i];
	return 0;
}

static void test_parse_allow(void **state)
{
	(void)state;
	struct names t = {{"echo", "h-tries", "x1"}, {7, 1, 2}};
	static struct domset allow[SLIVER_NR_PORTS];
	struct domset all;
	domset_fill(&all, true);
	char msg[120];
	memset(allow, 0, sizeof allow);
	assert_int_equal(ev_parse_allow("1:h-tries,9:7,9:x1,31:*", lookup, &t, allow, msg, 120), 0);
	struct domset s1 = one(1), s72 = one(7), none = {{0}};
	s72.w[0] |= 1ull << 2;
	assert_memory_equal(&allow[1], &s1, sizeof s1);
	assert_memory_equal(&allow[9], &s72, sizeof s72);
	assert_memory_equal(&allow[31], &all, sizeof all);
	assert_memory_equal(&allow[0], &none, sizeof none);
	assert_memory_equal(&allow[8], &none, sizeof none);
	memset(allow, 0, sizeof allow);
	assert_int_equal(ev_parse_allow("2:1023,3:64", lookup, &t, allow, msg, 120), 0);
	assert_true(domset_has(&allow[2], 1023) && domset_has(&allow[3], 64));
	assert_false(domset_has(&allow[3], 0) || domset_has(&allow[2], 1023 % 64));
	memset(allow, 0, sizeof allow);
	assert_int_equal(ev_parse_allow("1:nosuch,9:echo", lookup, &t, allow, msg, 120), 1);
	assert_string_equal(msg, "evt.allow item '1:nosuch': no such domain");
	struct domset s7 = one(7);
	assert_memory_equal(&allow[9], &s7, sizeof s7); /* the good item still applies */
	static const char *const bad[] = {"",
					  "1",
					  "32:echo",
					  "x:echo",
					  "1:",
					  "1:1024",
					  "1:0",
					  ",",
					  "1:echo,",
					  ":echo",
					  "99999999999999999999:1"};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(allow, 0, sizeof allow);
		msg[0] = 0;
		assert_true(ev_parse_allow(bad[i], lookup, &t, allow, msg, 120) >= 1);
		assert_true(strlen(msg) > 10);
	}
}

/* Generator: random strings over the parser's alphabet never crash, never set a bit for
 * domain 0 or a port past the table, and a refusal always comes with a line. */
static void test_parse_random(void **state)
{
	(void)state;
	static const char alpha[] = "0123456789:,*echox-";
	struct names t = {{"echo", "x1"}, {7, 2}};
	for (unsigned i = 0; i < 100000; i++) {
		char s[24];
		unsigned n = (unsigned)(rnd() % (sizeof s - 1));
		for (unsigned j = 0; j < n; j++)
			s[j] = alpha[rnd() % (sizeof alpha - 1)];
		s[n] = 0;
		static struct domset allow[SLIVER_NR_PORTS];
		char msg[120];
		memset(allow, 0, sizeof allow);
		msg[0] = 0;
		unsigned bad = ev_parse_allow(s, lookup, &t, allow, msg, sizeof msg);
		if (bad)
			assert_true(strlen(msg) > 10);
		/* `*` fills a port's set; otherwise domain 0 (the hypervisor) is never added. */
		for (unsigned p = 0; p < SLIVER_NR_PORTS; p++)
			assert_true(allow[p].w[1] == ~0ull || !domset_has(&allow[p], 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_cases),
		cmocka_unit_test(test_policy_random),
		cmocka_unit_test(test_parse_allow),
		cmocka_unit_test(test_parse_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
