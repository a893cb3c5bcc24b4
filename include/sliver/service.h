/* sliver guest ABI: the service domain's calls beyond hypercall.h (numbers continue
 * there; all are privileged). Calls that report for people return text lines in the
 * formats tools/ parse, so the service shell and the hypervisor's debug keys print the
 * same thing. */
#ifndef SLIVER_SERVICE_H
#define SLIVER_SERVICE_H
#include <stdint.h>

#define HC_SCHED_GET 41 /* (gpa buf, len) -> bytes: "sched=credit credit.tslice_us=.." */
#define HC_VCPU_PIN  42 /* (dom, vcpu, cpumask) -> 0: allowed pCPUs, bit n = pCPU n    */
#define HC_LAT                                                                                     \
	43		    /* (dom, vcpu, flags, gpa buf, len) -> bytes: the `lat` line;          \
			       flags & SLIVER_LAT_HIST adds a text histogram               */
#define HC_VCPU_COUNTERS 44 /* (dom, vcpu, gpa struct sliver_vcpu_counters, len) -> bytes  */
#define HC_PCPU_INFO                                                                               \
	45		     /* (cpu, gpa struct sliver_pcpu_info, len) -> bytes;                  \
				-SLIVER_ENOENT past the last pCPU                            */
#define HC_TRACE	  46 /* (op, gpa buf, len): SLIVER_TRACE_OFF/ON -> 0, DUMP -> bytes  */
#define HC_COUNTERS_RESET 47 /* (dom) -> 0: histograms and counters; dom 0 = all domains    */
#define HC_DOM_EXITS	  48 /* (dom, gpa buf, len) -> bytes: "exits d<id> reason=count .."   */
#define HC_VCPU_AFFINITY                                                                           \
	49 /* (dom, vcpu, gpa mask, len) -> 0: allowed pCPUs, bit n % 8 of byte n / 8 = pCPU n,    \
	      len 1..SLIVER_CPUMASK_BYTES (HC_VCPU_PIN takes pCPUs 0..63 in a register)   */

/* pCPUs sliver schedules at most; a CPU set in guest memory is this many bits. */
#define SLIVER_MAX_PCPUS     256
#define SLIVER_CPUMASK_BYTES (SLIVER_MAX_PCPUS / 8)

#define SLIVER_LAT_HIST	  1u
#define SLIVER_TRACE_OFF  0u
#define SLIVER_TRACE_ON	  1u
#define SLIVER_TRACE_DUMP 2u

struct sliver_vcpu_counters {
	uint32_t dom_id, vcpu_id;
	uint32_t pcpu;		  /* where it is queued or running */
	uint32_t state;		  /* 0 blocked, 1 runnable, 2 running, 3 parked (cap) */
	uint64_t run_ns, wait_ns; /* time run; time runnable but waiting (run queue) */
	uint64_t wakes, boosts, preempts, migrations, yields, exits;
};

struct sliver_pcpu_info {
	uint32_t cpu, apic_id;
	uint32_t cur_dom, cur_vcpu; /* cur_dom 0: idle */
	uint64_t idle_ns, busy_ns;
	uint64_t sched_calls;
	uint64_t decision_n, decision_avg_cycles, decision_p99_cycles, decision_max_cycles;
	/* HC_CONSOLE_WRITE handled on this pCPU: TSC ticks per call */
	uint64_t conwrite_n, conwrite_avg_cycles, conwrite_p99_cycles, conwrite_max_cycles;
};

#endif
