/* core/timerq: ordering, FIFO among equal deadlines, re-arming, removal, expiry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "core/timerq.h"

static void test_order_and_fifo(void **state)
{
	(void)state;
	struct timerq q = {0};
	struct timerq_node n[5] = {0};
	timerq_insert(&q, &n[0], 300);
	timerq_insert(&q, &n[1], 100);
	timerq_insert(&q, &n[2], 200);
	timerq_insert(&q, &n[3], 100); /* same deadline as n[1]: after it */
	timerq_insert(&q, &n[4], 50);
	struct timerq_node *expect[] = {&n[4], &n[1], &n[3], &n[2], &n[0]};
	for (int i = 0; i < 5; i++)
		assert_ptr_equal(timerq_pop_expired(&q, 1000), expect[i]);
	assert_null(timerq_first(&q));
}

static void test_expiry_boundary(void **state)
{
	(void)state;
	struct timerq q = {0};
	struct timerq_node a = {0};
	timerq_insert(&q, &a, 100);
	assert_null(timerq_pop_expired(&q, 99));
	assert_ptr_equal(timerq_pop_expired(&q, 100), &a);
	assert_false(a.queued);
}

static void test_rearm_and_remove(void **state)
{
	(void)state;
	struct timerq q = {0};
	struct timerq_node a = {0}, b = {0}, c = {0};
	timerq_insert(&q, &a, 10);
	timerq_insert(&q, &b, 20);
	timerq_insert(&q, &c, 30);
	timerq_insert(&q, &a, 40); /* re-arm moves it */
	assert_ptr_equal(timerq_first(&q), &b);
	timerq_remove(&q, &c);
	timerq_remove(&q, &c); /* twice is harmless */
	assert_ptr_equal(timerq_pop_expired(&q, 100), &b);
	assert_ptr_equal(timerq_pop_expired(&q, 100), &a);
	assert_null(timerq_pop_expired(&q, 100));
}

static void test_random_against_sort(void **state)
{
	(void)state;
	enum { N = 500 };
	static struct timerq_node n[N];
	struct timerq q = {0};
	srand(1);
	for (int i = 0; i < N; i++)
		timerq_insert(&q, &n[i], (uint64_t)(rand() % 1000));
	for (int i = 0; i < N / 3; i++)
		timerq_remove(&q, &n[rand() % N]);
	uint64_t last = 0;
	struct timerq_node *x;
	while ((x = timerq_pop_expired(&q, UINT64_MAX))) {
		assert_true(x->deadline >= last);
		last = x->deadline;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_fifo),
		cmocka_unit_test(test_expiry_boundary),
		cmocka_unit_test(test_rearm_and_remove),
		cmocka_unit_test(test_random_against_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
