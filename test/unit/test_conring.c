/* lib/conring: records come out whole and in order, wrap-around padding, the limit that
 * keeps room for privileged producers, an uncommitted record holds back the ones after
 * it, and, with several producer threads and one consumer on a small ring, every record
 * arrives intact, in each producer's order, or was refused at reservation (seeded). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/conring.h"

static _Alignas(16) uint8_t mem[1 << 16];

static bool put(struct conring *r, const char *s, uint32_t tag, uint32_t limit)
{
	uint64_t pos;
	uint32_t n = (uint32_t)strlen(s);
	char *p = conring_reserve(r, n, tag, limit, &pos);
	if (!p)
		return false;
	memcpy(p, s, n);
	conring_commit(r, pos);
	return true;
}

static bool take(struct conring *r, char *out, uint32_t *tag)
{
	uint32_t len;
	const char *p = conring_peek(r, &len, tag, NULL);
	if (!p)
		return false;
	memcpy(out, p, len);
	out[len] = 0;
	conring_consume(r);
	return true;
}

static void test_order_and_wrap(void **state)
{
	(void)state;
	struct conring r;
	conring_init(&r, mem, 512);
	char out[300];
	uint32_t tag;
	assert_false(take(&r, out, &tag));
	/* Many laps of odd-sized records: each lap forces padding at a different offset. */
	for (unsigned i = 0; i < 500; i++) {
		char s[80];
		snprintf(s, sizeof s, "line %u %.*s", i, (int)(i % 61),
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		assert_true(put(&r, s, i % 7, 512));
		if (i % 3 == 0)
			continue; /* let two records queue up now and then */
		while (take(&r, out, &tag)) {
			assert_int_equal(strncmp(out, "line ", 5), 0);
		}
	}
	assert_int_equal(conring_used(&r), 0);
}

static void test_full_and_limit(void **state)
{
	(void)state;
	struct conring r;
	conring_init(&r, mem, 1024);
	const char *s = "0123456789abcdef0123456789abcdef0123456789abcdef"; /* 48 bytes: cost 64 */
	assert_int_equal(conring_cost(48), 64);
	unsigned n = 0;
	while (put(&r, s, 1, 768)) /* guests: up to 3/4 of the ring */
		n++;
	assert_int_equal(n, 12);
	assert_int_equal(conring_used(&r), 768);
	/* The reserve is still there for the privileged producer, and then it is full too. */
	for (unsigned i = 0; i < 4; i++)
		assert_true(put(&r, s, 0, 1024));
	assert_false(put(&r, s, 0, 1024));
	assert_false(put(&r, "", 0, 1024));
	/* Too big for the limit at all. */
	struct conring e;
	conring_init(&e, mem + 4096, 64);
	assert_true(put(&e, s, 0, 64));
	assert_false(put(&e, "x", 0, 64));
	conring_init(&e, mem + 4096, 64);
	assert_false(put(&e, "0123456789abcdef0123456789abcdef0123456789abcdef0", 0, 64));
	char out[64];
	uint32_t tag;
	for (unsigned i = 0; i < 16; i++) {
		assert_true(take(&r, out, &tag));
		assert_string_equal(out, s);
		assert_int_equal(tag, i < 12 ? 1 : 0);
	}
	assert_false(take(&r, out, &tag));
}

static void test_uncommitted_holds_back(void **state)
{
	(void)state;
	struct conring r;
	conring_init(&r, mem, 512);
	uint64_t p1, p2;
	char *a = conring_reserve(&r, 5, 1, 512, &p1);
	char *b = conring_reserve(&r, 5, 2, 512, &p2);
	assert_non_null(a);
	assert_non_null(b);
	memcpy(b, "later", 5);
	conring_commit(&r, p2);
	uint32_t len, tag;
	assert_null(conring_peek(&r, &len, &tag, NULL)); /* the first is still being written */
	memcpy(a, "first", 5);
	conring_commit(&r, p1);
	const char *x = conring_peek(&r, &len, &tag, NULL);
	assert_non_null(x);
	assert_int_equal(tag, 1);
	assert_memory_equal(x, "first", 5);
	conring_consume(&r);
	x = conring_peek(&r, &len, &tag, NULL);
	assert_non_null(x);
	assert_memory_equal(x, "later", 5);
	conring_consume(&r);
	assert_null(conring_peek(&r, &len, &tag, NULL));
}

/* Threads: producer k writes records "k seq payload" where the payload repeats a byte
 * derived from (k, seq); the consumer checks every record and each producer's order. */
#define PRODUCERS 4
#define PER	  20000
static struct conring shared;
static uint64_t refused[PRODUCERS];
static volatile int producers_done;

struct rec {
	uint32_t k, seq, len;
};

static void *producer(void *arg)
{
	uint32_t k = (uint32_t)(uintptr_t)arg;
	unsigned seed = 1234 + k;
	for (uint32_t seq = 0; seq < PER; seq++) {
		uint32_t len = sizeof(struct rec) + (uint32_t)(rand_r(&seed) % 200);
		uint64_t pos;
		char *p = conring_reserve(&shared, len, k, shared.size, &pos);
		if (!p) {
			refused[k]++;
			continue;
		}
		struct rec h = {k, seq, len};
		memcpy(p, &h, sizeof h);
		memset(p + sizeof h, (int)((k * 31 + seq) & 0xff), len - sizeof h);
		conring_commit(&shared, pos);
	}
	__atomic_fetch_add(&producers_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	conring_init(&shared, mem, 4096);
	pthread_t t[PRODUCERS];
	for (uintptr_t k = 0; k < PRODUCERS; k++)
		assert_int_equal(pthread_create(&t[k], NULL, producer, (void *)k), 0);
	int64_t last[PRODUCERS];
	uint64_t got[PRODUCERS] = {0}, total = 0;
	for (unsigned k = 0; k < PRODUCERS; k++)
		last[k] = -1;
	for (;;) {
		int done = __atomic_load_n(&producers_done, __ATOMIC_SEQ_CST);
		uint32_t len, tag;
		const char *p = conring_peek(&shared, &len, &tag, NULL);
		if (!p) {
			if (done == PRODUCERS && !conring_used(&shared))
				break;
			continue;
		}
		struct rec h;
		memcpy(&h, p, sizeof h);
		assert_true(tag < PRODUCERS);
		assert_int_equal(h.k, tag);
		assert_int_equal(h.len, len);
		assert_true((int64_t)h.seq > last[tag]);
		for (uint32_t i = sizeof h; i < len; i++)
			assert_int_equal((uint8_t)p[i], (h.k * 31 + h.seq) & 0xff);
		last[tag] = h.seq;
		got[tag]++;
		conring_consume(&shared);
	}
	for (unsigned k = 0; k < PRODUCERS; k++) {
		pthread_join(t[k], NULL);
		assert_int_equal(got[k] + refused[k], PER);
		total += got[k];
	}
	assert_true(total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_wrap),
		cmocka_unit_test(test_full_and_limit),
		cmocka_unit_test(test_uncommitted_holds_back),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
