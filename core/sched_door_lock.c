/* The scheduler door's locks (the rules: "Locking" at the top of core/sched_door.c): the
 * door's state, the run-queue and domain locks, waiting for a run queue (with its
 * statistics), the wide calls and the policy's finish work, what the policies call
 * (sched_sync: sched_peer and the rest), and the door's start. Apart from the entry points
 * (core/sched_door.c) so that each file has one job; the steps every entry point takes
 * inline are in core/sched_door_priv.h. */
#include "core/sched_door_priv.h"

struct sched door_s;
const struct sd_port *door_p;
unsigned door_nr;
struct rq door_rqs[SCHED_MAX_PCPUS];
struct ctx door_ctxs[SCHED_MAX_PCPUS];
static struct {
	spinlock_t lock;
} __attribute__((aligned(64))) dlocks[DOM_LOCKS + 1];

/* rq q is taken: waits for it and counts the wait (under q's lock: its statistics are its
 * own). */
__attribute__((noinline)) void door_rq_wait(unsigned q)
{
	uint64_t t0 = door_p->cycles(); /* only when it waits: the free case costs nothing */
	spin_lock(&door_rqs[q].lock);
	uint64_t w = door_p->cycles() - t0;
	struct sd_lockstat *st = &door_rqs[q].st;
	st->waits++;
	st->wait_cycles += w;
	if (w > st->max_wait)
		st->max_wait = w;
	unsigned k = 0;
	while (k < 23 && (w >> (k + 1)))
		k++;
	st->log2[k]++;
}

void door_wide_lock(struct ctx *c)
{
	for (unsigned q = 0; q < door_nr; q++)
		rq_lock(c, q);
	c->base = c->held;
}

/* A policy left work undone for want of a lock: do it now, every rq held. */
void door_finish(void)
{
	if (!door_s.ops->finish)
		return;
	struct ctx *c = me();
	begin(c);
	door_wide_lock(c);
	sched_cpumask_t k = cpumask_none();
	/* Set by calls that hold only some locks (sched_defer): taken atomically. Another pCPU
	 * may have done the work meanwhile. */
	if (__atomic_exchange_n(&door_s.finish, false, __ATOMIC_RELAXED)) {
		door_rqs[door_p->self()].st.finishes++;
		k = door_s.ops->finish(&door_s, door_p->now());
	}
	release(c);
	deliver(&k);
}

struct ctx *door_enter_wide(void)
{
	struct ctx *c = me();
	begin(c);
	door_wide_lock(c);
	return c;
}

/* ---- sched_sync: what the policies call ------------------------------------------------- */

/* sched_peer (wait: q may be waited for when above every rq held) and sched_peek (never
 * waits): q's lock for the rest of the call, or false when another pCPU has it. */
static bool peer(unsigned q, bool wait)
{
	struct ctx *c = me();
	if (c->dom)
		door_p->bug("sched_peer/peek with a domain lock held", door_p->self(), q);
	if (q >= door_nr)
		door_p->bug("sched_peer/peek of a pCPU out of range", door_p->self(), q);
	if (holds(c, q)) {
		if (!spin_record_agrees(&door_rqs[q].lock, true))
			door_p->bug("sched_door: peer thinks it holds a lock it does not",
				    door_p->self(), q);
		return true;
	}
	if (wait && (int)q > c->max) {
		rq_lock(c, q);
		return true;
	}
	if (spin_trylock(&door_rqs[q].lock)) {
		door_rqs[q].st.acquires++;
		mark(c, q);
		return true;
	}
	__atomic_fetch_add(&door_rqs[q].try_fail, 1, __ATOMIC_RELAXED);
	return false;
}

static bool sync_peer(struct sched *s, unsigned q)
{
	(void)s;
	return peer(q, true);
}

static bool sync_peek(struct sched *s, unsigned q)
{
	(void)s;
	return peer(q, false);
}

static void sync_unpeer(struct sched *s, unsigned q)
{
	(void)s;
	struct ctx *c = me();
	if (q >= door_nr || !holds(c, q) || cpumask_has(&c->base, q))
		return;
	cpumask_clear(&c->held, q);
	c->n--;
	c->max = -1;
	for (int w = SCHED_CPUMASK_WORDS - 1; w >= 0 && c->max < 0; w--)
		if (c->held.w[w])
			c->max = w * 64 + 63 - __builtin_clzll(c->held.w[w]);
	spin_unlock(&door_rqs[q].lock);
}

static bool sync_held(const struct sched *s, unsigned q)
{
	(void)s;
	if (q >= door_nr)
		return false;
	bool h = holds(me(), q);
	if (!spin_record_agrees(&door_rqs[q].lock, h))
		door_p->bug("sched_door: its record of held locks disagrees with the lock's",
			    door_p->self(), q);
	return h;
}

/* d's lock; NULL: the instance's own (a policy's list of domains to reweight). */
static spinlock_t *dlock(const struct sched_dom *d)
{
	return d ? &dlocks[d->id % DOM_LOCKS].lock : &dlocks[DOM_LOCKS].lock;
}

static void sync_dom_lock(struct sched *s, struct sched_dom *d)
{
	(void)s;
	struct ctx *c = me();
	if (c->dom)
		door_p->bug("two sched_dom locks", door_p->self(), d ? d->id : 0);
	spin_lock(dlock(d));
	c->dom = true;
}

static void sync_dom_unlock(struct sched *s, struct sched_dom *d)
{
	(void)s;
	me()->dom = false;
	spin_unlock(dlock(d));
}

static void sync_bug(const struct sched *s, const char *where, unsigned q)
{
	(void)s;
	door_p->bug(where, door_p->self(), q);
}

static const struct sched_sync door_sync = {
	.peer = sync_peer,
	.peek = sync_peek,
	.unpeer = sync_unpeer,
	.held = sync_held,
	.dom_lock = sync_dom_lock,
	.dom_unlock = sync_dom_unlock,
	.bug = sync_bug,
};

/* ---- the door's start and its lock statistics ------------------------------------------- */

int sd_init(unsigned nr_pcpus, const struct sd_port *port)
{
	door_p = port;
	if (nr_pcpus == 0 || nr_pcpus > SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	door_nr = nr_pcpus;
	for (unsigned q = 0; q < SCHED_MAX_PCPUS; q++) {
		spin_init(&door_rqs[q].lock, &lock_rq, (int)q);
		door_ctxs[q].max = -1;
	}
	for (unsigned i = 0; i <= DOM_LOCKS; i++)
		spin_init(&dlocks[i].lock, &lock_sched_dom, -1);
	int rc = sched_init(&door_s, nr_pcpus);
	door_s.sync = &door_sync;
	return rc;
}

const struct sched *sd_sched(void)
{
	return &door_s;
}

void sd_lockstat(unsigned cpu, struct sd_lockstat *out, bool reset)
{
	if (cpu >= door_nr)
		return;
	struct ctx *c = me();
	begin(c);
	home_lock(c, cpu);
	*out = door_rqs[cpu].st;
	out->try_fail = __atomic_load_n(&door_rqs[cpu].try_fail, __ATOMIC_RELAXED);
	if (reset) {
		struct sd_lockstat *st = &door_rqs[cpu].st;
		st->acquires = st->waits = st->wait_cycles = st->max_wait = st->finishes = 0;
		for (unsigned k = 0; k < 24; k++)
			st->log2[k] = 0;
		__atomic_store_n(&door_rqs[cpu].try_fail, 0, __ATOMIC_RELAXED);
	}
	end(c, NULL);
}
