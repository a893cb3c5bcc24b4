/* Host tests of core/linuxboot.c (boot=linux): bzImage setup headers checked and refused
 * with their reason, the kernel, its decompression buffer and the initrd placed in seeded
 * memory sizes, the zero page written (setup header, loader type, command line cut to the
 * kernel's cmdline_size, ramdisk, ACPI RSDP, the E820 map), and seeded random headers that
 * are either refused or placed inside memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/le.h"
#include "core/linuxboot.h"
#include "core/pcboot.h"

static char why[200];
static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
/* A bzImage as Debian's 6.1 cloud kernel's header has it: 39 setup sectors, protocol
 * 2.15, LOADED_HIGH, pref_address 16 MiB, init_size `init`, then pm_len bytes of kernel. */
static uint8_t *bzimage(size_t pm_len, uint32_t init, size_t *len)
{
	*len = 40 * 512 + pm_len;
	uint8_t *p = calloc(1, *len);
	p[LBP_HDR] = 39;
	p[LBP_BOOT_FLAG] = 0x55, p[LBP_BOOT_FLAG + 1] = 0xaa;
	p[LBP_JUMP] = 0xeb, p[LBP_JUMP + 1] = 0x6a; /* header ends at 0x26c */
	memcpy(p + LBP_MAGIC, "HdrS", 4);
	p[LBP_VERSION] = 0x0f, p[LBP_VERSION + 1] = 0x02;
	p[LBP_LOADFLAGS] = LINUX_LOADED_HIGH;
	put32(p + LBP_CODE32_START, 0x100000);
	put32(p + LBP_INITRD_ADDR_MAX, 0x7fffffff);
	put32(p + LBP_KERNEL_ALIGNMENT, 0x200000);
	put32(p + LBP_CMDLINE_SIZE, 2047);
	put32(p + LBP_PREF_ADDRESS, 0x1000000);
	put32(p + LBP_INIT_SIZE, init);
	for (size_t i = 0; i < pm_len; i++)
		p[40 * 512 + i] = (uint8_t)(i * 7 + 1);
	return p;
}

static void test_refused(void **state)
{
	(void)state;
	size_t len;
	struct linux_image li;
	uint8_t *p = bzimage(4096, 0x100000, &len);
	assert_null(linux_check(p, len, &li, why, sizeof why));
	assert_int_equal(li.pm_offset, 40 * 512);
	assert_int_equal(li.pm_len, 4096);
	assert_int_equal(li.hdr_end, 0x26c);
	assert_non_null(linux_check(p, 0x200, &li, why, sizeof why));
	assert_non_null(strstr(why, "not a bzImage"));
	p[LBP_MAGIC] = 'X';
	assert_non_null(linux_check(p, len, &li, why, sizeof why));
	assert_non_null(strstr(why, "HdrS"));
	p[LBP_MAGIC] = 'H';
	p[LBP_VERSION] = 0x09;
	assert_non_null(linux_check(p, len, &li, why, sizeof why));
	assert_string_equal(why, "boot protocol 2.09 is too old (2.10 or later: Linux 2.6.31)");
	p[LBP_VERSION] = 0x0f;
	p[LBP_LOADFLAGS] = 0;
	assert_non_null(linux_check(p, len, &li, why, sizeof why));
	assert_non_null(strstr(why, "zImage"));
	p[LBP_LOADFLAGS] = LINUX_LOADED_HIGH;
	p[LBP_HDR] = 200; /* setup beyond the file */
	assert_non_null(linux_check(p, len, &li, why, sizeof why));
	assert_non_null(strstr(why, "setup sectors"));
	free(p);
}

static void test_place(void **state)
{
	(void)state;
	size_t len;
	struct linux_image li;
	uint8_t *p = bzimage(4096, 0x3378000, &len); /* Debian's init_size */
	assert_null(linux_check(p, len, &li, why, sizeof why));
	uint32_t at;
	/* 64 MiB: 16 MiB + 51 MiB does not fit; 128 MiB does, the initrd at the top. */
	assert_non_null(linux_place(&li, 0, 64u << 20, &at, why, sizeof why));
	assert_non_null(strstr(why, "kernel does not fit"));
	assert_null(linux_place(&li, 0, 128u << 20, &at, why, sizeof why));
	assert_int_equal(at, 0);
	assert_null(linux_place(&li, 5000, 128u << 20, &at, why, sizeof why));
	assert_int_equal(at, (128u << 20) - 0x2000);
	/* An initrd that would overlap the decompression buffer. */
	assert_non_null(
		linux_place(&li, (128u << 20) - 0x4000000, 128u << 20, &at, why, sizeof why));
	assert_non_null(strstr(why, "initrd"));
	/* initrd_addr_max caps it; memory above 4 GiB is never used for it. */
	li.initrd_max = 0x5fffffff;
	assert_null(linux_place(&li, 100, 8ull << 30, &at, why, sizeof why));
	assert_int_equal(at, 0x5ffff000);
	li.initrd_max = 0;
	assert_null(linux_place(&li, 100, 8ull << 30, &at, why, sizeof why));
	assert_int_equal(at, 0xfffff000u);
	free(p);
}

static void test_zero_page(void **state)
{
	(void)state;
	size_t len;
	uint8_t *p = bzimage(10000, 0x100000, &len);
	put32(p + LBP_CMDLINE_SIZE, 10);
	const uint64_t mem = 32u << 20;
	uint8_t *m = calloc(1, mem);
	uint8_t rd[3000];
	for (size_t i = 0; i < sizeof rd; i++)
		rd[i] = (uint8_t)(i ^ 0x5a);
	uint32_t entry;
	assert_null(linux_load(p, len, rd, sizeof rd, "console=ttyS0 quiet", PC_ACPI_GPA, m, mem,
			       &entry, why, sizeof why));
	assert_int_equal(entry, LINUX_KERNEL_GPA);
	assert_memory_equal(m + LINUX_KERNEL_GPA, p + 40 * 512, 10000);
	uint8_t *zp = m + LINUX_ZP_GPA;
	assert_memory_equal(zp + LBP_MAGIC, "HdrS", 4);
	assert_int_equal(zp[LBP_TYPE_OF_LOADER], 0xff);
	assert_int_equal(zp[LBP_SENTINEL], 0);
	assert_int_equal(le32(zp + LBP_CMD_LINE_PTR), LINUX_CMDLINE_GPA);
	assert_string_equal((char *)m + LINUX_CMDLINE_GPA, "console=tt"); /* cmdline_size 10 */
	uint32_t rdat = le32(zp + LBP_RAMDISK_IMAGE);
	assert_int_equal(rdat, mem - 0x1000);
	assert_int_equal(le32(zp + LBP_RAMDISK_SIZE), sizeof rd);
	assert_memory_equal(m + rdat, rd, sizeof rd);
	assert_int_equal(le64(zp + LBP_ACPI_RSDP), PC_ACPI_GPA);
	assert_int_equal(zp[LBP_E820_ENTRIES], 3);
	const uint64_t want[3][3] = {
		{0, 0x9f000, 1}, {0x9f000, 0x61000, 2}, {0x100000, mem - 0x100000, 1}};
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *e = zp + LBP_E820_TABLE + 20 * i;
		assert_int_equal(le64(e), want[i][0]);
		assert_int_equal(le64(e + 8), want[i][1]);
		assert_int_equal(le32(e + 16), want[i][2]);
	}
	/* Checking (mem NULL) gives the same verdict and writes nothing. */
	assert_null(linux_load(p, len, rd, sizeof rd, "", PC_ACPI_GPA, NULL, mem, &entry, why,
			       sizeof why));
	free(m);
	free(p);
}

/* Seeded random headers and sizes: refused, or everything placed inside memory without
 * overlap (the loader's copies stay in bounds: ASan watches the buffer). */
static void test_random_headers(void **state)
{
	(void)state;
	const uint64_t mem = 8u << 20;
	uint8_t *m = malloc(mem);
	unsigned loaded = 0;
	for (unsigned k = 0; k < 3000; k++) {
		size_t len;
		uint8_t *p = bzimage(rnd() % 70000, (uint32_t)(rnd() % (8u << 20)), &len);
		for (unsigned f = 0; f < 4; f++) /* a few header bytes flipped at random */
			p[LBP_HDR + rnd() % (LBP_INIT_SIZE + 4 - LBP_HDR)] = (uint8_t)rnd();
		put32(p + LBP_PREF_ADDRESS, (uint32_t)(rnd() % (10u << 20)));
		size_t rdlen = rnd() % 2 ? rnd() % (3u << 20) : 0;
		uint8_t *rd = calloc(1, rdlen + 1);
		uint32_t entry;
		const char *err = linux_load(p, len, rd, rdlen, "x", PC_ACPI_GPA, m, mem, &entry,
					     why, sizeof why);
		if (!err) {
			uint32_t at = le32(m + LINUX_ZP_GPA + LBP_RAMDISK_IMAGE);
			assert_true(!rdlen || (uint64_t)at + rdlen <= mem);
			assert_int_equal(at & 0xfff, 0);
			loaded++;
		} else {
			assert_true(strlen(err) > 10);
		}
		free(rd);
		free(p);
	}
	assert_in_range(loaded, 100, 2900); /* both verdicts were exercised */
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_zero_page),
		cmocka_unit_test(test_random_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
