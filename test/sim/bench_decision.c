/* sliver-bench-decision: host-measured cost of one scheduling decision of the real credit
 * code with N runnable vCPUs on one pCPU. One step = the running vCPU blocks (sleep), the
 * vCPU that blocked one step earlier is woken by an event (wake), and the pCPU decides
 * (pick_next). Prints `decision n=<N> ns_per_op=<median> runs=<R> ...` lines.
 * Usage: sliver-bench-decision [N...] (default 8 64 256 1024) [boost=0|1] [iters=K] [runs=R] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		v[i].affinity = 1;
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

int main(int argc, char **argv)
{
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
