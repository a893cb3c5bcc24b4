/* arch/x86_64/gpt.c, the guest page-table builder, in both formats through the backends'
 * real descriptors and wrappers (vmx/ept.c, svm/npt.c): every page of a space translates to
 * hpa + gpa and nothing outside it does (the walk); 2 MiB pages exactly where guest and host
 * addresses are both aligned and 2 MiB remain (and, for EPT, the CPU offers them); every
 * entry carries exactly its format's table or leaf bits; unmapping frees every frame the
 * map took, also after running out of frames at each possible point; the root pointers.
 * Random spaces come from a seed (GPT_SEED=<n> in the environment replays one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86_64/gpt.h"
#include "arch/x86_64/svm/svm.h"
#include "arch/x86_64/vmx/vmx.h"

#define SZ_4K	   4096ull
#define SZ_2M	   (1ull << 21)
#define ADDR_MASK  0x000ffffffffff000ull
#define MAX_FRAMES 4096

struct hv_frame_ops hv_frames;
struct vmx_caps vmx_caps;
struct svm_caps svm_caps;

/* Frames from the host heap, zeroed; a budget makes the allocator run dry. */
static void *frames[MAX_FRAMES];
static int n_frames, n_taken;
static int budget = -1; /* frames left to hand out; -1: no limit */

static uint64_t frame_take(void)
{
	if (budget == 0 || n_frames == MAX_FRAMES)
		return 0;
	if (budget > 0)
		budget--;
	void *p = aligned_alloc(4096, 4096);
	assert_non_null(p);
	memset(p, 0, 4096);
	frames[n_frames++] = p;
	n_taken++;
	return (uint64_t)(uintptr_t)p;
}

static void frame_give_back(uint64_t pa)
{
	for (int i = 0; i < n_frames; i++) {
		if (frames[i] == (void *)(uintptr_t)pa) {
			free(frames[i]);
			frames[i] = frames[--n_frames];
			return;
		}
	}
	fail_msg("freed a frame it never handed out: %llx", (unsigned long long)pa);
}

static int setup(void **st)
{
	(void)st;
	hv_frames = (struct hv_frame_ops){.alloc = frame_take, .free = frame_give_back};
	n_frames = n_taken = 0;
	budget = -1;
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	assert_int_equal(n_frames, 0); /* every test unmaps what it mapped */
	return 0;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The page gpa lies in, as the builder must choose it. */
static uint64_t want_page(const struct hv_space *s, uint64_t gpa, bool large)
{
	uint64_t g2 = gpa & ~(SZ_2M - 1);
	return large && !((s->hpa + g2) & (SZ_2M - 1)) && s->size - g2 >= SZ_2M ? SZ_2M : SZ_4K;
}

static void expect_maps(const struct gpt_format *f, const struct hv_space *s, uint64_t gpa,
			bool large)
{
	uint64_t size = 0, hpa = gpt_translate(f, s->root_pa, gpa, &size);
	if (hpa != s->hpa + gpa || size != want_page(s, gpa, large))
		fail_msg("%s space hpa=%llx size=%llx: gpa %llx -> %llx in a %llx page, expected "
			 "%llx in a %llx page",
			 f->name, (unsigned long long)s->hpa, (unsigned long long)s->size,
			 (unsigned long long)gpa, (unsigned long long)hpa, (unsigned long long)size,
			 (unsigned long long)(s->hpa + gpa),
			 (unsigned long long)want_page(s, gpa, large));
}

static void expect_unmapped(const struct gpt_format *f, const struct hv_space *s, uint64_t gpa)
{
	uint64_t hpa = gpt_translate(f, s->root_pa, gpa, NULL);
	if (hpa != GPT_UNMAPPED)
		fail_msg("%s space size=%llx: gpa %llx outside it maps to %llx", f->name,
			 (unsigned long long)s->size, (unsigned long long)gpa,
			 (unsigned long long)hpa);
}

/* Every entry below the root: tables carry f->table, pages f->leaf (and f->large at level
 * 1); returns the number of tables, root included. */
static int check_entries(const struct gpt_format *f, uint64_t table_pa, int level)
{
	const uint64_t *t = (const uint64_t *)(uintptr_t)table_pa;
	int tables = 1;
	for (int i = 0; i < 512; i++) {
		uint64_t e = t[i], bits = e & ~ADDR_MASK;
		if (!e)
			continue;
		if (level == 0 || (level == 1 && (e & f->large))) {
			uint64_t want = f->leaf | (level ? f->large : 0);
			if (bits != want)
				fail_msg("%s level %d leaf bits %llx, expected %llx", f->name,
					 level, (unsigned long long)bits, (unsigned long long)want);
			continue;
		}
		if (bits != f->table)
			fail_msg("%s level %d table bits %llx, expected %llx", f->name, level,
				 (unsigned long long)bits, (unsigned long long)f->table);
		tables += check_entries(f, e & ADDR_MASK, level - 1);
	}
	return tables;
}

/* Maps s, checks it (boundaries, every 2 MiB block, random addresses), unmaps it. */
static void check_space(const struct gpt_format *f, uint64_t hpa, uint64_t size, bool large)
{
	struct hv_space s = {.hpa = hpa, .size = size};
	int before = n_frames;
	assert_true(gpt_map(f, &s, large));
	assert_int_equal(check_entries(f, s.root_pa, 3), n_frames - before);
	expect_maps(f, &s, 0, large);
	expect_maps(f, &s, size - 1, large);
	for (uint64_t g = 0; g < size; g += SZ_2M) {
		expect_maps(f, &s, g, large);
		expect_maps(f, &s, g + SZ_2M - 1 < size ? g + SZ_2M - 1 : size - 1, large);
	}
	for (int i = 0; i < 64; i++)
		expect_maps(f, &s, rnd() % size, large);
	expect_unmapped(f, &s, size);
	expect_unmapped(f, &s, size + SZ_2M + rnd() % SZ_2M);
	expect_unmapped(f, &s, 1ull << 39);
	expect_unmapped(f, &s, (1ull << 47) + size / 2);
	expect_unmapped(f, &s, (1ull << 48) + size / 2); /* beyond a 4-level walk */
	gpt_unmap(f, &s);
	assert_int_equal(s.root_pa, 0);
	assert_int_equal(n_frames, before);
}

static const struct gpt_format *const formats[] = {&gpt_ept, &gpt_npt};

/* 5 MiB + 12 KiB at a 2 MiB-aligned host address: two 2 MiB pages, then 4 KiB pages in one
 * page table: PML4, PDPT, PD, PT. */
static void test_large_pages_where_aligned(void **st)
{
	(void)st;
	const uint64_t size = 2 * SZ_2M + SZ_2M / 2 + 3 * SZ_4K;
	for (unsigned i = 0; i < 2; i++) {
		struct hv_space s = {.hpa = 0x40000000, .size = size};
		assert_true(gpt_map(formats[i], &s, true));
		assert_int_equal(n_frames, 4);
		uint64_t page;
		assert_int_equal(gpt_translate(formats[i], s.root_pa, SZ_2M + 5, &page),
				 0x40000000 + SZ_2M + 5);
		assert_int_equal(page, SZ_2M);
		assert_int_equal(gpt_translate(formats[i], s.root_pa, 2 * SZ_2M + 7, &page),
				 0x40000000 + 2 * SZ_2M + 7);
		assert_int_equal(page, SZ_4K);
		gpt_unmap(formats[i], &s);
		check_space(formats[i], 0x40000000, size, true);
	}
}

/* A host address 4 KiB off a 2 MiB boundary: 4 KiB pages only, one page table each 2 MiB. */
static void test_small_pages_where_misaligned(void **st)
{
	(void)st;
	for (unsigned i = 0; i < 2; i++) {
		struct hv_space s = {.hpa = 0x40001000, .size = 4 * SZ_2M};
		assert_true(gpt_map(formats[i], &s, true));
		assert_int_equal(n_frames, 3 + 4); /* PML4, PDPT, PD; a PT for each 2 MiB */
		gpt_unmap(formats[i], &s);
		check_space(formats[i], 0x40001000, 4 * SZ_2M, true);
	}
}

/* Through the backends' wrappers: EPT takes 2 MiB pages only when IA32_VMX_EPT_VPID_CAP
 * offers them (bit 16), NPT always; the root pointers (EPTP: WB, 4-level walk; nCR3). */
static void test_backend_wrappers(void **st)
{
	(void)st;
	struct hv_space s = {.hpa = 0x80000000, .size = 4 * SZ_2M};
	vmx_caps.ept_vpid = 0;
	assert_true(vmx_space_map(&s));
	uint64_t size;
	assert_int_equal(gpt_translate(&gpt_ept, s.root_pa, SZ_2M, &size), 0x80000000 + SZ_2M);
	assert_int_equal(size, SZ_4K);
	assert_int_equal(ept_pointer(&s), s.root_pa | 6 | 3 << 3);
	vmx_space_unmap(&s);
	vmx_caps.ept_vpid = EPT_CAP_2M;
	assert_true(vmx_space_map(&s));
	assert_int_equal(n_frames, 3);
	vmx_space_unmap(&s);
	assert_int_equal(s.root_pa, 0);
	assert_true(svm_space_map(&s));
	assert_int_equal(n_frames, 3);
	assert_int_equal(gpt_root(&gpt_npt, &s), s.root_pa);
	svm_space_unmap(&s);
	assert_int_equal(n_frames, 0);
}

/* Out of frames at every point of a map: gpt_map says so, gpt_unmap frees what it took.
 * Two spaces across the 1 GiB boundary (two PDs): 2 MiB pages and a 12 KiB tail (one PT),
 * and 4 KiB pages only (a PT for each 2 MiB). */
static void test_out_of_frames_at_every_step(void **st)
{
	(void)st;
	static const struct {
		uint64_t hpa, size;
		int frames; /* PML4, PDPT, PDs, PTs */
	} sp[] = {{0x40000000, (1ull << 30) + SZ_2M + 3 * SZ_4K, 1 + 1 + 2 + 1},
		  {0x40001000, (1ull << 30) + 3 * SZ_2M, 1 + 1 + 2 + 515}};
	for (unsigned i = 0; i < 4; i++) {
		const struct gpt_format *f = formats[i & 1];
		struct hv_space s = {.hpa = sp[i / 2].hpa, .size = sp[i / 2].size};
		n_taken = 0;
		assert_true(gpt_map(f, &s, true));
		assert_int_equal(n_taken, sp[i / 2].frames);
		gpt_unmap(f, &s);
		for (int b = 0; b < sp[i / 2].frames; b++) {
			budget = b;
			assert_false(gpt_map(f, &s, true));
			assert_int_equal(n_frames, b);
			gpt_unmap(f, &s);
			assert_int_equal(n_frames, 0);
		}
		budget = -1;
	}
}

/* Random spaces: sizes from one page to 3 GiB, host addresses 4 KiB or 2 MiB aligned, large
 * pages on or off, for both formats. */
static void test_random_spaces(void **st)
{
	(void)st;
	const char *env = getenv("GPT_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 1;
	rng_state = seed;
	printf("gpt: GPT_SEED=%llu\n", (unsigned long long)seed);
	for (int n = 0; n < 300; n++) {
		const struct gpt_format *f = formats[n & 1];
		uint64_t size =
			(rnd() % 6 == 0 ? 1 + rnd() % 768 * 1024 : 1 + rnd() % 1536) * SZ_4K;
		uint64_t hpa = (1 + rnd() % 4096) * (rnd() % 2 ? SZ_2M : SZ_4K);
		bool large = rnd() % 4 != 0;
		check_space(f, hpa, size, large);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_large_pages_where_aligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_pages_where_misaligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_wrappers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_frames_at_every_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_spaces, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
