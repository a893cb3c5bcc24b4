/* core/evpolicy: who may raise which port, and the evt.allow= parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "core/evpolicy.h"

/* The rules of sliver/event.h written out once more, the slow way, as the model. */
static bool model(unsigned from, bool from_svc, uint64_t from_signalled_by, unsigned to,
		  bool to_svc, uint64_t allow)
{
	if (from_svc)
		return true; /* the service domain may signal any port */
	if (to_svc)
		return true; /* anyone may signal the service domain */
	if (from == to)
		return true; /* one's own ports */
	for (unsigned d = 1; d < SLIVER_MAX_DOMS; d++)
		if (d == from && (allow >> d & 1))
			return true; /* the owner allowed this sender */
	for (unsigned d = 1; d < SLIVER_MAX_DOMS; d++)
		if (d == to && (from_signalled_by >> d & 1))
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

/* Sparse random sets: most bits clear, so both answers come up often. */
static uint64_t sparse(void)
{
	return rnd() & rnd() & rnd() & rnd() & ~1ull;
}

static void test_policy_random(void **state)
{
	(void)state;
	unsigned yes = 0, no = 0;
	for (unsigned i = 0; i < 500000; i++) {
		struct ev_side f = {1 + (unsigned)(rnd() % 63), rnd() % 16 == 0, sparse()};
		struct ev_side t = {1 + (unsigned)(rnd() % 63), rnd() % 16 == 0, 0};
		uint64_t allow = sparse();
		bool got = ev_may_send(&f, &t, allow);
		assert_int_equal(got,
				 model(f.id, f.service, f.signalled_by, t.id, t.service, allow));
		got ? yes++ : no++;
	}
	assert_true(yes > 50000 && no > 50000);
}

static void test_policy_cases(void **state)
{
	(void)state;
	struct ev_side a = {3, false, 0}, b = {4, false, 0}, svc = {1, true, 0};
	assert_false(ev_may_send(&a, &b, 0));		  /* a stranger's port */
	assert_true(ev_may_send(&a, &b, EV_BIT(3)));	  /* allowed */
	assert_false(ev_may_send(&a, &b, EV_BIT(5) | 1)); /* another domain allowed */
	assert_true(ev_may_send(&a, &a, 0));		  /* itself */
	assert_true(ev_may_send(&a, &svc, 0));		  /* the service domain */
	assert_true(ev_may_send(&svc, &b, 0));		  /* from the service domain */
	b.signalled_by = EV_BIT(3);			  /* a signalled b ... */
	assert_true(ev_may_send(&b, &a, 0));		  /* ... so b may reply */
	assert_false(ev_may_send(&a, &b, 0));		  /* but not the other way */
	b.signalled_by = EV_BIT(SLIVER_DOMID_HV);	  /* the hypervisor's pings */
	assert_false(ev_may_send(&b, &a, 0));		  /* open nothing */
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
	uint64_t allow[SLIVER_NR_PORTS];
	char msg[120];
	memset(allow, 0, sizeof allow);
	assert_int_equal(ev_parse_allow("1:h-tries,9:7,9:x1,31:*", lookup, &t, allow, msg, 120), 0);
	assert_true(allow[1] == EV_BIT(1));
	assert_true(allow[9] == (EV_BIT(7) | EV_BIT(2)));
	assert_true(allow[31] == ~0ull);
	assert_true(allow[0] == 0 && allow[8] == 0);
	memset(allow, 0, sizeof allow);
	assert_int_equal(ev_parse_allow("1:nosuch,9:echo", lookup, &t, allow, msg, 120), 1);
	assert_string_equal(msg, "evt.allow item '1:nosuch': no such domain");
	assert_true(allow[9] == EV_BIT(7)); /* the good item still applies */
	static const char *const bad[] = {"",
					  "1",
					  "32:echo",
					  "x:echo",
					  "1:",
					  "1:64",
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
		uint64_t allow[SLIVER_NR_PORTS];
		char msg[120];
		memset(allow, 0, sizeof allow);
		msg[0] = 0;
		unsigned bad = ev_parse_allow(s, lookup, &t, allow, msg, sizeof msg);
		if (bad)
			assert_true(strlen(msg) > 10);
		for (unsigned p = 0; p < SLIVER_NR_PORTS; p++)
			assert_true(allow[p] == ~0ull || !(allow[p] & 1));
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
