/* EXITSTATS builds (SLIVER_EXITSTATS, hv.h hv_exit_stats): what a backend did to its VMCS /
 * VMCB per round trip, by the kind of the exit that began the trip. A backend counts into
 * its vCPU's trip as it works; at each exit exitstats_close adds the trip that ended to this
 * pCPU's sums under the kind it began with (vCPUs come and go, the sums stay), and
 * exitstats_open names the new trip once the exit is decoded. What comes before a vCPU's
 * first exit is not counted. Only hv.c and the backends include this file. */
#ifndef ARCH_X86_64_EXITSTATS_H
#define ARCH_X86_64_EXITSTATS_H
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/hv.h"

struct exitstats_trip {
	bool open;
	uint8_t kind;
	uint64_t cur[HV_EXIT_STATS_MAX];
};

struct exitstats_sum {
	uint64_t n[HV_EXIT_NR_KINDS];
	uint64_t sum[HV_EXIT_NR_KINDS][HV_EXIT_STATS_MAX];
};
extern struct exitstats_sum hv_exitstats[MAX_CPUS]; /* hv.c */

static inline void exitstats_close(struct exitstats_trip *t)
{
	struct exitstats_sum *s = &hv_exitstats[this_cpu()->id];
	if (t->open) {
		s->n[t->kind]++;
		for (unsigned i = 0; i < HV_EXIT_STATS_MAX; i++)
			s->sum[t->kind][i] += t->cur[i];
	}
	t->open = false;
	for (unsigned i = 0; i < HV_EXIT_STATS_MAX; i++)
		t->cur[i] = 0;
}

static inline void exitstats_open(struct exitstats_trip *t, unsigned kind)
{
	t->open = kind < HV_EXIT_NR_KINDS;
	t->kind = (uint8_t)kind;
}

#endif
