/* The driver the issue-10 scheduler tests share (test_sched_beyond*.c): one credit
 * scheduler, its domains and vCPUs, and a loop that runs pCPUs and duty-cycle vCPUs through
 * the real sched/ code, checking after every instant that no pCPU idles while a vCPU it may
 * run waits. */
#ifndef TEST_UNIT_SCHED_DRIVE_H
#define TEST_UNIT_SCHED_DRIVE_H
#include <stdint.h>
#include "sched/sched.h"

#define US 1000ull
#define MS 1000000ull
#define NV 40

extern struct sched S;
extern struct sched_dom D[NV];
extern struct sched_vcpu V[NV];
extern uint64_t T[SCHED_MAX_PCPUS]; /* next pick_next of each pCPU */
extern uint64_t Wt[NV];		    /* sleepers: wake time; runners: SCHED_NEVER */
extern uint64_t Rt[NV];		    /* duty vCPUs: when the current burst ends (run time) */
extern unsigned Slow[NV];	    /* duty vCPUs: sleeps this many times longer (0: 1) */
extern uint64_t rng_state;

uint64_t rnd(uint64_t n); /* in [0, n), from rng_state */
/* Makes pCPUs in m pick at now. */
void kick(sched_cpumask_t m, uint64_t now);
/* Inserts V[i] as vCPU `id` of domain D[d] (weight w), allowed on `aff`, and wakes it. */
void start_vcpu(unsigned i, unsigned d, uint32_t w, unsigned id, sched_cpumask_t aff);
/* Drives pCPUs and duty vCPUs (those with duty[i] != 0: run duty[i] us of CPU, sleep a
 * random 1..2*duty[i] us) until `end`; after every instant, checks that no pCPU idles while
 * a vCPU it may run waits, and that the idle/movable summaries agree with the queues. */
void drive(uint64_t end, const unsigned *duty, unsigned n);

#endif
