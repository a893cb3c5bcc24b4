/* Sample sets, their summary in the hypervisor's line format, and the entitlement (the
 * weighted max-min fair share each domain should get given what it asks for). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct wf_item {
	double demand, weight, share;
	bool fixed;
};

/* Weighted max-min fair division of `capacity` among items. */
static void water_fill(struct wf_item *it, size_t n, double capacity)
{
	for (size_t i = 0; i < n; i++) {
		it[i].fixed = false;
		it[i].share = 0;
	}
	for (;;) {
		double w = 0;
		for (size_t i = 0; i < n; i++)
			if (!it[i].fixed)
				w += it[i].weight;
		if (w <= 0)
			return;
		bool changed = false;
		for (size_t i = 0; i < n; i++) {
			if (it[i].fixed)
				continue;
			double fair = capacity * it[i].weight / w;
			if (it[i].demand <= fair) {
				it[i].share = it[i].demand;
				it[i].fixed = true;
				capacity -= it[i].demand;
				changed = true;
			}
		}
		if (!changed) {
			for (size_t i = 0; i < n; i++)
				if (!it[i].fixed)
					it[i].share = capacity * it[i].weight / w;
			return;
		}
	}
}

static double vcpu_demand(const struct sim_cfg *c, const struct sim_dom *d, unsigned idx)
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
	case G_LOCK: /* always runnable: thinking, holding or spinning */
		dem = 1.0;
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
	if (dem > 1)
		dem = 1;
	if (d->cap) {
		double lim = d->cap / 100.0 / d->nvcpus;
		if (dem > lim)
			dem = lim;
	}
	return dem;
}

/* The weight is the domain's: its vCPUs that want CPU share it equally (sched/credit.c
 * splits a domain's weight among its earning vCPUs). Pinned to one pCPU each: every pCPU is
 * divided on its own among the parts of the weights there. Otherwise the pCPUs are one pool
 * divided among the domains (each vCPU at most one pCPU: its demand is <= 1), and a
 * domain's allotment among its vCPUs. */
void entitlement(struct sim_cfg *c)
{
	struct wf_item it[SIM_MAX_VCPUS];
	unsigned owner[SIM_MAX_VCPUS], n = 0;
	bool pinned_one = true;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		sched_cpumask_t m = d->pin;
		if (!m || (m & (m - 1)))
			pinned_one = c->pcpus == 1 ? pinned_one : false;
		d->demand = 0;
		d->entitled = 0;
		unsigned first = n, active = 0;
		for (unsigned v = 0; v < d->nvcpus && n < SIM_MAX_VCPUS; v++, n++) {
			it[n].demand = vcpu_demand(c, d, v);
			owner[n] = i;
			d->demand += it[n].demand;
			active += it[n].demand > 0;
		}
		for (unsigned j = first; j < n; j++)
			it[j].weight = (double)d->weight / (active ? active : 1);
	}
	if (pinned_one) {
		/* Every vCPU is bound to one pCPU: divide each pCPU on its own. */
		for (unsigned p = 0; p < c->pcpus; p++) {
			struct wf_item sub[SIM_MAX_VCPUS];
			unsigned map[SIM_MAX_VCPUS], k = 0;
			for (unsigned j = 0; j < n; j++) {
				sched_cpumask_t m = c->doms[owner[j]].pin;
				if ((m ? m : 1) & SCHED_CPU(p)) {
					sub[k] = it[j];
					map[k++] = j;
				}
			}
			water_fill(sub, k, 1.0);
			for (unsigned j = 0; j < k; j++)
				it[map[j]].share = sub[j].share;
		}
		for (unsigned j = 0; j < n; j++)
			c->doms[owner[j]].entitled += it[j].share;
		return;
	}
	struct wf_item dom[SIM_MAX_DOMS];
	for (unsigned i = 0; i < c->ndoms; i++) {
		dom[i].demand = c->doms[i].demand;
		dom[i].weight = c->doms[i].weight;
	}
	water_fill(dom, c->ndoms, (double)c->pcpus);
	for (unsigned i = 0; i < c->ndoms; i++)
		c->doms[i].entitled = dom[i].share;
}
