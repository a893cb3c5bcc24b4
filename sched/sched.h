/* sliver scheduler interface: one ops table, four policies (credit, credit1, eevdf, rr).
 *
 * Storage: the caller owns every object. `struct sched` (one instance, static), one
 * `struct sched_dom` per domain and one `struct sched_vcpu` per vCPU, embedded in the
 * core's own structures. No allocation happens here.
 *
 * Concurrency (docs/scheduler.md, "Concurrency"): each pCPU's run queue has a lock, the
 * caller's (core/sched_door.c in the hypervisor; `struct sched_sync`, below). The state of
 * pCPU p (s->pcpu[p] and the policy's part of it) and of every vCPU assigned to p
 * (v->pcpu == p) is under p's lock; v->pcpu changes only with both pCPUs' locks held, so a
 * caller that loaded v->pcpu, took that lock and found v->pcpu unchanged holds "v's lock".
 * What the caller holds when it calls:
 *   wake, sleep, yield, yield_to, sched_pause_loop, sched_run_ns:   v's lock
 *   pick_next(p):                                                   p's lock
 *   init, vcpu_insert, vcpu_remove, set_params, set_affinity, config, params_changed,
 *   finish, dump, sched_config*, sched_trace_read:                  every pCPU's lock
 * Inside a call, a policy touches another pCPU q (its queue, its vCPUs, its clock) only
 * after sched_peer(s, q) returned true; when it returns false the policy does without q
 * (a heuristic skips it) or, for work that must happen, leaves it for its `finish` op
 * (sched_defer), which the caller runs next with every lock held. State of a
 * domain that its vCPUs on several pCPUs change (a cap's bucket, a weight split) is under
 * sched_dom_lock, a leaf: nothing else is taken while it is held. Counters of a domain and
 * the instance-wide summaries are atomic. With no sync (s->sync NULL: the simulator and the
 * unit tests) every call is the only one, sched_peer is always true, and the policies run
 * exactly the same statements. Nothing here blocks, reads a clock, sends an IPI or touches
 * hardware.
 *
 * Time: every entry point takes `now`, a monotonic uint64_t in nanoseconds.
 *
 * Kicks: when a call makes some pCPU need a new decision, it returns a mask of pCPUs to
 * kick (sched_cpumask_t); the caller interrupts each of them (an IPI, or a flag when the
 * pCPU is itself) and that pCPU calls pick_next. The mask may include the caller's pCPU.
 *
 * Timer contract: pick_next returns `run_until`. Every time-based event of the policy
 * (slice end, cap budget exhausted, unpark at replenishment, boost expiry, credit1 tick,
 * stealing opportunity) is folded into it. The core arms its one-shot timer at
 * min(run_until, its own software timers) and calls pick_next again when it fires (or
 * earlier, after a kick, a block or a yield). SCHED_NEVER means no scheduler interrupt is
 * needed: a pCPU with a single runnable vCPU takes none.
 *
 * vCPU life cycle, as the core drives it:
 *   vcpu_insert(v)                      v is BLOCKED, placed on a pCPU of its affinity
 *   wake(v, WAKE_NEW)                   first start (never boosted)
 *   pick_next(p) -> {v, run_until}      v RUNNING on p until the next pick_next(p)
 *   sleep(v)  (v blocked: HLT, block)   then the core calls pick_next(p)
 *   yield(v)                            then the core calls pick_next(p)
 *   wake(v, WAKE_EVENT|WAKE_TIMER)      event for v: wakes a blocked v, or marks an event
 *                                       pending for a runnable-but-waiting v (both may boost)
 *   vcpu_remove(v)                      v must not be RUNNING (sleep + pick_next first)
 * The vCPU returned by pick_next is charged from that call to the next call that
 * involves its pCPU (exact accounting, no sampling), less the work done in its time for
 * another vCPU, which sched_charge_for moves to that one.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sched/cpumask.h" /* sched_cpumask_t, SCHED_MAX_PCPUS */

#define SCHED_TRACE_LEN	     256 /* records per pCPU ring, power of two */
#define SCHED_NEVER	     UINT64_MAX
#define SCHED_DEFAULT_WEIGHT 256u
#define SCHED_MAX_WEIGHT     65535u

/* Policy-private storage (issue 11): a policy keeps its own state for a domain, a vCPU, a
 * pCPU and the instance in the `priv` bytes of each, through SCHED_PRIV (sched_priv.h),
 * which checks the size at compile time; the shared fields are what the core and the
 * generic layer read. No allocation: the caller embeds every object. A policy initialises
 * its part of a vCPU/domain in vcpu_insert (the first one of a domain) and of the
 * instance and pCPUs in init (sched_init zeroes them all first). */
#define SCHED_PRIV_DOM_BYTES   128
#define SCHED_PRIV_VCPU_BYTES  256
#define SCHED_PRIV_PCPU_BYTES  256
#define SCHED_PRIV_SCHED_BYTES 512

/* Why a vCPU is woken (bits, combinable). Only EVENT and TIMER may boost. */
enum sched_wake_flags {
	WAKE_EVENT = 1u << 0,	/* event channel, virtual interrupt, console input, ping */
	WAKE_TIMER = 1u << 1,	/* its own software timer expired */
	WAKE_MIGRATE = 1u << 2, /* it only moved pCPU (sleep+wake cycle): never boosted */
	WAKE_YIELD = 1u << 3,	/* caused by its own yield/poll: never boosted */
	WAKE_NEW = 1u << 4,	/* first start or unpause: never boosted */
};

enum sched_vstate {
	SCHED_VS_BLOCKED = 0, /* not runnable (inserted but asleep) */
	SCHED_VS_RUNNABLE,    /* queued on sched_vcpu.pcpu */
	SCHED_VS_RUNNING,     /* returned by the last pick_next of sched_vcpu.pcpu */
	SCHED_VS_PARKED,      /* runnable but its domain's cap budget is spent */
};

/* Priority classes, best first. */
enum sched_prio { SCHED_PRI_BOOST = 0, SCHED_PRI_UNDER, SCHED_PRI_OVER, SCHED_PRI_IDLE };

/* Trace events (sched_trace_rec.ev). */
enum sched_trace_ev {
	SCHED_EV_WAKE = 1,
	SCHED_EV_BOOST,
	SCHED_EV_UNBOOST,
	SCHED_EV_PARK,
	SCHED_EV_UNPARK,
	SCHED_EV_MIGRATE,
	SCHED_EV_SWITCH,
	SCHED_EV_SLEEP,
	SCHED_EV_YIELD,
};

struct sched_trace_rec {
	uint64_t t;
	uint16_t ev;
	uint16_t dom;
	uint16_t vcpu;
	uint16_t pcpu;
	int64_t arg; /* event specific: credit ns, flags, target pCPU ... */
};

struct sched_trace {
	uint32_t head; /* next slot; records [head-LEN, head) are valid */
	struct sched_trace_rec rec[SCHED_TRACE_LEN];
};

struct sched_counters {
	uint64_t run_ns;     /* exact ns charged */
	uint64_t wakes;	     /* wakes from BLOCKED */
	uint64_t events;     /* WAKE_EVENT/TIMER notifications, including to runnable vCPUs */
	uint64_t boosts;     /* boosts granted */
	uint64_t boost_ns;   /* ns run while boosted */
	uint64_t boost_deny; /* event wakes not boosted (debt, cap, migrate, yield, OVER) */
	uint64_t parks;
	uint64_t unparks;
	uint64_t migrations;
	uint64_t switches; /* times picked after something else */
	uint64_t preempts; /* times descheduled while still runnable */
	uint64_t yields;
	uint64_t pause_loops; /* PAUSE-loop exits (sched_pause_loop) */
	uint64_t yield_to;    /* directed yields made (as the spinner) */
	uint64_t yield_recv;  /* directed yields received (as the target) */
};

struct sched_dom {
	/* Set by the caller before the first vcpu_insert; then use set_params. */
	uint32_t id;
	uint32_t weight; /* 1..65535, 0 at insert means SCHED_DEFAULT_WEIGHT */
	uint32_t cap;	 /* % of one pCPU, 0 = no cap; may exceed 100 for multi-vCPU */
	/* Kept by the policy, read by the generic layer and the core. */
	uint32_t nr_vcpus;
	struct sched_dom *next_dom; /* sched.doms list (sched_dom_link) */
	struct sched_vcpu *vcpus;   /* its inserted vCPUs, linked by next_in_dom */
	bool listed;
	uint32_t last_boosted; /* directed yield: id of the vCPU last yielded to */
	struct sched_counters c;
	_Alignas(8) unsigned char priv[SCHED_PRIV_DOM_BYTES]; /* the policy's (SCHED_PRIV) */
};

struct sched_vcpu {
	/* Set by the caller before vcpu_insert. */
	struct sched_dom *dom;
	uint32_t id;		  /* index within the domain */
	sched_cpumask_t affinity; /* allowed pCPUs; empty means all */
	void *owner;		  /* the caller's back pointer */
	/* Read-only for the caller. */
	uint8_t state; /* enum sched_vstate */
	uint8_t prio;  /* enum sched_prio */
	uint16_t pcpu; /* pCPU whose queue (or CPU) it is on */
	/* Kept by the policy, read by the generic layer (sched_run_ns, directed yield). */
	uint64_t since; /* start of a RUNNING vCPU's uncharged interval (sched_run_ns) */
	/* sched_charge_for, both under its pCPU's lock and settled at its next charge: owed_ns
	 * of work done for it while another vCPU ran, charged as if it had run them; refund_ns
	 * of its own run spent on others' work, not charged (taken off its next runs). */
	uint64_t owed_ns, refund_ns;
	struct sched_vcpu *next_in_dom;
	bool in_spin_loop; /* took a PAUSE-loop exit and has not run a full slice since:
			    * a directed-yield target only after those that did not spin */
	struct sched_counters c;
	_Alignas(8) unsigned char priv[SCHED_PRIV_VCPU_BYTES]; /* the policy's (SCHED_PRIV) */
};

struct sched_pcpu {
	struct sched_vcpu *curr; /* RUNNING vCPU or NULL (idle) */
	uint64_t curr_since;	 /* start of curr's current slice */
	uint64_t last_pick;
	bool resched;	    /* a wake asked for preemption (tickle) */
	uint32_t nr_queued; /* RUNNABLE vCPUs queued here (not counting curr) */
	uint32_t nr_vcpus;  /* vCPUs assigned here (sched_least_loaded) */
	uint64_t armed;	    /* run_until returned by its last pick_next */
	uint64_t idle_ns;
	uint64_t picks;
	struct sched_vcpu *yield_next; /* directed yield: run this queued vCPU next */
	struct sched_trace trace;
	_Alignas(8) unsigned char priv[SCHED_PRIV_PCPU_BYTES]; /* the policy's (SCHED_PRIV) */
};

/* Generic parameters, whatever the policy (settable at boot and at run time, see
 * sched_config). A policy's own parameters are private to it (its `config` op). */
struct sched_params {
	uint32_t ple; /* sched.ple=off|yield|directed (enum sched_ple) */
};

/* What a PAUSE-loop exit does (sched.ple). off: the core asks for no PAUSE-loop exits. */
enum sched_ple { SCHED_PLE_OFF = 0, SCHED_PLE_YIELD, SCHED_PLE_DIRECTED };

struct sched_pick {
	struct sched_vcpu *vcpu; /* NULL: idle */
	uint64_t run_until;	 /* arm the one-shot timer here (SCHED_NEVER: none) */
	sched_cpumask_t kick;	 /* other pCPUs that need a pick_next now */
};

/* printf-like callback supplied by the caller (the formats use %s %u %llu %lld). */
typedef void (*sched_print_fn)(void *arg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct sched;

/* The caller's locks (see "Concurrency" at the top). NULL in struct sched: single caller. */
struct sched_sync {
	/* Holds pCPU q's lock until the current call returns: true when it was held already,
	 * was free, or could be waited for in the lock order; false when taking it could
	 * deadlock and another pCPU has it. Never called with a domain lock held. */
	bool (*peer)(struct sched *s, unsigned q);
	/* As peer, but never waits: q's lock if free now (or held already), else false. For
	 * looks at other pCPUs that only inform a choice (where to steal, whom to kick). */
	bool (*peek)(struct sched *s, unsigned q);
	/* The current call holds q's lock (assertions). */
	bool (*held)(const struct sched *s, unsigned q);
	void (*dom_lock)(struct sched *s, struct sched_dom *d);
	void (*dom_unlock)(struct sched *s, struct sched_dom *d);
	/* Lets go of q when this call took it with peer and it turned out of no use (the
	 * policy changed nothing of q's); nothing when q is the call's own or was held before. */
	void (*unpeer)(struct sched *s, unsigned q);
	/* A policy broke the rules above (touched q without its lock): the caller's panic. */
	void (*bug)(const struct sched *s, const char *where, unsigned q);
};

struct sched_ops {
	const char *name;
	void (*init)(struct sched *s);
	/* v->dom, v->id, v->affinity set; returns 0 or -errno. v starts BLOCKED. */
	int (*vcpu_insert)(struct sched *s, struct sched_vcpu *v, uint64_t now);
	void (*vcpu_remove)(struct sched *s, struct sched_vcpu *v, uint64_t now);
	sched_cpumask_t (*wake)(struct sched *s, struct sched_vcpu *v, uint64_t now,
				unsigned flags);
	/* v blocks (or is paused). If v was RUNNING its pCPU must call pick_next next. */
	sched_cpumask_t (*sleep)(struct sched *s, struct sched_vcpu *v, uint64_t now);
	/* v (RUNNING) gives up the rest of its slice; its pCPU calls pick_next next. */
	void (*yield)(struct sched *s, struct sched_vcpu *v, uint64_t now);
	/* Directed yield (sched/yield_to.c chose t, RUNNABLE, same domain as the RUNNING v):
	 * t runs next on its own pCPU; v yields when that is v's pCPU, else that pCPU is
	 * returned to kick and v goes on. t's run is charged to t. The policy may
	 * refuse a target too far ahead of its queue (fairness): then v goes on, nothing
	 * changes, and it returns no pCPU. NULL: the policy has none and a plain yield is made. */
	sched_cpumask_t (*yield_to)(struct sched *s, struct sched_vcpu *v, struct sched_vcpu *t,
				    uint64_t now);
	/* A plain yield keeps the yielder's claim (its service is counted in virtual time:
	 * what it gives up now it gets back later). Then sched_pause_loop yields instead of
	 * spinning on where the directed yield finds only waiters, or is refused, on v's
	 * pCPU. NULL: it does not (v goes on in those cases). */
	bool (*yield_keeps_claim)(const struct sched *s);
	/* The policy charges a vCPU's owed_ns at its next charge (sched_charge_for). false:
	 * sched_charge_for does nothing, the running vCPU keeps paying for such work. */
	bool charges_owed;
	struct sched_pick (*pick_next)(struct sched *s, unsigned pcpu, uint64_t now);
	/* weight 1..65535 (0 = keep), cap % of one pCPU (0 = none). 0 or -errno. */
	int (*set_params)(struct sched *s, struct sched_dom *d, uint32_t weight, uint32_t cap,
			  uint64_t now);
	sched_cpumask_t (*set_affinity)(struct sched *s, struct sched_vcpu *v, sched_cpumask_t mask,
					uint64_t now);
	/* Called after global parameters changed at run time. */
	void (*params_changed)(struct sched *s, uint64_t now);
	void (*dump)(struct sched *s, sched_print_fn pr, void *arg);
	/* Work a call left undone for want of a lock (it called sched_defer), done with every
	 * lock held; returns the pCPUs to kick. NULL: the policy never defers. */
	sched_cpumask_t (*finish)(struct sched *s, uint64_t now);
	/* Checks the policy's own structures (queues, counts, sums) against the shared fields,
	 * every lock held: prints each inconsistency and returns how many (sched_audit, the
	 * torture test). NULL: nothing of its own to check. */
	unsigned (*audit)(const struct sched *s, sched_print_fn pr, void *arg);
	/* The policy's own keys: `<name>.<key>=<value>` (name as in sched_ops.name) comes here
	 * with the prefix removed, at boot and at run time. 0 applied, 1 not one of its keys,
	 * -22 (EINVAL) bad value. NULL: the policy has no keys. Keys of a policy are applied
	 * only while it is the selected one: put them after `sched=` on the boot line. */
	int (*config)(struct sched *s, const char *key, size_t klen, const char *val, size_t vlen,
		      uint64_t now);
	/* The current value of one of its keys (prefix removed) as text in buf (NUL-terminated,
	 * cut to n): 0, or 1 not one of its keys. NULL: no keys. */
	int (*config_get)(const struct sched *s, const char *key, size_t klen, char *buf, size_t n);
	/* Prints each of its keys as ` <name>.<key>=<value>`. NULL: no keys. */
	void (*config_show)(const struct sched *s, sched_print_fn pr, void *arg);
	/* Its nominal time slice (sched_slice_ns). NULL: 0. */
	uint64_t (*slice_ns)(const struct sched *s);
};

struct sched {
	const struct sched_ops *ops;
	const struct sched_sync *sync; /* the caller's locks, NULL: one caller (kept by resets) */
	unsigned nr_pcpus;
	sched_cpumask_t all_pcpus; /* {0, .., nr_pcpus - 1} (sched_all_pcpus) */
	struct sched_params p;
	uint64_t seq; /* FIFO tie-breaker (a policy's to use) */
	uint32_t nr_vcpus;
	sched_cpumask_t kick_pending; /* kicks from calls that return none (set_params...) */
	bool finish;		      /* a call left work for the finish op (sched_defer) */
	struct sched_dom *doms;	      /* domains with vCPUs inserted */
	struct sched_pcpu pcpu[SCHED_MAX_PCPUS];
	_Alignas(8) unsigned char priv[SCHED_PRIV_SCHED_BYTES]; /* the policy's (SCHED_PRIV) */
};

extern const struct sched_ops sched_credit_ops;
extern const struct sched_ops sched_rr_ops;
extern const struct sched_ops sched_eevdf_ops;
extern const struct sched_ops sched_credit1_ops; /* sched/credit1*.c: Xen 3.0.4's credit */

/* Generic layer (sched/sched.c). */

/* Resets *s, selects the credit policy with sliver defaults, nr_pcpus <= SCHED_MAX_PCPUS. */
int sched_init(struct sched *s, unsigned nr_pcpus);
const struct sched_ops *sched_ops_by_name(const char *name, size_t len);
/* Applies one command-line word `key=value` (e.g. `sched=credit1`, `credit.tslice_us=500`,
 * `tslice_us=500`). Returns 0 when applied, 1 when the word is not a key of the generic
 * layer or of the selected policy (the caller's to judge: the boot calls it unknown unless
 * it is one of its own keys), -22 (EINVAL) on a malformed value or a bad combination
 * (e.g. `sched=` after vCPUs were inserted). At run time pass the current `now`. */
int sched_config_word(struct sched *s, const char *word, size_t len, uint64_t now);
/* Same, key and value as separate NUL-terminated strings. */
int sched_config(struct sched *s, const char *key, const char *val, uint64_t now);
/* The current value of a scheduler key as text (NUL-terminated, cut to n): `sched`,
 * `sched.ple`, or a key of the selected policy (`credit.tslice_us`, or bare `tslice_us`).
 * 0, or 1 when it is no key of the generic layer or of the selected policy. */
int sched_config_get(const struct sched *s, const char *key, char *buf, size_t n);
/* Prints the selected policy's keys with their values, each as ` <name>.<key>=<value>`
 * (nothing when it has none): the service shell's `sched` line. */
void sched_config_show(const struct sched *s, sched_print_fn pr, void *arg);
/* The slice a vCPU competing for its pCPU runs before the policy decides again (what a
 * guest observes as its quantum; test/sim's yield-at-95% attack reads it), 0 if none. */
uint64_t sched_slice_ns(const struct sched *s);
/* Checks what every policy must keep true, then the policy's own audit op (every lock held):
 * each vCPU on an existing pCPU, counted in its pCPU's nr_vcpus, RUNNING only as its pCPU's
 * curr, RUNNABLE ones counted in nr_queued. Prints each problem; returns how many. */
unsigned sched_audit(const struct sched *s, sched_print_fn pr, void *arg);
/* Prints v's trace records from every pCPU's ring in time order, at most `max` (audits). */
void sched_trace_vcpu(const struct sched *s, const struct sched_vcpu *v, unsigned max,
		      sched_print_fn pr, void *arg);
/* Copies the last `max` trace records of pCPU `pcpu`, oldest first; returns the count. */
unsigned sched_trace_read(const struct sched *s, unsigned pcpu, struct sched_trace_rec *out,
			  unsigned max);
const char *sched_ev_name(unsigned ev);
/* m as a CPU list ("0-3,8,10-11"; "none" when empty) in buf, cut to n bytes and
 * NUL-terminated; returns its length. SCHED_CPUMASK_TEXT bytes hold any set. */
size_t sched_cpumask_format(char *buf, size_t n, sched_cpumask_t m);
/* v's CPU time up to `now`: c.run_ns plus, while it is RUNNING, the interval not yet
 * charged. The policies charge only when they are called (pick_next, wake, sleep, yield,
 * set_params), so c.run_ns of a vCPU that runs alone with no calls stands still; counters
 * read through this are exact at any time. It only reads (nothing is charged, no vtime,
 * credit or cap moves), under the same lock as the other calls. */
uint64_t sched_run_ns(const struct sched_vcpu *v, uint64_t now);
/* Work for `cause` was done in the time of the RUNNING vCPU `runner` (a timer of cause's
 * that expired and was handled while runner ran, issue 30): ns move from runner to cause,
 * runner's refund_ns and cause's owed_ns, which the policy settles at each one's next charge
 * (credit, cap, run_ns: cause pays as if it had run them, runner as if it had not). Returns
 * the ns moved (0 when the policy does not charge owed time, runner is not RUNNING, or cause
 * is runner). Caller holds both vCPUs' locks. */
uint64_t sched_charge_for(struct sched *s, struct sched_vcpu *runner, struct sched_vcpu *cause,
			  uint64_t ns, uint64_t now);
/* Kicks left by set_params, set_affinity or a run-time parameter change; call after them.
 * (pick_next, wake and sleep already include pending kicks in what they return.) */
static inline sched_cpumask_t sched_take_kicks(struct sched *s)
{
	/* Up to 64 pCPUs every kick is in the first word (sched_one_word): one load when none
	 * waits, as every call asks. */
	if (s->nr_pcpus <= 64) {
		sched_cpumask_t k = cpumask_none();
		if (__atomic_load_n(&s->kick_pending.w[0], __ATOMIC_RELAXED))
			k.w[0] = __atomic_exchange_n(&s->kick_pending.w[0], 0, __ATOMIC_RELAXED);
		return k;
	}
	return cpumask_take(&s->kick_pending);
}

static inline int sched_vcpu_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	return s->ops->vcpu_insert(s, v, now);
}
static inline void sched_vcpu_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	s->ops->vcpu_remove(s, v, now);
}
static inline sched_cpumask_t sched_wake(struct sched *s, struct sched_vcpu *v, uint64_t now,
					 unsigned flags)
{
	return s->ops->wake(s, v, now, flags);
}
static inline sched_cpumask_t sched_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	return s->ops->sleep(s, v, now);
}
static inline void sched_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	s->ops->yield(s, v, now);
}
/* Directed yield (sched/yield_to.c, docs/scheduler.md "PAUSE-loop exits"). */
/* The vCPU a spinner v should yield to: a RUNNABLE vCPU of v's domain, of the first
 * non-empty class of: not in_spin_loop; in_spin_loop on v's pCPU; in_spin_loop elsewhere;
 * within it the first in id order strictly after dom->last_boosted (wrapping; the last
 * boosted one itself comes last). NULL: none. Only reads. */
struct sched_vcpu *sched_yield_candidate(const struct sched *s, const struct sched_vcpu *v);
/* v (RUNNING) took a PAUSE-loop exit: marks it in_spin_loop, then by s->p.ple yields
 * (yield) or (directed) yields to sched_yield_candidate; makes a plain yield instead when
 * that candidate just spun and is queued on v's pCPU, or is queued there and the policy
 * refuses the jump; goes on when there is none (as in KVM). The caller calls pick_next on
 * v's pCPU next and kicks the returned pCPUs. */
sched_cpumask_t sched_pause_loop(struct sched *s, struct sched_vcpu *v, uint64_t now);
/* The policy's pick: takes pCPU p's yield_next if it is still queued there (else NULL). */
struct sched_vcpu *sched_take_yield_next(struct sched *s, unsigned p);
/* Drops every pointer to v kept for a directed yield (v is being removed). */
void sched_yield_forget(struct sched *s, const struct sched_vcpu *v);

static inline struct sched_pick sched_pick_next(struct sched *s, unsigned pcpu, uint64_t now)
{
	return s->ops->pick_next(s, pcpu, now);
}
static inline int sched_set_params(struct sched *s, struct sched_dom *d, uint32_t weight,
				   uint32_t cap, uint64_t now)
{
	return s->ops->set_params(s, d, weight, cap, now);
}
static inline sched_cpumask_t sched_set_affinity(struct sched *s, struct sched_vcpu *v,
						 sched_cpumask_t mask, uint64_t now)
{
	return s->ops->set_affinity(s, v, mask, now);
}
static inline void sched_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	s->ops->dump(s, pr, arg);
}

#endif
