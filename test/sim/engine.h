/* The simulator's engine, shared by its three parts: sim.c (the event loop and the pCPUs,
 * which call the real scheduler as the core does, through door.c's lock model), guest.c
 * (what the guests and the ping source do with the CPU time they get) and inv.c (the
 * balancing invariant, sampled from outside). main.c, gen.c and door.c see only sim.h. */
#ifndef TEST_SIM_ENGINE_H
#define TEST_SIM_ENGINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test/sim/sim.h"

enum ev_type { EV_TIMER, EV_GUEST, EV_SLEEP_END, EV_PING, EV_KICK, EV_HOLD_END, EV_WARMUP, EV_INV };

struct ev {
	uint64_t t, seq, gen;
	uint32_t type, id;
};

struct pcpu_sim {
	struct sim_vcpu *cur;
	struct sim_vcpu *last_exec; /* the vCPU whose state is loaded (no switch cost) */
	uint64_t timer_gen;
	bool kick_pending; /* an EV_KICK is queued for kick_at (lock model: kicks coalesce) */
	uint64_t kick_at;
};

struct sim_engine {
	struct sim_cfg *c;
	struct sched *s;
	struct ev *h;
	size_t hn, hcap;
	uint64_t seq, rng, events, switches, inv_samples, inv_idle;
	double *ahead; /* per domain: service minus its ideal, ns, decaying with inv_tau */
	double *ahead_e, *ahead_b; /* the same against its band's upper and lower edges */
	double *held, *prev_held;
	struct pcpu_sim pc[SCHED_MAX_PCPUS];
	struct sim_vcpu *v;
	unsigned nv;
	uint64_t now;
};
extern struct sim_engine G; /* one run at a time (sim_run) */

static inline unsigned vid(const struct sim_vcpu *v)
{
	return (unsigned)(v - G.v);
}

/* sim.c: the event heap, the seeded PRNG, and the core's paths on a pCPU. */
void ev_push(uint64_t t, uint32_t type, uint32_t id, uint64_t gen);
uint64_t rnd(void);
void kick_mask(sched_cpumask_t m, uint64_t now);
/* What the exit folds into the pick (core/sched_door.c, sd_pick's `then`). */
enum then { THEN_RUN, THEN_BLOCK, THEN_YIELD };
void resched_then(unsigned p, uint64_t now, enum then then); /* one door call on pCPU p */
void resched(unsigned p, uint64_t now);			     /* the same, THEN_RUN */
/* An event for v, made by `agent` (a pCPU, or door_pinger()); vcpu_wake also starts the
 * wake-to-run sample of a blocked v. */
void vcpu_notify(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent);
void vcpu_wake(struct sim_vcpu *v, uint64_t now, unsigned flags, unsigned agent);
void vcpu_block(struct sim_vcpu *v, uint64_t now); /* v runs: it blocks, its pCPU picks */

/* guest.c: the guests' behaviour. */
/* Its start: a duty cycle's phase, lockstress's first phase, the start-up run. */
void guest_init(struct sim_vcpu *v, unsigned i);
bool has_work(const struct sim_vcpu *v);
/* Applies the work v did since exec_from. */
void progress(struct sim_vcpu *v, uint64_t now);
/* Queues v's next EV_GUEST: when, running, it next does something the core sees. */
void guest_arm(struct sim_vcpu *v, uint64_t now);
uint64_t yield95_at(void);
void on_guest(struct sim_vcpu *v, uint64_t now);
void on_ping(struct sim_dom *d, uint64_t now);
void on_sleep_end(struct sim_vcpu *v, uint64_t now);

/* inv.c */
void inv_sample(uint64_t now);

#endif
