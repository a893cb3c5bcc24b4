/* Unit tests of the credit policy between pCPUs (idle stealing, wakes to an idle pCPU,
 * affinity) and of what the outside changes or reads (a key at run time, the trace, the
 * dump, a vCPU's removal); the rules on one pCPU are in test_sched_credit.c. The fixture:
 * credit_fixture.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "test/unit/credit_fixture.h"

static void test_idle_steals_respecting_affinity(void **st)
{
	(void)st;
	setup(2, 3);
	for (int i = 0; i < 3; i++)
		sched_set_affinity(&S, &V[i], cpumask_of(0), 0);
	for (int i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	sched_pick_next(&S, 0, 0);
	/* All pinned to 0: pCPU 1 finds nothing. */
	struct sched_pick pk = sched_pick_next(&S, 1, 0);
	assert_null(pk.vcpu);
	/* Allow V2 on both: pCPU 1 steals it, without a boost. */
	sched_set_affinity(&S, &V[2], cpumask_or(cpumask_of(0), cpumask_of(1)), 10);
	pk = sched_pick_next(&S, 1, 10);
	assert_ptr_equal(pk.vcpu, &V[2]);
	assert_int_equal(V[2].pcpu, 1);
	assert_int_equal(V[2].c.migrations, 1);
	assert_int_equal(V[2].c.boosts, 0);
}

static void test_wake_goes_to_idle_pcpu(void **st)
{
	(void)st;
	setup(2, 2);
	V[0].affinity = V[1].affinity = cpumask_none();
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	sched_cpumask_t k = sched_wake(&S, &V[1], 0, WAKE_NEW);
	assert_true(V[0].pcpu != V[1].pcpu);
	assert_true(cpumask_test(k, V[1].pcpu));
}

static void test_affinity_change_moves_running_vcpu(void **st)
{
	(void)st;
	setup(2, 1);
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	struct sched_pick pk = sched_pick_next(&S, 0, 0);
	assert_ptr_equal(pk.vcpu, &V[0]);
	sched_cpumask_t k = sched_set_affinity(&S, &V[0], cpumask_of(1), 100);
	assert_true(cpumask_test(k, 0));
	pk = sched_pick_next(&S, 0, 100);
	assert_null(pk.vcpu);
	assert_true(cpumask_test(pk.kick, 1));
	pk = sched_pick_next(&S, 1, 100);
	assert_ptr_equal(pk.vcpu, &V[0]);
	assert_int_equal(V[0].c.boosts, 0);
	assert_int_equal(V[0].c.run_ns, 100);
}

/* A key changed at run time applies at once: every pCPU is kicked to decide again, the next
 * slice has the new length, and no ns is lost or counted twice across the change. */
static void test_runtime_key_change(void **st)
{
	(void)st;
	setup(1, 2);
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	sched_wake(&S, &V[1], 0, WAKE_NEW);
	run(0, 0, 50 * MS);
	assert_int_equal(sched_config(&S, "credit.tslice_us", "5000", 50 * MS), 0);
	assert_true(cpumask_test(sched_take_kicks(&S), 0));
	struct sched_pick pk = sched_pick_next(&S, 0, 50 * MS);
	pk = sched_pick_next(&S, 0, pk.run_until);
	assert_int_equal(pk.run_until - S.pcpu[0].curr_since, 5 * MS);
	run(0, pk.run_until - 1, 400 * MS);
	assert_int_equal(V[0].c.run_ns + V[1].c.run_ns, 400 * MS);
}

static void test_trace_events(void **st)
{
	(void)st;
	uint64_t t = setup_over_waker();
	sched_sleep(&S, &V[2], t);
	sched_pick_next(&S, 0, t);
	sched_wake(&S, &V[2], t + 1, WAKE_EVENT);
	struct sched_pick pk = sched_pick_next(&S, 0, t + 1);
	pk = sched_pick_next(&S, 0, pk.run_until);
	sched_sleep(&S, pk.vcpu, pk.run_until - 1);
	struct sched_trace_rec r[SCHED_TRACE_LEN];
	unsigned n = sched_trace_read(&S, 0, r, SCHED_TRACE_LEN);
	unsigned seen = 0;
	for (unsigned i = 0; i < n; i++)
		seen |= 1u << r[i].ev;
	assert_true(seen & (1u << SCHED_EV_WAKE));
	assert_true(seen & (1u << SCHED_EV_BOOST));
	assert_true(seen & (1u << SCHED_EV_UNBOOST));
	assert_true(seen & (1u << SCHED_EV_SWITCH));
	assert_true(seen & (1u << SCHED_EV_SLEEP));
}

static char dump_buf[16384];
static size_t dump_len;
static void dump_cb(void *arg, const char *fmt, ...)
{
	(void)arg;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dump_buf + dump_len, sizeof(dump_buf) - dump_len, fmt, ap);
	va_end(ap);
	if (n > 0 && dump_len + (size_t)n < sizeof(dump_buf))
		dump_len += (size_t)n;
}

static void test_dump(void **st)
{
	(void)st;
	setup(1, 2);
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	sched_pick_next(&S, 0, 0);
	dump_len = 0;
	sched_dump(&S, dump_cb, NULL);
	assert_non_null(strstr(dump_buf, "sched policy=credit pcpus=1 tslice_ns=1000000 "));
	assert_non_null(strstr(dump_buf, "sched vcpu d1v0 pcpu=0 state=running"));
	assert_non_null(strstr(dump_buf, "sched dom d2 run_ns=0"));
}

static void test_remove_vcpu(void **st)
{
	(void)st;
	setup(1, 3);
	for (int i = 0; i < 3; i++)
		sched_wake(&S, &V[i], 0, WAKE_NEW);
	sched_pick_next(&S, 0, 0);
	sched_vcpu_remove(&S, &V[1], 10); /* queued */
	sched_sleep(&S, &V[0], 20);
	sched_pick_next(&S, 0, 20);
	sched_vcpu_remove(&S, &V[0], 20); /* blocked */
	assert_int_equal(S.nr_vcpus, 1);
	assert_int_equal(cpc(&S.pcpu[0])->w_active, cv(&V[2])->w_acct);
	struct sched_pick pk = sched_pick_next(&S, 0, 30);
	assert_ptr_equal(pk.vcpu, &V[2]);
	assert_true(pk.run_until == SCHED_NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_steals_respecting_affinity),
		cmocka_unit_test(test_wake_goes_to_idle_pcpu),
		cmocka_unit_test(test_affinity_change_moves_running_vcpu),
		cmocka_unit_test(test_runtime_key_change),
		cmocka_unit_test(test_trace_events),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_remove_vcpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
