/* core/bootinfo.c on malformed multiboot2 information, shrunk from what the fuzzer found
 * (test/fuzz/regress/bootinfo): tag sizes that wrap the offset (0xFFFFFFFF looped forever),
 * sizes below a tag header, a total size beyond the buffer, module tags ending before they
 * start, strings without a NUL, more module tags than the table holds, short RSDP tags; and
 * seeded random corruptions of a valid image. Every image is malloc'd to its exact size so
 * ASan reports any read past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/bootinfo.h"

/* Room for BOOT_MAX_MODULES + 3 module tags of 40 bytes and a few more tags. */
static uint8_t img[(BOOT_MAX_MODULES + 8) * 48] __attribute__((aligned(8)));
static size_t img_len;
static struct boot_info bi;

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void begin(void)
{
	memset(img, 0, sizeof(img));
	img_len = 8;
}

/* Appends a tag with the given size field (payload copied as far as plen) and pads to 8. */
static uint8_t *add_tag(uint32_t type, uint32_t size, const void *payload, size_t plen)
{
	uint8_t *t = img + img_len;
	put32(t, type);
	put32(t + 4, size);
	if (plen)
		memcpy(t + 8, payload, plen);
	img_len += (8 + plen + 7) & ~(size_t)7;
	return t;
}

static void add_mmap(void)
{
	uint8_t p[8 + 24] = {0};
	put32(p, 24);
	uint64_t base = 0x100000, len = 0x1000000;
	memcpy(p + 8, &base, 8);
	memcpy(p + 16, &len, 8);
	put32(p + 24, 1);
	add_tag(6, 8 + sizeof(p), p, sizeof(p));
}

static void add_module(uint32_t start, uint32_t end, const char *cmd)
{
	uint8_t p[64];
	put32(p, start);
	put32(p + 4, end);
	size_t n = strlen(cmd) + 1;
	memcpy(p + 8, cmd, n);
	add_tag(3, (uint32_t)(8 + 8 + n), p, 8 + n);
}

/* Closes with an end tag and sets the total size; parses an exact-size copy. */
static const char *finish_and_parse(void)
{
	add_tag(0, 8, NULL, 0);
	put32(img, (uint32_t)img_len);
	uint8_t *copy = malloc(img_len);
	memcpy(copy, img, img_len);
	const char *err = bootinfo_parse(&bi, copy, img_len, 0x10000);
	free(copy);
	return err;
}

static void test_valid(void **state)
{
	(void)state;
	begin();
	add_tag(1, 8 + 9, "selftest", 9);
	add_module(0x200000, 0x201000, "/guests/echo.elf");
	add_mmap();
	assert_null(finish_and_parse());
	assert_string_equal(bi.cmdline, "selftest");
	assert_int_equal(bi.nr_modules, 1);
	assert_int_equal(bi.mem.n, 1);
	assert_int_equal(bi.mbi_end - bi.mbi_start, img_len);
}

/* Every tag size that is below a header or runs past the total is refused, including the
 * ones that wrap a 32-bit offset (0xFFFFFFFF made the old loop spin at the same offset). */
static void test_bad_tag_sizes(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {0,	     1,		 4,	     7,
					 0xfffffff8, 0xfffffff9, 0xfffffffa, 0xfffffffc,
					 0xffffffff, 0x80000000, 4096};
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		begin();
		add_tag(1, sizes[i], "selftest", 8);
		add_mmap();
		assert_string_equal(finish_and_parse(), "malformed multiboot2 tag");
	}
}

static void test_total_size(void **state)
{
	(void)state;
	begin();
	add_mmap();
	add_tag(0, 8, NULL, 0);
	put32(img, (uint32_t)img_len + 8); /* claims more than the buffer holds */
	assert_string_equal(bootinfo_parse(&bi, img, img_len, 0),
			    "multiboot2 information is truncated");
	put32(img, 8);
	assert_non_null(bootinfo_parse(&bi, img, img_len, 0));
	assert_string_equal(bootinfo_parse(&bi, img, 4, 0), "multiboot2 information is truncated");
	/* A tag running past the total, though inside the buffer. */
	put32(img, 24);
	assert_string_equal(bootinfo_parse(&bi, img, img_len, 0), "malformed multiboot2 tag");
}

static void test_module_tags(void **state)
{
	(void)state;
	begin();
	add_module(0x300000, 0x200000, "m");
	add_mmap();
	assert_string_equal(finish_and_parse(), "module tag ends before it starts");

	begin();
	add_tag(3, 12, "\0\0\0\0", 4); /* no room for mod_end */
	add_mmap();
	assert_string_equal(finish_and_parse(), "malformed module tag");

	/* More modules than the table holds: the rest are counted, and a malformed one is
	 * refused even after the table is full. */
	begin();
	for (unsigned i = 0; i < BOOT_MAX_MODULES + 3; i++)
		add_module(0x200000 + 0x1000 * i, 0x201000 + 0x1000 * i, "/guests/idle.elf");
	add_mmap();
	assert_null(finish_and_parse());
	assert_int_equal(bi.nr_modules, BOOT_MAX_MODULES);
	assert_int_equal(bi.modules_dropped, 3);
	assert_int_equal(bi.modules[BOOT_MAX_MODULES - 1].start,
			 0x200000 + 0x1000 * (BOOT_MAX_MODULES - 1));
	img_len -= 8 + 40; /* drop the end tag and the map, add a bad module */
	add_module(2, 1, "x");
	add_mmap();
	assert_string_equal(finish_and_parse(), "module tag ends before it starts");
}

/* A string without its NUL ends at the tag's end; one longer than the buffer is cut. */
static void test_strings(void **state)
{
	(void)state;
	begin();
	add_tag(1, 8 + 8, "selftest", 8);
	add_module(0x200000, 0x200000, "");
	img[img_len - 8] = 'z'; /* the module's command line: "z" with no NUL before the end */
	add_mmap();
	assert_null(finish_and_parse());
	assert_string_equal(bi.cmdline, "selftest");
	assert_string_equal(bi.modules[0].cmdline, "z");

	static char longline[BOOT_CMDLINE_MAX + 100];
	memset(longline, 'a', sizeof(longline) - 1);
	begin();
	add_tag(1, 8 + sizeof(longline), longline, sizeof(longline));
	add_mmap();
	assert_null(finish_and_parse());
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
}

static void test_rsdp_tags(void **state)
{
	(void)state;
	uint8_t v1[20] = "RSD PTR ", v2[36] = "RSD PTR ";
	v1[19] = 1, v2[35] = 2;
	begin();
	add_tag(15, 8 + 36, v2, 36);
	add_tag(14, 8 + 20, v1, 20); /* the 1.0 RSDP does not replace the 2.0 one */
	add_mmap();
	assert_null(finish_and_parse());
	assert_int_equal(bi.rsdp_len, 36);
	assert_int_equal(bi.rsdp[35], 2);

	begin();
	add_tag(14, 8 + 4, v1, 4); /* cut short: the length says so */
	add_mmap();
	assert_null(finish_and_parse());
	assert_true(bi.have_rsdp);
	assert_int_equal(bi.rsdp_len, 4);
	assert_int_equal(bi.rsdp[19], 0);
}

static void test_memory_map_tags(void **state)
{
	(void)state;
	begin();
	add_tag(6, 8, NULL, 0); /* the 8-byte map tag: its entry size would be past it */
	assert_string_equal(finish_and_parse(), "malformed memory map tag");
	begin();
	add_tag(17, 12, "\x30\0\0\0", 4);
	assert_string_equal(finish_and_parse(), "malformed EFI memory map tag");
	begin();
	add_tag(1, 8 + 2, "a", 2);
	assert_string_equal(finish_and_parse(), "no memory map from the boot loader");
}

/* Seeded random corruption of a valid image: random bytes at random offsets, often in the
 * size fields. The parser must return (a hang stalls the test), read nothing past
 * the buffer (ASan), and on success give a well-formed result. */
static void test_random_corruption(void **state)
{
	(void)state;
	srand(8);
	for (int iter = 0; iter < 20000; iter++) {
		begin();
		add_tag(1, 8 + 9, "selftest", 9);
		add_module(0x200000, 0x201000, "/guests/echo.elf dut=1");
		add_tag(14, 8 + 20, "RSD PTR 0123456789ab", 20);
		add_mmap();
		add_tag(0, 8, NULL, 0);
		put32(img, (uint32_t)img_len);
		int flips = 1 + rand() % 4;
		for (int f = 0; f < flips; f++) {
			size_t at = (size_t)rand() % img_len;
			if (rand() % 2)
				at &= ~(size_t)3; /* aligned: hits size and type fields */
			img[at] = (uint8_t)(rand() % 3 ? rand() : 0xff);
		}
		size_t len = rand() % 8 ? img_len : (size_t)rand() % (img_len + 1);
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, img, len);
		if (!bootinfo_parse(&bi, copy, len, 0x10000)) {
			assert_true(bi.nr_modules <= BOOT_MAX_MODULES);
			assert_true(bi.mbi_end - bi.mbi_start <= len);
			assert_non_null(memchr(bi.cmdline, 0, sizeof(bi.cmdline)));
			for (unsigned i = 0; i < bi.nr_modules; i++)
				assert_true(bi.modules[i].start <= bi.modules[i].end);
			for (unsigned i = 0; i < bi.mem.n; i++)
				assert_true(bi.mem.r[i].start < bi.mem.r[i].end);
		}
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),		cmocka_unit_test(test_bad_tag_sizes),
		cmocka_unit_test(test_total_size),	cmocka_unit_test(test_module_tags),
		cmocka_unit_test(test_strings),		cmocka_unit_test(test_rsdp_tags),
		cmocka_unit_test(test_memory_map_tags), cmocka_unit_test(test_random_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
