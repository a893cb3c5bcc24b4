/* The scheduler door: the one place that calls sched/. It owns the scheduler instance, the
 * per-pCPU run-queue locks and the domain locks, takes what each call needs, delivers the
 * kicks a call returns (after letting go of its locks) and runs the policy's finish work.
 * Nothing else in the hypervisor calls sched/ or takes a run-queue lock; nothing here knows
 * a VMCS, a guest or an exit. It builds unchanged for the host torture test (test/torture/),
 * where the port below is threads standing in for pCPUs. The rules: "Locking" at the top of
 * core/sched_door.c. */
#ifndef CORE_SCHED_DOOR_H
#define CORE_SCHED_DOOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sched/sched.h"

/* The door's part of a vCPU: the scheduler's vCPU and the state that goes with blocking and
 * running it. Every field is under the vCPU's run-queue lock (that of sv.pcpu), but
 * running_on: under the lock of the pCPU it names (the vCPU may have moved since), read
 * elsewhere with SCHED_GET. */
struct sd_vcpu {
	struct sched_vcpu sv; /* sv.owner: the caller's vCPU */
	bool blocked;	      /* in HLT / HC_BLOCK (kept while paused: unpause leaves it) */
	bool paused;	      /* its domain is paused: out of the scheduler */
	bool gone;	      /* removed for good (its domain is ending) */
	bool move_pending;    /* running where its affinity no longer allows: the pick that
			       * lets go of it takes every lock, so its policy can move it */
	int16_t running_on;   /* pCPU that picked it and has not let go of it, -1: none */
	uint64_t wake_ns;     /* its last wake, until its next entry (wake-to-run), 0: none */
	uint64_t ready_ns;    /* runnable but waiting since, 0: not waiting */
	uint64_t wait_ns;     /* total time waiting in a run queue */
};

/* What the door needs from its host. */
struct sd_port {
	unsigned (*self)(void);	  /* the calling pCPU */
	uint64_t (*now)(void);	  /* ns, monotonic across pCPUs */
	uint64_t (*cycles)(void); /* a cheap counter for the lock-wait statistics */
	/* Makes pCPU `cpu` call sd_pick soon (resched) or only leave its guest (!resched): an
	 * IPI, or a flag when it is the caller. Called with no lock held. */
	void (*kick)(unsigned cpu, bool resched);
	void (*bug)(const char *what, unsigned a, unsigned b); /* a door or policy bug: panic */
	/* sd_pick(SD_THEN_BLOCK): the vCPU `owner` (sv.owner) has a wake-up pending, so it
	 * must not block (as sd_block's pending). */
	bool (*wake_pending)(void *owner);
};

/* Lock-wait statistics of one pCPU's run-queue lock (cycles of the port's counter). */
struct sd_lockstat {
	uint64_t acquires, waits, wait_cycles, max_wait;
	uint64_t try_fail; /* sched_peer refused (another pCPU had it) */
	uint64_t finishes; /* wide finish passes run for work left on it */
	uint64_t log2[24]; /* waits by log2(cycles): [0] < 2, [k] in [2^k, 2^(k+1)) */
};

/* Boot: the instance for pCPUs 0..nr-1 (the policy: credit, until sd_config_word). */
int sd_init(unsigned nr_pcpus, const struct sd_port *port);
/* Read-only use of what changes only at boot: ops->name, nr_pcpus, p.ple. */
const struct sched *sd_sched(void);

/* Scheduler keys (`sched=`, `credit.tslice_us=`...), at boot or at run time: 0 applied, 1
 * not a scheduler key, -22 bad. Kicks that follow are delivered. */
int sd_config_word(const char *word, size_t len);
int sd_config_get(const char *key, char *buf, size_t n);
void sd_config_show(sched_print_fn pr, void *arg);
void sd_dump(sched_print_fn pr, void *arg);
/* pCPU `pcpu`'s trace records (sched_trace_read); *head: its ring's head then. */
unsigned sd_trace_read(unsigned pcpu, struct sched_trace_rec *out, unsigned max, uint32_t *head);

/* vCPUs. v->sv.dom (its id, weight, cap), sv.id, sv.affinity, sv.owner set by the caller. */
int sd_insert(struct sd_vcpu *v);	     /* v starts blocked, until sd_start: 0 or -errno */
void sd_start(struct sd_vcpu *v, bool hold); /* first run; hold: stays blocked (waits a SIPI) */
/* v leaves the scheduler for good (sleeps first if runnable): true when this call removed
 * it. Nothing when it has left already, or when a pCPU holds it (picked it and has not let
 * go: that pCPU calls sd_leave when it does), so the pCPU letting go of a dying domain's
 * vCPU calls this and another pCPU that picked it meanwhile cannot lose it. */
bool sd_leave(struct sd_vcpu *v);
/* A domain ends: each of v[0..n) that no pCPU holds leaves now (as sd_leave); the pCPUs
 * holding the others are kicked (*running: which, the caller's own excluded), and their
 * vCPUs leave when that pCPU lets go of them (sd_leave). Returns how many left now. */
unsigned sd_end(struct sd_vcpu *const *v, unsigned n, sched_cpumask_t *running);
/* Pause: each v leaves the run queues but keeps `blocked` (a running one at its pCPU's next
 * decision: that pCPU is kicked, and it calls sd_pause_self). Unpause puts back the ones
 * not blocked in the guest. */
void sd_pause(struct sd_vcpu *const *v, unsigned n);
void sd_unpause(struct sd_vcpu *const *v, unsigned n);
int sd_set_params(struct sched_dom *d, uint32_t weight, uint32_t cap);
int sd_set_affinity(struct sd_vcpu *v, sched_cpumask_t mask);

/* What sd_notify did. */
enum sd_wake { SD_WAKE_NONE = 0, SD_WAKE_WOKE, SD_WAKE_EVENT };
/* sd_notify flag: the scheduler hears of it only when it wakes v from blocked. */
#define SD_NOTIFY_QUIET (1u << 15)
/* An event or timer for v (WAKE_EVENT or WAKE_TIMER): wakes it when blocked, tells the
 * scheduler when it waits or runs (latency slice; not with SD_NOTIFY_QUIET), and forces an
 * exit when it runs on another pCPU so that a vector goes in at its next entry. Any pCPU, no
 * lock held. */
enum sd_wake sd_notify(struct sd_vcpu *v, unsigned flags);

/* Calls of the pCPU running v (after an exit): */
/* v blocks unless pending(arg): checked under v's lock, so a notify in between is never
 * lost. True when it blocked; its pCPU calls sd_pick next. */
bool sd_block(struct sd_vcpu *v, bool (*pending)(void *arg), void *arg);
void sd_yield(struct sd_vcpu *v);      /* gives up the rest of its slice */
void sd_pause_loop(struct sd_vcpu *v); /* a PAUSE-loop exit (sched.ple) */
/* Its domain is dying (sd_stop) or was paused while it ran (sd_pause_self): it leaves the run
 * queues. True when this call took it off, its run charged up to the call's `now`; false when
 * there was nothing to do: off or gone already, or (sd_pause_self) unpaused since the caller
 * saw the flag, and then it runs on, charged until its pCPU's next sd_pick. */
bool sd_stop(struct sd_vcpu *v);
bool sd_pause_self(struct sd_vcpu *v);

/* What sd_pick does with prev first, under the lock it takes for the pick anyway: a yield or
 * a block and the decision after it in one door call instead of two. */
enum sd_then {
	SD_THEN_RUN = 0, /* nothing: prev stays as it is */
	SD_THEN_YIELD,	 /* as sd_yield(prev) */
	SD_THEN_BLOCK,	 /* as sd_block(prev, port->wake_pending, prev->sv.owner) */
};

/* The decision on the caller's pCPU `cpu`: lets go of prev (the vCPU it ran last, or NULL)
 * after doing `then` to it, returns the vCPU to run (claimed: running_on = cpu) or NULL, and
 * *run_until (SCHED_NEVER: no scheduler timer); *held: the port's cycles spent in the
 * policy's pick (`then` not included). */
struct sd_vcpu *sd_pick(unsigned cpu, struct sd_vcpu *prev, enum sd_then then, uint64_t *run_until,
			uint64_t *held);

/* Work for `cause` was done in the time of `runner`, the vCPU running on the caller's pCPU
 * (a timer of cause's handled while runner ran): ns of it are charged to cause, not to
 * runner (sched_charge_for; a policy that does not charge owed time leaves it on runner).
 * Takes both vCPUs' run-queue locks. Returns the ns moved. */
uint64_t sd_charge_for(struct sd_vcpu *runner, struct sd_vcpu *cause, uint64_t ns);

/* A consistent snapshot of v (counters with run_ns exact at this instant). */
struct sd_info {
	struct sched_counters c;
	uint64_t wait_ns;
	uint16_t pcpu;
	uint8_t state, prio;
	int16_t running_on;
	bool blocked, paused;
};
void sd_info(struct sd_vcpu *v, struct sd_info *out);
/* v's CPU time up to now, or up to `until` when that is earlier (a run's end). */
uint64_t sd_run_ns(struct sd_vcpu *v, uint64_t until);
void sd_counters_reset(struct sd_vcpu *v);
void sd_dom_counters_reset(struct sched_dom *d);
/* Every rq held: sched_audit, the door's own rules (blocked/paused against the scheduler's
 * state), then more(more_arg) if given (a test's own checks, which may read every vCPU's
 * door fields then). Prints each problem; returns how many (the torture test). */
unsigned sd_audit(sched_print_fn pr, void *arg, unsigned (*more)(void *arg), void *more_arg);
/* pCPU cpu's run-queue lock statistics; reset: zero them after reading. */
void sd_lockstat(unsigned cpu, struct sd_lockstat *out, bool reset);

#endif
