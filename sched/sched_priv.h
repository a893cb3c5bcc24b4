/* Helpers shared by the policies in sched/ (not part of the interface). */
#ifndef SCHED_SCHED_PRIV_H
#define SCHED_SCHED_PRIV_H
#include "sched/sched.h"

#define SCHED_ESRCH  3
#define SCHED_EINVAL 22
#define SCHED_ENOSPC 28

/* A policy's private part of obj (a struct sched_dom/_vcpu/_pcpu or struct sched):
 *   struct eevdf_vcpu *e = SCHED_PRIV(struct eevdf_vcpu, v);
 * fails to compile when the type does not fit obj's priv bytes. The bytes are only ever
 * accessed as that one type (and zeroed as bytes), so no aliasing rule is broken. */
#define SCHED_PRIV(type, obj)                                                                      \
	((type *)(void *)((obj)->priv +                                                            \
			  0 * sizeof(struct {                                                      \
				  _Static_assert(sizeof(type) <= sizeof((obj)->priv),              \
						 "policy state larger than its priv bytes");       \
				  int unused;                                                      \
			  })))

/* ---- concurrency (sched.h, "Concurrency") ---------------------------------------------- */

/* Fields that other pCPUs read without the owner's lock, as hints for their choices (which
 * pCPU looks idle, where a vCPU is): sched_pcpu.curr, nr_queued, nr_vcpus and
 * sched_vcpu.state, prio, pcpu. Their owner (the lock holder) writes them whole with
 * SCHED_PUT and reads them plainly; others load them with SCHED_GET and take the pCPU's lock
 * (sched_peer) before they act on what they read. sched_pcpu.resched is a request any pCPU
 * may set (SCHED_PUT) and its owner reads (SCHED_GET) and clears. */
#define SCHED_PUT(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define SCHED_GET(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SCHED_ADD(x, n) SCHED_PUT((x), (x) + (n))

/* Holds pCPU q's lock for the rest of the call (true), or cannot (false: do without q). */
static inline bool sched_peer(struct sched *s, unsigned q)
{
	return !s->sync || s->sync->peer(s, q);
}

/* Whether the current call holds q's lock (true without a sync: the only caller). */
static inline bool sched_holds(const struct sched *s, unsigned q)
{
	return !s->sync || s->sync->held(s, q);
}

/* The caller holds q's lock: a policy asserts it where it touches q's state (SCHED_HELD).
 * On unless built with SCHED_CHECK_HELD=0: the hypervisor's release build (RELEASE=1, which
 * the benchmarks boot) leaves it out as Linux leaves out lockdep_assert_held without
 * lockdep: each is an indirect call into the door, and a yield round trip made 7 of them,
 * 228 of 2,506 instructions (make exit-profile). */
#ifndef SCHED_CHECK_HELD
#define SCHED_CHECK_HELD 1
#endif
static inline void sched_held(const struct sched *s, unsigned q, const char *where)
{
	if (SCHED_CHECK_HELD && s->sync && !s->sync->held(s, q))
		s->sync->bug(s, where, q);
}
#define SCHED_HELD(s, q) sched_held((s), (q), __func__)

/* As sched_peer, but only if q's lock is free now: for looks that only inform a choice. */
static inline bool sched_peek(struct sched *s, unsigned q)
{
	return !s->sync || s->sync->peek(s, q);
}

/* Work that needs a lock the call could not have: the policy's finish op does it, every lock
 * held, right after the call (sched_ops.finish). */
static inline void sched_defer(struct sched *s)
{
	SCHED_PUT(s->finish, true);
}

/* Lets go of a peer that turned out of no use (sched_sync.unpeer). */
static inline void sched_unpeer(struct sched *s, unsigned q)
{
	if (s->sync && s->sync->unpeer)
		s->sync->unpeer(s, q);
}

/* Holds every pCPU's lock for the rest of the call (true); or false: some are another
 * pCPU's now, and the work that needs them all is deferred (sched_defer). */
static inline bool sched_peer_all(struct sched *s)
{
	for (unsigned q = 0; q < s->nr_pcpus; q++)
		if (!sched_peer(s, q))
			return false; /* what it took stays held to the call's end (harmless) */
	return true;
}

/* Holds the locks of every pCPU d's vCPUs are on, for the rest of the call (true); or
 * false (some are another pCPU's now: the work is deferred). A vCPU moves only under its
 * pCPU's lock, so once that lock is held and v->pcpu still names it, v stays. The check
 * reads v->pcpu atomically, as every such check does: until it names a held lock, another
 * pair of pCPUs may be moving v (a plain read raced with cr_steal's move, TSan, torture
 * threads mode seed 107). */
static inline bool sched_peer_dom(struct sched *s, const struct sched_dom *d)
{
	for (const struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
		unsigned q = SCHED_GET(v->pcpu);
		if (!sched_peer(s, q) || SCHED_GET(v->pcpu) != q)
			return false;
	}
	return true;
}

static inline void sched_dom_lock(struct sched *s, struct sched_dom *d)
{
	if (s->sync)
		s->sync->dom_lock(s, d);
}

static inline void sched_dom_unlock(struct sched *s, struct sched_dom *d)
{
	if (s->sync)
		s->sync->dom_unlock(s, d);
}

/* A counter that vCPUs on several pCPUs add to (a domain's, the instance's). */
static inline void sched_add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* v was descheduled while still runnable. Counted by the pCPU that descheduled it, before
 * any other pCPU can take v (its counters are then that pCPU's to write). */
static inline void sched_note_preempt(struct sched_vcpu *v)
{
	v->c.preempts++;
	sched_add(&v->dom->c.preempts, 1);
}

/* The instance's FIFO tie-breaker: unique across pCPUs. */
static inline uint64_t sched_next_seq(struct sched *s)
{
	return __atomic_fetch_add(&s->seq, 1, __ATOMIC_RELAXED);
}

/* The pCPUs this instance has. */
static inline sched_cpumask_t sched_all_pcpus(const struct sched *s)
{
	return s->all_pcpus;
}

/* Affinity of v restricted to existing pCPUs; an empty or invalid mask means all. */
static inline sched_cpumask_t sched_affinity(const struct sched *s, const struct sched_vcpu *v)
{
	sched_cpumask_t all = sched_all_pcpus(s), m = cpumask_and(v->affinity, all);
	return cpumask_empty(m) ? all : m;
}

/* The instance's pCPUs fit in the first word of a set: every set it keeps (affinities cut to
 * its pCPUs, kicks, summaries) has bits there only, and the questions asked on every call
 * read that word alone (the other three are known empty): the cost of the one-word sets on
 * a box of up to 64 pCPUs, the four words past that. */
static inline bool sched_one_word(const struct sched *s)
{
	return s->nr_pcpus <= 64;
}

/* sched_affinity's first word, for a one-word instance. */
static inline uint64_t sched_affinity_w0(const struct sched *s, const struct sched_vcpu *v)
{
	uint64_t all = s->all_pcpus.w[0], m = v->affinity.w[0] & all;
	return m ? m : all;
}

static inline bool sched_allowed(const struct sched *s, const struct sched_vcpu *v, unsigned p)
{
	if (sched_one_word(s))
		return p < 64 && (sched_affinity_w0(s, v) >> p & 1);
	return cpumask_test(sched_affinity(s, v), p);
}

/* v may run on pCPU p (< nr_pcpus) only: sched_affinity(s, v) is {p}. */
static inline bool sched_pinned(const struct sched *s, const struct sched_vcpu *v, unsigned p)
{
	if (sched_one_word(s))
		return sched_affinity_w0(s, v) == 1ull << (p % 64);
	uint64_t mine = 0, other = 0;
	CPUMASK_EACH_WORD(i)
	{
		uint64_t x = v->affinity.w[i] & s->all_pcpus.w[i];
		if (i == p / 64)
			mine = x;
		else
			other |= x;
	}
	if (!mine && !other) /* every pCPU: p alone when there is one */
		return s->nr_pcpus == 1;
	return !other && mine == 1ull << (p % 64);
}

/* A kick of pCPU p left for the caller by a call that returns no mask (sched_take_kicks). */
static inline void sched_kick_later(struct sched *s, unsigned p)
{
	cpumask_set_atomic(&s->kick_pending, p);
}

/* Appends one record to pCPU p's trace ring (inline: a wake and the pick after it write
 * three, each a call otherwise). */
static inline void sched_trace_ev(struct sched *s, unsigned p, uint64_t t, unsigned ev,
				  const struct sched_vcpu *v, int64_t arg)
{
	SCHED_HELD(s, p);
	struct sched_trace *tr = &s->pcpu[p].trace;
	struct sched_trace_rec *r = &tr->rec[tr->head & (SCHED_TRACE_LEN - 1)];
	r->t = t;
	r->ev = (uint16_t)ev;
	r->dom = v ? (uint16_t)v->dom->id : 0xffff;
	r->vcpu = v ? (uint16_t)v->id : 0xffff;
	r->pcpu = (uint16_t)p;
	r->arg = arg;
	tr->head++;
}

/* The pCPU of `mask` with the fewest vCPUs assigned (ties: lowest number). */
unsigned sched_least_loaded(const struct sched *s, sched_cpumask_t mask);

/* Copies src into buf[n], cut to fit, always NUL-terminated (n > 0). */
void sched_copy_str(char *buf, size_t n, const char *src);

/* `a` (alen bytes) equals the NUL-terminated b. */
bool sched_str_eq(const char *a, size_t alen, const char *b);

/* v joins / leaves its domain's vCPU list (sched_dom.vcpus, which the core, the simulator
 * and yield_to walk); the domain joins the instance's list with its first vCPU and leaves
 * it with its last. The caller counts v into d->nr_vcpus before the add; the removal
 * counts it out and returns the vCPUs left. */
void sched_dom_add_vcpu(struct sched *s, struct sched_vcpu *v);
uint32_t sched_dom_del_vcpu(struct sched *s, struct sched_vcpu *v);

/* Adds v's domain to the instance's domain list if it is not there yet. */
void sched_dom_link(struct sched *s, struct sched_dom *d);
void sched_dom_unlink(struct sched *s, struct sched_dom *d);

/* Prints the counters line of a domain and of a vCPU. */
void sched_dump_counters(sched_print_fn pr, void *arg, const char *what, unsigned dom, int vcpu,
			 const struct sched_counters *c);

#endif
