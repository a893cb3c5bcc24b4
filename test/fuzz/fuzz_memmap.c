/* libFuzzer target: core/memmap.c on one memory-map tag. The first input byte picks the
 * parser (even: multiboot2 tag 6, odd: EFI tag 17), the rest is the tag, whose size field
 * is trusted only as far as the remaining length allows. */
#include "core/memmap.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct memmap m = {0};
	bool efi = data[0] & 1;
	bool ok = efi ? memmap_parse_efi(&m, data + 1, size - 1)
		      : memmap_parse_mb2(&m, data + 1, size - 1);
	if (!ok) {
		FUZZ_CHECK(m.n == 0);
		return 0;
	}
	FUZZ_CHECK(m.n <= MEMMAP_MAX);
	uint64_t total = 0;
	for (unsigned i = 0; i < m.n; i++) {
		FUZZ_CHECK(m.r[i].start < m.r[i].end);
		FUZZ_CHECK(m.r[i].start % 4096 == 0 && m.r[i].end % 4096 == 0);
		FUZZ_CHECK(i == 0 || m.r[i - 1].end < m.r[i].start);
		total += m.r[i].end - m.r[i].start;
	}
	FUZZ_CHECK(memmap_total(&m) == total);
	return 0;
}
