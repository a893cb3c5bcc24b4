/* The balancing invariant of the simulator (README.md, "Invariants"), sampled from outside
 * the scheduler every sim.inv_us: which migratable vCPUs wait needlessly. */
#include <math.h>
#include <stdint.h>

#include "test/sim/engine.h"

/* An attacker's shortfall is its own (README.md, "Invariants"): a yield95 attacker gives
 * its pCPU away itself, a self-wake or sleep-acct one is denied the boosts it games. Its
 * share is checked for gain only, and its waiting is not counted either. */
static bool own_shortfall(const struct sim_dom *d)
{
	return d->kind == G_HOSTILE && d->attack != ATK_NONE;
}

/* The balancing invariant, seen from outside (README.md, "Invariants"). A migratable vCPU
 * that waits in a queue, or runs on a pCPU whose queue holds a waiter, counts one sample
 * when another pCPU of its affinity idles or runs a non-boosted vCPU of a domain more than
 * inv_margin further ahead of its ideal per vCPU than the waiter's domain (the waiter:
 * itself, or the neediest vCPU queued where it runs, which it keeps out). "Ahead" is
 * service minus the ideal, each sample's difference decaying with time constant
 * inv_tau, so the comparison is about the recent past, not the whole run; it is divided
 * by the domain's vCPUs because a domain's credit is (README.md). */
void inv_sample(uint64_t now)
{
	struct sim_cfg *c = G.c;
	double dt = (double)c->inv_ns, decay = exp(-dt / (double)c->inv_tau_ns);
	for (unsigned i = 0; i < c->ndoms; i++)
		G.held[i] = 0;
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		double held = (double)v->sched_ns;
		if (v->running_on >= 0 && now > v->picked_at) /* a lock model's pick may be ahead */
			held += (double)(now - v->picked_at);
		G.held[v->d->id - 1] += held;
	}
	for (unsigned i = 0; i < c->ndoms; i++) {
		double got = G.held[i] - G.prev_held[i];
		G.prev_held[i] = G.held[i];
		const struct sim_dom *d = &c->doms[i];
		bool band = c->exp_wall_bound != 0;
		G.ahead_e[i] = G.ahead_e[i] * decay + got - (band ? d->upper : d->entitled) * dt;
		G.ahead_b[i] = G.ahead_b[i] * decay + got - (band ? d->bound : d->entitled) * dt;
		/* With the band on (README.md), a domain is ahead above its band, behind below
		 * it, and neither inside it (the shares are checked the same way). */
		G.ahead[i] = G.ahead_e[i] > 0 ? G.ahead_e[i] : G.ahead_b[i] < 0 ? G.ahead_b[i] : 0;
		G.ahead[i] /= d->nvcpus; /* per vCPU, as priority is (README.md) */
	}
	sched_cpumask_t all = cpumask_below(c->pcpus);
	double margin = (double)c->inv_margin_ns, waiter[SCHED_MAX_PCPUS];
	for (unsigned p = 0; p < c->pcpus; p++)
		waiter[p] = HUGE_VAL;
	for (unsigned i = 0; i < G.nv; i++) {
		const struct sim_vcpu *v = &G.v[i];
		double a = G.ahead[v->d->id - 1];
		if (v->sv.state == SCHED_VS_RUNNABLE && !own_shortfall(v->d) &&
		    a < waiter[v->sv.pcpu])
			waiter[v->sv.pcpu] = a;
	}
	for (unsigned i = 0; i < G.nv; i++) {
		struct sim_vcpu *v = &G.v[i];
		sched_cpumask_t m =
			cpumask_and(cpumask_empty(v->sv.affinity) ? all : v->sv.affinity, all);
		if (cpumask_count(m) <= 1 || own_shortfall(v->d))
			continue; /* pinned to one pCPU, or it gives way itself */
		double ref;
		if (v->sv.state == SCHED_VS_RUNNABLE)
			ref = G.ahead[v->d->id - 1]; /* it waits */
		else if (v->running_on >= 0 && waiter[v->running_on] != HUGE_VAL)
			ref = waiter[v->running_on]; /* it keeps the neediest waiter there out */
		else
			continue;
		cpumask_clear(&m, v->sv.pcpu);
		cpumask_for_each(q, m)
		{
			const struct sim_vcpu *u = G.pc[q].cur;
			if (!u || (u->sv.prio != SCHED_PRI_BOOST &&
				   G.ahead[u->d->id - 1] > ref + margin)) {
				v->stuck++;
				G.inv_idle += !u;
				break;
			}
		}
	}
	G.inv_samples++;
	ev_push(now + c->inv_ns, EV_INV, 0, 0);
}
