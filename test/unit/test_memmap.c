/* Memory map parsing: captured SeaBIOS and OVMF maps (test/unit/fixtures), overlapping and
 * unsorted firmware entries, EFI maps, reservations carved out of usable ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/bootinfo.h"
#include "core/memmap.h"

#define MAX_ENTRIES 64
static uint8_t tag[16 + 24 * MAX_ENTRIES];

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Builds a multiboot2 tag 6 from (base, len, type) triples. */
static const uint8_t *mb2_tag(const uint64_t (*e)[3], unsigned n)
{
	put32(tag, 6);
	put32(tag + 4, 16 + 24 * n);
	put32(tag + 8, 24);
	put32(tag + 12, 0);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = tag + 16 + 24 * i;
		put64(p, e[i][0]);
		put64(p + 8, e[i][1]);
		put32(p + 16, (uint32_t)e[i][2]);
		put32(p + 20, 0);
	}
	return tag;
}

static unsigned load_fixture(const char *name, uint64_t (*e)[3])
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[256];
	unsigned n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long b, l;
		unsigned t;
		if (line[0] == '#' || sscanf(line, "%llx %llx %u", &b, &l, &t) != 3)
			continue;
		assert_true(n < MAX_ENTRIES);
		e[n][0] = b, e[n][1] = l, e[n][2] = t;
		n++;
	}
	fclose(f);
	return n;
}

static void assert_range(const struct memmap *m, unsigned i, uint64_t s, uint64_t e)
{
	assert_true(i < m->n);
	assert_int_equal(m->r[i].start, s);
	assert_int_equal(m->r[i].end, e);
}

static void assert_well_formed(const struct memmap *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		assert_true(m->r[i].start < m->r[i].end);
		assert_int_equal(m->r[i].start % 4096, 0);
		assert_int_equal(m->r[i].end % 4096, 0);
		if (i)
			assert_true(m->r[i - 1].end < m->r[i].start);
	}
}

static void test_seabios_fixture(void **state)
{
	(void)state;
	uint64_t e[MAX_ENTRIES][3];
	unsigned n = load_fixture("seabios-256m.map", e);
	struct memmap m = {0};
	assert_true(memmap_parse_mb2(&m, mb2_tag(e, n), sizeof(tag)));
	assert_well_formed(&m);
	assert_int_equal(m.n, 2);
	assert_range(&m, 0, 0, 0x9f000); /* 0x9fc00 rounded down to a page */
	assert_range(&m, 1, 0x100000, 0xffe0000);
}

static void test_ovmf_fixture(void **state)
{
	(void)state;
	uint64_t e[MAX_ENTRIES][3];
	unsigned n = load_fixture("ovmf-256m.map", e);
	struct memmap m = {0};
	assert_true(memmap_parse_mb2(&m, mb2_tag(e, n), sizeof(tag)));
	assert_well_formed(&m);
	/* ACPI NVS (type 4) at 8 MiB splits the low range, as emulators.md warns. */
	assert_range(&m, 0, 0, 0xa0000);
	assert_range(&m, 1, 0x100000, 0x800000);
	assert_range(&m, 2, 0x808000, 0x80b000);
	assert_range(&m, 3, 0x80c000, 0x810000);
	assert_range(&m, 4, 0x900000, 0xeabb000);
	assert_range(&m, 5, 0xeb7c000, 0xf4ed000);
	assert_range(&m, 6, 0xf7ff000, 0xff58000);
	assert_int_equal(m.n, 7);
	/* No byte of a non-type-1 entry is usable. */
	for (unsigned i = 0; i < n; i++) {
		if (e[i][2] == 1)
			continue;
		for (unsigned j = 0; j < m.n; j++)
			assert_true(m.r[j].end <= e[i][0] || m.r[j].start >= e[i][0] + e[i][1]);
	}
}

static void test_overlap_reserved_wins(void **state)
{
	(void)state;
	/* Unsorted, overlapping: a reserved hole inside usable memory listed before it. */
	static const uint64_t e[][3] = {
		{0x200000, 0x1000, 2},
		{0x100000, 0x400000, 1},
		{0x300000, 0x300000, 1},
		{0x5ff800, 0x100, 3},
	};
	struct memmap m = {0};
	assert_true(memmap_parse_mb2(&m, mb2_tag(e, 4), sizeof(tag)));
	assert_well_formed(&m);
	/* usable 0x100000-0x600000; holes at 0x200000 (one page) and 0x5ff000 (rounded out). */
	assert_int_equal(m.n, 2);
	assert_range(&m, 0, 0x100000, 0x200000);
	assert_range(&m, 1, 0x201000, 0x5ff000);
}

static void test_reserve_splits_and_trims(void **state)
{
	(void)state;
	struct memmap m = {0};
	memmap_add(&m, 0x100000, 0x1000000);
	memmap_reserve(&m, 0x100000, 0x180000);	 /* trims the front */
	memmap_reserve(&m, 0x400800, 0x401000);	 /* unaligned: rounds outward */
	memmap_reserve(&m, 0xff0000, 0x2000000); /* trims the back, past the end */
	assert_well_formed(&m);
	assert_int_equal(m.n, 2);
	assert_range(&m, 0, 0x180000, 0x400000);
	assert_range(&m, 1, 0x401000, 0xff0000);
	assert_int_equal(memmap_total(&m), (0x400000 - 0x180000) + (0xff0000 - 0x401000));
}

static void test_add_merges_adjacent(void **state)
{
	(void)state;
	struct memmap m = {0};
	memmap_add(&m, 0x300000, 0x400000);
	memmap_add(&m, 0x100000, 0x200000);
	memmap_add(&m, 0x1ff000, 0x301000); /* bridges both */
	memmap_add(&m, 0x800000, 0x800fff); /* less than a page once aligned: dropped */
	assert_int_equal(m.n, 1);
	assert_range(&m, 0, 0x100000, 0x400000);
}

static void test_efi_map(void **state)
{
	(void)state;
	static uint8_t t[16 + 48 * 3];
	/* type, phys, pages: conventional, ACPI NVS (10), conventional */
	static const uint64_t d[3][3] = {
		{7, 0x100000, 0x700}, {10, 0x800000, 8}, {7, 0x808000, 0x10}};
	put32(t, 17);
	put32(t + 4, sizeof(t));
	put32(t + 8, 48);
	put32(t + 12, 1);
	for (int i = 0; i < 3; i++) {
		uint8_t *p = t + 16 + 48 * i;
		memset(p, 0, 48);
		put32(p, (uint32_t)d[i][0]);
		put64(p + 8, d[i][1]);
		put64(p + 24, d[i][2]);
	}
	struct memmap m = {0};
	assert_true(memmap_parse_efi(&m, t, sizeof(t)));
	assert_int_equal(m.n, 2);
	assert_range(&m, 0, 0x100000, 0x800000);
	assert_range(&m, 1, 0x808000, 0x818000);
}

static void test_malformed(void **state)
{
	(void)state;
	struct memmap m = {0};
	uint8_t t[16] = {6, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0}; /* entry size 8: too small */
	assert_false(memmap_parse_mb2(&m, t, sizeof(t)));
}

/* Found by the fuzzer (test/fuzz/regress/memmap): an 8-byte tag had its entry size read
 * past it; an entry size near 2^32 wrapped `off + esize` and read an entry past a 16-byte
 * tag. Each case is a tag of exactly its size, so ASan reports any read beyond it. */
static void test_malformed_sizes(void **state)
{
	(void)state;
	static const struct {
		uint32_t len, size, esize;
	} cases[] = {
		{8, 8, 0},	      /* header cut: no entry size inside the tag */
		{15, 15, 24},	      /* shorter than the 16-byte header */
		{16, 16, 0xfffffff8}, /* entry size wraps the offset */
		{40, 40, 0xffffffe8},
		{40, 40, 0},
		{40, 40, 23},
		{40, 64, 24}, /* the size field claims more than the buffer */
		{40, 0xffffffff, 24},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int efi = 0; efi < 2; efi++) {
			uint8_t *t = calloc(1, cases[i].len);
			uint8_t hdr[12];
			put32(hdr, efi ? 17 : 6);
			put32(hdr + 4, cases[i].size);
			put32(hdr + 8, cases[i].esize);
			memcpy(t, hdr, cases[i].len < 12 ? cases[i].len : 12);
			struct memmap m = {0};
			bool ok = efi ? memmap_parse_efi(&m, t, cases[i].len)
				      : memmap_parse_mb2(&m, t, cases[i].len);
			/* A valid header with an entry size larger than the tag: no entries. */
			bool expect = cases[i].len >= 16 && cases[i].size <= cases[i].len &&
				      cases[i].size >= 16 && cases[i].esize >= (efi ? 48u : 24u);
			assert_int_equal(ok, expect);
			assert_int_equal(m.n, 0);
			free(t);
		}
	}
}

/* Seeded random entry sizes and tag sizes around a captured map: never a read past the
 * exact-size tag, and the result stays well formed. */
static void test_random_sizes(void **state)
{
	(void)state;
	uint64_t e[MAX_ENTRIES][3];
	unsigned n = load_fixture("ovmf-256m.map", e);
	mb2_tag((const uint64_t(*)[3])e, n);
	size_t full = 16 + 24 * (size_t)n;
	srand(6);
	for (int iter = 0; iter < 5000; iter++) {
		size_t len = (size_t)rand() % (full + 1);
		uint8_t *t = malloc(len ? len : 1);
		memcpy(t, tag, len);
		if (len >= 12) {
			put32(t + 4, rand() % 2 ? (uint32_t)len
						: (uint32_t)rand() % (uint32_t)(full + 64));
			put32(t + 8, rand() % 2 ? 24u + (uint32_t)rand() % 16 : (uint32_t)rand());
		}
		struct memmap m = {0};
		memmap_parse_mb2(&m, t, len);
		assert_well_formed(&m);
		free(t);
	}
}

/* More entries than struct memmap holds: seeded random maps of up to 200 entries, a
 * quarter of them reserved. The result stays well formed, never contains a byte that a
 * reserved entry covers or that no usable entry covers, and, unless it says it dropped
 * ranges, holds every page that a usable entry covers and no reserved entry touches. */
static void test_more_entries_than_the_table(void **state)
{
	(void)state;
	static uint64_t e[200][3];
	static uint8_t big[16 + 24 * 200];
	unsigned truncations = 0;
	srand(128);
	for (int iter = 0; iter < 300; iter++) {
		unsigned n = 1 + (unsigned)rand() % 200;
		for (unsigned i = 0; i < n; i++) {
			e[i][0] =
				((uint64_t)(rand() % 65536) << 16) + (uint64_t)(rand() % 3) * 0x800;
			e[i][1] = 0x1000 + (uint64_t)(rand() % 16) * 0x1000;
			e[i][2] = rand() % 4 ? 1 : 2;
		}
		put32(big, 6);
		put32(big + 4, 16 + 24 * n);
		put32(big + 8, 24);
		put32(big + 12, 0);
		for (unsigned i = 0; i < n; i++) {
			uint8_t *p = big + 16 + 24 * i;
			put64(p, e[i][0]);
			put64(p + 8, e[i][1]);
			put32(p + 16, (uint32_t)e[i][2]);
			put32(p + 20, 0);
		}
		struct memmap m = {0};
		assert_true(memmap_parse_mb2(&m, big, 16 + 24 * (size_t)n));
		assert_well_formed(&m);
		assert_true(m.n <= MEMMAP_MAX);
		truncations += m.truncated;
		for (unsigned r = 0; r < m.n; r++) {
			for (uint64_t a = m.r[r].start; a < m.r[r].end; a += 0x800) {
				bool usable = false;
				for (unsigned i = 0; i < n; i++) {
					bool in = a >= e[i][0] && a < e[i][0] + e[i][1];
					assert_false(in && e[i][2] != 1);
					usable |= in;
				}
				assert_true(usable);
			}
		}
		/* Complete unless truncated: a page inside a usable entry that no reserved entry
		 * touches is in the map. */
		for (unsigned i = 0; i < n && !m.truncated; i++) {
			if (e[i][2] != 1)
				continue;
			uint64_t a = (e[i][0] + 0xfff) & ~0xfffull;
			for (; a + 0x1000 <= e[i][0] + e[i][1]; a += 0x1000) {
				bool reserved = false, found = false;
				for (unsigned j = 0; j < n; j++)
					reserved |= e[j][2] != 1 && e[j][0] < a + 0x1000 &&
						    a < e[j][0] + e[j][1];
				for (unsigned r = 0; r < m.n; r++)
					found |= a >= m.r[r].start && a < m.r[r].end;
				assert_int_equal(found, !reserved);
			}
		}
	}
	assert_true(truncations > 0); /* the generator does reach the limit */
}

static void test_overflowing_entry(void **state)
{
	(void)state;
	static const uint64_t e[][3] = {{0xfffffffffffff000ull, 0x10000, 1}};
	struct memmap m = {0};
	assert_true(memmap_parse_mb2(&m, mb2_tag(e, 1), sizeof(tag)));
	assert_well_formed(&m);
}

static void test_bootinfo_parse(void **state)
{
	(void)state;
	static uint8_t mbi[512] __attribute__((aligned(8)));
	static const uint64_t e[][3] = {{0x100000, 0x1000000, 1}};
	memset(mbi, 0, sizeof(mbi));
	size_t off = 8;
	put32(mbi + off, 1); /* command line */
	put32(mbi + off + 4, 8 + 15);
	memcpy(mbi + off + 8, "selftest a=\"b\"", 15);
	off += 24;
	put32(mbi + off, 3); /* module */
	put32(mbi + off + 4, 16 + 23);
	put32(mbi + off + 8, 0x200000);
	put32(mbi + off + 12, 0x201000);
	memcpy(mbi + off + 16, "/guests/echo.elf dut=1", 23);
	off += 40;
	mb2_tag(e, 1);
	memcpy(mbi + off, tag, 16 + 24);
	off += 40;
	put32(mbi + off, 0); /* end */
	put32(mbi + off + 4, 8);
	off += 8;
	put32(mbi, (uint32_t)off);
	static struct boot_info bi;
	assert_null(bootinfo_parse(&bi, mbi, sizeof(mbi), 0x10000));
	assert_string_equal(bi.cmdline, "selftest a=\"b\"");
	assert_int_equal(bi.nr_modules, 1);
	assert_int_equal(bi.modules[0].start, 0x200000);
	assert_string_equal(bi.modules[0].cmdline, "/guests/echo.elf dut=1");
	assert_int_equal(bi.mem.n, 1);
	assert_int_equal(bi.mbi_end, 0x10000 + off);

	put32(mbi + 8 + 4, 4000); /* a tag running past the end */
	static struct boot_info bad;
	assert_non_null(bootinfo_parse(&bad, mbi, sizeof(mbi), 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seabios_fixture),
		cmocka_unit_test(test_ovmf_fixture),
		cmocka_unit_test(test_overlap_reserved_wins),
		cmocka_unit_test(test_reserve_splits_and_trims),
		cmocka_unit_test(test_add_merges_adjacent),
		cmocka_unit_test(test_efi_map),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_sizes),
		cmocka_unit_test(test_random_sizes),
		cmocka_unit_test(test_more_entries_than_the_table),
		cmocka_unit_test(test_overflowing_entry),
		cmocka_unit_test(test_bootinfo_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
