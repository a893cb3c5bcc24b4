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
	if (c->ping_dom == d->id && idx == 0) {
		double x = (double)d->service_ns / (double)c->ping_interval_ns;
		double S = (double)d->spin_ns, Z = (double)d->sleep_ns;
		if (d->kind == G_ECHO && d->spin_ns && x < 1) {
			/* Pings are interrupts: served first, in the burst as in the sleep. A
			 * wall-clock burst still ends on time (its pings fall inside it), so they
			 * add only in the sleep; a CPU-time burst is stretched by them to
			 * S / (1 - x), the sleep stays Z (sched-fuzz seeds 730, 958). */
			if (d->duty_wall)
				dem = (S + x * Z) / (S + Z);
			else
				dem = (S / (1 - x) + x * Z) / (S / (1 - x) + Z);
		} else {
			dem += x;
		}
	}
	return dem > 1 ? 1 : dem;
}

static bool is_wall_duty(const struct sim_dom *d)
{
	return d->kind == G_ECHO && d->spin_ns && d->duty_wall;
}

/* A CPU-time duty guest: a closed loop (its next burst starts a sleep after the last one
 * ends), so every wait stretches its cycle and lowers its rate below S/(S+Z). */
static bool is_cpu_duty(const struct sim_dom *d)
{
	return d->kind == G_ECHO && d->spin_ns && !d->duty_wall;
}

/* The sleep-acct attacker: every vCPU sleeps in the same wall-clock window of each period,
 * so its demand comes in windows like a wall-clock duty guest's, all vCPUs at once. */
static bool is_sleep_acct(const struct sim_dom *d)
{
	return d->kind == G_HOSTILE && d->attack == ATK_SLEEP_ACCT;
}

/* A guest whose ideal a scheduler cannot always reach (README.md, "Wall-clock duty",
 * "CPU-time duty"). */
static bool is_duty(const struct sim_dom *d)
{
	return is_wall_duty(d) || is_cpu_duty(d) || is_sleep_acct(d);
}

/* A vCPU that wakes on events or timers: it asks for a latency slice whenever it wakes, so
 * it may preempt a wall-clock duty guest in its window. */
static bool wakes(const struct sim_cfg *c, const struct sim_dom *d)
{
	if (d->kind == G_ECHO || d->kind == G_SERVICE)
		return d->spin_ns || c->ping_dom == d->id;
	return d->kind == G_HOSTILE && (d->attack == ATK_SELF_WAKE || d->attack == ATK_SLEEP_ACCT);
}

/* d's ideal meets its demand: to 0.5 point, or to 5% of a demand below 10 points (a
 * flat 0.5 point held an echo pinged for 0.59% and entitled to 0.13% to the latency bound). */
bool sim_within_share(const struct sim_dom *d)
{
	double slack = 0.05 * d->demand;
	return d->entitled >= d->demand - (slack < 0.005 ? slack : 0.005);
}

/* The wake-to-run p99 bound of an echo domain d within its share (expect.echo_lat_slice_us,
 * README.md): a wake waits at most for the latency slices of the boosted vCPUs queued before
 * it and the one running (docs/scheduler.md, invariant 6). Its crowd: the vCPUs that wake on
 * events or timers (its own included) expected on its pCPUs, each domain's spread evenly
 * over its affinity, per pCPU of d's affinity; the bound is one slice per waker of the
 * crowd (at least one) plus 10 us of switches. Unpinned wakers on P pCPUs: ceil(W / P). */
double sim_echo_lat_bound(const struct sim_cfg *c, const struct sim_dom *d)
{
	sched_cpumask_t all = cpumask_below(c->pcpus);
	sched_cpumask_t md = cpumask_empty(d->pin) ? all : cpumask_and(d->pin, all);
	double crowd = 0;
	for (unsigned j = 0; j < c->ndoms; j++) {
		const struct sim_dom *u = &c->doms[j];
		sched_cpumask_t mu = cpumask_empty(u->pin) ? all : cpumask_and(u->pin, all);
		if (wakes(c, u) && cpumask_intersects(mu, md))
			crowd += (double)u->nvcpus * cpumask_count(cpumask_and(mu, md)) /
				 cpumask_count(mu);
	}
	double per = ceil(crowd / cpumask_count(md) - 1e-9);
	return c->exp_echo_lat_slice_us * (per > 1 ? per : 1) + 10;
}

/* The ideal's group of `count` vCPUs of domain i allowed on `pin`. */
static struct ideal_group group(unsigned i, sched_cpumask_t pin, double demand, unsigned count)
{
	struct ideal_group g = {i, {0}, demand, count};
	_Static_assert(sizeof g.mask == sizeof pin.w, "the ideal's mask is a CPU set");
	memcpy(g.mask, pin.w, sizeof g.mask);
	return g;
}

/* One solve: the groups are (vCPU 0, the others) of each domain; `wall_busy` counts every
 * wall-clock duty vCPU as a spinner (all their windows open at once); `lim`, when given,
 * caps each domain (pCPUs, 0 = its own cap). */
static int solve(const struct sim_cfg *c, bool wall_busy, const double *lim, double *out)
{
	static double w[SIM_MAX_DOMS], cap[SIM_MAX_DOMS];
	static struct ideal_group g[2 * SIM_MAX_DOMS];
	unsigned ng = 0;
	for (unsigned i = 0; i < c->ndoms; i++) {
		const struct sim_dom *d = &c->doms[i];
		w[i] = d->weight;
		cap[i] = d->cap / 100.0;
		if (lim && lim[i] > 0 && (cap[i] == 0 || lim[i] < cap[i]))
			cap[i] = lim[i];
		bool busy = wall_busy && is_duty(d);
		g[ng++] = group(i, d->pin, busy ? 1 : sim_vcpu_demand(c, d, 0), 1);
		if (d->nvcpus > 1)
			g[ng++] = group(i, d->pin, busy ? 1 : sim_vcpu_demand(c, d, 1),
					d->nvcpus - 1);
	}
	return ideal_solve(c->pcpus, c->ndoms, w, cap, ng, g, out);
}

/* entitled: the ideal. With expect.wall_bound=1 the checks accept [bound, upper] (README.md):
 * a wall-clock duty domain whose window can be cut by another waking vCPU (another domain
 * that wakes on events or timers on a shared pCPU, or a sibling vCPU) may get as little as
 * bound = min(ideal, g * mean demand of its vCPUs), g its ideal with every wall-clock window
 * open at once; what it leaves goes to the others, so each other domain may get up to its
 * ideal recomputed with those domains held to their bound (upper), and as little as the
 * lower of the two ideals. */
int entitlement(struct sim_cfg *c)
{
	static double e[SIM_MAX_DOMS], gb[SIM_MAX_DOMS], lim[SIM_MAX_DOMS], e2[SIM_MAX_DOMS];
	static double lim3[SIM_MAX_DOMS], e3[SIM_MAX_DOMS];
	if (solve(c, false, NULL, e))
		return -1;
	bool any_wall = false;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		d->demand = 0;
		for (unsigned v = 0; v < d->nvcpus; v++)
			d->demand += sim_vcpu_demand(c, d, v);
		d->entitled = e[i];
		d->bound = e[i];
		d->upper = e[i];
		any_wall |= is_duty(d);
	}
	if (!any_wall)
		return 0;
	if (solve(c, true, NULL, gb))
		return -1;
	sched_cpumask_t all = cpumask_below(c->pcpus);
	bool any_cut = false;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		lim[i] = 0;
		if (!is_duty(d))
			continue;
		sched_cpumask_t m = cpumask_empty(d->pin) ? all : d->pin;
		bool cut = d->nvcpus > 1 || is_sleep_acct(d); /* its own vCPUs' windows */
		for (unsigned j = 0; j < c->ndoms && !cut; j++) {
			const struct sim_dom *o = &c->doms[j];
			/* A CPU-time burst is stretched by any vCPU that may run beside it. */
			bool delays = is_cpu_duty(d) ? sim_vcpu_demand(c, o, 0) > 0 : wakes(c, o);
			cut = j != i && delays &&
			      cpumask_intersects(cpumask_empty(o->pin) ? all : o->pin, m);
		}
		if (!cut)
			continue;
		double lo = gb[i] * d->demand / d->nvcpus;
		if (is_cpu_duty(d)) {
			/* Each vCPU's burst S at the rate r it gets while all contend (its ideal as
			 * a spinner) takes S / r: one cycle is S / r + Z. */
			double r = gb[i] / d->nvcpus, S = (double)d->spin_ns,
			       Z = (double)d->sleep_ns;
			lo = r > 0 ? d->nvcpus * S / (S / (r < 1 ? r : 1) + Z) : 0;
		}
		d->bound = lo < e[i] ? lo : e[i];
		lim[i] = d->bound > 1e-9 ? d->bound : 1e-9;
		any_cut = true;
	}
	if (!any_cut)
		return 0;
	if (solve(c, false, lim, e2))
		return -1;
	/* The sleep-acct attackers' upper edge: their ideal with the other cut domains held to
	 * their bound (as for any domain that is not cut), never their demand. */
	bool any_atk = false;
	for (unsigned i = 0; i < c->ndoms; i++) {
		lim3[i] = is_sleep_acct(&c->doms[i]) ? 0 : lim[i];
		any_atk |= is_sleep_acct(&c->doms[i]) && lim[i] > 0;
	}
	if (any_atk && solve(c, false, lim3, e3))
		return -1;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		if (lim[i] > 0) {
			/* A cut duty domain may also take what the other cut ones leave, up to
			 * its demand (and cap): every other domain is held by its own bound. */
			double hi = is_sleep_acct(d) ? e3[i] : d->demand;
			if (d->cap && hi > d->cap / 100.0)
				hi = d->cap / 100.0;
			d->upper = hi > e[i] ? hi : e[i];
			continue;
		}
		d->upper = e2[i] > e[i] ? e2[i] : e[i];
		d->bound = e2[i] < e[i] ? e2[i] : e[i];
	}
	return 0;
}
