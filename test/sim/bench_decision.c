/* sliver-bench-decision: host-measured cost of one scheduling decision of the real credit
 * code with N runnable vCPUs on one pCPU. One step = the running vCPU blocks (sleep), the
 * vCPU that blocked one step earlier is woken by an event (wake), and the pCPU decides
 * (pick_next). Prints `decision n=<N> ns_per_op=<median> runs=<R> ...` lines.
 * Usage: sliver-bench-decision [N...] (default 8 64 256 1024) [boost=0|1] [iters=K] [runs=R]
 *        sliver-bench-decision table [iters=K]   cost vs pCPUs (1, 8, 64) x vCPUs per pCPU
 *        (8..1024): per-operation p50/p99 of sleep, wake and pick_next, and of stealing and
 *        of the balancing scan at 64 pCPUs, as a markdown table (see cost_table below).
 *        sliver-bench-decision policies [iters=K]   the decision per policy (credit, credit1,
 *        eevdf) against 1..64 runnable vCPUs on one pCPU, in host TSC ticks: `policy ...`
 *        lines (see policy_row below; tools/decision-table.sh puts them beside the
 *        hypervisor's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sched/credit_priv.h" /* bal_next: the balancing scan at every decision */
#include "sched/sched.h"

static struct sched S;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double run_once(unsigned n, int boost, unsigned iters)
{
	static struct sched_dom d[4096];
	static struct sched_vcpu v[4096];
	sched_init(&S, 1);
	if (!boost)
		sched_config(&S, "credit.boost_us", "0", 0);
	memset(d, 0, sizeof(d));
	memset(v, 0, sizeof(v));
	for (unsigned i = 0; i < n + 1; i++) {
		d[i].id = i + 1;
		v[i].dom = &d[i];
		v[i].affinity = cpumask_of(0);
		sched_vcpu_insert(&S, &v[i], 0);
	}
	uint64_t t = 0;
	for (unsigned i = 0; i < n + 1; i++)
		sched_wake(&S, &v[i], t, WAKE_NEW);
	struct sched_vcpu *cur = sched_pick_next(&S, 0, t).vcpu;
	/* n+1 vCPUs: n runnable (queued or running) at every decision, one blocked. */
	struct sched_vcpu *blocked = NULL;
	for (unsigned i = 0; i < 2 * n + 100; i++) { /* warm up */
		t += 20000;
		sched_sleep(&S, cur, t);
		if (blocked)
			sched_wake(&S, blocked, t, WAKE_EVENT);
		blocked = cur;
		cur = sched_pick_next(&S, 0, t).vcpu;
	}
	double t0 = now_ns();
	for (unsigned i = 0; i < iters; i++) {
		t += 20000;
		sched_sleep(&S, cur, t);
		sched_wake(&S, blocked, t, WAKE_EVENT);
		blocked = cur;
		cur = sched_pick_next(&S, 0, t).vcpu;
	}
	double el = now_ns() - t0;
	if (!cur)
		abort();
	return el / iters;
}

/* ---- cost versus pCPUs ---------------------------------------------------------------- */

/* Per-operation timestamps: the TSC where there is one (clock_gettime's steps are too
 * coarse for 20-100 ns operations), scaled to ns by a calibration against the clock. */
static double tsc_ns = 1.0;

static inline uint64_t tick(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

static void calibrate(void)
{
#if defined(__x86_64__)
	double t0 = now_ns();
	uint64_t c0 = tick();
	while (now_ns() - t0 < 50e6)
		;
	tsc_ns = (now_ns() - t0) / (double)(tick() - c0);
#endif
}

static int cmp_u(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Mean of the fastest 99% and p99 of x[0..n) in ns, minus the timer's own cost `ovh` (the
 * timestamps step by ~10 ns here, so single values are coarse; the mean of 20000 is not). */
static void pct(uint64_t *x, unsigned n, double ovh, double *mean, double *p99)
{
	double sum = 0;
	qsort(x, n, sizeof(*x), cmp_u);
	unsigned m = n - n / 100; /* the top 1% is the host's noise (other load, interrupts) */
	for (unsigned i = 0; i < m; i++)
		sum += (double)x[i];
	*mean = sum / m * tsc_ns - ovh;
	*p99 = (double)x[n * 99 / 100] * tsc_ns - ovh;
	if (*mean < 0)
		*mean = 0;
	if (*p99 < 0)
		*p99 = 0;
}

static struct sched_dom *TD;
static struct sched_vcpu *TV;

/* P pCPUs with n+1 vCPUs each (one domain each, unpinned: balancing and stealing look at
 * all of them), every pCPU running one. Returns the vCPU count. */
static unsigned table_setup(unsigned P, unsigned n, unsigned spare)
{
	unsigned nv = P * (n + 1);
	sched_init(&S, P + spare);
	memset(TD, 0, sizeof(*TD) * nv);
	memset(TV, 0, sizeof(*TV) * nv);
	for (unsigned i = 0; i < nv; i++) {
		TD[i].id = i + 1;
		TV[i].dom = &TD[i];
		TV[i].id = 0;
		TV[i].affinity = cpumask_of(i % P);
		sched_vcpu_insert(&S, &TV[i], 0);
	}
	for (unsigned i = 0; i < nv; i++) {
		sched_wake(&S, &TV[i], 0, WAKE_NEW);
		TV[i].affinity = cpumask_none(); /* placed; from now on movable */
	}
	for (unsigned i = 0; i < nv; i++) /* requeue as movable */
		sched_set_affinity(&S, &TV[i], cpumask_none(), 0);
	for (unsigned p = 0; p < P; p++)
		sched_pick_next(&S, p, 0);
	return nv;
}

/* sleep / wake / pick_next on pCPU 0 beside P-1 busy pCPUs, as in run_once. */
static void table_row(unsigned P, unsigned n, unsigned iters, double ovh, double out[6])
{
	static uint64_t ts[3][200000];
	if (iters > 200000)
		iters = 200000;
	table_setup(P, n, 0);
	uint64_t t = 0;
	struct sched_vcpu *cur = S.pcpu[0].curr, *blocked = NULL;
	for (unsigned i = 0; i < 2 * n + 100 + iters; i++) {
		t += 20000;
		bool m = i >= 2 * n + 100;
		unsigned k = m ? i - (2 * n + 100) : 0;
		uint64_t a = tick();
		sched_sleep(&S, cur, t);
		uint64_t b = tick();
		if (blocked)
			sched_wake(&S, blocked, t, WAKE_EVENT);
		uint64_t c = tick();
		blocked = cur;
		cur = sched_pick_next(&S, 0, t).vcpu;
		uint64_t d = tick();
		if (!cur)
			abort();
		if (m) {
			ts[0][k] = b - a;
			ts[1][k] = c - b;
			ts[2][k] = d - c;
		}
	}
	for (int j = 0; j < 3; j++)
		pct(ts[j], iters, ovh, &out[2 * j], &out[2 * j + 1]);
}

/* An idle pCPU (the last) steals from 64 busy ones, again and again: the stolen vCPU
 * blocks and is sent back (untimed) to the busiest queue. */
static void steal_cost(unsigned n, unsigned iters, double ovh, double *p50, double *p99)
{
	static uint64_t ts[200000];
	const unsigned P = 63, idle = 63;
	if (iters > 200000)
		iters = 200000;
	table_setup(P, n, 1);
	uint64_t t = 0;
	sched_cpumask_t not_idle = cpumask_without(cpumask_below(SCHED_MAX_PCPUS), idle);
	for (unsigned i = 0; i < iters + 100; i++) {
		t += 20000;
		uint64_t a = tick();
		struct sched_vcpu *x = sched_pick_next(&S, idle, t).vcpu;
		uint64_t b = tick();
		if (!x)
			abort();
		if (i >= 100)
			ts[i - 100] = b - a;
		sched_sleep(&S, x, t);
		sched_set_affinity(&S, x, not_idle, t);
		sched_wake(&S, x, t, WAKE_NEW);
		sched_set_affinity(&S, x, cpumask_none(), t);
		sched_take_kicks(&S);
	}
	pct(ts, iters, ovh, p50, p99);
}

/* The balancing scan: pick_next on pCPU 0, one vCPU heavier than the 63 others, with the
 * scan forced at every decision (bal_next cleared) and the gap never reached. */
static void balance_cost(unsigned n, unsigned iters, double ovh, double *p50, double *p99)
{
	static uint64_t ts[200000];
	if (iters > 200000)
		iters = 200000;
	table_setup(64, n, 0);
	sched_config(&S, "credit.balance_gap_us", "1000000", 0);
	/* pCPU 0 heavier: give it another vCPU. */
	TD[0].weight = 512;
	sched_set_params(&S, &TD[0], 512, 0, 0);
	uint64_t t = 0;
	struct sched_vcpu *cur = S.pcpu[0].curr;
	for (unsigned i = 0; i < iters + 100; i++) {
		t += 20000;
		sched_yield(&S, cur, t);
		cpc(&S.pcpu[0])->bal_next = 0; /* white box: credit's private pCPU state */
		uint64_t a = tick();
		cur = sched_pick_next(&S, 0, t).vcpu;
		uint64_t b = tick();
		if (i >= 100)
			ts[i - 100] = b - a;
	}
	pct(ts, iters, ovh, p50, p99);
}

/* ---- the decision per policy ------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* `policy` on one pCPU with n runnable vCPUs (one domain each), two ways, each timed per call
 * in host TSC ticks (the timer's own cost subtracted), p50 and p99 of `iters`:
 *   slice  n spinners: the running one's slice has ended, pick_next (requeue it, run the next;
 *          what the hypervisor's perf line measures with n spinners on a pCPU);
 *   wake   n + 1 vCPUs: the running one blocks, the one that blocked a step earlier is woken
 *          by an event, then pick_next (run_once's step; the pick is timed).
 * Time steps by the slice (1 ms) in `slice` and 20 us in `wake`. The TSC steps by tens of
 * ticks here, so a sample is the sum of BATCH consecutive picks, divided: the percentiles
 * are of those means. */
#define BATCH 16
static void policy_row(const char *policy, unsigned n, unsigned iters, uint64_t ovh,
		       uint64_t out[4])
{
	static struct sched_dom d[128];
	static struct sched_vcpu v[128];
	static uint64_t ts[200000];
	if (iters > 200000)
		iters = 200000;
	for (int mode = 0; mode < 2; mode++) {
		unsigned nv = mode ? n + 1 : n;
		sched_init(&S, 1);
		sched_config(&S, "sched", policy, 0);
		if (!strcmp(policy, "credit1")) { /* its slice as sliver's: a decision per ms */
			sched_config(&S, "credit1.tick_us", "1000", 0);
			sched_config(&S, "credit1.tslice_us", "1000", 0);
		}
		memset(d, 0, sizeof(d));
		memset(v, 0, sizeof(v));
		for (unsigned i = 0; i < nv; i++) {
			d[i].id = i + 1;
			v[i].dom = &d[i];
			v[i].affinity = cpumask_of(0);
			sched_vcpu_insert(&S, &v[i], 0);
		}
		uint64_t t = 0;
		for (unsigned i = 0; i < nv; i++)
			sched_wake(&S, &v[i], t, WAKE_NEW);
		struct sched_vcpu *cur = sched_pick_next(&S, 0, t).vcpu, *blocked = NULL;
		uint64_t step = mode ? 20000 : 1000000, sum = 0;
		for (unsigned i = 0; i < 2 * n + 100 + iters * BATCH; i++) {
			t += step;
			if (mode) {
				sched_sleep(&S, cur, t);
				if (blocked)
					sched_wake(&S, blocked, t, WAKE_EVENT);
				blocked = cur;
			}
			sched_take_kicks(&S);
			uint64_t a = tick();
			cur = sched_pick_next(&S, 0, t).vcpu;
			uint64_t b = tick();
			if (!cur)
				abort();
			if (i < 2 * n + 100)
				continue;
			sum += b - a > ovh ? b - a - ovh : 0;
			unsigned k = i - (2 * n + 100);
			if (k % BATCH == BATCH - 1) {
				ts[k / BATCH] = (sum + BATCH / 2) / BATCH;
				sum = 0;
			}
		}
		qsort(ts, iters, sizeof(ts[0]), cmp_u64);
		out[2 * mode] = ts[iters / 2];
		out[2 * mode + 1] = ts[iters * 99 / 100];
	}
}

static int policy_table(unsigned iters)
{
	static const char *const pol[] = {"credit", "credit1", "eevdf"};
	static const unsigned ns[] = {1, 2, 4, 8, 16, 32, 64};
	uint64_t o[10001];
	for (int i = 0; i < 10001; i++) {
		uint64_t a = tick();
		o[i] = tick() - a;
	}
	qsort(o, 10001, sizeof(o[0]), cmp_u64);
	uint64_t ovh = o[5000];
	/* Rounds interleave the policies and sizes so that other load hits them alike; the
	 * median of 5 rounds per cell. */
	enum { ROUNDS = 5 };
	static uint64_t r[3][7][4][ROUNDS];
	for (int k = 0; k < ROUNDS; k++)
		for (unsigned p = 0; p < 3; p++)
			for (unsigned j = 0; j < 7; j++) {
				uint64_t out[4];
				policy_row(pol[p], ns[j], iters, ovh, out);
				for (int c = 0; c < 4; c++)
					r[p][j][c][k] = out[c];
			}
	for (unsigned p = 0; p < 3; p++)
		for (unsigned j = 0; j < 7; j++) {
			uint64_t m[4];
			for (int c = 0; c < 4; c++) {
				qsort(r[p][j][c], ROUNDS, sizeof(uint64_t), cmp_u64);
				m[c] = r[p][j][c][ROUNDS / 2];
			}
			printf("policy %s n=%u slice_pick_p50=%lu slice_pick_p99=%lu "
			       "wake_pick_p50=%lu wake_pick_p99=%lu iters=%u timer_ticks=%lu\n",
			       pol[p], ns[j], (unsigned long)m[0], (unsigned long)m[1],
			       (unsigned long)m[2], (unsigned long)m[3], iters, (unsigned long)ovh);
		}
	return 0;
}

static int cost_table(unsigned iters)
{
	const unsigned Ps[3] = {1, 8, 64}, Ns[4] = {8, 64, 256, 1024};
	TD = calloc(64 * 1025, sizeof(*TD));
	TV = calloc(64 * 1025, sizeof(*TV));
	if (!TD || !TV)
		return 1;
	calibrate();
	uint64_t o[10001];
	for (int i = 0; i < 10001; i++) {
		uint64_t a = tick();
		o[i] = tick() - a;
	}
	qsort(o, 10001, sizeof(o[0]), cmp_u);
	double ovh = (double)o[5000] * tsc_ns;
	printf("| vCPUs per pCPU | pCPUs | sleep mean / p99 | wake mean / p99 | pick_next mean / "
	       "p99 | sleep+wake+pick mean, growth vs 1 pCPU | pick p99 growth |\n"
	       "|---|---|---|---|---|---|---|\n");
	for (unsigned k = 0; k < 4; k++) {
		double base[6] = {0};
		for (unsigned j = 0; j < 3; j++) {
			double r[6], rr[3][6];
			for (int run = 0; run < 3; run++) /* median of 3 runs, per column */
				table_row(Ps[j], Ns[k], iters, ovh, rr[run]);
			for (int c = 0; c < 6; c++) {
				double a = rr[0][c], b = rr[1][c], d = rr[2][c];
				r[c] = a > b ? (b > d ? b : (a > d ? d : a))
					     : (a > d ? a : (b > d ? d : b));
			}
			if (!j)
				memcpy(base, r, sizeof(r));
			double op = r[0] + r[2] + r[4], op1 = base[0] + base[2] + base[4];
			printf("| %u | %u | %.1f / %.0f | %.1f / %.0f | %.1f / %.0f | %.1f, %.2fx "
			       "| "
			       "%.2fx |\n",
			       Ns[k], Ps[j], r[0], r[1], r[2], r[3], r[4], r[5], op, op / op1,
			       base[5] > 0 ? r[5] / base[5] : 0);
		}
	}
	printf("\n| vCPUs per pCPU | steal at 64 pCPUs mean / p99 | balancing look at 64 pCPUs "
	       "mean / p99 |\n|---|---|---|\n");
	for (unsigned k = 0; k < 4; k++) {
		double a50, a99, b50, b99;
		steal_cost(Ns[k], iters, ovh, &a50, &a99);
		balance_cost(Ns[k], iters, ovh, &b50, &b99);
		printf("| %u | %.1f / %.0f | %.1f / %.0f |\n", Ns[k], a50, a99, b50, b99);
	}
	printf("\n(ns, host, timer overhead %.0f ns subtracted; %u operations each)\n", ovh, iters);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "policies")) {
		unsigned it = 20000;
		if (argc > 2 && !strncmp(argv[2], "iters=", 6))
			it = (unsigned)atoi(argv[2] + 6);
		return policy_table(it);
	}
	if (argc > 1 && !strcmp(argv[1], "table")) {
		unsigned it = 20000;
		if (argc > 2 && !strncmp(argv[2], "iters=", 6))
			it = (unsigned)atoi(argv[2] + 6);
		return cost_table(it);
	}
	unsigned ns[16], nn = 0, iters = 200000, runs = 7;
	int boost = 0;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "boost=", 6))
			boost = atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "iters=", 6))
			iters = (unsigned)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "runs=", 5))
			runs = (unsigned)atoi(argv[i] + 5);
		else if (nn < 16 && atoi(argv[i]) > 0 && atoi(argv[i]) < 4096)
			ns[nn++] = (unsigned)atoi(argv[i]);
		else {
			fprintf(stderr, "usage: sliver-bench-decision [N...] [boost=0|1] [iters=K] "
					"[runs=R]\n");
			return 2;
		}
	}
	if (!nn) {
		unsigned def[] = {8, 64, 256, 1024};
		memcpy(ns, def, sizeof(def));
		nn = 4;
	}
	if (runs > 31)
		runs = 31;
	/* Rounds interleave the sizes so that noise from other load hits them all alike. */
	static double r[16][32];
	for (unsigned j = 0; j < runs; j++)
		for (unsigned k = 0; k < nn; k++)
			r[k][j] = run_once(ns[k], boost, iters);
	double first = 0;
	for (unsigned k = 0; k < nn; k++) {
		qsort(r[k], runs, sizeof(r[k][0]), cmp_d);
		double med = r[k][runs / 2];
		if (!k)
			first = med;
		printf("decision n=%u boost=%d ns_per_op=%.1f min=%.1f max=%.1f runs=%u iters=%u "
		       "growth=%.2f\n",
		       ns[k], boost, med, r[k][0], r[k][runs - 1], runs, iters, med / first);
	}
	return 0;
}
