/* The fixture the credit policy's unit tests share (test_sched_credit.c, the rules on one
 * pCPU; test_sched_credit_ops.c, between pCPUs and what the outside changes or reads): one
 * scheduler instance, domains of one vCPU each, the run loop, a vCPU's credit. */
#ifndef TEST_UNIT_CREDIT_FIXTURE_H
#define TEST_UNIT_CREDIT_FIXTURE_H
#include <stdint.h>
#include "sched/credit_priv.h" /* white box: credit's private state (cv, cd, cpc, cs) */
#include "sched/sched.h"

#define US 1000ull
#define MS 1000000ull

extern struct sched S;
extern struct sched_dom D[8];
extern struct sched_vcpu V[8];

/* A credit instance on `pcpus` pCPUs with n vCPUs V[0..n), V[i] the only vCPU of D[i]
 * (id i + 1), pinned to pCPU 0, inserted blocked. */
void setup(unsigned pcpus, unsigned n);
/* Runs pCPU p from `t` to `end`, calling pick_next at every run_until; returns the time. */
uint64_t run(unsigned p, uint64_t t, uint64_t end);
/* v's credit in ns of its own time: positive ahead of its pCPU's virtual clock. */
int64_t credit_of(const struct sched_vcpu *v);
/* Builds: V0 and V1 spin on pCPU 0; V2, an I/O vCPU, is asleep and 2 ms in debt (OVER). */
uint64_t setup_over_waker(void);
#endif
