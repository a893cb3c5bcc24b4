/* Unit tests of the scheduler interface through the round-robin policy and the generic
 * layer (parameters, trace ring). The credit policy has its own file, test_sched_credit.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "sched/sched_priv.h"

static struct sched S;
static struct sched_dom D[4];
static struct sched_vcpu V[8];

static void setup_rr(unsigned pcpus, unsigned nv)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	assert_int_equal(sched_config(&S, "sched", "rr", 0), 0);
	assert_string_equal(S.ops->name, "rr");
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	for (unsigned i = 0; i < nv; i++) {
		D[i % 4].id = 1 + i % 4;
		V[i].dom = &D[i % 4];
		V[i].id = i / 4;
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	}
}

static void test_rr_round_robin(void **st)
{
	(void)st;
	setup_rr(1, 3);
	for (int i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	S.p.tslice_ns = 1000;
	struct sched_pick pk = sched_pick_next(&S, 0, 0);
	assert_ptr_equal(pk.vcpu, &V[0]);
	assert_int_equal(pk.run_until, 1000);
	pk = sched_pick_next(&S, 0, 1000);
	assert_ptr_equal(pk.vcpu, &V[1]);
	pk = sched_pick_next(&S, 0, 2000);
	assert_ptr_equal(pk.vcpu, &V[2]);
	pk = sched_pick_next(&S, 0, 3000);
	assert_ptr_equal(pk.vcpu, &V[0]);
	assert_int_equal(V[0].c.run_ns, 1000);
	assert_int_equal(V[1].c.run_ns, 1000);
}

static void test_rr_single_vcpu_no_timer(void **st)
{
	(void)st;
	setup_rr(1, 1);
	assert_int_equal(sched_wake(&S, &V[0], 0, WAKE_NEW), SCHED_CPU(0));
	struct sched_pick pk = sched_pick_next(&S, 0, 0);
	assert_ptr_equal(pk.vcpu, &V[0]);
	assert_true(pk.run_until == SCHED_NEVER);
	sched_sleep(&S, &V[0], 500);
	pk = sched_pick_next(&S, 0, 500);
	assert_null(pk.vcpu);
	assert_int_equal(V[0].c.run_ns, 500);
}

static void test_rr_idle_steals(void **st)
{
	(void)st;
	setup_rr(2, 3);
	for (int i = 0; i < 3; i++) {
		V[i].affinity = SCHED_CPU(0);
		sched_set_affinity(&S, &V[i], SCHED_CPU(0), 0);
	}
	V[2].affinity = 0; /* may run anywhere */
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	sched_pick_next(&S, 0, 0);
	sched_wake(&S, &V[1], 0, WAKE_NEW);
	sched_wake(&S, &V[2], 0, WAKE_NEW); /* pCPU 1 idle: placed there */
	struct sched_pick pk = sched_pick_next(&S, 1, 0);
	assert_ptr_equal(pk.vcpu, &V[2]);
}

static void test_config_words(void **st)
{
	(void)st;
	assert_int_equal(sched_init(&S, 2), 0);
	assert_string_equal(S.ops->name, "credit");
	const char *w = "credit.tslice_us=500";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), 0);
	assert_int_equal(S.p.tslice_ns, 500000);
	w = "console=com1";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), 1);
	w = "credit.tslice_us=abc";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), -22);
	w = "credit.tslice_us=0";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), -22);
	w = "credit.profile=xen-credit1";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), 0);
	assert_int_equal(S.p.tslice_ns, 30000000);
	assert_int_equal(S.p.tick_ns, 10000000);
	assert_int_equal(S.p.ratelimit_ns, 1000000);
	w = "ratelimit_us=100"; /* the bare form of design.md */
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), 0);
	assert_int_equal(S.p.ratelimit_ns, 100000);
	w = "credit.profile=bogus";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), -22);
	w = "sched=nosuch";
	assert_int_equal(sched_config_word(&S, w, strlen(w), 0), -22);
}

static void test_trace_ring(void **st)
{
	(void)st;
	setup_rr(1, 2);
	sched_wake(&S, &V[0], 5, WAKE_NEW);
	sched_pick_next(&S, 0, 6);
	struct sched_trace_rec r[4];
	unsigned n = sched_trace_read(&S, 0, r, 4);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].ev, SCHED_EV_WAKE);
	assert_int_equal(r[0].t, 5);
	assert_int_equal(r[1].ev, SCHED_EV_SWITCH);
	assert_string_equal(sched_ev_name(r[1].ev), "switch");
	for (int i = 0; i < 1000; i++)
		sched_trace_ev(&S, 0, (uint64_t)i, SCHED_EV_YIELD, &V[0], i);
	struct sched_trace_rec big[SCHED_TRACE_LEN + 8];
	n = sched_trace_read(&S, 0, big, SCHED_TRACE_LEN + 8);
	assert_int_equal(n, SCHED_TRACE_LEN);
	assert_int_equal(big[n - 1].arg, 999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rr_round_robin),
		cmocka_unit_test(test_rr_single_vcpu_no_timer),
		cmocka_unit_test(test_rr_idle_steals),
		cmocka_unit_test(test_config_words),
		cmocka_unit_test(test_trace_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
