/* Converting between two clock rates with a multiply and a shift instead of a division:
 * out = (in * mult) >> shift, with a 128-bit product. clockconv_init picks the largest
 * shift whose mult still fits in 32 bits, so the relative error is below 2^-31 plus one
 * unit of truncation. */
#ifndef LIB_CLOCKCONV_H
#define LIB_CLOCKCONV_H
#include <stdint.h>

struct clockconv {
	uint64_t mult;
	unsigned shift;
};

/* Converts counts of a clock at from_hz into counts of a clock at to_hz. */
struct clockconv clockconv_init(uint64_t from_hz, uint64_t to_hz);

static inline uint64_t clockconv_apply(struct clockconv c, uint64_t v)
{
	return (uint64_t)(((unsigned __int128)v * c.mult) >> c.shift);
}

#endif
