/* The credit policy's unit-test fixture (credit_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test/unit/credit_fixture.h"

struct sched S;
struct sched_dom D[8];
struct sched_vcpu V[8];

void setup(unsigned pcpus, unsigned n)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	for (unsigned i = 0; i < n; i++) {
		D[i].id = i + 1;
		V[i].dom = &D[i];
		V[i].affinity = cpumask_of(0);
		assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	}
}

uint64_t run(unsigned p, uint64_t t, uint64_t end)
{
	while (t < end) {
		struct sched_pick pk = sched_pick_next(&S, p, t);
		t = pk.run_until < end ? pk.run_until : end;
	}
	sched_pick_next(&S, p, end); /* charge up to end */
	return end;
}

int64_t credit_of(const struct sched_vcpu *v)
{
	return (int64_t)(cpc(&S.pcpu[v->pcpu])->vclock - cv(v)->vtime) * (int64_t)v->dom->weight /
	       65536;
}

uint64_t setup_over_waker(void)
{
	setup(1, 3);
	sched_wake(&S, &V[0], 0, WAKE_NEW);
	sched_wake(&S, &V[1], 0, WAKE_NEW);
	uint64_t t = run(0, 0, 5 * MS);
	cv(&V[2])->vtime = cpc(&S.pcpu[0])->vclock + 2 * MS * 65536 / 256;
	return t;
}
