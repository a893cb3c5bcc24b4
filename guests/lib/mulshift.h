/* The guest's TSC-to-ns conversion, identical to the hypervisor's clockconv_apply
 * ((v * mult) >> shift with a 128-bit product) but with only 32x32->64 multiplies, which
 * i386 has. Host-tested against lib/clockconv (test/unit/test_mulshift.c). */
#ifndef GUESTS_LIB_MULSHIFT_H
#define GUESTS_LIB_MULSHIFT_H
#include <stdint.h>

/* (a * mul) >> shift with the full 96-bit product; shift < 64; the result must fit 64 bits. */
static inline uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, uint32_t shift)
{
	uint64_t lo = (uint64_t)(uint32_t)a * mul; /* bits 0..63 */
	uint64_t mid = (a >> 32) * mul;		   /* bits 32..95 */
	uint64_t low64 = lo + (mid << 32);
	uint32_t high32 = (uint32_t)(mid >> 32) + (low64 < lo);
	if (shift == 0)
		return low64;
	if (shift < 32)
		return (low64 >> shift) | ((uint64_t)high32 << (64 - shift));
	if (shift == 32)
		return (low64 >> 32) | ((uint64_t)high32 << 32);
	return ((low64 >> 32) | ((uint64_t)high32 << 32)) >> (shift - 32);
}

#endif
