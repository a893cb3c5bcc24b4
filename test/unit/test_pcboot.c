/* Host tests of core/pcboot.c: the ACPI tables a boot=mb1/real domain gets are read back
 * through drivers/acpi_tables.c (the hypervisor's own parser: checksums, RSDP -> RSDT ->
 * MADT/FADT) for every vCPU count; the multiboot1 information for seeded memory sizes; the
 * guest command line without sliver's keys for seeded word mixes; the PM timer's rate for
 * seeded TSC rates; multiboot1 and real-mode images loaded or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/elf.h"
#include "core/pcboot.h"
#include "drivers/acpi_tables.h"

struct acpi_info acpi;
static uint8_t tables[PC_ACPI_SIZE];
static char why[160];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static const uint8_t *map(uint64_t pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa < PC_ACPI_GPA || pa - PC_ACPI_GPA > PC_ACPI_SIZE ||
	    len > PC_ACPI_SIZE - (pa - PC_ACPI_GPA))
		return NULL;
	return tables + (pa - PC_ACPI_GPA);
}

static void test_acpi_every_cpu_count(void **state)
{
	(void)state;
	for (unsigned n = 1; n <= 8; n++) {
		acpi_build(tables, n);
		assert_int_equal(acpi_find_rsdp(tables, sizeof tables), 0);
		uint64_t root;
		bool xsdt;
		assert_true(acpi_parse_rsdp(tables, 20, &root, &xsdt));
		assert_false(xsdt);
		struct acpi_info ai;
		struct acpi_power pw;
		assert_null(acpi_walk(&ai, &pw, tables, 20, map, NULL));
		assert_int_equal(ai.nr_cpus, n);
		for (unsigned i = 0; i < n; i++)
			assert_int_equal(ai.apic_ids[i], i);
		assert_int_equal(ai.lapic_base, 0xfee00000u);
		assert_int_equal(pw.pm1a_cnt, PC_PORT_PM1A_CNT);
		assert_int_equal(pw.smi_cmd, 0);
		size_t len;
		const uint8_t *f = acpi_lookup(tables, 20, "FACP", map, NULL, &len);
		assert_non_null(f);
		uint32_t tmr;
		memcpy(&tmr, f + 76, 4);
		assert_int_equal(tmr, PC_PORT_PM_TMR);
		assert_int_equal(f[91], 4);
		assert_non_null(acpi_lookup(tables, 20, "APIC", map, NULL, &len));
		assert_int_equal(len, 44 + 8 * n);
		/* A flipped byte anywhere in a table breaks its checksum. */
		uint8_t *m = (uint8_t *)acpi_lookup(tables, 20, "APIC", map, NULL, &len);
		size_t at = rnd() % len;
		m[at] ^= 0x40;
		assert_false(acpi_table_ok(m, len));
		m[at] ^= 0x40;
		assert_true(acpi_table_ok(m, len));
	}
}

static void test_mb1_info(void **state)
{
	(void)state;
	static uint8_t page[PC_INFO_SIZE];
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t mem = ((rnd() % 2048) + 2) << 20;
		char cl[64];
		snprintf(cl, sizeof cl, "/guests/pc.elf x=%u", i);
		uint32_t flags = mb1_info_build(page, mem, cl);
		uint32_t w[7];
		memcpy(w, page, sizeof w);
		assert_int_equal(flags, MB1_INFO_MEM | MB1_INFO_CMDLINE | MB1_INFO_MODS);
		assert_int_equal(w[0], flags);
		assert_int_equal(w[1], 636);			  /* mem_lower, KiB: 0..0x9f000 */
		assert_int_equal(w[2], (mem - (1u << 20)) >> 10); /* mem_upper from 1 MiB */
		assert_true(w[4] > PC_INFO_GPA && w[4] < PC_INFO_GPA + PC_INFO_SIZE);
		assert_string_equal((char *)page + (w[4] - PC_INFO_GPA), cl);
		assert_int_equal(w[5], 0); /* mods_count */
	}
	/* A command line longer than its room is cut, NUL-terminated, inside the page. */
	static char big[8000];
	memset(big, 'a', sizeof big - 1);
	mb1_info_build(page, 4 << 20, big);
	uint32_t cl;
	memcpy(&cl, page + 16, 4);
	assert_true(strlen((char *)page + (cl - PC_INFO_GPA)) < PC_INFO_SIZE - (cl - PC_INFO_GPA));
}

static void test_guest_cmdline(void **state)
{
	(void)state;
	static const char *const own[] = {"name=pc",  "mem=8",	     "vcpus=2",	   "weight=3",
					  "cap=50",   "pin=0,1",     "role=guest", "evt.allow=1:*",
					  "boot=mb1", "load=0x8000", "\"mem=4\""};
	static const char *const theirs[] = {
		"/guests/pc.elf", "console=ttyS0", "memx=1", "named", "x", "-v", "bootx=1", "cap"};
	for (unsigned r = 0; r < 2000; r++) {
		char in[512] = "", want[512] = "", out[512];
		unsigned n = rnd() % 10;
		for (unsigned i = 0; i < n; i++) {
			bool mine = rnd() & 1;
			const char *w = mine ? own[rnd() % 11] : theirs[rnd() % 8];
			/* "cap" bare is sliver's key too (a bare key matches). */
			if (!mine && strcmp(w, "cap"))
				snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
					 want[0] ? " " : "", w);
			else if (!mine)
				continue;
			snprintf(in + strlen(in), sizeof in - strlen(in), "%s%s", in[0] ? "  " : "",
				 w);
		}
		pc_guest_cmdline(in, out, sizeof out);
		assert_string_equal(out, want);
	}
	char small[8];
	pc_guest_cmdline("abc defgh ij", small, sizeof small);
	assert_string_equal(small, "abc");
}

static void test_pm_timer(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t hz = 100000000ull + rnd() % 5000000000ull;
		struct clockconv c = clockconv_init(hz, PC_PM_TIMER_HZ);
		/* One second of TSC ticks is 3579545 counts (24 bits hold 4.69 s). */
		uint32_t one = pm_timer_count(c, hz);
		assert_true(one >= PC_PM_TIMER_HZ - 1 && one <= PC_PM_TIMER_HZ);
		uint64_t t = rnd() % (hz * 1000);
		uint64_t full = clockconv_apply(c, t);
		assert_int_equal(pm_timer_count(c, t), full & 0xffffff);
		assert_true(pm_timer_count(c, t) <= 0xffffff);
	}
}

static uint8_t img[16384];
static uint8_t *mem;
#define MEM (4u << 20)

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static size_t aout_image(uint32_t hdr_off, uint32_t load, uint32_t load_end, uint32_t bss_end,
			 uint32_t entry)
{
	memset(img, 0x5a, sizeof img);
	uint8_t *h = img + hdr_off;
	uint32_t flags = MB1_HDR_AOUT_KLUDGE | 2;
	put32(h, MB1_HEADER_MAGIC);
	put32(h + 4, flags);
	put32(h + 8, -(MB1_HEADER_MAGIC + flags));
	put32(h + 12, load + hdr_off), put32(h + 16, load), put32(h + 20, load_end);
	put32(h + 24, bss_end), put32(h + 28, entry);
	return 4096;
}

static void test_mb1_images(void **state)
{
	(void)state;
	uint32_t entry;
	size_t len = aout_image(64, 0x100000, 0x100000 + 4096, 0x100000 + 8192, 0x100010);
	assert_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_int_equal(entry, 0x100010);
	assert_int_equal(mem[0x100000], 0x5a);
	assert_int_equal(mem[0x100000 + 4096], 0); /* bss */
	/* Below 1 MiB, past memory, entry outside, bad checksum, no header: refused. */
	aout_image(64, 0x8000, 0x9000, 0, 0x8000);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	aout_image(64, MEM - 100, MEM, MEM + 4096, MEM - 100);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "outside guest memory"));
	aout_image(64, 0x100000, 0x101000, 0, 0x200000);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	aout_image(64, 0x100000, 0x101000, 0, 0x100000);
	img[64 + 8] ^= 1;
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "checksum"));
	memset(img, 0, sizeof img);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "no multiboot1 header"));
	/* load_end_addr past the file. */
	aout_image(64, 0x100000, 0x100000 + 100000, 0, 0x100000);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	/* Seeded garbage around a header never loads outside memory (mem is only MEM). */
	for (unsigned i = 0; i < 20000; i++) {
		aout_image(4 * (rnd() % 64), (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd(),
			   (uint32_t)rnd());
		if (!mb1_load(img, 4096, NULL, MEM, &entry, why, sizeof why))
			assert_null(mb1_load(img, 4096, mem, MEM, &entry, why, sizeof why));
	}
}

static void test_real_images(void **state)
{
	(void)state;
	uint16_t cs, ip;
	memset(img, 0xf4, 64);
	assert_null(real_load(img, 64, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
	assert_int_equal(cs, 0x800);
	assert_int_equal(ip, 0);
	assert_int_equal(mem[0x8000], 0xf4);
	assert_null(real_load(img, 64, mem, MEM, 0x7c05, &cs, &ip, why, sizeof why));
	assert_int_equal(cs * 16 + ip, 0x7c05);
	assert_non_null(real_load(img, 64, mem, MEM, 0x400, &cs, &ip, why, sizeof why));
	assert_non_null(real_load(img, 64, mem, MEM, PC_LOW_END - 63, &cs, &ip, why, sizeof why));
	assert_non_null(real_load(img, 0, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
	/* An ELF outside low memory is refused. */
	memset(img, 0, 4096);
	memcpy(img,
	       "\x7f"
	       "ELF",
	       4);
	assert_non_null(real_load(img, 4096, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
}

static void test_keys(void **state)
{
	(void)state;
	enum pc_boot b;
	assert_true(pc_boot_parse("mb1", &b) && b == PC_BOOT_MB1);
	assert_true(pc_boot_parse("real", &b) && b == PC_BOOT_REAL);
	assert_true(pc_boot_parse("sliver", &b) && b == PC_BOOT_SLIVER);
	assert_false(pc_boot_parse("mb2", &b));
	assert_false(pc_boot_parse("", &b));
}

int main(void)
{
	mem = calloc(1, MEM);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acpi_every_cpu_count),
		cmocka_unit_test(test_mb1_info),
		cmocka_unit_test(test_guest_cmdline),
		cmocka_unit_test(test_pm_timer),
		cmocka_unit_test(test_mb1_images),
		cmocka_unit_test(test_real_images),
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
