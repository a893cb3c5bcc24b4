/* core/gwalk.c on the host: for each paging mode (off, 32-bit with and without PSE, PAE,
 * 4-level) a seeded random set of mappings of every page size the mode has is written as
 * real paging structures into a guest-memory buffer by this file's own builder; then
 * 20k random linear addresses per mode are translated and compared with the mapping
 * list (the reference), unmapped ones must say "not present", and a table pointer
 * outside guest memory must say so (never read it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/gwalk.h"

#define MEM   (64u << 20) /* guest memory: 64 MiB */
#define P     1ull
#define RW    2ull
#define PS    (1ull << 7)
#define NMAPS 48

static uint8_t *mem;
static uint64_t next_table; /* bump allocator for paging structures, from 32 MiB */

static const void *mem_fn(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	return gpa < MEM && len <= MEM - gpa ? mem + gpa : NULL;
}

static uint64_t rs;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint64_t table(void)
{
	uint64_t t = next_table;
	next_table += 4096;
	assert_true(next_table <= MEM);
	return t;
}

struct map {
	uint64_t la, gpa, size;
};
static struct map maps[NMAPS];
static unsigned nmaps;

enum mode { M_OFF, M_32, M_32PSE, M_PAE, M_LONG };

/* An entry of `width` bytes at pa, pointing at a new table when not present yet. */
static uint64_t get_or_new(uint64_t pa, unsigned width)
{
	uint64_t e = 0;
	memcpy(&e, mem + pa, width);
	if (!(e & P)) {
		e = table() | P | RW;
		memcpy(mem + pa, &e, width);
	}
	return e & (width == 4 ? 0xfffff000ull : 0x000ffffffffff000ull);
}

static bool overlaps(uint64_t la, uint64_t size)
{
	for (unsigned i = 0; i < nmaps; i++)
		if (la < maps[i].la + maps[i].size && maps[i].la < la + size)
			return true;
	return false;
}

static void map_one(enum mode m, uint64_t cr3, uint64_t la, uint64_t gpa, uint64_t size)
{
	if (m == M_32 || m == M_32PSE) {
		uint64_t pde = cr3 + 4 * (la >> 22);
		if (size == (4u << 20)) {
			uint32_t e = (uint32_t)gpa | P | RW | PS;
			memcpy(mem + pde, &e, 4);
			return;
		}
		uint64_t pt = get_or_new(pde, 4);
		uint32_t e = (uint32_t)gpa | P | RW;
		memcpy(mem + pt + 4 * ((la >> 12) & 1023), &e, 4);
		return;
	}
	uint64_t t;
	int top;
	if (m == M_PAE) {
		t = get_or_new(cr3 + 8 * ((la >> 30) & 3), 8);
		top = 2;
	} else {
		t = cr3;
		top = 4;
	}
	for (int l = top; l >= 1; l--) {
		uint64_t pa = t + 8 * ((la >> (12 + 9 * (l - 1))) & 511);
		uint64_t lsize = 1ull << (12 + 9 * (l - 1));
		if (lsize == size) {
			uint64_t e = gpa | P | RW | (l > 1 ? PS : 0);
			memcpy(mem + pa, &e, 8);
			return;
		}
		t = get_or_new(pa, 8);
	}
}

static struct gwalk_regs build(enum mode m)
{
	memset(mem, 0, MEM);
	next_table = 32u << 20;
	nmaps = 0;
	struct gwalk_regs r = {0};
	if (m == M_OFF)
		return r;
	r.cr0 = 1ull << 31 | 1;
	uint64_t cr3 = table();
	r.cr3 = cr3;
	if (m == M_32PSE)
		r.cr4 = 1u << 4;
	if (m == M_PAE)
		r.cr4 = 1u << 5;
	if (m == M_LONG) {
		r.cr4 = 1u << 5;
		r.efer = 1u << 10 | 1u << 8;
	}
	while (nmaps < NMAPS) {
		uint64_t sizes[3] = {4096, 0, 0};
		unsigned ns = 1;
		if (m == M_32PSE)
			sizes[ns++] = 4u << 20;
		if (m == M_PAE || m == M_LONG)
			sizes[ns++] = 2u << 20;
		if (m == M_LONG)
			sizes[ns++] = 1u << 30;
		uint64_t size = sizes[rnd() % ns];
		uint64_t la_space = m == M_LONG ? 1ull << 47 : 1ull << 32;
		uint64_t la = rnd() % la_space & ~(size - 1);
		/* The frame: inside the low 32 MiB (below the tables) for small pages; any
		 * aligned address for large ones (the walk does not read the page itself). */
		uint64_t gpa = size == 4096 ? (rnd() % (32u << 20)) & ~4095ull
					    : (rnd() % (m == M_LONG ? 1ull << 40 : 1ull << 32)) &
						      ~(size - 1);
		if (m == M_32 || m == M_32PSE)
			gpa &= 0xffffffffull;
		if (overlaps(la, size))
			continue;
		/* 32-bit: a PDE is either a 4 MiB page or a table; no mixing in one 4 MiB
		 * region (the builder would overwrite); likewise for PAE/long large pages. */
		uint64_t region = m == M_32 || m == M_32PSE ? 4u << 20 : 2u << 20;
		if (size == 4096 && overlaps(la & ~(region - 1), region))
			continue;
		if (size > 4096 && size < (1u << 30) && overlaps(la, size))
			continue;
		if (size == (1u << 30) && overlaps(la, size))
			continue;
		map_one(m, cr3, la, gpa, size);
		maps[nmaps++] = (struct map){la, gpa, size};
	}
	return r;
}

static void check_mode(enum mode m, uint64_t seed)
{
	rs = seed;
	struct gwalk_regs r = build(m);
	unsigned hit = 0, miss = 0;
	for (unsigned t = 0; t < 20000; t++) {
		uint64_t la, want = 0;
		bool mapped = false;
		if (m == M_OFF) {
			la = rnd() & 0xffffffffull;
			want = la;
			mapped = true;
		} else if (rnd() % 2) {
			const struct map *mp = &maps[rnd() % nmaps];
			la = mp->la + rnd() % mp->size;
			want = mp->gpa + (la - mp->la);
			mapped = true;
		} else {
			la = rnd() % (m == M_LONG ? 1ull << 47 : 1ull << 32);
			for (unsigned i = 0; i < nmaps; i++)
				if (la >= maps[i].la && la < maps[i].la + maps[i].size) {
					want = maps[i].gpa + (la - maps[i].la);
					mapped = true;
				}
		}
		uint64_t gpa = 0;
		unsigned level;
		enum gwalk_result res = gwalk(&r, la, mem_fn, NULL, &gpa, &level);
		if (mapped) {
			if (res != GWALK_OK || gpa != want)
				fail_msg("mode %d la %llx: %s gpa %llx want %llx", m,
					 (unsigned long long)la, gwalk_result_name(res),
					 (unsigned long long)gpa, (unsigned long long)want);
			hit++;
		} else {
			if (res != GWALK_NOT_PRESENT)
				fail_msg("mode %d la %llx unmapped: %s", m, (unsigned long long)la,
					 gwalk_result_name(res));
			miss++;
		}
	}
	assert_true(hit > 1000 && (m == M_OFF || miss > 1000));
}

static void test_modes(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++)
		for (int m = M_OFF; m <= M_LONG; m++)
			check_mode((enum mode)m, seed * 0x9e3779b97f4a7c15ull);
}

/* CR3 or an entry pointing outside guest memory: BAD_TABLE, at the right level. */
static void test_bad_table(void **state)
{
	(void)state;
	memset(mem, 0, MEM);
	struct gwalk_regs r = {
		.cr0 = 1ull << 31 | 1, .cr4 = 1u << 5, .efer = 1u << 10, .cr3 = 0x100000000ull};
	uint64_t gpa;
	unsigned level;
	assert_int_equal(gwalk(&r, 0x1000, mem_fn, NULL, &gpa, &level), GWALK_BAD_TABLE);
	assert_int_equal(level, 4);
	r.cr3 = 0x1000;
	uint64_t e = 0x7fff0000000ull | P; /* PML4E -> far away */
	memcpy(mem + 0x1000, &e, 8);
	assert_int_equal(gwalk(&r, 0x1000, mem_fn, NULL, &gpa, &level), GWALK_BAD_TABLE);
	assert_int_equal(level, 3);
	struct gwalk_regs r32 = {.cr0 = 1ull << 31 | 1, .cr3 = MEM};
	assert_int_equal(gwalk(&r32, 0x1000, mem_fn, NULL, &gpa, &level), GWALK_BAD_TABLE);
}

int main(void)
{
	mem = calloc(1, MEM);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_bad_table),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(mem);
	return rc;
}
