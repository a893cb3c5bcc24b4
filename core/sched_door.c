/* The scheduler door (core/sched_door.h): sched/'s only caller, the owner of its locks.
 * This file holds its rules (below) and its entry points; the locks themselves, what the
 * policies call (sched_sync) and the door's start are in core/sched_door_lock.c, and the
 * steps every entry point takes inline in core/sched_door_priv.h.
 *
 * Locking
 * =======
 * Every spin lock of the hypervisor, its rank (a pCPU waits for a lock only when the lock's
 * rank is above the rank of every lock it holds; lib/lockorder.h, checked on every acquire
 * with LOCK_CHECK; the numbers are in lib/lockranks.c) and what it protects, lowest first:
 *
 *   create      5  core/domain_end.c: re-creating a domain (restart=) at run time: domain ids,
 *                  names, the evt.allow parse buffer. Held across a whole creation, which
 *                  takes most of the locks below (so nothing is held when it is taken).
 *   conin      10  core/conin.c: the service domain's input ring.
 *   dcon       20  struct dcon.lock: a domain's console (line being assembled, rate limit,
 *                  emulated COM1 registers).
 *   event      30  struct domain.evlock: a domain's event ports (counts, senders, allow
 *                  lists) and signalled_by.
 *   vlapic     40  struct vlapic.lock: a virtual LAPIC's timer, ESR and ICR.
 *   vioapic    45  struct pc_ioapic.lock: a PC domain's IOAPIC (core/pc_ioapic.c); its
 *                  messages wake vCPUs (rq) with it held.
 *   pcdev      47  struct pc_state.dev_lock: a PC domain's CMOS, PIT, reset ports and 8042
 *                  (core/pc_cmos.c, pc_pit.c, pc_reset.c); a leaf.
 *   ping       50  core/ping.c: the hypervisor's ping source.
 *   svc_ping   55  core/service.c: the service domain's ping slots.
 *   rq[p]     100  here, one per pCPU p: the run queue of p. It protects s->pcpu[p] and the
 *                  policy's part of it, every vCPU assigned to p (sv.pcpu == p: its
 *                  sched_vcpu with the policy's part, and the struct sd_vcpu around it), and
 *                  p's lock-wait statistics. Several may be held: a pCPU waits only for a
 *                  higher p than every rq it holds; a lower one it only tries (sched_peer
 *                  returns false when another pCPU has it).
 *   sched_dom 110  here, hashed by domain id: a domain's shared scheduling state (a cap's
 *                  token bucket, a bandwidth pool), taken by policies through
 *                  sched_dom_lock, a leaf; one more (sched_dom_lock(s, NULL)) for the
 *                  instance's own lists (credit's domains to reweight).
 *   scrub     180  core/scrub.c: the queue of dead domains' memory being zeroed (a leaf:
 *                  zeroing and freeing happen after it is let go).
 *   paging    190  arch/x86_64/paging.c: the identity map above the boot map (its tables
 *                  may come from the frame allocator, hence below frames).
 *   frames    200  core/mm.c: the frame allocator.
 *   console   250  drivers/console.c: synchronous console writes (printk under any lock).
 *
 * No code holds two locks of the classes below rq except in that order; nothing takes a lock
 * in interrupt context that its holder could be interrupted with (the hypervisor runs with
 * interrupts off, and handlers run at drain points that hold no lock).
 *
 * What the door does for each call into sched/ (sched/sched.h, "Concurrency"):
 * - a vCPU's call (notify, block, yield, pause-loop, run time): load sv.pcpu, take that rq,
 *   check sv.pcpu did not change meanwhile (else let go and retry): the vCPU cannot move
 *   while its rq is held, because moving it takes both rqs;
 * - a pCPU's call (pick): its own rq; sd_charge_for: both vCPUs' rqs, in index order;
 * - calls that change the instance or many pCPUs (insert, remove, parameters, domain
 *   start/end/pause, a policy's finish work, dump): every rq, in order ("wide");
 * - inside a call, the policy's sched_peer(q): q's rq if held; else waited for when q is
 *   above every rq held (the order allows it), else tried once. A policy does without a
 *   pCPU it could not get, or leaves the work for its finish op, which the door runs wide
 *   right after the call.
 * Every rq taken for a call is let go when the call returns, then the kicks it returned are
 * delivered (an IPI is never sent with a lock held). `now` is read once the first rq is
 * held; a peer's state may be a little ahead of it (its owner ran a call since), which every
 * policy tolerates (time differences are clamped at 0).
 *
 * Why each cross-pCPU step is safe: docs/scheduler.md, "Concurrency". */
#include "core/sched_door_priv.h"
#include "core/pingtrace.h"

/* ---- entry points ------------------------------------------------------------------------ */

int sd_config_word(const char *word, size_t len)
{
	struct ctx *c = door_enter_wide();
	int rc = sched_config_word(&door_s, word, len, door_p->now());
	sched_cpumask_t k = sched_take_kicks(&door_s);
	end(c, &k);
	return rc;
}

int sd_config_get(const char *key, char *buf, size_t n)
{
	struct ctx *c = door_enter_wide();
	int rc = sched_config_get(&door_s, key, buf, n);
	end(c, NULL);
	return rc;
}

void sd_config_show(sched_print_fn pr, void *arg)
{
	struct ctx *c = door_enter_wide();
	sched_config_show(&door_s, pr, arg);
	end(c, NULL);
}

void sd_dump(sched_print_fn pr, void *arg)
{
	struct ctx *c = door_enter_wide();
	sched_dump(&door_s, pr, arg);
	end(c, NULL);
}

unsigned sd_trace_read(unsigned pcpu, struct sched_trace_rec *out, unsigned max, uint32_t *head)
{
	if (pcpu >= door_nr)
		return 0;
	struct ctx *c = me();
	begin(c);
	home_lock(c, pcpu);
	if (head)
		*head = door_s.pcpu[pcpu].trace.head;
	unsigned n = sched_trace_read(&door_s, pcpu, out, max);
	end(c, NULL);
	return n;
}

int sd_insert(struct sd_vcpu *v)
{
	/* Wide: a call may still find v (a notify of the vCPU it was). */
	struct ctx *c = door_enter_wide();
	v->blocked = true; /* until sd_start */
	SCHED_PUT(v->paused, false);
	SCHED_PUT(v->gone, false);
	SCHED_PUT(v->move_pending, false);
	SCHED_PUT(v->running_on, (int16_t)-1);
	v->wake_ns = v->ready_ns = v->wait_ns = 0;
	int rc = sched_vcpu_insert(&door_s, &v->sv, door_p->now());
	end(c, NULL);
	return rc;
}

void sd_start(struct sd_vcpu *v, bool hold)
{
	struct ctx *c = enter_vcpu(v);
	sched_cpumask_t k = cpumask_none();
	if (!hold) { /* else it waits for its start signal, as if halted */
		uint64_t now = door_p->now();
		v->blocked = false;
		/* No wake_ns: a start is no wake (wake-to-run counts wakes, docs/vmx.md). With
		 * every domain starting at once its first run waits behind the others' first
		 * slices (1.6 ms for the fuzzer run's echo), a one-off no wake ever sees. */
		k = sched_wake(&door_s, &v->sv, now, WAKE_NEW);
	}
	end(c, &k);
}

/* Every rq held: v leaves the scheduler for good, unless a pCPU holds it (running_on: it
 * picked v and has not let go; it will, and call sd_leave then). */
static bool leave_wide(struct sd_vcpu *v, uint64_t now, sched_cpumask_t *k)
{
	if (v->gone || v->running_on >= 0)
		return false;
	if (!v->blocked && v->sv.state != SCHED_VS_BLOCKED)
		*k = cpumask_or(*k, sched_sleep(&door_s, &v->sv, now));
	v->blocked = true;
	sched_vcpu_remove(&door_s, &v->sv, now);
	SCHED_PUT(v->gone, true); /* read without a lock by the vCPU's timers */
	return true;
}

bool sd_leave(struct sd_vcpu *v)
{
	struct ctx *c = door_enter_wide();
	sched_cpumask_t k = cpumask_none();
	bool left = leave_wide(v, door_p->now(), &k);
	end(c, &k);
	return left;
}

unsigned sd_end(struct sd_vcpu *const *v, unsigned n, sched_cpumask_t *running)
{
	struct ctx *c = door_enter_wide();
	uint64_t now = door_p->now();
	unsigned self = door_p->self(), left = 0;
	sched_cpumask_t k = cpumask_none(), r = cpumask_none();
	for (unsigned i = 0; i < n; i++) {
		int on = v[i]->running_on;
		if (on < 0)
			left += leave_wide(v[i], now, &k);
		else if ((unsigned)on != self)
			cpumask_set(&r, (unsigned)on);
	}
	k = cpumask_or(k, r);
	end(c, &k);
	if (running)
		*running = r;
	return left;
}

void sd_pause(struct sd_vcpu *const *v, unsigned n)
{
	struct ctx *c = door_enter_wide();
	uint64_t now = door_p->now();
	unsigned self = door_p->self();
	sched_cpumask_t k = cpumask_none();
	for (unsigned i = 0; i < n; i++) {
		SCHED_PUT(v[i]->paused, true);
		/* A running vCPU leaves at its pCPU's next decision (sd_pause_self, or sd_pick
		 * letting go of it); any other leaves the run queues now. By the scheduler's
		 * state, not running_on: a vCPU that blocked, woke and moved is still held
		 * (running_on) by the pCPU that ran it until that one picks again. */
		if (v[i]->gone || v[i]->sv.state == SCHED_VS_BLOCKED)
			continue;
		if (v[i]->sv.state == SCHED_VS_RUNNING) {
			if (v[i]->sv.pcpu != self)
				cpumask_set(&k, v[i]->sv.pcpu);
		} else {
			k = cpumask_or(k, sched_sleep(&door_s, &v[i]->sv, now));
		}
	}
	end(c, &k);
}

void sd_unpause(struct sd_vcpu *const *v, unsigned n)
{
	struct ctx *c = door_enter_wide();
	uint64_t now = door_p->now();
	sched_cpumask_t k = cpumask_none();
	for (unsigned i = 0; i < n; i++) {
		SCHED_PUT(v[i]->paused, false);
		if (!v[i]->gone && !v[i]->blocked && v[i]->sv.state == SCHED_VS_BLOCKED) {
			v[i]->wake_ns = now;
			k = cpumask_or(k, sched_wake(&door_s, &v[i]->sv, now, WAKE_NEW));
		}
	}
	end(c, &k);
}

int sd_set_params(struct sched_dom *d, uint32_t weight, uint32_t cap)
{
	struct ctx *c = door_enter_wide();
	int rc = sched_set_params(&door_s, d, weight, cap, door_p->now());
	sched_cpumask_t k = sched_take_kicks(&door_s);
	end(c, &k);
	return rc;
}

int sd_set_affinity(struct sd_vcpu *v, sched_cpumask_t mask)
{
	struct ctx *c = door_enter_wide();
	sched_cpumask_t k = cpumask_none();
	bool gone = v->gone;
	if (gone) {
		v->sv.affinity = mask; /* not in the scheduler: kept for a re-insert */
	} else {
		k = sched_set_affinity(&door_s, &v->sv, mask, door_p->now());
		k = cpumask_or(k, sched_take_kicks(&door_s));
		if (v->running_on >= 0 && !sched_allowed(&door_s, &v->sv, v->sv.pcpu))
			SCHED_PUT(v->move_pending, true);
	}
	end(c, &k);
	return gone ? -SCHED_ESRCH : 0;
}

enum sd_wake sd_notify(struct sd_vcpu *v, unsigned flags)
{
	bool quiet = flags & SD_NOTIFY_QUIET;
	flags &= ~SD_NOTIFY_QUIET;
	struct ctx *c = enter_vcpu(v);
	PT_STAMP(PT_LOCKED);
	unsigned self = (unsigned)(c - door_ctxs); /* me() asked the port already */
	sched_cpumask_t k = cpumask_none();
	int exit_cpu = -1;
	enum sd_wake r = SD_WAKE_NONE;
	if (v->gone) {
		/* nothing: it left the scheduler */
	} else if (v->blocked && v->paused) {
		v->blocked = false; /* runnable again once its domain is unpaused */
	} else if (v->blocked) {
		uint64_t now = door_p->now();
		v->blocked = false;
		v->wake_ns = now;
		v->ready_ns = now;
		k = sched_wake(&door_s, &v->sv, now, flags);
		PT_STAMP(PT_WOKEN);
		r = SD_WAKE_WOKE;
	} else if (!v->paused) {
		/* Runnable or running: the scheduler hears of every event (sched.h), so a vCPU
		 * waiting in a run queue gets its latency slice like a blocked one; its
		 * event-to-run time is measured like a wake. A quiet one (a vLAPIC interrupt)
		 * only makes it exit where it runs. */
		if (!quiet) {
			uint64_t now = door_p->now();
			if (v->sv.state != SCHED_VS_RUNNING && !v->wake_ns)
				v->wake_ns = now;
			k = sched_wake(&door_s, &v->sv, now, flags);
			PT_STAMP(PT_WOKEN);
		}
		int on = SCHED_GET(v->running_on);
		if (on >= 0 && (unsigned)on != self)
			exit_cpu = on; /* an exit, so the vector goes in at its next entry */
		r = SD_WAKE_EVENT;
	}
	end(c, &k);
	if (exit_cpu >= 0)
		door_p->kick((unsigned)exit_cpu, false);
	return r;
}

bool sd_block(struct sd_vcpu *v, bool (*pending)(void *arg), void *arg)
{
	struct ctx *c = enter_vcpu(v);
	sched_cpumask_t k = cpumask_none();
	bool blocked = !pending(arg);
	if (blocked) {
		v->blocked = true;
		k = sched_sleep(&door_s, &v->sv, door_p->now());
	}
	cpumask_clear(&k, door_p->self());
	end(c, &k);
	return blocked;
}

void sd_yield(struct sd_vcpu *v)
{
	struct ctx *c = enter_vcpu(v);
	sched_yield(&door_s, &v->sv, door_p->now());
	end(c, NULL);
}

void sd_pause_loop(struct sd_vcpu *v)
{
	struct ctx *c = enter_vcpu(v);
	sched_cpumask_t k = sched_pause_loop(&door_s, &v->sv, door_p->now());
	cpumask_clear(&k, door_p->self());
	end(c, &k);
}

bool sd_stop(struct sd_vcpu *v)
{
	struct ctx *c = enter_vcpu(v);
	sched_cpumask_t k = cpumask_none();
	bool stopped = !v->gone && !v->blocked;
	if (stopped) {
		v->blocked = true;
		k = sched_sleep(&door_s, &v->sv, door_p->now());
	}
	cpumask_clear(&k, door_p->self());
	end(c, &k);
	return stopped;
}

bool sd_pause_self(struct sd_vcpu *v)
{
	struct ctx *c = enter_vcpu(v);
	sched_cpumask_t k = cpumask_none();
	bool stopped = v->paused && !v->gone && v->sv.state != SCHED_VS_BLOCKED;
	if (stopped)
		k = sched_sleep(&door_s, &v->sv, door_p->now());
	cpumask_clear(&k, door_p->self());
	end(c, &k);
	return stopped;
}

/* The pick's own rq, and for `then` prev's too: prev ran here until its exit, but a policy
 * may have moved it to another queue meanwhile (credit1 migrates a running vCPU); then both
 * are taken, in index order, so that `then` and the pick are one call with one `now`. */
static void pick_lock(struct ctx *c, unsigned cpu, struct sd_vcpu *prev)
{
	for (;;) {
		unsigned pp = SCHED_GET(prev->sv.pcpu);
		home_lock(c, pp < cpu ? pp : cpu);
		if (pp != cpu)
			home_lock(c, pp < cpu ? cpu : pp);
		if (SCHED_GET(prev->sv.pcpu) == pp) /* a move elsewhere may be under way */
			return;
		release(c); /* moved again meanwhile */
		c->busy = true;
	}
}

struct sd_vcpu *sd_pick(unsigned cpu, struct sd_vcpu *prev, enum sd_then then, uint64_t *run_until,
			uint64_t *held)
{
	struct ctx *c = me();
	if (!prev)
		then = SD_THEN_RUN;
	begin(c);
	/* Letting go of a vCPU that must move (sd_set_affinity): its policy moves it in this
	 * pick, so the pick takes every lock; a rare one (an affinity change while it ran). */
	bool move = prev && SCHED_GET(prev->move_pending);
	if (move)
		door_wide_lock(c);
	else if (then != SD_THEN_RUN)
		pick_lock(c, cpu, prev);
	else
		home_lock(c, cpu);
	PT_STAMP(PT_PLOCKED);
	uint64_t now = door_p->now();
	sched_cpumask_t k = cpumask_none();
	/* Only to a vCPU this pCPU still runs in the scheduler's view: one that left the run
	 * queues since its exit (its domain paused or ending, sd_stop), or that came back and
	 * another pCPU picked meanwhile (unpaused), neither yields nor blocks here. */
	if (then != SD_THEN_RUN &&
	    (prev->gone || prev->blocked || prev->sv.state != SCHED_VS_RUNNING ||
	     door_s.pcpu[cpu].curr != &prev->sv))
		then = SD_THEN_RUN;
	if (then == SD_THEN_YIELD) {
		sched_yield(&door_s, &prev->sv, now);
	} else if (then == SD_THEN_BLOCK && !door_p->wake_pending(prev->sv.owner)) {
		prev->blocked = true;
		k = sched_sleep(&door_s, &prev->sv, now);
	}
	/* Paused while it ran, and taken off by a kick before its pCPU saw it (sd_pause):
	 * it leaves the run queue now, not when it would next be picked. */
	if (prev && SCHED_GET(prev->paused) && !prev->gone && SCHED_GET(prev->sv.pcpu) == cpu &&
	    prev->sv.state == SCHED_VS_RUNNING)
		k = cpumask_or(k, sched_sleep(&door_s, &prev->sv, now));
	uint64_t t0 = door_p->cycles();
	struct sched_pick pk = sched_pick_next(&door_s, cpu, now);
	*held = door_p->cycles() - t0;
	PT_STAMP(PT_PICKED);
	/* Up to 64 pCPUs the kicks are one word (deliver reads no other). */
	if (door_nr <= 64)
		pk.kick.w[0] |= k.w[0];
	else
		pk.kick = cpumask_or(pk.kick, k);
	struct sd_vcpu *v = door_vcpu(pk.vcpu);
	if (move)
		SCHED_PUT(prev->move_pending, false);
	if (prev && prev != v) {
		/* Let go of prev. It is this pCPU's to release; it is under a lock this call
		 * holds unless another pCPU moved it since it blocked (then that pCPU's wake
		 * set ready_ns), so ready_ns is set only when this pick preempted it. */
		if (SCHED_GET(prev->running_on) == (int)cpu)
			SCHED_PUT(prev->running_on, -1);
		unsigned pp = SCHED_GET(prev->sv.pcpu);
		if (holds(c, pp) && prev->sv.state == SCHED_VS_RUNNABLE && !prev->ready_ns)
			prev->ready_ns = now; /* preempted: waits in a run queue from now */
	}
	if (v) {
		SCHED_PUT(v->running_on, (int16_t)cpu);
		if (v->ready_ns) {
			v->wait_ns += now - v->ready_ns;
			v->ready_ns = 0;
		}
	}
	*run_until = pk.run_until;
	cpumask_clear(&pk.kick, cpu);
	end(c, &pk.kick);
	return v;
}

uint64_t sd_charge_for(struct sd_vcpu *runner, struct sd_vcpu *cause, uint64_t ns)
{
	uint64_t moved = 0;
	struct ctx *c = me();
	begin(c);
	for (;;) { /* both rqs, in index order; either vCPU may move until its rq is held */
		unsigned a = SCHED_GET(runner->sv.pcpu), b = SCHED_GET(cause->sv.pcpu);
		home_lock(c, a < b ? a : b);
		if (a != b)
			home_lock(c, a < b ? b : a);
		if (SCHED_GET(runner->sv.pcpu) == a && SCHED_GET(cause->sv.pcpu) == b)
			break;
		release(c);
		c->busy = true;
	}
	if (!runner->gone && !cause->gone)
		moved = sched_charge_for(&door_s, &runner->sv, &cause->sv, ns, door_p->now());
	end(c, 0);
	return moved;
}

void sd_info(struct sd_vcpu *v, struct sd_info *out)
{
	struct ctx *c = enter_vcpu(v);
	out->c = v->sv.c;
	out->c.run_ns = sched_run_ns(&v->sv, door_p->now());
	out->wait_ns = v->wait_ns;
	out->pcpu = v->sv.pcpu;
	out->state = v->sv.state;
	out->prio = v->sv.prio;
	out->running_on = SCHED_GET(v->running_on); /* written by the pCPU letting go of it */
	out->blocked = v->blocked;
	out->paused = v->paused;
	end(c, NULL);
}

uint64_t sd_run_ns(struct sd_vcpu *v, uint64_t until)
{
	struct ctx *c = enter_vcpu(v);
	uint64_t now = door_p->now();
	uint64_t ns = sched_run_ns(&v->sv, now < until ? now : until);
	end(c, NULL);
	return ns;
}

void sd_counters_reset(struct sd_vcpu *v)
{
	struct ctx *c = enter_vcpu(v);
	v->sv.c = (struct sched_counters){0};
	v->wait_ns = 0;
	end(c, NULL);
}

void sd_dom_counters_reset(struct sched_dom *d)
{
	/* Every writer adds atomically (sched_add): zero each counter the same way. */
	uint64_t *f = (uint64_t *)(void *)&d->c;
	for (size_t i = 0; i < sizeof(d->c) / sizeof(uint64_t); i++)
		__atomic_store_n(&f[i], 0, __ATOMIC_RELAXED);
}
/* Door-level rules, every rq held: what sd_notify/sd_block keep between the door's flags
 * and the scheduler's state. */
static unsigned door_audit(sched_print_fn pr, void *arg)
{
	unsigned bad = 0;
	for (const struct sched_dom *d = door_s.doms; d; d = d->next_dom) {
		for (struct sched_vcpu *sv = d->vcpus; sv; sv = sv->next_in_dom) {
			struct sd_vcpu *v = door_vcpu(sv);
			/* blocked: asleep in the scheduler; paused: asleep, or running until its
			 * pCPU decides; neither (and in): runnable, or it was a lost wake. */
			uint8_t st = sv->state;
			bool ok = v->gone      ? true
				  : v->blocked ? st == SCHED_VS_BLOCKED
				  : v->paused  ? st == SCHED_VS_BLOCKED || st == SCHED_VS_RUNNING
					       : st != SCHED_VS_BLOCKED;
			if (!ok) {
				pr(arg,
				   "audit: d%uv%u blocked=%d paused=%d running_on=%d: scheduler "
				   "state %u%s\n",
				   d->id, sv->id, v->blocked, v->paused, v->running_on, st,
				   !v->blocked && !v->paused ? " (a lost wake)" : "");
				sched_trace_vcpu(&door_s, sv, 16, pr, arg);
				bad++;
			}
		}
	}
	return bad;
}

unsigned sd_audit(sched_print_fn pr, void *arg, unsigned (*more)(void *arg), void *more_arg)
{
	struct ctx *c = door_enter_wide();
	unsigned bad = sched_audit(&door_s, pr, arg) + door_audit(pr, arg);
	if (more)
		bad += more(more_arg);
	end(c, NULL);
	return bad;
}
