/* The ideal a scheduler is tested against: the affinity-aware weighted max-min fair
 * allocation of pCPUs to domains (test/sim/README.md, "The ideal"). Host C, no sched/ types,
 * so the unit test and any tool can call it. */
#ifndef TEST_SIM_IDEAL_H
#define TEST_SIM_IDEAL_H
#include <stdint.h>

#define IDEAL_MAX_PCPUS	 256
#define IDEAL_MASK_WORDS (IDEAL_MAX_PCPUS / 64)

/* `count` identical vCPUs of domain `dom`, each wanting `demand` (0..1 of a pCPU), allowed
 * on the pCPUs of `mask` (bit n % 64 of word n / 64 = pCPU n; all words 0 = all). */
struct ideal_group {
	unsigned dom;
	uint64_t mask[IDEAL_MASK_WORDS];
	double demand;
	unsigned count;
};

/* npcpus <= IDEAL_MAX_PCPUS. Domain d has weight[d] > 0 and cap[d] (in pCPUs, 0 = none). Writes
 * each domain's allocation, in pCPUs, to share[d]. Returns 0, or -1 on bad input / out of memory.
 */
int ideal_solve(unsigned npcpus, unsigned ndoms, const double *weight, const double *cap,
		unsigned ngroups, const struct ideal_group *g, double *share);

#endif
