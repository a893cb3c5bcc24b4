/* sliver-sim --gen SEED [--gen-n N] [--gen-out DIR] [--gen-size small|any] [overrides]
 * The random-scenario property test (README.md, "Random scenarios"): for seeds SEED ..
 * SEED+N-1 it generates a scenario (pCPUs, domains, vCPUs, weights, caps, affinities, guest
 * kinds, a bursty pinger), writes it as a scenario file with its expect.* bounds, runs it
 * against the real scheduler in a child process (so every run starts from fresh state),
 * and, when a bound fails, shrinks it (drops domains, vCPUs, pCPUs and affinities while it
 * still fails a bound of the same kind; at most --gen-shrink-max seeds, 3, each for at most
 * --gen-shrink-s seconds, 120) and prints the minimal scenario file. Exit: 0 all passed, 1 a seed
 * failed, 2 bad arguments or a scenario the simulator refused (a generator bug). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test/sim/sim.h"

enum gkind {
	K_SPIN,
	K_DUTY_CPU,   /* echo duty=, duty_clock=cpu */
	K_DUTY_WALL,  /* echo duty=, duty_clock=wall */
	K_ECHO,	      /* echo without duty: answers pings, else idle */
	K_SELF_WAKE,  /* hostile attack=self-wake */
	K_YIELD95,    /* hostile attack=yield95 */
	K_SLEEP_ACCT, /* hostile attack=sleep-acct */
	K_IDLE,
	K_NKINDS
};

struct gdom {
	enum gkind kind;
	unsigned nv, weight, cap; /* cap in % of one pCPU, 0 = none */
	uint64_t mask;		  /* 0 = every pCPU */
	unsigned spin_us, sleep_us, lead_us, after_us, period_us;
};

struct gscn {
	uint64_t seed;
	unsigned pcpus, nd, ping_dom; /* ping_dom: 1-based, 0 = none */
	unsigned ping_us, jitter_us, duration_ms;
	struct gdom d[SIM_MAX_DOMS];
};

/* Largest number of vCPUs one generated scenario holds (`any` size): keeps a seed within
 * seconds of simulation. */
#define GEN_MAX_VCPUS 16384
/* Statistics start after this: a cap bucket starts full (one period of cap) and every
 * sleeper banks a period at start, constants that would dominate a 2 s window. */
#define GEN_WARMUP_MS 500u
/* The balancing invariant's bound (expect.stuck_pct): % of the run a migratable vCPU may
 * wait while a pCPU of its affinity idles or runs a domain well ahead of its ideal. */
#define GEN_STUCK_PCT 2.0

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ull;
}

static unsigned below(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

static bool chance(unsigned pct)
{
	return below(100) < pct;
}

/* Log-uniform integer in [lo, hi]: small values as likely per octave as large ones. */
static unsigned logu(unsigned lo, unsigned hi)
{
	unsigned bits = 0;
	while ((hi >> bits) > 1)
		bits++;
	for (;;) {
		unsigned b = below(bits + 1);
		unsigned v = (1u << b) + below(1u << b);
		if (v >= lo && v <= hi)
			return v;
		if (lo == hi)
			return lo;
	}
}

static uint64_t all_mask(unsigned pcpus)
{
	return pcpus >= 64 ? ~0ull : (1ull << pcpus) - 1;
}

static uint64_t gen_mask(unsigned pcpus)
{
	if (pcpus == 1 || chance(50))
		return 0;
	unsigned r = below(100);
	if (r < 40)
		return 1ull << below(pcpus);
	if (r < 80) {
		unsigned a = below(pcpus), b = a + below(pcpus - a);
		uint64_t m = 0;
		for (unsigned i = a; i <= b; i++)
			m |= 1ull << i;
		return m;
	}
	uint64_t m = rnd() & all_mask(pcpus);
	return m ? m : 1;
}

static void gen(struct gscn *g, uint64_t seed, bool small)
{
	memset(g, 0, sizeof(*g));
	rs = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	g->seed = seed;
	g->pcpus = logu(1, small ? 16 : 64);
	g->nd = logu(1, small ? 24 : SIM_MAX_DOMS);
	g->duration_ms = 2000;
	unsigned total = 0;
	for (unsigned i = 0; i < g->nd; i++) {
		struct gdom *d = &g->d[i];
		d->nv = logu(1, small ? 8 : 64);
		if (total + d->nv > GEN_MAX_VCPUS)
			d->nv = 1;
		total += d->nv;
		d->weight = chance(50) ? 256 : logu(1, 65535);
		d->mask = gen_mask(g->pcpus);
		unsigned k = below(100);
		d->kind = k < 30   ? K_SPIN
			  : k < 45 ? K_DUTY_CPU
			  : k < 62 ? K_DUTY_WALL
			  : k < 72 ? K_ECHO
			  : k < 80 ? K_SELF_WAKE
			  : k < 86 ? K_YIELD95
			  : k < 92 ? K_SLEEP_ACCT
				   : K_IDLE;
		if (chance(15))
			d->cap = 5 + below(100 * d->nv - 4);
		d->spin_us = logu(100, 20000);
		d->sleep_us = logu(100, 50000);
		d->lead_us = logu(10, 1000);
		d->after_us = logu(1, 100);
		d->period_us = logu(1000, 20000);
		if (d->kind == K_SLEEP_ACCT) {
			d->lead_us = logu(10, d->period_us / 4);
			d->after_us = logu(10, d->period_us / 4);
		}
	}
	/* A bursty pinger for one echo-like domain: any interval, up to 90% jitter. */
	if (chance(70)) {
		unsigned c = below(g->nd);
		for (unsigned k = 0; k < g->nd; k++) {
			unsigned i = (c + k) % g->nd;
			enum gkind kd = g->d[i].kind;
			if (kd == K_ECHO || kd == K_DUTY_CPU || kd == K_DUTY_WALL) {
				g->ping_dom = i + 1;
				break;
			}
		}
		g->ping_us = logu(200, 10000);
		g->jitter_us = below(g->ping_us * 9 / 10);
	}
}

/* ---- bounds ----------------------------------------------------------------------------- */

/* The share tolerance, in points (README.md): 1 point, 2 above 8 pCPUs (the bound
 * at 64 pCPUs), plus the slice granularity of the largest domain: each of its vCPUs may be
 * a 1 ms slice ahead or behind at the end of the run. */
/* The warm-up: GEN_WARMUP_MS, or longer where a capped domain needs longer to spend the
 * full bucket it starts with (one credit.period_us, 50 ms, of its cap) at the most it can
 * run: a 1-vCPU domain capped at 95% drains it in 47.5 ms / 5% = 950 ms, and measured from
 * 500 ms it showed 96.1% for 95 (seed 51). At most 3 s. */
static unsigned warmup_ms(const struct gscn *g)
{
	unsigned w = GEN_WARMUP_MS;
	for (unsigned i = 0; i < g->nd; i++) {
		const struct gdom *d = &g->d[i];
		unsigned n = (unsigned)__builtin_popcountll(d->mask ? d->mask : all_mask(g->pcpus));
		unsigned most = 100 * (d->nv < n ? d->nv : n); /* % of one pCPU */
		if (!d->cap || most <= d->cap)
			continue;
		unsigned drain = (unsigned)(50.0 * d->cap / 100 / ((most - d->cap) / 100.0)) + 1;
		w = drain > w ? drain : w;
	}
	return w < 3000 ? w : 3000;
}

static double share_tol(const struct gscn *g)
{
	unsigned maxnv = 1;
	for (unsigned i = 0; i < g->nd; i++)
		maxnv = g->d[i].nv > maxnv ? g->d[i].nv : maxnv;
	return (g->pcpus > 8 ? 2.0 : 1.0) + 100.0 * maxnv / g->duration_ms;
}

/* ---- scenario files --------------------------------------------------------------------- */

static void put_mask(FILE *f, uint64_t m)
{
	bool first = true;
	for (unsigned i = 0; i < 64;) {
		if (!(m >> i & 1)) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j + 1 < 64 && (m >> (j + 1) & 1))
			j++;
		fprintf(f, "%s%u", first ? "" : ",", i);
		if (j > i)
			fprintf(f, "-%u", j);
		first = false;
		i = j + 1;
	}
}

static int write_cfg(const struct gscn *g, const char *path, const char *what)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "sliver-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	double tol = share_tol(g);
	fprintf(f, "# %s: sliver-sim --gen %llu (test/sim/gen.c)\n", what,
		(unsigned long long)g->seed);
	fprintf(f,
		"multiboot2 /boot/sliver.elf sched=credit sim.duration_ms=%u sim.warmup_ms=%u "
		"sim.pcpus=%u sim.switch_ns=2000 sim.seed=%llu",
		g->duration_ms + warmup_ms(g), warmup_ms(g), g->pcpus, (unsigned long long)g->seed);
	if (g->ping_dom)
		fprintf(f, " ping.dom=%u ping.interval_us=%u ping.jitter_us=%u", g->ping_dom,
			g->ping_us, g->jitter_us);
	fprintf(f,
		" expect.share_tol=%.2f expect.cap_tol=%.2f expect.gain_max=%.2f "
		"expect.wall_bound=1 expect.echo_lat_slice_us=100 expect.stuck_pct=%.0f\n",
		tol, tol, tol, GEN_STUCK_PCT);
	for (unsigned i = 0; i < g->nd; i++) {
		const struct gdom *d = &g->d[i];
		static const char *img[K_NKINDS] = {"spinner", "echo",	  "echo",    "echo",
						    "hostile", "hostile", "hostile", "idle"};
		fprintf(f, "module2 /guests/%s.elf name=g%u weight=%u vcpus=%u", img[d->kind],
			i + 1, d->weight, d->nv);
		if (d->cap)
			fprintf(f, " cap=%u", d->cap);
		if (d->mask && d->mask != all_mask(g->pcpus)) {
			fprintf(f, " pin=");
			put_mask(f, d->mask);
		}
		switch (d->kind) {
		case K_DUTY_CPU:
		case K_DUTY_WALL:
			fprintf(f, " duty=%u/%u duty_clock=%s", d->spin_us, d->sleep_us,
				d->kind == K_DUTY_CPU ? "cpu" : "wall");
			break;
		case K_SELF_WAKE:
			fprintf(f, " attack=self-wake attack.lead_us=%u attack.after_us=%u",
				d->lead_us, d->after_us);
			break;
		case K_YIELD95:
			fprintf(f, " attack=yield95");
			break;
		case K_SLEEP_ACCT:
			fprintf(f,
				" attack=sleep-acct attack.period_us=%u attack.lead_us=%u "
				"attack.after_us=%u",
				d->period_us, d->lead_us, d->after_us);
			break;
		default:
			break;
		}
		fprintf(f, "\n");
	}
	return fclose(f) ? -1 : 0;
}

/* ---- running ---------------------------------------------------------------------------- */

struct runner {
	int (*run)(int argc, char **argv);
	int nover;
	char **over;
	const char *dir;
	unsigned runs;
};

/* Runs one scenario file in a child; its output goes to `out`. Returns the simulator's
 * exit status (0 pass, 1 a bound failed, 2 refused), 3 if it crashed. */
static int run_file(struct runner *R, const char *cfg, const char *out)
{
	fflush(stdout);
	fflush(stderr);
	R->runs++;
	pid_t pid = fork();
	if (pid < 0) {
		perror("sliver-sim: fork");
		return 3;
	}
	if (pid == 0) {
		if (!freopen(out, "w", stdout) || dup2(fileno(stdout), 2) < 0)
			_exit(3);
		char *argv[64 + 2] = {"sliver-sim", (char *)cfg};
		int n = R->nover < 64 ? R->nover : 64;
		for (int i = 0; i < n; i++)
			argv[2 + i] = R->over[i];
		int rc = R->run(2 + n, argv);
		fflush(stdout);
		_exit(rc);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return 3;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

/* Which kinds of bound a run's output says failed: shrinking keeps a candidate only if it
 * still fails one of the kinds the original failed, so it does not wander off to another
 * failure. */
enum { F_SHARE = 1, F_LAT = 2, F_STUCK = 4, F_PING = 8, F_OTHER = 16 };

static unsigned fail_kinds(const char *out)
{
	FILE *f = fopen(out, "r");
	if (!f)
		return 0;
	char line[SIM_LINE];
	unsigned k = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "FAIL ", 5))
			continue;
		k |= !strncmp(line + 5, "share", 5)  ? F_SHARE
		     : !strncmp(line + 5, "lat", 3)  ? F_LAT
		     : strstr(line, "needlessly")    ? F_STUCK
		     : !strncmp(line + 5, "ping", 4) ? F_PING
						     : F_OTHER;
	}
	fclose(f);
	return k;
}

/* Runs g; *kinds gets the failed kinds when it fails. */
static int try_scn(struct runner *R, const struct gscn *g, const char *tag, unsigned *kinds)
{
	char cfg[512], out[512];
	snprintf(cfg, sizeof(cfg), "%s/%s-%llu.cfg", R->dir, tag, (unsigned long long)g->seed);
	snprintf(out, sizeof(out), "%s/%s-%llu.out", R->dir, tag, (unsigned long long)g->seed);
	if (write_cfg(g, cfg, tag))
		return 2;
	int rc = run_file(R, cfg, out);
	if (kinds)
		*kinds = rc == 1 ? fail_kinds(out) : 0;
	return rc;
}

/* ---- shrinking -------------------------------------------------------------------------- */

static void drop_doms(struct gscn *g, unsigned from, unsigned n)
{
	if (g->ping_dom > from && g->ping_dom <= from + n)
		g->ping_dom = 0;
	else if (g->ping_dom > from + n)
		g->ping_dom -= n;
	memmove(&g->d[from], &g->d[from + n], (g->nd - from - n) * sizeof(g->d[0]));
	g->nd -= n;
}

static void drop_pcpus(struct gscn *g, unsigned pcpus)
{
	g->pcpus = pcpus;
	for (unsigned i = 0; i < g->nd; i++) {
		g->d[i].mask &= all_mask(pcpus);
		if (g->d[i].cap > 100 * g->d[i].nv)
			g->d[i].cap = 100 * g->d[i].nv;
	}
}

/* Greedy: keep any simplification after which the scenario still fails (exit 1). */
static void shrink(struct runner *R, struct gscn *g, unsigned want, unsigned budget_runs,
		   time_t deadline)
{
	static struct gscn t;
	unsigned k;
#define STILL_FAILS()                                                                              \
	(R->runs < budget_runs && time(NULL) < deadline && try_scn(R, &t, "try", &k) == 1 &&       \
	 (k & want))
	bool progress = true;
	while (progress && R->runs < budget_runs && time(NULL) < deadline) {
		progress = false;
		/* Domains, in halving chunks (delta debugging). */
		for (unsigned chunk = g->nd / 2; chunk >= 1 && g->nd > 1; chunk /= 2) {
			for (unsigned from = 0; from + chunk <= g->nd && g->nd > 1;) {
				t = *g;
				drop_doms(&t, from, chunk);
				if (STILL_FAILS()) {
					*g = t;
					progress = true;
				} else {
					from += chunk;
				}
			}
		}
		/* pCPUs: halve, then one less. */
		while (g->pcpus > 1) {
			t = *g;
			drop_pcpus(&t, g->pcpus / 2 ? g->pcpus / 2 : 1);
			if (!STILL_FAILS()) {
				t = *g;
				drop_pcpus(&t, g->pcpus - 1);
				if (!STILL_FAILS())
					break;
			}
			*g = t;
			progress = true;
		}
		/* vCPUs per domain, affinities, caps, weights. */
		for (unsigned i = 0; i < g->nd; i++) {
			while (g->d[i].nv > 1) {
				t = *g;
				t.d[i].nv /= 2;
				if (t.d[i].cap > 100 * t.d[i].nv)
					t.d[i].cap = 100 * t.d[i].nv;
				if (!STILL_FAILS())
					break;
				*g = t;
				progress = true;
			}
			if (g->d[i].mask) {
				t = *g;
				t.d[i].mask = 0;
				if (STILL_FAILS()) {
					*g = t;
					progress = true;
				}
			}
			if (g->d[i].cap) {
				t = *g;
				t.d[i].cap = 0;
				if (STILL_FAILS()) {
					*g = t;
					progress = true;
				}
			}
			if (g->d[i].weight != 256) {
				t = *g;
				t.d[i].weight = 256;
				if (STILL_FAILS()) {
					*g = t;
					progress = true;
				}
			}
		}
	}
#undef STILL_FAILS
}

static void print_file(const char *path, const char *prefix, const char *only)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[SIM_LINE];
	while (fgets(line, sizeof(line), f))
		if (!only || !strncmp(line, only, strlen(only)))
			printf("%s%s", prefix, line);
	fclose(f);
}

int gen_main(int argc, char **argv, int (*run)(int argc, char **argv))
{
	if (argc < 3) {
		fprintf(stderr, "usage: sliver-sim --gen SEED [--gen-n N] [--gen-out DIR] "
				"[--gen-size small|any] [--gen-shrink-s S] [--gen-shrink-max K] "
				"[key=value ...]\n");
		return 2;
	}
	char *end;
	uint64_t seed = strtoull(argv[2], &end, 0), n = 1;
	if (*end)
		return fprintf(stderr, "sliver-sim: --gen: bad seed '%s'\n", argv[2]), 2;
	bool small = false;
	unsigned shrink_s = 120, shrink_max = 3, shrunk = 0;
	static struct runner R;
	R.run = run;
	R.dir = "build/sched-fuzz";
	R.over = calloc((size_t)argc, sizeof(char *));
	if (!R.over)
		return 2;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--gen-n") && i + 1 < argc) {
			n = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--gen-out") && i + 1 < argc) {
			R.dir = argv[++i];
		} else if (!strcmp(argv[i], "--gen-size") && i + 1 < argc) {
			small = !strcmp(argv[++i], "small");
		} else if (!strcmp(argv[i], "--gen-shrink-s") && i + 1 < argc) {
			shrink_s = (unsigned)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--gen-shrink-max") && i + 1 < argc) {
			shrink_max = (unsigned)strtoul(argv[++i], NULL, 0);
		} else if (strchr(argv[i], '=')) {
			R.over[R.nover++] = argv[i];
		} else {
			fprintf(stderr, "sliver-sim: --gen: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (mkdir(R.dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "sliver-sim: %s: %s\n", R.dir, strerror(errno));
		return 2;
	}
	static struct gscn g;
	unsigned failed = 0, refused = 0;
	for (uint64_t s = seed; s < seed + n; s++) {
		gen(&g, s, small);
		unsigned nv = 0;
		for (unsigned i = 0; i < g.nd; i++)
			nv += g.d[i].nv;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		unsigned kinds = 0;
		int rc = try_scn(&R, &g, "seed", &kinds);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		printf("gen seed=%llu pcpus=%u doms=%u vcpus=%u tol=%.2f wall_ms=%.0f %s\n",
		       (unsigned long long)s, g.pcpus, g.nd, nv, share_tol(&g), ms,
		       rc == 0	 ? "PASS"
		       : rc == 1 ? "FAIL"
				 : "ERROR");
		char out[512], min[512];
		snprintf(out, sizeof(out), "%s/seed-%llu.out", R.dir, (unsigned long long)s);
		if (rc == 1) {
			failed++;
			print_file(out, "    ", "FAIL");
			if (!shrink_s || shrunk++ >= shrink_max)
				continue;
			R.runs = 0;
			shrink(&R, &g, kinds, 400, time(NULL) + shrink_s);
			rc = try_scn(&R, &g, "min", NULL);
			snprintf(min, sizeof(min), "%s/min-%llu.cfg", R.dir, (unsigned long long)s);
			printf("    minimal scenario (%u runs, %s): %s\n", R.runs,
			       rc == 1 ? "fails" : "does not fail: shrinking lost it", min);
			print_file(min, "    | ", NULL);
			snprintf(out, sizeof(out), "%s/min-%llu.out", R.dir, (unsigned long long)s);
			print_file(out, "    ", "FAIL");
		} else if (rc != 0) {
			refused++;
			print_file(out, "    ", NULL);
		}
	}
	printf("gen: %llu seeds, %u failed, %u refused\n", (unsigned long long)n, failed, refused);
	free(R.over);
	return refused ? 2 : failed ? 1 : 0;
}
