/* sliver-sim: discrete-event simulator around the real sched/ code. Host C, may use libc and
 * floating point (only sched/ may not). */
#ifndef TEST_SIM_SIM_H
#define TEST_SIM_SIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

#define SIM_MAX_DOMS 1024
#define SIM_LINE     4096

enum guest_kind { G_SPINNER, G_ECHO, G_IDLE, G_SERVICE, G_HOSTILE, G_LOCK };
/* lockstress (lock.c): thinking, spinning for the lock, holding it. */
enum lock_phase { LP_THINK = 0, LP_WAIT, LP_HOLD };
enum attack { ATK_NONE, ATK_SLEEP_ACCT, ATK_YIELD95, ATK_SELF_WAKE };
/* sim.locks (door.c): no lock model, one lock for every call, a lock per run queue. */
enum locks_mode { LOCKS_OFF = 0, LOCKS_GLOBAL, LOCKS_PERCPU };

/* A growable sample set in ns. */
struct samples {
	uint64_t *v;
	size_t n, cap;
};

struct sim_dom {
	unsigned id; /* d1.. in module order */
	char name[32];
	char image[96]; /* module path */
	enum guest_kind kind;
	char line[SIM_LINE]; /* module command line */
	uint32_t weight, cap, nvcpus;
	sched_cpumask_t pin;
	uint64_t spin_ns, sleep_ns; /* duty cycle; spin_ns 0 = none */
	bool duty_wall;		    /* duty_clock=wall: spin_ns of wall time (runnable that long,
				     * whatever CPU it gets), as guests/echo and the 2006 script;
				     * duty_clock=cpu: spin_ns of CPU time (the burst stretches) */
	uint64_t service_ns;	    /* CPU time to answer one ping */
	uint64_t jiffy_ns;	    /* jiffy_us=: duty sleeps end on the guest's own tick grid
				     * (README.md, "Guest timer"); 0: exact sleeps */
	uint64_t wake_ns;	    /* wake_us=: CPU work after each duty sleep before the spin's
				     * clock starts (the guest's timer path back to the script) */
	uint64_t boot_ns;	    /* start-up run of each vCPU (boot_us=): every domain is
				     * started (WAKE_NEW) and runs it before its behaviour, as
				     * in the hypervisor; an idle guest then blocks for good */
	enum attack attack;
	uint64_t atk_period_ns, atk_lead_ns, atk_after_ns; /* asleep [kP-lead, kP+after) */
	/* lockstress (lock.c): a ticket lock shared by its vCPUs: FIFO waiters, handed to
	 * the first waiter at release, whether it runs or not (lock-waiter preemption). */
	uint64_t cs_ns, think_ns;
	struct sim_vcpu *lock_owner, *lock_head, *lock_tail;
	uint64_t lock_acq;
	struct sched_dom sd;
	struct samples ping;
	double demand;	 /* CPU (fraction of one pCPU) it would use if never delayed */
	double entitled; /* the ideal (ideal.c), in pCPUs */
	double bound;	 /* lowest share accepted with expect.wall_bound (README.md) */
	double upper;	 /* highest share accepted with expect.wall_bound */
};

struct sim_vcpu {
	struct sched_vcpu sv;
	struct sim_dom *d;
	unsigned idx;
	int running_on;		 /* pCPU executing it, -1 */
	unsigned ran_on;	 /* pCPU it last ran on: its timers are there (sim.locks) */
	uint64_t exec_from;	 /* when guest code (re)started executing (after a switch) */
	uint64_t picked_at;	 /* when its pCPU picked it (share accounting) */
	uint64_t sched_ns;	 /* time it held a pCPU (includes switch cost) */
	uint64_t useful_ns;	 /* guest work done */
	uint64_t runnable_ns;	 /* time it was runnable (not blocked), held or waiting */
	uint64_t runnable_since; /* start of the current runnable stretch, UINT64_MAX: blocked */
	uint64_t boot_left;	 /* start-up CPU work left */
	bool spinning;		 /* duty/spinner: has background CPU work */
	uint64_t spin_left;	 /* ns left in this burst (UINT64_MAX: forever); wall duty: 1 while
				  * the burst lasts */
	uint64_t spin_until;	 /* wall duty: end of the burst (0: not started, it starts when the
				  * guest first executes after its sleep, as rt_spin_us reads the clock)
				  */
	uint64_t sleep_end;	 /* duty: end of the current sleep */
	uint64_t jiffy_off;	 /* jiffy_us: phase of its tick grid (seeded, [0, jiffy)) */
	uint64_t *pq;		 /* pending ping arrival times (FIFO ring) */
	size_t pq_head, pq_n, pq_cap;
	uint64_t ping_left; /* ns of service left for the head ping */
	uint64_t gen;	    /* guest event generation */
	bool lat_pending;
	uint64_t woke_at;
	uint64_t hold_until;	/* sleep-acct attacker: asleep until */
	uint8_t lphase;		/* lockstress: enum lock_phase */
	uint64_t lleft;		/* lockstress: CPU ns left thinking or holding */
	uint64_t lspin_ns;	/* lockstress: CPU ns spent spinning for the lock */
	struct sim_vcpu *lnext; /* lockstress: next waiter */
	uint64_t ple_at;	/* lockstress: its PAUSE-loop exit while waiting, UINT64_MAX */
	struct samples lat;
	uint64_t stuck; /* invariant samples it waited while an allowed pCPU idled or ran a
			 * vCPU of a domain further ahead of its ideal (README.md) */
};

struct sim_cfg {
	char hv_line[SIM_LINE];
	unsigned ndoms;
	struct sim_dom doms[SIM_MAX_DOMS];
	/* sim.* and ping.* */
	uint64_t duration_ns, switch_ns, seed, warmup_ns;
	unsigned pcpus;
	unsigned ping_dom; /* 0 = none */
	uint64_t ping_interval_ns, ping_jitter_ns;
	bool dump, trace;
	bool wake_blocked_only; /* sim.event_wake=blocked: events reach the scheduler only on wakes
				 */
	bool duty_wall;		/* sim.duty_clock: default of the module key duty_clock (wall) */
	uint64_t boot_us;	/* sim.boot_us: default of the module key boot_us */
	uint64_t jiffy_us;	/* sim.jiffy_us: default of the module key jiffy_us (0: off) */
	uint64_t wake_us;	/* sim.wake_us: default of the module key wake_us (0) */
	uint64_t ple_window_ns; /* sim.ple_window_us: spin a lockstress waiter does in one run
				 * before its PAUSE-loop exit (with sched.ple not off) */
	/* expect.*: bounds checked at the end, 0 = not checked */
	double exp_ping_p99_us, exp_ping_max_us, exp_ping_avg_min_us, exp_share_tol, exp_cap_tol,
		exp_rel_tol_pct, exp_gain_max, exp_lat_p99_us;
	double exp_migrations_max;    /* per vCPU over the run (no ping-pong) */
	double exp_ping_p99_min_us;   /* lower bound (the credit1 reproduction check) */
	double exp_wall_bound;	      /* != 0: wall-clock duty shares checked against `bound` */
	double exp_echo_lat_p99_us;   /* wake-to-run p99 of echo vCPUs within their share */
	double exp_echo_lat_slice_us; /* != 0: that bound per domain, from its crowd of wakers */
	double exp_stuck_pct;	      /* max % of the run a migratable vCPU waits needlessly */
	uint64_t inv_ns;	      /* sim.inv_us: invariant sample period, 0 = off */
	uint64_t inv_margin_ns;	      /* sim.inv_margin_us: "ahead of its ideal" by more */
	uint64_t inv_tau_ns;	      /* sim.inv_tau_ms: memory of "ahead" */
	double exp_lock_rate_min;     /* lockstress acquisitions per second, every such domain */
	/* sim.locks and its costs (door.c, README.md "Lock contention") */
	enum locks_mode lock_mode;
	uint64_t lock_xfer_ns;	   /* sim.lock_xfer_ns: a lock's hand-off to another pCPU */
	uint64_t lock_ps_per_insn; /* sim.lock_ps_per_insn: time of one instruction held */
	uint64_t lock_jitter_ns;   /* sim.lock_jitter_ns: a call arrives up to this much late */
	double exp_lock_wait_p99_ns, exp_lock_wait_p99_min_ns; /* bounds on the lock wait p99 */
};

/* scenario.c */
int scenario_load(struct sim_cfg *c, const char *path, int noverrides, char **overrides);

/* stats.c */
void samples_add(struct samples *s, uint64_t v);
struct stat_summary {
	size_t n;
	double min, avg, p50, p99, p999, max, mdev; /* microseconds */
};
void samples_summary(struct samples *s, struct stat_summary *out);
double sim_vcpu_demand(const struct sim_cfg *c, const struct sim_dom *d, unsigned idx);
double sim_echo_lat_bound(const struct sim_cfg *c, const struct sim_dom *d);
bool sim_within_share(const struct sim_dom *d);
int entitlement(struct sim_cfg *c); /* fills demand, entitled, bound; -1 on failure */

/* gen.c: the random-scenario property test (README.md); `run` is the single-scenario
 * main (argv[1] = scenario file, argv[2..] overrides). */
int gen_main(int argc, char **argv, int (*run)(int argc, char **argv));

/* lock.c: the lockstress guest kind. */
void lock_start(struct sim_vcpu *v, uint64_t r);
/* Advances v's lock work over the CPU time [t, t + el) it executed; returns a vCPU the lock
 * was handed to on a release (its spin accounted up to the hand-over), else NULL. */
struct sim_vcpu *lock_progress(struct sim_vcpu *v, uint64_t t, uint64_t el);
/* When v (running, executing from `base`) next changes phase by itself, UINT64_MAX: never. */
uint64_t lock_next_event(const struct sim_vcpu *v, uint64_t base, uint64_t ple_window_ns);

/* door.c: the lock model (sim.locks). sim.c brackets each call into sched/ the way
 * core/sched_door.c does: door_begin (the agent, when it wants in, what the call is),
 * door_home for the call's own run queues, then the calls with door_now() as their `now`,
 * then door_end, which returns when the call's locks are let go (its kicks go out then) and
 * adds the kicks of a finish pass it ran. With sim.locks=off each is a no-op: door_now and
 * door_end return the time they are given. Agents: pCPUs 0..n-1, and door_pinger() (the
 * ping source, outside every pCPU). */
enum door_kind {
	DOOR_PICK,
	DOOR_WAKE,
	DOOR_BLOCK,
	DOOR_YIELD,
	DOOR_PAUSE_LOOP,
	DOOR_FINISH,
	DOOR_NKINDS
};
void door_init(const struct sim_cfg *c, struct sched *s);
bool door_on(void);
unsigned door_pinger(void);
void door_begin(unsigned agent, uint64_t at, enum door_kind kind);
void door_home(unsigned q);
uint64_t door_now(uint64_t now);
void door_decision(void); /* counts a pick_next */
uint64_t door_end(uint64_t now, sched_cpumask_t *kick);
void door_report(const struct sim_cfg *c, double ping_p99_us); /* the `locks` line */
double door_wait_p99_ns(void);

/* sim.c */
struct sim_result {
	uint64_t events, switches, inv_samples, inv_idle;
	double wall_s;
};
int sim_run(struct sim_cfg *c, struct sched *s, struct sim_result *res);

#endif
