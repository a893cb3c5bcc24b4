/* sliver-sim SCENARIO.cfg [key=value | dN.key=value ...]
 * Runs a scenario on the real scheduler and prints the hypervisor's machine-readable lines
 * (ping, lat, share) plus work/sim lines; checks the scenario's expect.* bounds.
 * Exit: 0 pass, 1 a bound failed, 2 bad input. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cmdline.h"
#include "test/sim/sim.h"

unsigned sim_nvcpus(void);
struct sim_vcpu *sim_vcpu(unsigned i);

static struct sched S;
static struct sim_cfg C;
static int failures;

static void print_cb(void *arg, const char *fmt, ...)
{
	(void)arg;
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static void print_summary(const char *what, const struct stat_summary *m, bool p999)
{
	printf("%s n=%zu min_us=%.1f avg_us=%.1f p50_us=%.1f p99_us=%.1f", what, m->n, m->min,
	       m->avg, m->p50, m->p99);
	if (p999)
		printf(" p999_us=%.1f", m->p999);
	printf(" max_us=%.1f mdev_us=%.1f\n", m->max, m->mdev);
}

/* What a capped domain may run beyond its cap over a window of `span` ns, in points: the
 * bucket it may hold when the window opens (credit: depth cap% * period_us, plus cap_debt_us
 * a latency slice may take; docs/scheduler.md, invariant 8). A domain held below its cap
 * for a while (others' windows open) fills it and then spends it: sched-fuzz seed 387, a
 * capped spinner at 198.8% for 196 over 2 s, 56 ms of its 98 ms bucket. 0 for a policy
 * without those keys. */
static double cap_burst_pct(const struct sim_dom *d, double span)
{
	char b[32];
	double period_us = 0, debt_us = 0;
	if (!sched_config_get(&S, "period_us", b, sizeof b))
		period_us = strtod(b, NULL);
	if (!sched_config_get(&S, "cap_debt_us", b, sizeof b))
		debt_us = strtod(b, NULL);
	return (period_us * d->cap / 100 + debt_us) * 1000 / span * 100;
}

static int run_scenario(int argc, char **argv)
{
	if (scenario_load(&C, argv[1], argc - 2, argv + 2))
		return 2;
	if (sched_init(&S, C.pcpus)) {
		fprintf(stderr, "sliver-sim: sched_init(%u) failed\n", C.pcpus);
		return 2;
	}
	/* The hypervisor line goes word by word to the scheduler, as the core does at boot.
	 * A `<policy>.<key>` of the selected policy that it does not know (a typo, or a key
	 * retired such as credit.profile=) is refused: the hypervisor reports it as an unknown
	 * setting and runs on, here it would silently give the numbers of the defaults. */
	size_t wl;
	for (const char *w = C.hv_line; (w = cmdline_next(w, &wl)); w += wl) {
		int r = sched_config_word(&S, w, wl, 0);
		size_t nl = strlen(S.ops->name);
		if (r > 0 && wl > nl && !strncmp(w, S.ops->name, nl) && w[nl] == '.') {
			fprintf(stderr, "sliver-sim: %s: unknown scheduler key '%.*s' (sched=%s)\n",
				argv[1], (int)wl, w, S.ops->name);
			return 2;
		}
		if (r < 0) {
			fprintf(stderr, "sliver-sim: %s: bad scheduler setting '%.*s'\n", argv[1],
				(int)wl, w);
			return 2;
		}
	}
	if (entitlement(&C)) {
		fprintf(stderr, "sliver-sim: %s: the ideal could not be computed\n", argv[1]);
		return 2;
	}
	struct sim_result res;
	if (sim_run(&C, &S, &res))
		return 2;
	double span = (double)(C.duration_ns - C.warmup_ns);
	printf("sim scenario=%s sched=%s duration_ms=%llu pcpus=%u switch_ns=%llu"
	       " tslice_us=%llu events=%llu switches=%llu wall_ms=%.0f\n",
	       argv[1], S.ops->name, (unsigned long long)(C.duration_ns / 1000000), C.pcpus,
	       (unsigned long long)C.switch_ns, (unsigned long long)(sched_slice_ns(&S) / 1000),
	       (unsigned long long)res.events, (unsigned long long)res.switches, res.wall_s * 1000);

	double ping_p99 = 0;
	for (unsigned i = 0; i < C.ndoms; i++) {
		struct sim_dom *d = &C.doms[i];
		if (C.ping_dom != d->id)
			continue;
		struct stat_summary m;
		samples_summary(&d->ping, &m);
		ping_p99 = m.p99;
		char what[16];
		snprintf(what, sizeof(what), "ping d%u", d->id);
		print_summary(what, &m, false);
		if (C.exp_ping_p99_us > 0 && m.p99 > C.exp_ping_p99_us)
			fail("ping d%u p99_us=%.1f > %.1f", d->id, m.p99, C.exp_ping_p99_us);
		if (C.exp_ping_max_us > 0 && m.max > C.exp_ping_max_us)
			fail("ping d%u max_us=%.1f > %.1f", d->id, m.max, C.exp_ping_max_us);
		if (C.exp_ping_p99_min_us > 0 && m.p99 < C.exp_ping_p99_min_us)
			fail("ping d%u p99_us=%.1f < %.1f", d->id, m.p99, C.exp_ping_p99_min_us);
		if (C.exp_ping_avg_min_us > 0 && m.avg < C.exp_ping_avg_min_us)
			fail("ping d%u avg_us=%.1f < %.1f", d->id, m.avg, C.exp_ping_avg_min_us);
		if (!m.n && sim_within_share(d)) /* held below its demand: may */
			fail("ping d%u: no ping answered", d->id);
	}
	if (door_on()) {
		door_report(&C, ping_p99);
		double w = door_wait_p99_ns();
		if (C.exp_lock_wait_p99_ns > 0 && w > C.exp_lock_wait_p99_ns)
			fail("locks wait_p99_ns=%.0f > %.0f", w, C.exp_lock_wait_p99_ns);
		if (C.exp_lock_wait_p99_min_ns > 0 && w < C.exp_lock_wait_p99_min_ns)
			fail("locks wait_p99_ns=%.0f < %.0f", w, C.exp_lock_wait_p99_min_ns);
	}
	for (unsigned i = 0; i < sim_nvcpus(); i++) {
		struct sim_vcpu *v = sim_vcpu(i);
		if (!v->lat.n)
			continue;
		struct stat_summary m;
		samples_summary(&v->lat, &m);
		char what[24];
		snprintf(what, sizeof(what), "lat d%uv%u", v->d->id, v->idx);
		print_summary(what, &m, true);
		if (C.exp_lat_p99_us > 0 && m.p99 > C.exp_lat_p99_us)
			fail("lat d%uv%u p99_us=%.1f > %.1f", v->d->id, v->idx, m.p99,
			     C.exp_lat_p99_us);
		/* An echo within its share (its ideal meets its demand, to 0.5 point, or 5% of a
		 * demand below 10 points) must be served at once; one held below its demand may
		 * wait for its turn. A flat 0.5 point counted an echo of weight 11 pinged for
		 * 0.59% of a pCPU and entitled to 0.13% as within (sched-fuzz seed 231: pings
		 * answered after 236 ms on average, as its weight allows). */
		bool within = sim_within_share(v->d);
		double lb = C.exp_echo_lat_slice_us > 0 ? sim_echo_lat_bound(&C, v->d)
							: C.exp_echo_lat_p99_us;
		if (lb > 0 && v->d->kind == G_ECHO && within && m.p99 > lb)
			fail("lat d%uv%u (echo within share) p99_us=%.1f > %.1f", v->d->id, v->idx,
			     m.p99, lb);
	}
	if (res.inv_samples) {
		struct sim_vcpu *worst = NULL;
		uint64_t tot = 0;
		for (unsigned i = 0; i < sim_nvcpus(); i++) {
			struct sim_vcpu *v = sim_vcpu(i);
			tot += v->stuck;
			if (!worst || v->stuck > worst->stuck)
				worst = v;
		}
		double wp = worst ? (double)worst->stuck * 100 / (double)res.inv_samples : 0;
		printf("inv samples=%llu stuck_max_pct=%.2f at=d%uv%u stuck_sum=%llu "
		       "stuck_idle=%llu\n",
		       (unsigned long long)res.inv_samples, wp, worst ? worst->d->id : 0,
		       worst ? worst->idx : 0, (unsigned long long)tot,
		       (unsigned long long)res.inv_idle);
		if (C.exp_stuck_pct > 0 && wp > C.exp_stuck_pct)
			fail("d%uv%u waited needlessly %.2f%% of the run > %.2f%%", worst->d->id,
			     worst->idx, wp, C.exp_stuck_pct);
	}
	for (unsigned i = 0; i < C.ndoms; i++) {
		struct sim_dom *d = &C.doms[i];
		double held = 0, useful = 0, runnable = 0;
		for (unsigned k = 0; k < sim_nvcpus(); k++) {
			struct sim_vcpu *v = sim_vcpu(k);
			if (v->d == d) {
				held += (double)v->sched_ns;
				useful += (double)v->useful_ns;
				runnable += (double)v->runnable_ns;
			}
		}
		double pct = held / span * 100, ent = d->entitled * 100, lo = d->bound * 100,
		       hi = d->upper * 100;
		printf("share d%u pct=%.2f entitled_pct=%.2f", d->id, pct, ent);
		if (lo < ent - 0.005)
			printf(" bound_pct=%.2f", lo);
		if (hi > ent + 0.005)
			printf(" upper_pct=%.2f", hi);
		printf("\n");
		printf("work d%u name=%s useful_pct=%.2f runnable_pct=%.2f boosts=%llu "
		       "boost_deny=%llu"
		       " parks=%llu switches=%llu migrations=%llu\n",
		       d->id, d->name, useful / span * 100, runnable / span * 100,
		       (unsigned long long)d->sd.c.boosts, (unsigned long long)d->sd.c.boost_deny,
		       (unsigned long long)d->sd.c.parks, (unsigned long long)d->sd.c.switches,
		       (unsigned long long)d->sd.c.migrations);
		if (d->kind == G_LOCK) {
			double spin = 0;
			for (unsigned k = 0; k < sim_nvcpus(); k++)
				if (sim_vcpu(k)->d == d)
					spin += (double)sim_vcpu(k)->lspin_ns;
			printf("lock d%u acq=%llu rate=%.0f/s spin_pct=%.1f pause_loops=%llu "
			       "yield_to=%llu\n",
			       d->id, (unsigned long long)d->lock_acq,
			       (double)d->lock_acq / ((double)C.duration_ns / 1e9),
			       held > 0 ? spin / held * 100 : 0.0,
			       (unsigned long long)d->sd.c.pause_loops,
			       (unsigned long long)d->sd.c.yield_to);
			double rate = (double)d->lock_acq / ((double)C.duration_ns / 1e9);
			if (C.exp_lock_rate_min > 0 && rate < C.exp_lock_rate_min)
				fail("lock d%u rate=%.0f/s below %.0f/s", d->id, rate,
				     C.exp_lock_rate_min);
		}
		for (struct sched_vcpu *sv = d->sd.vcpus; sv; sv = sv->next_in_dom)
			if (C.exp_migrations_max > 0 &&
			    (double)sv->c.migrations > C.exp_migrations_max)
				fail("d%uv%u migrations=%llu > %.0f (ping-pong)", d->id, sv->id,
				     (unsigned long long)sv->c.migrations, C.exp_migrations_max);
		double err = pct - ent;
		bool banded = C.exp_wall_bound && (lo < ent - 0.005 || hi > ent + 0.005);
		if (C.exp_wall_bound) { /* the band of the reachable bound (README.md) */
			if (d->cap && hi >= d->cap - 0.005)
				hi = d->cap + cap_burst_pct(d, span);
			err = pct > hi ? pct - hi : pct < lo ? pct - lo : 0;
		}
		if (d->attack != ATK_NONE) {
			if (C.exp_gain_max > 0 && err > C.exp_gain_max)
				fail("share d%u (attacker) pct=%.2f entitled=%.2f%s gain > %.2f",
				     d->id, pct, ent, banded ? " (band)" : "", C.exp_gain_max);
			continue;
		}
		double tol = d->cap ? C.exp_cap_tol : C.exp_share_tol;
		if (tol > 0 && fabs(err) > tol)
			fail("share d%u pct=%.2f entitled=%.2f%s off by more than %.2f", d->id, pct,
			     ent, banded ? " (band)" : "", tol);
		if (C.exp_rel_tol_pct > 0 && ent > 0 && fabs(err) / ent * 100 > C.exp_rel_tol_pct)
			fail("share d%u pct=%.3f entitled=%.3f off by more than %.2f%%", d->id, pct,
			     ent, C.exp_rel_tol_pct);
	}
	if (C.dump)
		sched_dump(&S, print_cb, NULL);
	if (C.trace) {
		for (unsigned p = 0; p < C.pcpus; p++) {
			struct sched_trace_rec r[SCHED_TRACE_LEN];
			unsigned n = sched_trace_read(&S, p, r, SCHED_TRACE_LEN);
			for (unsigned i = 0; i < n; i++)
				printf("trace p%u t=%llu %s d%u v%u arg=%lld\n", p,
				       (unsigned long long)r[i].t, sched_ev_name(r[i].ev), r[i].dom,
				       r[i].vcpu, (long long)r[i].arg);
		}
	}
	printf("result %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--gen"))
		return gen_main(argc, argv, run_scenario);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: sliver-sim SCENARIO.cfg [key=value | dN.key=value ...]\n"
				"       sliver-sim --gen SEED [--gen-n N] [--gen-out DIR] "
				"[--gen-size small|any] [key=value ...]\n");
		return 2;
	}
	return run_scenario(argc, argv);
}
