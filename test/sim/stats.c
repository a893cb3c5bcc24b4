/* Sample sets, their summary in the hypervisor's line format, and the entitlement (the
 * weighted max-min fair share each domain should get given what it asks for). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/sim/ideal.h"
#include "test/sim/sim.h"

void samples_add(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("sliver-sim");
			exit(2);
		}
	}
	s->v[s->n++] = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples. */
static double pct(const struct samples *s, double q)
{
	size_t k = (size_t)ceil(q * (double)s->n);
	if (k < 1)
		k = 1;
	if (k > s->n)
		k = s->n;
	return (double)s->v[k - 1] / 1000.0;
}

void samples_summary(struct samples *s, struct stat_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->n = s->n;
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	double sum = 0, sq = 0;
	for (size_t i = 0; i < s->n; i++) {
		double x = (double)s->v[i] / 1000.0;
		sum += x;
		sq += x * x;
	}
	o->avg = sum / (double)s->n;
	double var = sq / (double)s->n - o->avg * o->avg;
	o->mdev = var > 0 ? sqrt(var) : 0; /* what ping(8) calls mdev */
	o->min = (double)s->v[0] / 1000.0;
	o->max = (double)s->v[s->n - 1] / 1000.0;
	o->p50 = pct(s, 0.50);
	o->p99 = pct(s, 0.99);
	o->p999 = pct(s, 0.999);
}

/* What vCPU idx of d would use if never delayed, as a fraction of one pCPU (README.md,
 * "The ideal"): a spinner 1; a duty guest spin/(spin+sleep) in either duty model; the
 * self-waking attacker lead/(lead+after); the sleep-acct attacker the part of each period it
 * is awake; plus, on vCPU 0 of the pinged domain, service_us per ping interval. */
double sim_vcpu_demand(const struct sim_cfg *c, const struct sim_dom *d, unsigned idx)
{
	double dem = 0;
	switch (d->kind) {
	case G_SPINNER:
	case G_HOSTILE:
		dem = d->kind == G_SPINNER || d->attack != ATK_NONE ? 1.0 : 0.0;
		if (d->attack == ATK_SELF_WAKE) /* runs lead_us, sleeps after_us */
			dem = (double)d->atk_lead_ns / (double)(d->atk_lead_ns + d->atk_after_ns);
		if (d->attack == ATK_SLEEP_ACCT)
			dem = 1.0 -
			      (double)(d->atk_lead_ns + d->atk_after_ns) / (double)d->atk_period_ns;
		break;
	case G_ECHO:
		if (d->spin_ns)
			dem = (double)d->spin_ns / (double)(d->spin_ns + d->sleep_ns);
		break;
	default:
		break;
	}
	if (c->ping_dom == d->id && idx == 0)
		dem += (double)d->service_ns / (double)c->ping_interval_ns;
	return dem > 1 ? 1 : dem;
}

static bool is_wall_duty(const struct sim_dom *d)
{
	return d->kind == G_ECHO && d->spin_ns && d->duty_wall;
}

/* One solve: the groups are (vCPU 0, the others) of each domain; `wall_busy` counts every
 * wall-clock duty vCPU as a spinner (all their windows open at once). */
static int solve(const struct sim_cfg *c, bool wall_busy, double *out)
{
	static double w[SIM_MAX_DOMS], cap[SIM_MAX_DOMS];
	static struct ideal_group g[2 * SIM_MAX_DOMS];
	unsigned ng = 0;
	for (unsigned i = 0; i < c->ndoms; i++) {
		const struct sim_dom *d = &c->doms[i];
		w[i] = d->weight;
		cap[i] = d->cap / 100.0;
		bool busy = wall_busy && is_wall_duty(d);
		g[ng++] = (struct ideal_group){i, d->pin, busy ? 1 : sim_vcpu_demand(c, d, 0), 1};
		if (d->nvcpus > 1)
			g[ng++] = (struct ideal_group){
				i, d->pin, busy ? 1 : sim_vcpu_demand(c, d, 1), d->nvcpus - 1};
	}
	return ideal_solve(c->pcpus, c->ndoms, w, cap, ng, g, out);
}

/* entitled: the ideal. bound: the lowest share the checks accept (expect.wall_bound=1) for
 * a wall-clock duty domain whose windows can collide with another wall-clock duty vCPU on a
 * pCPU (README.md): min(ideal, g * mean demand of its vCPUs), g its ideal with every window
 * open at once; every other domain's bound is its ideal. */
int entitlement(struct sim_cfg *c)
{
	static double e[SIM_MAX_DOMS], gb[SIM_MAX_DOMS];
	if (solve(c, false, e))
		return -1;
	bool any_wall = false;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		d->demand = 0;
		for (unsigned v = 0; v < d->nvcpus; v++)
			d->demand += sim_vcpu_demand(c, d, v);
		d->entitled = e[i];
		d->bound = e[i];
		any_wall |= is_wall_duty(d);
	}
	if (!any_wall)
		return 0;
	if (solve(c, true, gb))
		return -1;
	sched_cpumask_t all = c->pcpus >= 64 ? ~0ull : (1ull << c->pcpus) - 1;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		if (!is_wall_duty(d))
			continue;
		sched_cpumask_t m = d->pin ? d->pin : all;
		bool collide = d->nvcpus > 1; /* its own vCPUs' windows */
		for (unsigned j = 0; j < c->ndoms && !collide; j++) {
			const struct sim_dom *o = &c->doms[j];
			collide = j != i && is_wall_duty(o) && ((o->pin ? o->pin : all) & m);
		}
		if (!collide)
			continue;
		double lo = gb[i] * d->demand / d->nvcpus;
		d->bound = lo < e[i] ? lo : e[i];
	}
	return 0;
}
