/* arch/x86_64/svm/decode.c, the exiting-instruction decoder for CPUs without NRIP save or
 * decode assists (QEMU): seeded random instructions (legacy prefixes, REX in and out of
 * place, LOCK, each opcode the backend completes) against the length and operand bits they
 * must decode to, 0x40-0x4F as INC/DEC outside 64-bit code, the 15-byte limit, and the
 * fetch through every guest paging mode (none, 32-bit 4K/4M, PAE 4K/2M, 4-level 4K/2M/1G)
 * with the instruction split across two pages mapped apart, and unmapped pages refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86_64/svm/decode.c"

#define MEM (16u << 20)
static uint8_t *mem;
static struct hv_space space;

void *hv_space_ptr(struct hv_space *s, uint64_t gpa, uint64_t len)
{
	(void)s;
	if (gpa > MEM || len > MEM - gpa)
		return NULL;
	return mem + gpa;
}

bool svm_in_64bit_code(struct svm_vcpu *s)
{
	return (s->efer & EFER_LMA) && (s->vmcb->cs.attrib & SEG_ATTR_L);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct vmcb vmcb;
static struct svm_vcpu vcpu;

static void reset(bool long64)
{
	memset(mem, 0, MEM);
	memset(&vmcb, 0, sizeof vmcb);
	memset(&vcpu, 0, sizeof vcpu);
	vcpu.vmcb = &vmcb;
	vcpu.space = &space;
	vcpu.cr0 = CR0_PE;
	if (long64) {
		vcpu.efer = EFER_LME | EFER_LMA;
		vmcb.cs.attrib = 0xa9b;
	} else {
		vmcb.cs.attrib = 0xc9b;
	}
}

static const uint8_t legacy[] = {0x66, 0x67, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0xf2, 0xf3, 0xf0};

struct op {
	uint8_t b[3], n;
	bool modrm;
};
static const struct op ops[] = {
	{{0xf4}, 1, false},
	{{0x0f, 0xa2}, 2, false},
	{{0x0f, 0x32}, 2, false},
	{{0x0f, 0x30}, 2, false},
	{{0x0f, 0x08}, 2, false},
	{{0x0f, 0x09}, 2, false},
	{{0x0f, 0x06}, 2, false},
	{{0x0f, 0x01, 0xd9}, 3, false},
	{{0x0f, 0x20}, 3, true},
	{{0x0f, 0x22}, 3, true},
	{{0x0f, 0x21}, 3, true},
	{{0x0f, 0x23}, 3, true},
	{{0x0f, 0x01, 0xf0}, 3, true}, /* LMSW r (mod 3, /6) */
};

/* Random prefixes (some REX, in 64-bit code) then a random op at RIP 0x1000, flat. */
static void test_random_instructions(void **state)
{
	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		bool long64 = rnd() & 1;
		reset(long64);
		vmcb.rip = 0x1000;
		uint8_t *p = mem + 0x1000;
		unsigned n = 0, npre = rnd() % 6;
		bool rex_r = false, rex_b = false, lock = false, rep = false;
		for (unsigned i = 0; i < npre; i++) {
			if (long64 && rnd() % 3 == 0) {
				uint8_t rex = 0x40 | (rnd() & 15);
				p[n++] = rex;
				rex_r = rex & 4;
				rex_b = rex & 1;
			} else {
				uint8_t c = legacy[rnd() % sizeof legacy];
				p[n++] = c;
				rex_r = rex_b = false; /* REX counts only right before the opcode */
				lock |= c == 0xf0;
				if (c == 0xf3 || c == 0xf2)
					rep = c == 0xf3;
			}
		}
		const struct op *o = &ops[rnd() % (sizeof ops / sizeof ops[0])];
		memcpy(p + n, o->b, o->n);
		uint8_t modrm = o->b[2];
		if (o->modrm && o->b[1] != 0x01) {
			modrm = (uint8_t)(0xc0 | (rnd() & 0x3f));
			p[n + 2] = modrm;
		}
		struct svm_insn in;
		const char *why = NULL;
		assert_true(svm_fetch_decode(&vcpu, &in, &why));
		assert_int_equal(in.len, n + o->n);
		assert_int_equal(in.nop, o->n);
		assert_memory_equal(in.op, o->b, o->n > 2 && o->modrm ? 2 : o->n);
		if (o->n == 3)
			assert_int_equal(in.modrm, modrm);
		assert_int_equal(in.rex_r, rex_r);
		assert_int_equal(in.rex_b, rex_b);
		assert_int_equal(in.lock, lock);
		assert_int_equal(in.rep, rep);
		assert_int_equal(vmcb.rip, 0x1000); /* decoding never moves RIP */
	}
}

/* Outside 64-bit code 0x40-0x4F are INC/DEC: the opcode, not a prefix. */
static void test_rex_is_inc_outside_64bit(void **state)
{
	(void)state;
	for (unsigned b = 0x40; b < 0x50; b++) {
		reset(false);
		vmcb.rip = 0x2000;
		mem[0x2000] = (uint8_t)b;
		mem[0x2001] = 0x0f;
		struct svm_insn in;
		const char *why;
		assert_true(svm_fetch_decode(&vcpu, &in, &why));
		assert_int_equal(in.len, 1);
		assert_int_equal(in.op[0], b);
	}
}

static void test_too_long_and_memory_lmsw(void **state)
{
	(void)state;
	reset(false);
	vmcb.rip = 0x3000;
	memset(mem + 0x3000, 0x66, 15);
	mem[0x300f] = 0xf4;
	struct svm_insn in;
	const char *why = NULL;
	assert_false(svm_fetch_decode(&vcpu, &in, &why));
	assert_non_null(why);
	reset(false);
	vmcb.rip = 0x3000;
	memcpy(mem + 0x3000, "\x0f\x01\x30", 3); /* LMSW [eax]: a memory operand */
	assert_false(svm_fetch_decode(&vcpu, &in, &why));
}

/* Page tables in guest memory: a bump allocator from 1 MiB. */
static uint64_t next_table;
static uint64_t table(void)
{
	uint64_t pa = next_table;
	next_table += 4096;
	return pa;
}

enum mode { M_NONE, M_32_4K, M_32_4M, M_PAE_4K, M_PAE_2M, M_LM_4K, M_LM_2M, M_LM_1G, M_NR };

/* Maps linear page la onto guest-physical pa in mode m (tables created as needed). */
static void map(enum mode m, uint64_t root, uint64_t la, uint64_t pa)
{
	if (m == M_32_4K || m == M_32_4M) {
		uint32_t *pd = (uint32_t *)(mem + root);
		uint32_t *e = &pd[(la >> 22) & 1023];
		if (m == M_32_4M) {
			*e = (uint32_t)((pa & ~0x3fffffull) | 0x83);
			return;
		}
		if (!(*e & 1))
			*e = (uint32_t)(table() | 3);
		uint32_t *pt = (uint32_t *)(mem + (*e & ~0xfffu));
		pt[(la >> 12) & 1023] = (uint32_t)(pa | 3);
		return;
	}
	int top = m >= M_LM_4K ? 3 : 2, leaf = (m == M_PAE_2M || m == M_LM_2M) ? 1
					       : m == M_LM_1G		       ? 2
									       : 0;
	uint64_t t = root;
	for (int level = top; level > leaf; level--) {
		unsigned idx =
			level == 2 && top == 2 ? (la >> 30) & 3 : (la >> (12 + 9 * level)) & 511;
		uint64_t *e = (uint64_t *)(mem + t) + idx;
		if (!(*e & 1))
			*e = table() | (top == 2 && level == 2 ? 1 : 3);
		t = *e & 0x000ffffffffff000ull;
	}
	uint64_t *e = (uint64_t *)(mem + t) + ((la >> (12 + 9 * leaf)) & 511);
	uint64_t size = 1ull << (12 + 9 * leaf);
	*e = (pa & ~(size - 1)) | 3 | (leaf ? 0x80 : 0);
}

static void test_fetch_through_paging(void **state)
{
	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		enum mode m = (enum mode)(iter % M_NR);
		bool lm = m >= M_LM_4K;
		reset(lm);
		next_table = 1u << 20;
		uint64_t root = table();
		if (m == M_PAE_4K || m == M_PAE_2M)
			root = next_table - 4096 + 32 * (rnd() % 4); /* 32-byte aligned PDPT */
		vmcb.cr3 = root;
		if (m != M_NONE)
			vcpu.cr0 |= CR0_PG;
		if (m == M_32_4M)
			vcpu.cr4 |= CR4_PSE;
		if (m >= M_PAE_4K)
			vcpu.cr4 |= CR4_PAE;
		/* A page-crossing CPUID (66 0F A2) at the end of linear page A, mapped to
		 * guest-physical pages far apart (large pages: the offset within them). */
		uint64_t la = lm ? (rnd() & 0x00007fffc0000000ull) | 0x3ffff000ull
				 : (rnd() & 0xc0000000ull) | 0x3ff000ull;
		uint64_t pa1 = 0x400000 + (rnd() % 8) * 0x1000,
			 pa2 = 0x600000 + (rnd() % 8) * 0x1000;
		uint64_t off = 0xffe;
		if (m == M_NONE) {
			la = pa1;
			pa2 = pa1 + 0x1000;
		} else if (m == M_32_4M || m == M_PAE_2M || m == M_LM_2M || m == M_LM_1G) {
			uint64_t big = m == M_32_4M   ? 0x400000
				       : m == M_LM_1G ? 0x40000000
						      : 0x200000;
			if (m == M_LM_1G) { /* both bytes in one 1 GiB page at guest-physical 0 */
				la = (rnd() & 0x00007fc000000000ull) | 0x3ff000ull;
				map(m, root, la, 0);
				pa1 = la & (big - 1);
				pa2 = pa1 + 0x1000;
			} else {
				la = (la & ~(big - 1)) + big - 0x1000;
				map(m, root, la, 0x400000);
				map(m, root, la + 0x1000, 0x400000 + big);
				pa1 = 0x400000 + big - 0x1000;
				pa2 = 0x400000 + big;
			}
		} else {
			map(m, root, la, pa1);
			map(m, root, la + 0x1000, pa2);
		}
		vmcb.rip = la + off;
		mem[pa1 + off] = 0x66;
		mem[pa1 + off + 1] = 0x0f;
		mem[pa2] = 0xa2;
		struct svm_insn in;
		const char *why;
		assert_true(svm_fetch_decode(&vcpu, &in, &why));
		assert_int_equal(in.len, 3);
		assert_int_equal(in.op[1], 0xa2);
		if (m != M_NONE && m != M_LM_1G) {
			/* The second page unmapped: the fetch fails instead of reading garbage. */
			if (m == M_32_4K || m == M_PAE_4K || m == M_LM_4K) {
				reset(lm);
				next_table = 1u << 20;
				uint64_t r2 = table();
				if (m == M_PAE_4K)
					r2 = next_table - 4096;
				vmcb.cr3 = r2;
				vcpu.cr0 |= CR0_PG;
				vcpu.cr4 |= m >= M_PAE_4K ? CR4_PAE : 0;
				map(m, r2, la, pa1);
				vmcb.rip = la + off;
				mem[pa1 + off] = 0x66;
				mem[pa1 + off + 1] = 0x0f;
				assert_false(svm_fetch_decode(&vcpu, &in, &why));
			}
		}
	}
}

int main(void)
{
	mem = calloc(1, MEM);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_instructions),
		cmocka_unit_test(test_rex_is_inc_outside_64bit),
		cmocka_unit_test(test_too_long_and_memory_lmsw),
		cmocka_unit_test(test_fetch_through_paging),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	free(mem);
	return r;
}
