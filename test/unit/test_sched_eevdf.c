/* Unit tests of the eevdf policy (sched/eevdf*.c, Linux v6.6 EEVDF): shares by weight,
 * the lag clamp, eligibility, the placement of a waker, deadline order, wakeup preemption
 * (RUN_TO_PARITY), the slice scaled by pCPU count, caps by bandwidth control, the newidle
 * pull and exact run_ns. A small event driver plays the core: it calls pick_next at each
 * run_until and at each kick, and keeps its own account of who ran when. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sched/eevdf_priv.h"

#define US 1000ull
#define MS 1000000ull
#define NV 16
#define NP 8

static struct sched S;
static struct sched_dom D[NV];
static struct sched_vcpu V[NV];
static uint64_t armed[NP], since[NP], ran[NV];
static struct sched_vcpu *cur[NP];
static unsigned npcpus;

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void setup(unsigned pcpus, const char *extra)
{
	assert_int_equal(sched_init(&S, pcpus), 0);
	assert_int_equal(sched_config(&S, "sched", "eevdf", 0), 0);
	if (extra)
		assert_int_equal(sched_config_word(&S, extra, strlen(extra), 0), 0);
	memset(D, 0, sizeof(D));
	memset(V, 0, sizeof(V));
	memset(ran, 0, sizeof(ran));
	memset(cur, 0, sizeof(cur));
	npcpus = pcpus;
	for (unsigned p = 0; p < NP; p++)
		armed[p] = SCHED_NEVER, since[p] = 0;
}

/* Domain i with one vCPU (or `vcpus`), weight w, cap c, affinity mask. */
static struct sched_vcpu *add(unsigned i, uint32_t w, uint32_t c, sched_cpumask_t aff)
{
	D[i].id = i + 1;
	D[i].weight = w;
	D[i].cap = c;
	V[i].dom = &D[i];
	V[i].affinity = aff;
	assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	return &V[i];
}

static void kicks(sched_cpumask_t k, uint64_t now);

static void pick(unsigned p, uint64_t now)
{
	if (cur[p])
		ran[cur[p] - V] += now - since[p];
	struct sched_pick r = sched_pick_next(&S, p, now);
	assert_true(r.run_until > now);
	if (r.vcpu) {
		assert_int_equal(r.vcpu->state, SCHED_VS_RUNNING);
		assert_int_equal(r.vcpu->pcpu, p);
		for (unsigned q = 0; q < npcpus; q++)
			assert_true(q == p || cur[q] != r.vcpu);
	}
	cur[p] = r.vcpu;
	since[p] = now;
	armed[p] = r.run_until;
	kicks(r.kick, now);
}

static void kicks(sched_cpumask_t k, uint64_t now)
{
	for (unsigned p = 0; p < npcpus; p++)
		if (cpumask_test(k, p))
			pick(p, now);
}

/* Runs the timers until `end`; returns the time reached. */
static uint64_t run_until(uint64_t now, uint64_t end)
{
	for (;;) {
		unsigned p = 0;
		for (unsigned q = 1; q < npcpus; q++)
			if (armed[q] < armed[p])
				p = q;
		if (armed[p] >= end)
			return end;
		now = armed[p];
		pick(p, now);
	}
}

static void wake(struct sched_vcpu *v, uint64_t now, unsigned flags)
{
	kicks(sched_wake(&S, v, now, flags), now);
}

static void sleep_v(struct sched_vcpu *v, uint64_t now)
{
	unsigned p = v->pcpu;
	bool was_running = v->state == SCHED_VS_RUNNING;
	sched_cpumask_t k = sched_sleep(&S, v, now);
	if (was_running)
		pick(p, now);
	if (was_running)
		cpumask_clear(&k, p);
	kicks(k, now);
}

static void settle(uint64_t now)
{
	for (unsigned p = 0; p < npcpus; p++)
		if (cur[p])
			ran[cur[p] - V] += now - since[p], since[p] = now;
}

/* Seeded random weights, one pCPU, up to six spinners: each share within 1 point of
 * w_i / sum(w) over 3 s. */
static void test_shares_by_weight(void **st)
{
	(void)st;
	rng = 0x2545f4914f6cdd1dull;
	for (unsigned round = 0; round < 20; round++) {
		setup(1, NULL);
		unsigned n = 2 + rnd(5);
		uint64_t wsum = 0;
		for (unsigned i = 0; i < n; i++) {
			add(i, 1 + rnd(4096), 0, cpumask_none());
			wsum += D[i].weight;
		}
		for (unsigned i = 0; i < n; i++)
			wake(&V[i], 0, WAKE_NEW);
		uint64_t end = run_until(0, 3000 * MS);
		settle(end);
		for (unsigned i = 0; i < n; i++) {
			double got = 100.0 * (double)ran[i] / (double)end;
			double want = 100.0 * D[i].weight / (double)wsum;
			if (got - want > 1.0 || want - got > 1.0)
				fail_msg("round %u vcpu %u w=%u: %.2f%% for %.2f%%", round, i,
					 D[i].weight, got, want);
		}
	}
}

/* V of pCPU p from the entities' own fields (avg_vruntime, fair.c:671). */
static uint64_t ref_V(unsigned p, int64_t *load_out)
{
	struct eevdf_rq *rq = ERQ(&S, p);
	int64_t sum = 0, load = 0;
	for (unsigned i = 0; i < NV; i++) {
		struct sched_vcpu *v = &V[i];
		if (!v->dom || v->pcpu != p || !EV(v)->on_rq)
			continue;
		sum += (int64_t)(EV(v)->vruntime - rq->min_vruntime) * EV(v)->weight;
		load += EV(v)->weight;
	}
	if (load_out)
		*load_out = load;
	if (load) {
		if (sum < 0)
			sum -= load - 1;
		sum /= load;
	}
	return rq->min_vruntime + (uint64_t)sum;
}

/* Random weights on one pCPU, random sleeps of queued vCPUs at the instant of a pick (no
 * charge moves V): the kept lag is V - v clamped to calc_delta_fair(max(2 slice, tick)). Some
 * of them must hit the clamp (weights 1..65535 make the virtual lags far apart). */
static void test_lag_clamp(void **st)
{
	(void)st;
	rng = 0x9e3779b97f4a7c15ull;
	unsigned clamped = 0, checked = 0;
	for (unsigned round = 0; round < 40; round++) {
		setup(1, NULL);
		unsigned n = 3 + rnd(4);
		for (unsigned i = 0; i < n; i++)
			add(i, 1 + rnd(65535), 0, cpumask_none());
		for (unsigned i = 0; i < n; i++)
			wake(&V[i], 0, WAKE_NEW);
		uint64_t now = run_until(0, (1 + rnd(50)) * MS);
		pick(0, now); /* charges the running one: V is now fixed for `now` */
		struct sched_vcpu *v = NULL;
		for (unsigned i = 0; i < n && !v; i++)
			if (V[i].state == SCHED_VS_RUNNABLE)
				v = &V[i];
		if (!v)
			continue;
		/* Half the time it is moved far from V (as a 6.6 reweight of a queued entity,
		 * which keeps its vruntime, can do): the clamp must then cut. */
		if (round & 1) {
			uint64_t far = eevdf_calc_delta_fair(10 * EEVDF_TICK_NS, EV(v)->weight);
			EV(v)->vruntime += (round & 2) ? far : -far;
		}
		int64_t lag = (int64_t)(ref_V(0, NULL) - EV(v)->vruntime);
		uint64_t lim_ns =
			2 * EV(v)->slice > EEVDF_TICK_NS ? 2 * EV(v)->slice : EEVDF_TICK_NS;
		int64_t lim = (int64_t)eevdf_calc_delta_fair(lim_ns, EV(v)->weight);
		int64_t want = lag > lim ? lim : lag < -lim ? -lim : lag;
		sleep_v(v, now);
		assert_int_equal(EV(v)->vlag, want);
		checked++;
		clamped += want != lag;
	}
	assert_true(checked > 20);
	assert_true(clamped > 0);
}

/* Fresh vCPUs of random weights woken together on an idle pCPU: all at V with no lag, all
 * eligible, each deadline V + half its virtual slice (PLACE_DEADLINE_INITIAL): the first
 * pick is the earliest deadline, the heaviest. Then, every pick with RUN_TO_PARITY off is
 * the eligible one with the earliest deadline among all (checked from their fields). */
static void test_deadline_order_and_eligibility(void **st)
{
	(void)st;
	rng = 0x1234567887654321ull;
	unsigned checked = 0;
	for (unsigned round = 0; round < 20; round++) {
		setup(1, "eevdf.run_to_parity=0");
		unsigned n = 2 + rnd(6), heavy = 0;
		for (unsigned i = 0; i < n; i++) {
			add(i, 1 + rnd(8192), 0, cpumask_none());
			if (D[i].weight > D[heavy].weight)
				heavy = i;
		}
		for (unsigned i = 0; i < n; i++)
			wake(&V[i], 0, WAKE_NEW);
		assert_int_equal(EV(&V[0])->vruntime, EV(&V[n - 1])->vruntime);
		if (D[heavy].weight > D[(heavy + 1) % n].weight)
			assert_ptr_equal(cur[0], &V[heavy]);
		uint64_t now = 0;
		for (unsigned k = 0; k < 200; k++) {
			struct sched_vcpu *before = cur[0];
			assert_true(armed[0] != SCHED_NEVER);
			now = armed[0];
			pick(0, now);
			if (cur[0] == before)
				continue;
			/* Right after the pick the fields are those it decided on (set_next_entity
			 * moves no vruntime or deadline): the new one is eligible and no eligible
			 * one has an earlier deadline. */
			struct eevdf_rq *rq = ERQ(&S, 0);
			int64_t sum = 0, load = 0;
			for (unsigned j = 0; j < n; j++) {
				sum += (int64_t)(EV(&V[j])->vruntime - rq->min_vruntime) *
				       EV(&V[j])->weight;
				load += EV(&V[j])->weight;
			}
			for (unsigned j = 0; j < n; j++) {
				struct eevdf_vcpu *e = EV(&V[j]);
				bool elig = sum >= (int64_t)(e->vruntime - rq->min_vruntime) * load;
				if (&V[j] == cur[0])
					assert_true(elig);
				else if (elig)
					assert_true((int64_t)(e->deadline - EV(cur[0])->deadline) >=
						    0);
			}
			checked++;
		}
	}
	assert_true(checked > 500);
}

/* place_entity: a waker with kept lag L joins at V - L (W + w) / W, deadline one virtual
 * slice later, and its lag right after joining is L (to rounding). */
static void test_placement_of_waker(void **st)
{
	(void)st;
	rng = 0xdeadbeefcafef00dull;
	for (unsigned round = 0; round < 30; round++) {
		setup(1, NULL);
		unsigned n = 2 + rnd(4);
		for (unsigned i = 0; i <= n; i++)
			add(i, 1 + rnd(2048), 0, cpumask_none());
		for (unsigned i = 0; i < n; i++)
			wake(&V[i], 0, WAKE_NEW);
		uint64_t now = run_until(0, (1 + rnd(30)) * MS);
		pick(0, now);
		struct sched_vcpu *v = &V[n];
		struct eevdf_vcpu *e = EV(v);
		e->fresh = false;
		int64_t lim = (int64_t)eevdf_calc_delta_fair(2 * ES(&S)->slice_ns, e->weight);
		e->vlag = (int64_t)rnd((uint32_t)(2 * lim)) - lim;
		int64_t load;
		uint64_t Vv = ref_V(0, &load);
		int64_t lag = e->vlag * (load + (int64_t)e->weight) / load;
		wake(v, now, WAKE_EVENT);
		assert_int_equal(e->vruntime, Vv - (uint64_t)lag);
		assert_int_equal(e->deadline,
				 e->vruntime + eevdf_calc_delta_fair(ES(&S)->slice_ns, e->weight));
		int64_t after = (int64_t)(ref_V(0, NULL) - e->vruntime);
		int64_t d = after - e->vlag;
		assert_true(d >= -2 && d <= 2);
	}
}

/* check_preempt_wakeup with RUN_TO_PARITY (features.h:9): three spinners take turns; just
 * after one got its fresh slice (two slices owed: eligible) a heavier vCPU starts (lag 0, half a
 * virtual slice: eligible, with the earlier deadline). With the feature the eligible runner keeps
 * its slice and the waker runs at its end; without it the waker preempts at once. */
static void test_wakeup_preemption(void **st)
{
	(void)st;
	for (unsigned parity = 0; parity < 2; parity++) {
		setup(1, parity ? "eevdf.run_to_parity=1" : "eevdf.run_to_parity=0");
		struct sched_vcpu *a = add(0, 256, 0, cpumask_none()),
				  *b = add(1, 256, 0, cpumask_none());
		struct sched_vcpu *c = add(2, 1024, 0, cpumask_none()),
				  *d = add(3, 256, 0, cpumask_none());
		wake(a, 0, WAKE_NEW);
		wake(b, 0, WAKE_NEW);
		wake(d, 0, WAKE_NEW);
		uint64_t now = run_until(0, 20 * MS);
		now = armed[0];
		pick(0, now); /* a slice end: the other one starts a fresh slice */
		struct sched_vcpu *runner = cur[0];
		now += 10 * US;
		pick(0, now);
		assert_ptr_equal(cur[0], runner);
		uint64_t preempts = runner->c.preempts, slice_end = armed[0];
		sched_cpumask_t k = sched_wake(&S, c, now, WAKE_NEW);
		assert_true((int64_t)(EV(c)->deadline - EV(runner)->deadline) < 0);
		if (parity) {
			assert_false(S.pcpu[0].resched);
			kicks(k, now);
			assert_ptr_equal(cur[0], runner);
			assert_int_equal(runner->c.preempts, preempts);
			assert_int_equal(armed[0], slice_end);
			run_until(now, armed[0] + 1);
			assert_ptr_equal(cur[0], c);
		} else {
			assert_true(cpumask_equal(k, cpumask_of(0)));
			kicks(k, now);
			assert_ptr_equal(cur[0], c);
			assert_int_equal(runner->c.preempts, preempts + 1);
		}
	}
}

/* sched_init_granularity: 0.75 ms x (1 + ilog2(min(n, 8))); eevdf.slice_us overrides it;
 * two equal spinners switch every slice. */
static void test_slice_scaling(void **st)
{
	(void)st;
	static const struct {
		unsigned n;
		uint64_t us;
	} t[] = {{1, 750},  {2, 1500}, {3, 1500},  {4, 2250},
		 {7, 2250}, {8, 3000}, {16, 3000}, {64, 3000}};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		setup(t[i].n, NULL);
		assert_int_equal(ES(&S)->slice_ns, t[i].us * US);
	}
	setup(1, "eevdf.slice_us=2000");
	assert_int_equal(ES(&S)->slice_ns, 2000 * US);
	assert_int_equal(sched_config(&S, "eevdf.slice_us", "50", 0), -22);
	assert_int_equal(sched_config(&S, "eevdf.slice_us", "0", 0), 0);
	assert_int_equal(ES(&S)->slice_ns, 750 * US);
	setup(8, NULL);
	add(0, 256, 0, cpumask_of(0));
	add(1, 256, 0, cpumask_of(0));
	wake(&V[0], 0, WAKE_NEW);
	wake(&V[1], 0, WAKE_NEW);
	uint64_t now = run_until(0, 100 * MS);
	struct sched_vcpu *a = cur[0];
	now = armed[0];
	assert_true(armed[0] - since[0] <= 3000 * US);
	pick(0, now);
	assert_ptr_not_equal(cur[0], a);
	assert_int_equal(armed[0] - now, 3000 * US);
}

/* CFS bandwidth: seeded random caps (one pCPU, a capped spinner next to a free one, and a
 * 2-vCPU domain on two pCPUs) get cap% within 0.5 point over 5 s; the free one the rest. */
static void test_caps_via_bandwidth(void **st)
{
	(void)st;
	rng = 0x5555aaaa12345678ull;
	for (unsigned round = 0; round < 8; round++) {
		setup(2, NULL);
		uint32_t c1 = 5 + rnd(90), c2 = 10 + rnd(85);
		add(0, 65535, c1, cpumask_of(0)); /* would take ~all of pCPU 0 without the cap */
		add(1, 256, 0, cpumask_of(0));
		D[2].id = 3, D[2].weight = 256, D[2].cap = c2;
		for (unsigned j = 2; j < 4; j++) {
			V[j].dom = &D[2];
			V[j].id = j - 2;
			V[j].affinity = cpumask_of(1);
			assert_int_equal(sched_vcpu_insert(&S, &V[j], 0), 0);
		}
		for (unsigned j = 0; j < 4; j++)
			wake(&V[j], 0, WAKE_NEW);
		uint64_t end = run_until(0, 5000 * MS);
		settle(end);
		double got1 = 100.0 * (double)ran[0] / (double)end;
		double got2 = 100.0 * (double)(ran[2] + ran[3]) / (double)end;
		double free1 = 100.0 * (double)ran[1] / (double)end;
		if (got1 > c1 + 0.5 || got1 < c1 - 0.5)
			fail_msg("round %u cap %u: %.2f%%", round, c1, got1);
		if (got2 > c2 + 0.5 || got2 < c2 - 0.5)
			fail_msg("round %u cap %u (2 vCPUs): %.2f%%", round, c2, got2);
		if (free1 < 100.0 - c1 - 0.5) /* the cap leaves the rest to the free one */
			fail_msg("round %u free %.2f%% next to cap %u", round, free1, c1);
		assert_true(D[0].c.parks > 0 && D[2].c.parks > 0);
	}
}

/* newidle_balance: a pCPU that goes idle pulls the waiting vCPU of the busiest pCPU. */
static void test_idle_pull(void **st)
{
	(void)st;
	setup(2, NULL);
	for (unsigned i = 0; i < 3; i++)
		add(i, 256, 0, cpumask_none());
	for (unsigned i = 0; i < 3; i++)
		wake(&V[i], 0, WAKE_NEW);
	/* Two land on the idle pCPUs, the third waits on one of them. */
	assert_non_null(cur[0]);
	assert_non_null(cur[1]);
	unsigned busy = S.pcpu[0].nr_queued ? 0 : 1, other = 1 - busy;
	assert_int_equal(S.pcpu[busy].nr_queued, 1);
	struct sched_vcpu *waiting = ERQ(&S, busy)->head;
	uint64_t now = run_until(0, MS / 4);
	sleep_v(cur[other], now);
	assert_ptr_equal(cur[other], waiting);
	assert_int_equal(waiting->pcpu, other);
	assert_int_equal(waiting->c.migrations, 1);
	/* And a wake prefers an idle pCPU of its affinity. */
	setup(3, NULL);
	add(0, 256, 0, cpumask_none());
	add(1, 256, 0, cpumask_none());
	wake(&V[0], 0, WAKE_NEW);
	wake(&V[1], 0, WAKE_NEW);
	assert_int_not_equal(V[0].pcpu, V[1].pcpu);
}

/* Flattened groups: a domain's weight is split over its runnable vCPUs (calc_group_shares
 * with instantaneous load): a 3-vCPU domain next to a 1-vCPU one of the same weight gets half
 * the pCPU whether 1, 2 or 3 of its vCPUs run; weights are restored when they sleep. */
static void test_domain_split_by_runnable(void **st)
{
	(void)st;
	for (unsigned k = 1; k <= 3; k++) {
		setup(1, NULL);
		D[0].id = 1, D[0].weight = 256;
		for (unsigned j = 0; j < 3; j++) {
			V[j].dom = &D[0];
			V[j].id = j;
			assert_int_equal(sched_vcpu_insert(&S, &V[j], 0), 0);
		}
		add(3, 256, 0, cpumask_none());
		for (unsigned j = 0; j < k; j++)
			wake(&V[j], 0, WAKE_NEW);
		wake(&V[3], 0, WAKE_NEW);
		for (unsigned j = 0; j < k; j++)
			assert_int_equal(EV(&V[j])->weight, 1024 / k);
		uint64_t end = run_until(0, 2000 * MS);
		settle(end);
		double dom = 100.0 * (double)(ran[0] + ran[1] + ran[2]) / (double)end;
		if (dom > 51.0 || dom < 49.0)
			fail_msg("%u runnable: %.2f%%", k, dom);
		for (unsigned j = 1; j < k; j++)
			sleep_v(&V[j], end);
		assert_int_equal(EV(&V[0])->weight, 1024);
	}
}

/* run_ns is exact: random wakes, sleeps, yields and weight changes on 1-4 pCPUs; every
 * vCPU's run_ns equals the time the driver saw it RUNNING, to the ns. */
static void test_exact_run_ns(void **st)
{
	(void)st;
	rng = 0x0123456789abcdefull;
	for (unsigned round = 0; round < 20; round++) {
		unsigned np = 1 + rnd(4), n = 2 + rnd(8);
		setup(np, NULL);
		for (unsigned i = 0; i < n; i++)
			add(i, 1 + rnd(2048), rnd(4) ? 0 : 10 + rnd(100),
			    rnd(3) ? cpumask_none() : cpumask_of(rnd(np)));
		uint64_t now = 0;
		for (unsigned k = 0; k < 2000; k++) {
			now = run_until(now, now + rnd(3 * MS));
			struct sched_vcpu *v = &V[rnd(n)];
			switch (rnd(5)) {
			case 0:
			case 1:
				wake(v, now, v->c.wakes ? WAKE_EVENT : WAKE_NEW);
				break;
			case 2:
				sleep_v(v, now);
				break;
			case 3:
				if (v->state == SCHED_VS_RUNNING) {
					sched_yield(&S, v, now);
					pick(v->pcpu, now);
				}
				break;
			default:
				sched_set_params(&S, v->dom, 1 + rnd(4096), v->dom->cap, now);
				kicks(sched_take_kicks(&S), now);
				break;
			}
		}
		settle(now);
		for (unsigned i = 0; i < n; i++)
			assert_int_equal(sched_run_ns(&V[i], now), ran[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares_by_weight),
		cmocka_unit_test(test_lag_clamp),
		cmocka_unit_test(test_deadline_order_and_eligibility),
		cmocka_unit_test(test_placement_of_waker),
		cmocka_unit_test(test_wakeup_preemption),
		cmocka_unit_test(test_slice_scaling),
		cmocka_unit_test(test_caps_via_bandwidth),
		cmocka_unit_test(test_idle_pull),
		cmocka_unit_test(test_domain_split_by_runnable),
		cmocka_unit_test(test_exact_run_ns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
