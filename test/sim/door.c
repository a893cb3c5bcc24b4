/* The simulator's scheduler door: a model of the hypervisor's scheduler locks (issue 24;
 * core/sched_door.c is the real one), `sim.locks=off|global|percpu` (README.md, "Lock
 * contention").
 *
 * sim.c brackets every call into sched/ that the hypervisor makes through its door (a pick,
 * a wake, a block or a yield with the pick after it, a PAUSE-loop exit) with door_begin /
 * door_home / door_end. The call takes its locks and holds them for a time measured on the
 * real code, and the caller's pCPU does nothing else meanwhile:
 * - global: one lock for every call (the old vmm_lock);
 * - percpu: the home run queue's lock (the vCPU's pCPU for a wake, the pCPU's own for a
 *   pick), then the peers the policy takes through struct sched_sync (installed here, as the
 *   door installs its own), waited for upwards and tried otherwise exactly as
 *   core/sched_door.c does; a try that finds the lock held or queued fails, and the policy
 *   does without or defers to its finish op, which runs next with every lock taken in
 *   order. sched_dom locks are leaves (hashed by domain id, one for the instance's lists).
 * Locks are ticket locks, granted in simulated-time order as far as a one-pass simulator
 * can (door_lock.c: each lock keeps the recent holds of the calls already processed, and a
 * call queues behind those that arrived before it and takes the first gap its hold fits
 * in). A hand-off to another pCPU costs one cache-line transfer before the new holder has
 * the lock. Times are simulated nanoseconds; nothing is measured on the host, so a run is
 * deterministic.
 *
 * Held time of a call = (DOOR + the entry point's policy instructions + LOCK per extra
 * lock) * sim.lock_ps_per_insn / 1000, after its locks are held. The constants are
 * instruction counts of the real code (see the table below for where each comes from). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/sim/door_lock.h"
#include "test/sim/sim.h"

/* Instructions (see README.md, "Lock contention", for the measurements):
 * DOOR: the door's own work under the lock: `make exit-profile` of the yield round trip
 * (Bochs, release build, 1 pCPU) from the run-queue lock's cmpxchg to its releasing store,
 * 1,221 instructions, of which sd_pick 74, end 27, rq_lock 23, now_ns 13, rdtsc 10 are the
 * door's and 1,074 are sched/ (cr_yield + cr_pick_next and what they call). The host's
 * callgrind count of the same pair in the simulator (1 vCPU alone yielding) is 1,049: the
 * host build of sched/ executes what the hypervisor's does, within 3%.
 * Per entry point: callgrind averages (`valgrind --tool=callgrind` of build/sliver-sim, the
 * inclusive instructions per call of the policy's op) over the lock-table scenario of
 * tools/bench-sim-locks.sh at 1, 8 and 64 pCPUs with 50 us slices; the pick is
 * cross-checked against the hypervisor's own figure (e2e-vmx-mix `perf`,
 * decision_avg_cycles=863 under Bochs, one instruction per cycle). */
#define DOOR	   147u
#define PICK	   900u /* cr_pick_next: 858 (1 pCPU), 898 (8), 1,000 (64) */
#define WAKE	   950u /* cr_wake: 903, 976, 954 */
#define SLEEP	   540u /* cr_sleep: 594, 537, 518 */
#define YIELD	   94u	/* cr_yield: 94 (1 vCPU alone yielding) */
#define PAUSE_LOOP 260u /* sched_pause_loop with its yield: 256 (sim-lockstress, 2 pCPUs) */
#define FINISH	   880u /* cr_finish: 884 (sim-smp-mix, sim.locks=percpu: only there) */
#define LOCK	   50u	/* one more rq lock: sync_peer + rq_lock + its release in end() */
#define DOM_HOLD   40u	/* a sched_dom lock's hold: a cap bucket's or a list's update */
#define NLOCKS	   (SCHED_MAX_PCPUS + 65) /* rq[0..], then 64 sched_dom, then the list */
#define DOM_LOCK0  SCHED_MAX_PCPUS
#define GLOBAL	   0 /* the one lock of sim.locks=global */
#define WORDS	   ((NLOCKS + 63) / 64)

static const unsigned kind_insns[DOOR_NKINDS] = {
	[DOOR_PICK] = DOOR + PICK,
	[DOOR_WAKE] = DOOR + WAKE,
	[DOOR_BLOCK] = DOOR + SLEEP + PICK,
	[DOOR_YIELD] = DOOR + YIELD + PICK,
	[DOOR_PAUSE_LOOP] = DOOR + PAUSE_LOOP,
	[DOOR_FINISH] = DOOR + FINISH,
};

/* What a lock acquisition is for (the locks line reports each one's wait p99). */
enum wclass {
	W_HOME,	  /* the call's own run queue (or the global lock) */
	W_PEER,	  /* sched_peer upwards: waited for */
	W_TRY,	  /* sched_peer downwards or sched_peek that found it free */
	W_DOM,	  /* a sched_dom lock */
	W_FINISH, /* the finish pass taking every run queue */
	W_N
};

static struct {
	const struct sim_cfg *c;
	struct sched *s;
	unsigned n;  /* pCPUs; agent n is the pinger, outside every pCPU */
	uint64_t ps; /* picoseconds per instruction */
	struct lk l[NLOCKS];
	uint64_t arr[NLOCKS], acq[NLOCKS]; /* of each lock the call holds: arrived, held from */
	bool tried[NLOCKS];		   /* and whether a try took it */
	uint64_t busy[SCHED_MAX_PCPUS + 1];
	uint64_t rng; /* sim.lock_jitter_ns (its own stream: the scenario's draws stay put) */
	/* the call in progress */
	bool active, wide;
	unsigned agent;
	enum door_kind kind;
	uint64_t arrival, cursor, insns;
	uint64_t from; /* its first lock held (UINT64_MAX: none yet) */
	uint64_t held[WORDS], base[WORDS];
	int max; /* highest rq held, -1 */
	/* statistics (calls that arrive after the warm-up) */
	struct samples wait;
	struct samples by[W_N]; /* the same by what was taken (enum wclass) */
	uint64_t calls, acquires, waited, try_fail, finishes, decisions, hold_ns, peers;
	/* the model's own limits (the lockmodel line) */
	uint64_t inverted, inv_wait_ns, wait_ns, long_waits, long_inverted, overlap, overlap_ns,
		try_late, try_stale;
} D;

static bool counting(void)
{
	return D.arrival >= D.c->warmup_ns;
}

static uint64_t ns(uint64_t insns)
{
	return (insns * D.ps + 500) / 1000;
}

static bool is_held(unsigned l)
{
	return D.held[l / 64] >> (l % 64) & 1;
}

static void mark(unsigned l, bool base)
{
	D.held[l / 64] |= 1ull << (l % 64);
	if (base)
		D.base[l / 64] |= 1ull << (l % 64);
	if (l < DOM_LOCK0 && (int)l > D.max)
		D.max = (int)l;
}

static void taken(unsigned l, uint64_t at, const struct lk_grant *g, enum wclass w)
{
	D.arr[l] = at;
	D.acq[l] = g->t;
	D.tried[l] = w == W_TRY;
	if (!counting())
		return;
	uint64_t t = g->t - at;
	samples_add(&D.wait, t);
	samples_add(&D.by[w], t);
	D.acquires++;
	D.waited += t > 0;
	D.wait_ns += t;
	D.long_waits += t > 10000;
	if (g->inverted) {
		D.inverted++;
		D.inv_wait_ns += t;
		D.long_inverted += t > 10000;
	}
}

/* Takes lock l no earlier than `at`, waiting in its queue, to hold it for about `insns`
 * more instructions: returns when it is held. A hand-off from another agent costs a
 * transfer of its cache line. */
static uint64_t acquire(unsigned l, uint64_t at, uint64_t insns, enum wclass w)
{
	struct lk_grant g = lk_wait(&D.l[l], at, ns(insns), (int)D.agent, D.c->lock_xfer_ns);
	taken(l, at, &g, w);
	return g.t;
}

/* Lets go of lock l (held since D.acq[l]) at `rel`. */
static void let_go(unsigned l, uint64_t rel)
{
	unsigned stale;
	uint64_t o = lk_record(&D.l[l], D.arr[l], D.acq[l], rel, (int)D.agent, D.tried[l], &stale);
	if (!counting())
		return;
	D.try_stale += stale;
	if (o) { /* its hold outgrew the gap it was given: the model's limit */
		D.overlap++;
		D.overlap_ns += o;
	}
}

/* A try: fails while another agent holds the lock or queues for it at the call's time, or
 * when a look (LOCK instructions) would run into the hold of a call processed first. The
 * look is what most tries are for (sched_peek, then sched_unpeer); a try that keeps the
 * lock to the call's end and runs into such a hold counts as an overlap. */
static bool try_take(unsigned l)
{
	struct lk_grant g;
	if (!lk_try(&D.l[l], D.cursor, ns(LOCK), (int)D.agent, D.c->lock_xfer_ns, &g)) {
		if (counting()) {
			D.try_fail++;
			D.try_late += g.late;
		}
		D.cursor = g.t; /* the failed try read the lock's line */
		return false;
	}
	taken(l, D.cursor, &g, W_TRY);
	D.cursor = g.t;
	mark(l, false);
	D.insns += LOCK;
	D.peers++;
	return true;
}

/* ---- struct sched_sync: what the policies call ------------------------------------------ */

static bool in_call(void)
{
	return D.active && !D.wide;
}

static bool sync_peer(struct sched *s, unsigned q)
{
	(void)s;
	if (!in_call() || is_held(q))
		return true;
	if ((int)q > D.max) { /* above every rq held: wait for it, as the door does */
		D.insns += LOCK;
		D.cursor = acquire(q, D.cursor, D.insns, W_PEER);
		mark(q, false);
		D.peers++;
		return true;
	}
	return try_take(q);
}

static bool sync_peek(struct sched *s, unsigned q)
{
	(void)s;
	if (!in_call() || is_held(q))
		return true;
	return try_take(q);
}

static bool sync_held(const struct sched *s, unsigned q)
{
	(void)s;
	return !in_call() || is_held(q);
}

static void sync_unpeer(struct sched *s, unsigned q)
{
	(void)s;
	if (!in_call() || !is_held(q) || (D.base[q / 64] >> (q % 64) & 1))
		return;
	D.held[q / 64] &= ~(1ull << (q % 64));
	let_go(q, D.cursor + ns(LOCK)); /* held for the look, let go at once */
	D.max = -1;
	for (unsigned p = 0; p < D.n; p++)
		if (is_held(p))
			D.max = (int)p;
}

static unsigned dom_lock_id(const struct sched_dom *d)
{
	return DOM_LOCK0 + (d ? d->id % 64 : 64);
}

static void sync_dom_lock(struct sched *s, struct sched_dom *d)
{
	(void)s;
	if (!in_call())
		return;
	unsigned l = dom_lock_id(d);
	uint64_t h = D.insns > DOM_HOLD ? DOM_HOLD : D.insns;
	D.cursor = acquire(l, D.cursor, h, W_DOM); /* a leaf: always waited for */
}

/* The instructions under a sched_dom lock are part of the call's own: the call's time
 * moves on by them here instead of after its locks are let go. */
static void sync_dom_unlock(struct sched *s, struct sched_dom *d)
{
	(void)s;
	if (!in_call())
		return;
	uint64_t h = D.insns > DOM_HOLD ? DOM_HOLD : D.insns;
	D.insns -= h;
	D.cursor += ns(h);
	let_go(dom_lock_id(d), D.cursor);
}

static void sync_bug(const struct sched *s, const char *where, unsigned q)
{
	(void)s;
	fprintf(stderr, "sliver-sim: %s touched pCPU %u without its lock (sim.locks=percpu)\n",
		where, q);
	exit(2);
}

static const struct sched_sync door_sync = {
	.peer = sync_peer,
	.peek = sync_peek,
	.held = sync_held,
	.dom_lock = sync_dom_lock,
	.dom_unlock = sync_dom_unlock,
	.unpeer = sync_unpeer,
	.bug = sync_bug,
};

/* ---- the calls ------------------------------------------------------------------------- */

void door_init(const struct sim_cfg *c, struct sched *s)
{
	free(D.wait.v);
	for (unsigned w = 0; w < W_N; w++)
		free(D.by[w].v);
	memset(&D, 0, sizeof(D));
	D.c = c;
	D.s = s;
	D.n = c->pcpus;
	D.ps = c->lock_ps_per_insn;
	D.rng = c->seed * 0xd1b54a32d192ed03ull + 7;
	D.max = -1;
	for (unsigned l = 0; l < NLOCKS; l++)
		lk_init(&D.l[l], l < D.n && c->lock_mode == LOCKS_PERCPU ? (int)l : -1);
	/* global: the policies' peers are always "held" (one lock covers everything), and the
	 * sync only counts them; off: no sync, the policies run as they always did here. */
	if (c->lock_mode != LOCKS_OFF)
		s->sync = &door_sync;
}

bool door_on(void)
{
	return D.c && D.c->lock_mode != LOCKS_OFF;
}

unsigned door_pinger(void)
{
	return D.n;
}

void door_begin(unsigned agent, uint64_t at, enum door_kind kind)
{
	if (!door_on())
		return;
	if (D.active) {
		fprintf(stderr, "sliver-sim: nested door call\n");
		exit(2);
	}
	D.active = true;
	D.wide = false;
	D.agent = agent;
	D.kind = kind;
	if (D.c->lock_jitter_ns && kind != DOOR_FINISH) {
		/* The way from the interrupt or exit to the door varies (xorshift64*). */
		D.rng ^= D.rng >> 12;
		D.rng ^= D.rng << 25;
		D.rng ^= D.rng >> 27;
		at += D.rng * 2685821657736338717ull % (D.c->lock_jitter_ns + 1);
	}
	D.arrival = at > D.busy[agent] ? at : D.busy[agent]; /* its pCPU is free by then */
	D.cursor = D.arrival;
	D.insns = kind_insns[kind];
	D.from = UINT64_MAX;
	D.max = -1;
	memset(D.held, 0, sizeof(D.held));
	memset(D.base, 0, sizeof(D.base));
	if (counting())
		D.calls++;
	if (D.c->lock_mode == LOCKS_GLOBAL) {
		D.cursor = D.from = acquire(GLOBAL, D.cursor, D.insns, W_HOME);
		D.wide = true; /* every peer is covered */
	}
}

void door_home(unsigned q)
{
	if (!door_on() || D.c->lock_mode != LOCKS_PERCPU || is_held(q))
		return;
	D.cursor = acquire(q, D.cursor, D.insns, D.kind == DOOR_FINISH ? W_FINISH : W_HOME);
	mark(q, true);
	if (D.from == UINT64_MAX)
		D.from = D.cursor;
}

uint64_t door_now(uint64_t now)
{
	return door_on() ? D.cursor : now;
}

void door_decision(void)
{
	if (door_on() && counting())
		D.decisions++;
}

/* Lets go of every lock the call holds at cursor + its held time. */
static uint64_t release(void)
{
	uint64_t end = D.cursor + ns(D.insns);
	if (D.c->lock_mode == LOCKS_GLOBAL) {
		let_go(GLOBAL, end);
	} else {
		for (unsigned w = 0; w < WORDS; w++)
			for (uint64_t m = D.held[w]; m; m &= m - 1)
				let_go(w * 64 + (unsigned)__builtin_ctzll(m), end);
	}
	if (counting() && D.from != UINT64_MAX)
		D.hold_ns += end - D.from;
	D.active = false;
	D.busy[D.agent] = end; /* the agent did nothing else meanwhile */
	return end;
}

uint64_t door_end(uint64_t now, sched_cpumask_t *kick)
{
	if (!door_on())
		return now;
	unsigned agent = D.agent;
	uint64_t end = release();
	/* A policy left work for want of a lock (sched_defer): the door's finish, every rq
	 * taken in order, right after the call (core/sched_door_lock.c, door_finish()). */
	if (D.s->finish) {
		door_begin(agent, end, DOOR_FINISH);
		D.insns += (uint64_t)LOCK * (D.n ? D.n - 1 : 0);
		for (unsigned q = 0; q < D.n; q++)
			door_home(q);
		D.wide = true;
		if (D.s->finish) {
			D.s->finish = false;
			if (counting())
				D.finishes++;
			if (D.s->ops->finish)
				*kick = cpumask_or(*kick, D.s->ops->finish(D.s, D.cursor));
		}
		end = release();
	}
	return end;
}

void door_report(const struct sim_cfg *c, double ping_p99_us)
{
	if (!door_on())
		return;
	struct stat_summary m;
	samples_summary(&D.wait, &m);
	double span = (double)(c->duration_ns - c->warmup_ns) / 1e9;
	printf("locks mode=%s pcpus=%u xfer_ns=%llu ps_per_insn=%llu calls=%llu acquires=%llu "
	       "waited=%llu wait_p50_ns=%.0f wait_p99_ns=%.0f wait_max_ns=%.0f "
	       "hold_avg_ns=%.0f peers=%llu try_fail=%llu finishes=%llu decisions=%llu "
	       "decisions_per_s=%.0f ping_p99_us=%.1f\n",
	       c->lock_mode == LOCKS_GLOBAL ? "global" : "percpu", c->pcpus,
	       (unsigned long long)c->lock_xfer_ns, (unsigned long long)c->lock_ps_per_insn,
	       (unsigned long long)D.calls, (unsigned long long)D.acquires,
	       (unsigned long long)D.waited, m.p50 * 1000, m.p99 * 1000, m.max * 1000,
	       D.calls ? (double)D.hold_ns / (double)D.calls : 0.0, (unsigned long long)D.peers,
	       (unsigned long long)D.try_fail, (unsigned long long)D.finishes,
	       (unsigned long long)D.decisions, span > 0 ? (double)D.decisions / span : 0.0,
	       ping_p99_us);
	/* Where the waits are: acquisitions and their wait p99 by what was taken. */
	static const char *const wname[W_N] = {"home", "peer", "try", "dom", "finish"};
	printf("locks_by");
	for (unsigned w = 0; w < W_N; w++) {
		samples_summary(&D.by[w], &m);
		printf(" %s=%zu/%.0f", wname[w], m.n, m.p99 * 1000);
	}
	printf("\n");
	/* Where the one-pass model still departs from arrival order (README.md). */
	printf("lockmodel inverted=%llu inverted_wait_pct=%.1f long_waits=%llu "
	       "long_inverted=%llu overlap=%llu overlap_avg_ns=%.0f try_late=%llu try_stale=%llu\n",
	       (unsigned long long)D.inverted,
	       D.wait_ns ? 100.0 * (double)D.inv_wait_ns / (double)D.wait_ns : 0.0,
	       (unsigned long long)D.long_waits, (unsigned long long)D.long_inverted,
	       (unsigned long long)D.overlap,
	       D.overlap ? (double)D.overlap_ns / (double)D.overlap : 0.0,
	       (unsigned long long)D.try_late, (unsigned long long)D.try_stale);
}

double door_wait_p99_ns(void)
{
	struct stat_summary m;
	samples_summary(&D.wait, &m);
	return m.p99 * 1000;
}
