/* sliver guest ABI: records returned by HC_SELF_INFO, HC_DOM_LIST and HC_DOM_COUNTERS.
 * Records only grow at the end; callers pass their buffer length and get the bytes the
 * hypervisor filled. */
#ifndef SLIVER_DOMINFO_H
#define SLIVER_DOMINFO_H
#include <stdint.h>

enum sliver_dom_state {
	SLIVER_DOM_RUNNING = 0, /* at least one vCPU runnable or running */
	SLIVER_DOM_BLOCKED = 1, /* every vCPU blocked */
	SLIVER_DOM_PAUSED = 2,
	SLIVER_DOM_CRASHED = 3,	 /* stopped by the hypervisor, memory freed */
	SLIVER_DOM_SHUTDOWN = 4, /* ended with HC_SHUTDOWN */
};

#define SLIVER_ROLE_GUEST   0
#define SLIVER_ROLE_SERVICE 1

struct sliver_dom_info {
	uint32_t dom_id;
	uint32_t state; /* enum sliver_dom_state */
	uint32_t role;	/* SLIVER_ROLE_* */
	uint32_t nr_vcpus;
	uint32_t weight;
	uint32_t cap; /* % of one pCPU, 0 = none */
	uint64_t mem_bytes;
	uint64_t run_ns; /* CPU time used, all vCPUs */
	char name[32];
};

struct sliver_dom_counters {
	uint32_t dom_id;
	uint32_t nr_vcpus;
	uint64_t run_ns;
	uint64_t exits; /* all VM exits */
	uint64_t hypercalls;
	uint64_t io_exits;
	uint64_t wakes;
	uint64_t events_sent;
	uint64_t events_received;
	uint64_t events_denied; /* HC_EVENT_SEND refused with -SLIVER_EPERM */
};

/* HC_PING result. Times are hypervisor ns since boot. */
struct sliver_ping_result {
	uint64_t posted_ns;  /* when the hypervisor raised SLIVER_PORT_PING on the target */
	uint64_t replied_ns; /* when the target's reply (HC_EVENT_SEND to SLIVER_DOMID_HV,
				port SLIVER_PORT_PONG) reached the hypervisor; 0 = none yet */
};

#endif
