/* libFuzzer target: core/bootinfo.c (and core/memmap.c under it) on arbitrary multiboot2
 * information. The input is the information itself; libFuzzer hands it over in a buffer of
 * exactly `size` bytes, so ASan reports any read past it. */
#include <string.h>
#include "core/bootinfo.h"
#include "fuzz.h"

static void check_memmap(const struct memmap *m)
{
	FUZZ_CHECK(m->n <= MEMMAP_MAX);
	for (unsigned i = 0; i < m->n; i++) {
		FUZZ_CHECK(m->r[i].start < m->r[i].end);
		FUZZ_CHECK(m->r[i].start % 4096 == 0 && m->r[i].end % 4096 == 0);
		FUZZ_CHECK(i == 0 || m->r[i - 1].end < m->r[i].start);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct boot_info bi;
	const char *err = bootinfo_parse(&bi, data, size, 0x10000);
	if (err)
		return 0;
	FUZZ_CHECK(bi.mbi_end > bi.mbi_start && bi.mbi_end - bi.mbi_start <= size);
	FUZZ_CHECK(memchr(bi.cmdline, 0, sizeof(bi.cmdline)));
	FUZZ_CHECK(bi.nr_modules <= BOOT_MAX_MODULES);
	for (unsigned i = 0; i < bi.nr_modules; i++) {
		FUZZ_CHECK(bi.modules[i].start <= bi.modules[i].end);
		FUZZ_CHECK(memchr(bi.modules[i].cmdline, 0, sizeof(bi.modules[i].cmdline)));
	}
	FUZZ_CHECK(bi.rsdp_len <= sizeof(bi.rsdp));
	FUZZ_CHECK(bi.mmap_tag >= data && bi.mmap_tag_size <= size - (size_t)(bi.mmap_tag - data));
	check_memmap(&bi.mem);
	return 0;
}
