#include "lib/clockconv.h"

/* 128-by-64 division, bit by bit: the hypervisor links no libgcc (__udivti3), and this
 * runs only at calibration. */
static unsigned __int128 div128(unsigned __int128 n, uint64_t d)
{
	unsigned __int128 q = 0, r = 0;
	for (int i = 127; i >= 0; i--) {
		r = r << 1 | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= (unsigned __int128)1 << i;
		}
	}
	return q;
}

struct clockconv clockconv_init(uint64_t from_hz, uint64_t to_hz)
{
	struct clockconv c = {0, 0};
	/* mult = to_hz * 2^shift / from_hz, with the largest shift that keeps mult below 2^32:
	 * any 64-bit input times mult then fits the 128-bit product. */
	for (unsigned shift = 0; shift < 63; shift++) {
		unsigned __int128 m = div128((unsigned __int128)to_hz << shift, from_hz);
		if (m >= (1ull << 32))
			break;
		c.mult = (uint64_t)m;
		c.shift = shift;
	}
	return c;
}
