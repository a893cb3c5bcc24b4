/* The driver the issue-10 scheduler tests share (sched_drive.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/credit_priv.h" /* white box: credit's private state (cv, cd, cpc, cs) */
#include "test/unit/sched_drive.h"

struct sched S;
struct sched_dom D[NV];
struct sched_vcpu V[NV];
uint64_t T[SCHED_MAX_PCPUS];
uint64_t Wt[NV];
uint64_t Rt[NV];
unsigned Slow[NV];
uint64_t rng_state;

uint64_t rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rng_state >> 33) % n;
}

/* No queued vCPU may run on a pCPU that idles (no current vCPU), and the summaries
 * (idle_mask, move_mask) must agree with the queues. */
static void check_no_idle_with_work(void)
{
	for (unsigned q = 0; q < S.nr_pcpus; q++) {
		bool idle = !S.pcpu[q].curr && !S.pcpu[q].nr_queued;
		assert_int_equal(cpumask_test(cs(&S)->idle_mask, q), idle);
		if (S.pcpu[q].curr)
			continue;
		for (unsigned i = 0; i < NV; i++) {
			if (!V[i].dom || V[i].state != SCHED_VS_RUNNABLE)
				continue;
			sched_cpumask_t a = cpumask_empty(V[i].affinity)
						    ? cpumask_below(SCHED_MAX_PCPUS)
						    : V[i].affinity;
			if (cpumask_test(a, q))
				fail_msg("pCPU %u idles while d%uv%u (runnable on pCPU %u) may run "
					 "there",
					 q, V[i].dom->id, V[i].id, V[i].pcpu);
		}
	}
}

void kick(sched_cpumask_t m, uint64_t now)
{
	for (unsigned p = 0; p < S.nr_pcpus; p++)
		if (cpumask_test(m, p))
			T[p] = now;
}

void start_vcpu(unsigned i, unsigned d, uint32_t w, unsigned id, sched_cpumask_t aff)
{
	D[d].id = d + 1;
	D[d].weight = w;
	V[i].dom = &D[d];
	V[i].id = id;
	V[i].affinity = aff;
	assert_int_equal(sched_vcpu_insert(&S, &V[i], 0), 0);
	Wt[i] = SCHED_NEVER;
	kick(sched_wake(&S, &V[i], 0, WAKE_NEW), 0);
}

void drive(uint64_t end, const unsigned *duty, unsigned n)
{
	uint64_t now = 0;
	for (;;) {
		uint64_t t = end;
		for (unsigned p = 0; p < S.nr_pcpus; p++)
			t = T[p] < t ? T[p] : t;
		for (unsigned i = 0; i < n; i++) {
			if (!duty[i])
				continue;
			t = Wt[i] < t ? Wt[i] : t;
			if (V[i].state == SCHED_VS_RUNNING) {
				uint64_t done =
					now + (Rt[i] > V[i].c.run_ns ? Rt[i] - V[i].c.run_ns : 0);
				t = done < t ? done : t;
			}
		}
		if (t >= end)
			break;
		now = t;
		for (unsigned i = 0; i < n; i++) {
			if (!duty[i])
				continue;
			if (Wt[i] <= now && V[i].state == SCHED_VS_BLOCKED) {
				Wt[i] = SCHED_NEVER;
				Rt[i] = V[i].c.run_ns + duty[i] * US;
				kick(sched_wake(&S, &V[i], now, WAKE_TIMER), now);
			} else if (V[i].state == SCHED_VS_RUNNING &&
				   sched_run_ns(&V[i], now) >= Rt[i]) {
				unsigned p = V[i].pcpu;
				kick(sched_sleep(&S, &V[i], now), now);
				T[p] = now;
				Wt[i] = now + (1 + rnd(2 * duty[i])) * US * (Slow[i] ? Slow[i] : 1);
			}
		}
		for (int round = 0; round < 8; round++) { /* kicks within the same instant */
			bool any = false;
			for (unsigned p = 0; p < S.nr_pcpus; p++) {
				if (T[p] != now)
					continue;
				struct sched_pick pk = sched_pick_next(&S, p, now);
				T[p] = pk.run_until;
				kick(cpumask_without(pk.kick, p), now);
				any = true;
			}
			if (!any)
				break;
		}
		check_no_idle_with_work();
	}
}
