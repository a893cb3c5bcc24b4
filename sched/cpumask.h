/* A set of pCPUs: sched_cpumask_t, SCHED_MAX_PCPUS bits (bit n = pCPU n), the type of every
 * affinity and kick mask of the scheduler and of its caller (docs/scheduler.md, "The CPU
 * set").
 *
 * A small struct of 64-bit words, passed by value (32 bytes at 256 pCPUs; every helper is
 * inline, so a set the compiler can see whole stays in registers, as long as no helper
 * indexes its words with a variable: CPUMASK_WORD_OF). Plain helpers for a set
 * owned by one call; the *_atomic ones and cpumask_load/cpumask_take for the sets several
 * pCPUs write (kicks pending, the policies' idle summaries): each word is one atomic
 * access, so a bit set or cleared by one pCPU is never lost by another's change to another
 * bit, but a load of the whole set is not a snapshot across words (the readers use them as
 * hints, as they did the single word). No libgcc: the counting is a SWAR popcount, the
 * scans __builtin_ctzll (one instruction). */
#ifndef SCHED_CPUMASK_H
#define SCHED_CPUMASK_H
#include <stdbool.h>
#include <stdint.h>

#define SCHED_MAX_PCPUS	    256
#define SCHED_CPUMASK_WORDS (SCHED_MAX_PCPUS / 64)
_Static_assert(SCHED_MAX_PCPUS % 64 == 0, "a CPU set is whole 64-bit words");

/* Each word, the loop unrolled (GCC leaves loops with atomics rolled at -O2). */
#define CPUMASK_EACH_WORD(i)                                                                       \
	_Pragma("GCC unroll 8") for (unsigned i = 0; i < SCHED_CPUMASK_WORDS; i++)

/* Bytes that hold any set as a CPU list with its NUL (sched_cpumask_format; the longest is
 * every other pCPU: "0,2,..,254", 457 bytes). */
#define SCHED_CPUMASK_TEXT 512

typedef struct sched_cpumask {
	uint64_t w[SCHED_CPUMASK_WORDS];
} sched_cpumask_t;

/* The empty set. */
static inline sched_cpumask_t cpumask_none(void)
{
	return (sched_cpumask_t){{0}};
}

/* Word p / 64 of a set, and the sets below, written with constant word indices only: a set
 * indexed by a variable word must live in memory, so the compiler copies a set passed by
 * value to the stack whole (4 stores, at 256 pCPUs) for every test or change of one bit
 * (sync_held, a wake's pinned test: make e2e-storm). Compared against each constant, the
 * word comes from registers or straight from where the set lies. */
#define CPUMASK_WORD_OF(i, p) ((i) == (p) / 64)

/* {p}. */
static inline sched_cpumask_t cpumask_of(unsigned p)
{
	sched_cpumask_t m;
	CPUMASK_EACH_WORD(i)
	m.w[i] = CPUMASK_WORD_OF(i, p) ? 1ull << (p % 64) : 0;
	return m;
}

/* The pCPUs numbered below n: {0, .., n-1} (n <= SCHED_MAX_PCPUS). */
static inline sched_cpumask_t cpumask_below(unsigned n)
{
	sched_cpumask_t m;
	CPUMASK_EACH_WORD(i)
	m.w[i] = n >= 64 * (i + 1) ? ~0ull : n <= 64 * i ? 0 : (1ull << (n - 64 * i)) - 1;
	return m;
}

/* pCPUs 0..63 from one word (a 64-bit ABI or a test's literal). */
static inline sched_cpumask_t cpumask_from_u64(uint64_t lo)
{
	sched_cpumask_t m = {{0}};
	m.w[0] = lo;
	return m;
}

static inline bool cpumask_test(sched_cpumask_t m, unsigned p)
{
	uint64_t x = 0;
	CPUMASK_EACH_WORD(i)
	if (CPUMASK_WORD_OF(i, p))
		x = m.w[i];
	return x >> (p % 64) & 1; /* 0 for p >= SCHED_MAX_PCPUS: no word matched */
}

/* p is in *m, a set that lies in memory (a lock record, a summary): one load of its word,
 * the set not copied. */
static inline bool cpumask_has(const sched_cpumask_t *m, unsigned p)
{
	return p < SCHED_MAX_PCPUS && (m->w[p / 64] >> (p % 64) & 1);
}

/* *m is {p}, exactly: a set in memory (a vCPU's affinity) looked at in one pass, nothing
 * built to compare it with. */
static inline bool cpumask_is_only(const sched_cpumask_t *m, unsigned p)
{
	uint64_t d = 0;
	CPUMASK_EACH_WORD(i)
	d |= m->w[i] ^ (CPUMASK_WORD_OF(i, p) ? 1ull << (p % 64) : 0);
	return !d;
}

static inline void cpumask_set(sched_cpumask_t *m, unsigned p)
{
	CPUMASK_EACH_WORD(i)
	if (CPUMASK_WORD_OF(i, p))
		m->w[i] |= 1ull << (p % 64);
}

static inline void cpumask_clear(sched_cpumask_t *m, unsigned p)
{
	CPUMASK_EACH_WORD(i)
	if (CPUMASK_WORD_OF(i, p))
		m->w[i] &= ~(1ull << (p % 64));
}

static inline bool cpumask_empty(sched_cpumask_t m)
{
	uint64_t any = 0;
	CPUMASK_EACH_WORD(i)
	any |= m.w[i];
	return !any;
}

static inline sched_cpumask_t cpumask_and(sched_cpumask_t a, sched_cpumask_t b)
{
	CPUMASK_EACH_WORD(i)
	a.w[i] &= b.w[i];
	return a;
}

static inline sched_cpumask_t cpumask_or(sched_cpumask_t a, sched_cpumask_t b)
{
	CPUMASK_EACH_WORD(i)
	a.w[i] |= b.w[i];
	return a;
}

/* a without b. */
static inline sched_cpumask_t cpumask_andnot(sched_cpumask_t a, sched_cpumask_t b)
{
	CPUMASK_EACH_WORD(i)
	a.w[i] &= ~b.w[i];
	return a;
}

/* a without pCPU p. */
static inline sched_cpumask_t cpumask_without(sched_cpumask_t a, unsigned p)
{
	cpumask_clear(&a, p);
	return a;
}

static inline bool cpumask_equal(sched_cpumask_t a, sched_cpumask_t b)
{
	uint64_t d = 0;
	CPUMASK_EACH_WORD(i)
	d |= a.w[i] ^ b.w[i];
	return !d;
}

/* a and b share a pCPU. */
static inline bool cpumask_intersects(sched_cpumask_t a, sched_cpumask_t b)
{
	return !cpumask_empty(cpumask_and(a, b));
}

/* Every pCPU of a is in b. */
static inline bool cpumask_subset(sched_cpumask_t a, sched_cpumask_t b)
{
	return cpumask_empty(cpumask_andnot(a, b));
}

static inline unsigned cpumask_count(sched_cpumask_t m)
{
	unsigned n = 0;
	CPUMASK_EACH_WORD(i)
	{
		uint64_t x = m.w[i];
		x -= (x >> 1) & 0x5555555555555555ull;
		x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
		x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
		n += (unsigned)((x * 0x0101010101010101ull) >> 56);
	}
	return n;
}

/* The lowest pCPU of m at or above p (< SCHED_MAX_PCPUS); SCHED_MAX_PCPUS when there is
 * none. */
static inline unsigned cpumask_next_from(sched_cpumask_t m, unsigned p)
{
	CPUMASK_EACH_WORD(i)
	{
		uint64_t x = m.w[i];
		if (i < p / 64)
			continue;
		if (CPUMASK_WORD_OF(i, p))
			x &= ~0ull << (p % 64);
		if (x)
			return 64 * i + (unsigned)__builtin_ctzll(x);
	}
	return SCHED_MAX_PCPUS;
}

/* The lowest pCPU of m; SCHED_MAX_PCPUS when m is empty. */
static inline unsigned cpumask_first(sched_cpumask_t m)
{
	return cpumask_next_from(m, 0);
}

/* The lowest pCPU of m above p; SCHED_MAX_PCPUS when there is none. */
static inline unsigned cpumask_next(sched_cpumask_t m, unsigned p)
{
	return p + 1 >= SCHED_MAX_PCPUS ? SCHED_MAX_PCPUS : cpumask_next_from(m, p + 1);
}

/* The lowest pCPU of m at or above p, else (wrapping) the lowest of m; SCHED_MAX_PCPUS
 * when m is empty. A rotating cursor's next pick. */
static inline unsigned cpumask_next_wrap(sched_cpumask_t m, unsigned p)
{
	unsigned q = p < SCHED_MAX_PCPUS ? cpumask_next_from(m, p) : SCHED_MAX_PCPUS;
	return q < SCHED_MAX_PCPUS ? q : cpumask_first(m);
}

/* Each pCPU p of m, lowest first. m is read at every step: iterate a set the body does not
 * change (a local copy where it might). */
#define cpumask_for_each(p, m)                                                                     \
	for (unsigned p = cpumask_first(m); p < SCHED_MAX_PCPUS; p = cpumask_next((m), p))

/* ---- sets several pCPUs write (each word one atomic access, relaxed) ----------------- */

static inline void cpumask_set_atomic(sched_cpumask_t *m, unsigned p)
{
	__atomic_fetch_or(&m->w[p / 64], 1ull << (p % 64), __ATOMIC_RELAXED);
}

static inline void cpumask_clear_atomic(sched_cpumask_t *m, unsigned p)
{
	__atomic_fetch_and(&m->w[p / 64], ~(1ull << (p % 64)), __ATOMIC_RELAXED);
}

/* *m |= a; only the words a has bits in are written. */
static inline void cpumask_or_atomic(sched_cpumask_t *m, sched_cpumask_t a)
{
	CPUMASK_EACH_WORD(i)
	if (a.w[i])
		__atomic_fetch_or(&m->w[i], a.w[i], __ATOMIC_RELAXED);
}

/* *m, word by word. */
static inline sched_cpumask_t cpumask_load(const sched_cpumask_t *m)
{
	sched_cpumask_t r;
	CPUMASK_EACH_WORD(i)
	r.w[i] = __atomic_load_n(&m->w[i], __ATOMIC_RELAXED);
	return r;
}

/* Takes *m and leaves it empty: each word with bits exchanged for 0 (plain loads first: the
 * common empty set costs no locked instruction, and one branch). */
static inline sched_cpumask_t cpumask_take(sched_cpumask_t *m)
{
	sched_cpumask_t r = cpumask_load(m);
	if (cpumask_empty(r))
		return r;
	CPUMASK_EACH_WORD(i)
	if (r.w[i])
		r.w[i] = __atomic_exchange_n(&m->w[i], 0, __ATOMIC_RELAXED);
	return r;
}

#endif
