/* Log-linear latency histogram (HdrHistogram-style): values below 2^HIST_SUB_BITS ns are
 * counted exactly; above, every power of two is split into 2^HIST_SUB_BITS equal buckets,
 * so a reported percentile is within 1/2^(HIST_SUB_BITS+1) (0.8%) of a recorded value.
 * Count, min, max, sum and sum of squares are exact. Fixed size, no allocation, integer
 * arithmetic only (the hypervisor has no FPU state to spare).
 *
 * One writer, any number of readers, no locks: the writer brackets each update with a
 * sequence counter; hist_snapshot() copies until it sees the same even sequence on both
 * sides of the copy. */
#ifndef LIB_HIST_H
#define LIB_HIST_H
#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 42 /* values up to 2^42 ns (73 minutes); larger ones are clamped */
#define HIST_BUCKETS  (HIST_SUB * (HIST_MAX_BITS - HIST_SUB_BITS + 1))

struct hist {
	uint32_t seq;
	uint64_t n, min, max, sum;
	unsigned __int128 sum_sq;
	uint32_t bucket[HIST_BUCKETS];
};

/* Summary in nanoseconds; mdev as ping prints it: sqrt(mean(x^2) - mean(x)^2). */
struct hist_stats {
	uint64_t n, min, avg, p50, p90, p99, p999, max, mdev;
};

void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t ns);
/* A consistent copy of h, safe against a concurrent hist_record on another CPU. */
void hist_snapshot(const struct hist *h, struct hist *out);
/* The value at `ppm` parts per million of the distribution (500000 = median). */
uint64_t hist_percentile(const struct hist *h, uint32_t ppm);
struct hist_stats hist_stats(const struct hist *h);
/* "n=.. min_us=.. avg_us=.. p50_us=.. p90_us=.. p99_us=.. p999_us=.. max_us=.. mdev_us=.."
 * with microseconds to three decimals. Returns the length like snprintf. */
int hist_format(char *buf, size_t len, const struct hist_stats *s);
/* Bucket index of a value and the range [lo, hi] of values it holds. */
unsigned hist_bucket_of(uint64_t ns);
void hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

#endif
