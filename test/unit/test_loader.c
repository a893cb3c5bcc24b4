/* Host tests of core/loader.c: valid ELF32/ELF64 images load; every malformed or
 * oversized image is refused with a reason naming the problem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/elf.h"
#include "core/loader.h"

#define MEM (1u << 20)
#define MIN 0x10000u

static uint8_t img[8192];
static uint8_t *mem;
static char why[128];

/* ELF32 with one PT_LOAD: 16 bytes of file data at paddr, memsz 64. */
static size_t make32(uint32_t paddr, uint32_t filesz, uint32_t memsz, uint32_t entry)
{
	memset(img, 0, sizeof img);
	struct elf32_ehdr eh = {.type = ET_EXEC,
				.machine = EM_386,
				.version = 1,
				.entry = entry,
				.phoff = sizeof eh,
				.ehsize = sizeof eh,
				.phentsize = sizeof(struct elf32_phdr),
				.phnum = 2};
	memcpy(eh.ident,
	       "\x7f"
	       "ELF",
	       4);
	eh.ident[4] = ELFCLASS32;
	eh.ident[5] = ELFDATA2LSB;
	struct elf32_phdr ph[2] = {
		{.type = 6 /* PT_PHDR: ignored */},
		{.type = PT_LOAD,
		 .offset = 0x1000,
		 .vaddr = paddr,
		 .paddr = paddr,
		 .filesz = filesz,
		 .memsz = memsz,
		 .flags = PF_X | 4},
	};
	memcpy(img, &eh, sizeof eh);
	memcpy(img + sizeof eh, ph, sizeof ph);
	for (unsigned i = 0; i < 16; i++)
		img[0x1000 + i] = (uint8_t)(0xa0 + i);
	return 0x1000 + 16;
}

static size_t make64(uint64_t paddr, uint64_t memsz, uint64_t entry)
{
	memset(img, 0, sizeof img);
	struct elf64_ehdr eh = {.type = ET_EXEC,
				.machine = EM_X86_64,
				.version = 1,
				.entry = entry,
				.phoff = sizeof eh,
				.ehsize = sizeof eh,
				.phentsize = sizeof(struct elf64_phdr),
				.phnum = 1};
	memcpy(eh.ident,
	       "\x7f"
	       "ELF",
	       4);
	eh.ident[4] = ELFCLASS64;
	eh.ident[5] = ELFDATA2LSB;
	struct elf64_phdr ph = {.type = PT_LOAD,
				.flags = PF_X,
				.offset = 0x1000,
				.vaddr = paddr,
				.paddr = paddr,
				.filesz = 16,
				.memsz = memsz};
	memcpy(img, &eh, sizeof eh);
	memcpy(img + sizeof eh, &ph, sizeof ph);
	for (unsigned i = 0; i < 16; i++)
		img[0x1000 + i] = (uint8_t)(0x50 + i);
	return 0x1000 + 16;
}

static int setup(void **s)
{
	(void)s;
	mem = malloc(MEM);
	memset(mem, 0xcc, MEM);
	why[0] = 0;
	return 0;
}
static int teardown(void **s)
{
	(void)s;
	free(mem);
	return 0;
}

static void refused(const char *err, const char *want)
{
	assert_non_null(err);
	assert_ptr_equal(err, why);
	if (!strstr(why, want))
		fail_msg("reason '%s' lacks '%s'", why, want);
}

static void test_elf32_loads(void **s)
{
	(void)s;
	struct elf_image_info in;
	size_t len = make32(0x100000 - 0x1000, 16, 64, 0x100000 - 0x1000);
	assert_null(elf_load(img, len, mem, MIN, MEM, &in, why, sizeof why));
	assert_int_equal(in.entry, 0xff000);
	assert_int_equal(in.lo, 0xff000);
	assert_int_equal(in.hi, 0xff000 + 64);
	assert_int_equal(in.is64, 0);
	assert_int_equal(in.nr_load, 1);
	assert_int_equal(mem[0xff000], 0xa0);
	assert_int_equal(mem[0xff00f], 0xaf);
	assert_int_equal(mem[0xff010], 0); /* bss zeroed */
	assert_int_equal(mem[0xff03f], 0);
	assert_int_equal(mem[0xff040], 0xcc); /* nothing past memsz */
}

static void test_elf64_loads(void **s)
{
	(void)s;
	struct elf_image_info in;
	size_t len = make64(0x20000, 32, 0x20004);
	assert_null(elf_load(img, len, mem, MIN, MEM, &in, why, sizeof why));
	assert_int_equal(in.is64, 1);
	assert_int_equal(in.entry, 0x20004);
	assert_int_equal(mem[0x20000], 0x50);
	assert_int_equal(mem[0x2001f], 0);
}

static void test_not_elf(void **s)
{
	(void)s;
	memset(img, 'A', 256);
	refused(elf_check(img, 256, MIN, MEM, NULL, why, sizeof why), "not an ELF image");
	refused(elf_check(img, 3, MIN, MEM, NULL, why, sizeof why), "not an ELF image");
	refused(elf_check(NULL, 0, MIN, MEM, NULL, why, sizeof why), "not an ELF image");
}

static void test_truncated_header(void **s)
{
	(void)s;
	make32(0x20000, 16, 16, 0x20000);
	refused(elf_check(img, 40, MIN, MEM, NULL, why, sizeof why), "truncated");
	make32(0x20000, 16, 16, 0x20000);
	refused(elf_check(img, 60, MIN, MEM, NULL, why, sizeof why), "program headers outside");
}

static void test_segment_outside_memory(void **s)
{
	(void)s;
	size_t len = make32(MEM - 32, 16, 64, MEM - 32);
	refused(elf_load(img, len, mem, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
	len = make32(0x1000, 16, 16, 0x1000); /* over the boot-info pages */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
	len = make32(0xfffffff0u, 16, 0x20, 0xfffffff0u); /* wraps */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
	len = make64(0xfffffffffffff000ull, 0x2000, 0xfffffffffffff000ull);
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
	len = make64(0x20000, 0xffffffffffffff00ull, 0x20000);
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
}

static void test_oversize(void **s)
{
	(void)s;
	size_t len = make32(0x20000, 16, 2 * MEM, 0x20000);
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside guest memory");
}

static void test_bad_segment_fields(void **s)
{
	(void)s;
	size_t len = make32(0x20000, 64, 16, 0x20000);
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "over its memory size");
	len = make32(0x20000, 4096, 4096, 0x20000); /* data past end of file */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "outside the file");
}

static void test_bad_entry_machine_type(void **s)
{
	(void)s;
	size_t len = make32(0x20000, 16, 16, 0x30000);
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "entry point");
	len = make32(0x20000, 16, 16, 0x20000);
	img[18] = 40; /* EM_ARM */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "not i386");
	len = make32(0x20000, 16, 16, 0x20000);
	img[16] = 3; /* ET_DYN */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "not an executable");
	len = make32(0x20000, 16, 16, 0x20000);
	img[4] = 7;
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "neither ELF32 nor ELF64");
	len = make32(0x20000, 16, 16, 0x20000);
	img[44] = 1;
	img[45] = 0; /* phnum = 1: only the PT_PHDR entry */
	refused(elf_check(img, len, MIN, MEM, NULL, why, sizeof why), "no loadable segment");
}

static void test_reason_fits_buffer(void **s)
{
	(void)s;
	char small[8];
	size_t len = make32(MEM, 16, 64, MEM);
	const char *err = elf_check(img, len, MIN, MEM, NULL, small, sizeof small);
	assert_non_null(err);
	assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_elf32_loads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elf64_loads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_elf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_segment_outside_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_segment_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_entry_machine_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_fits_buffer, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
