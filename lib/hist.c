#include "lib/hist.h"
#include "lib/fmt.h"
#include "lib/string.h"

void hist_reset(struct hist *h)
{
	uint32_t seq = h->seq;
	memset(h, 0, sizeof(*h));
	h->seq = seq + 2; /* readers that overlapped the reset retry */
}

static unsigned msb(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

unsigned hist_bucket_of(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned e = msb(v);
	if (e >= HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	/* Octave e holds [2^e, 2^(e+1)) in HIST_SUB buckets of width 2^(e - SUB_BITS). */
	unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) - HIST_SUB;
	return (e - HIST_SUB_BITS + 1) * HIST_SUB + sub;
}

void hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	if (b < HIST_SUB) {
		*lo = *hi = b;
		return;
	}
	unsigned e = b / HIST_SUB + HIST_SUB_BITS - 1, sub = b % HIST_SUB;
	uint64_t width = 1ull << (e - HIST_SUB_BITS);
	*lo = (1ull << e) + sub * width;
	*hi = *lo + width - 1;
}

void hist_record(struct hist *h, uint64_t v)
{
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->sum_sq += (unsigned __int128)v * v;
	h->bucket[hist_bucket_of(v)]++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
}

void hist_snapshot(const struct hist *h, struct hist *out)
{
	/* A writer that records faster than a copy takes (an emulator, a slow reader) could
	 * keep a reader retrying for ever: after a few tries take the copy as it is and make
	 * its count agree with its buckets (sum and min/max may then miss the few samples
	 * recorded during the copy). */
	for (int tries = 0; tries < 8; tries++) {
		uint32_t s0 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		if (s0 & 1)
			continue;
		memcpy(out, h, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->seq, __ATOMIC_RELAXED) == s0)
			return;
	}
	memcpy(out, h, sizeof(*out));
	uint64_t n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		n += out->bucket[b];
	out->n = n;
	out->seq &= ~1u;
}

uint64_t hist_percentile(const struct hist *h, uint32_t ppm)
{
	if (!h->n)
		return 0;
	/* The smallest value with at least ceil(n * ppm / 1e6) samples at or below it. */
	/* n < 2^44 keeps n * ppm inside 64 bits (no 128-bit division: no libgcc here). */
	uint64_t rank = (h->n * ppm + 999999) / 1000000;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t lo, hi;
			hist_bucket_range(b, &lo, &hi);
			uint64_t mid = lo + (hi - lo) / 2;
			return mid < h->min ? h->min : mid > h->max ? h->max : mid;
		}
	}
	return h->max;
}

static uint64_t isqrt128(unsigned __int128 x)
{
	uint64_t r = 0;
	for (int bit = 63; bit >= 0; bit--) {
		uint64_t t = r | (1ull << bit);
		if ((unsigned __int128)t * t <= x)
			r = t;
	}
	return r;
}

struct hist_stats hist_stats(const struct hist *h)
{
	struct hist_stats s = {0};
	if (!h->n)
		return s;
	s.n = h->n;
	s.min = h->min;
	s.max = h->max;
	s.avg = h->sum / h->n;
	s.p50 = hist_percentile(h, 500000);
	s.p90 = hist_percentile(h, 900000);
	s.p99 = hist_percentile(h, 990000);
	s.p999 = hist_percentile(h, 999000);
	/* n^2 * variance = n * sum(x^2) - sum(x)^2, exact in 128 bits for our ranges. */
	unsigned __int128 sum = h->sum, n2var = (unsigned __int128)h->n * h->sum_sq - sum * sum;
	s.mdev = isqrt128(n2var) / h->n;
	return s;
}

int hist_format(char *buf, size_t len, const struct hist_stats *s)
{
#define US(v) (v) / 1000, (v) % 1000
	return fmt_snprintf(buf, len,
			    "n=%lu min_us=%lu.%03lu avg_us=%lu.%03lu p50_us=%lu.%03lu "
			    "p90_us=%lu.%03lu p99_us=%lu.%03lu p999_us=%lu.%03lu max_us=%lu.%03lu "
			    "mdev_us=%lu.%03lu",
			    (unsigned long)s->n, US(s->min), US(s->avg), US(s->p50), US(s->p90),
			    US(s->p99), US(s->p999), US(s->max), US(s->mdev));
#undef US
}
