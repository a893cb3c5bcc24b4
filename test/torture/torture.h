/* The scheduler door's torture test: the real core/sched_door.c and sched/ on the host, with
 * threads (or a seeded serial interleaving) as pCPUs doing what the hypervisor's loop does
 * (pick, run, block, yield, PAUSE-loop exits) and what other pCPUs do to them (events,
 * weights and caps, affinity, pause, domain end and re-creation), checking the rules after
 * every step (test/torture/README.md). */
#ifndef TORTURE_H
#define TORTURE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "core/sched_door.h"

#define T_MAX_DOMS  16
#define T_MAX_VCPUS 4

enum { D_LIVE, D_DYING, D_DEAD, D_BUSY };

struct tvcpu {
	struct sd_vcpu s;
	struct tdom *d;
	unsigned idx;
	atomic_int loaded;		/* pCPU whose "VMCS" it is loaded on, -1 */
	atomic_int pending;		/* an event the guest has not handled (block checks it) */
	atomic_ulong n_started, n_done; /* notifies begun and ended (lost-wake check) */
	atomic_ulong picks;		/* times a pick returned it */
	uint64_t expect_ns;		/* run time as the pCPUs saw it (see torture.c) */
	atomic_ulong expect_atomic;	/* the same, added to by whichever pCPU ran it */
};

struct tdom {
	struct sched_dom sd;
	struct tvcpu v[T_MAX_VCPUS];
	unsigned n;
	atomic_int state;     /* D_* */
	atomic_int remaining; /* vCPUs still in the scheduler while D_DYING */
	atomic_int paused;
};

struct tconf {
	unsigned pcpus, doms, seconds;
	uint64_t seed;
	const char *policy;
	bool serial;
	unsigned inject;      /* serial mode: per mille of try-locks that fail on purpose */
	unsigned steps;	      /* serial mode: steps to run */
	unsigned check_every; /* serial mode: audit after every N-th step (0: at the end only) */
	bool verbose;
};

/* One logical pCPU: what its loop knows (only its own thread touches it, but need_resched;
 * the checks read it). */
struct tcpu {
	uint64_t rng;
	struct tvcpu *cur;  /* returned by its last pick */
	bool loaded_ok;	    /* cur is loaded here (the handoff is done) */
	bool running;	    /* cur runs (charged since run_from) */
	bool want_pick;	    /* it blocked, yielded, stopped: pick next */
	enum sd_then then;  /* what that pick does to cur first (a block or yield left to it) */
	uint64_t run_from;  /* the door's `now` when cur's charged interval began */
	uint64_t refunded;  /* ns of that interval charged to others (sd_charge_for) */
	uint64_t run_until; /* the pick's slice end */
	uint64_t last_now;  /* the door's last `now` on this pCPU */
	unsigned now_calls; /* how many times the door read it */
	uint64_t nows[8];   /* the last values, by now_calls % 8 */
	atomic_int need_resched;
	uint64_t picks, idle_picks, steps;
	int last_act; /* the last action's number (act), -1: a pick */
} __attribute__((aligned(64)));

extern struct tconf C;
extern struct tdom doms[T_MAX_DOMS];
extern atomic_int failures;
extern struct tcpu cpus[SCHED_MAX_PCPUS];

/* torture.c: the step loop. The clock the door reads (virtual in serial mode). */
uint64_t t_clock_ns(void);
uint64_t t_rand(uint64_t *state);

/* host.c */
void torture_yield(void);
void torture_threads(unsigned n, void (*loop)(unsigned id), unsigned seconds, atomic_bool *stop);

/* checks.c */
void t_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void audit(void);			   /* sd_audit with the lost-wake check, every rq held */
void check_run_time(uint64_t t_end);	   /* every pCPU stopped: charged = ran, to the ns */
void check_run_time_now(unsigned step_no); /* serial mode, at this instant */
void lost_wake_snapshot(void);		   /* before the last second (nothing blocks in it) */
bool lost_wake_check(bool report);	   /* after it: every runnable vCPU ran */

#endif
