/* core/insn_mov.c on the host: a table of encodings as assemblers emit them for APIC
 * register accesses, then 100k seeded random encodings built from their parts (legacy
 * prefixes, REX, opcode, ModRM, SIB, displacement, immediate) with the expected length,
 * direction, register and immediate computed by this file's own encoder, and every
 * refused form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "core/insn_mov.h"

struct ref {
	const char *what;
	uint8_t b[15];
	unsigned n;
	bool long64;
	uint8_t kind, len, size, reg;
	uint64_t imm;
};

/* From objdump of gcc -m32/-m64 output and the SDM's examples. */
static const struct ref table[] = {
	{"mov eax,[0xfee000b0] (A1)",
	 {0xa1, 0xb0, 0x00, 0xe0, 0xfe},
	 5,
	 false,
	 INSN_MOV_LOAD,
	 5,
	 4,
	 0,
	 0},
	{"mov [0xfee000b0],eax (A3)",
	 {0xa3, 0xb0, 0x00, 0xe0, 0xfe},
	 5,
	 false,
	 INSN_MOV_STORE,
	 5,
	 4,
	 0,
	 0},
	{"mov edx,[0xfee00020] (8B 15)",
	 {0x8b, 0x15, 0x20, 0x00, 0xe0, 0xfe},
	 6,
	 false,
	 INSN_MOV_LOAD,
	 6,
	 4,
	 2,
	 0},
	{"mov [0xfee000f0],ecx (89 0D)",
	 {0x89, 0x0d, 0xf0, 0x00, 0xe0, 0xfe},
	 6,
	 false,
	 INSN_MOV_STORE,
	 6,
	 4,
	 1,
	 0},
	{"movl $0x1ff,0xfee000f0 (C7 05)",
	 {0xc7, 0x05, 0xf0, 0x00, 0xe0, 0xfe, 0xff, 0x01, 0, 0},
	 10,
	 false,
	 INSN_MOV_STORE_IMM,
	 10,
	 4,
	 0,
	 0x1ff},
	{"mov [eax+0x300],ebx (89 98 disp32)",
	 {0x89, 0x98, 0x00, 0x03, 0, 0},
	 6,
	 false,
	 INSN_MOV_STORE,
	 6,
	 4,
	 3,
	 0},
	{"mov esi,[ebx+ecx*4+0x10] (8B 74 8B 10)",
	 {0x8b, 0x74, 0x8b, 0x10},
	 4,
	 false,
	 INSN_MOV_LOAD,
	 4,
	 4,
	 6,
	 0},
	{"mov eax,[ebp*2+0] (SIB base 101 mod 00: disp32)",
	 {0x8b, 0x04, 0x6d, 0, 0, 0, 0},
	 7,
	 false,
	 INSN_MOV_LOAD,
	 7,
	 4,
	 0,
	 0},
	{"64: mov r9d,[rip+0x10] (44 8B 0D)",
	 {0x44, 0x8b, 0x0d, 0x10, 0, 0, 0},
	 7,
	 true,
	 INSN_MOV_LOAD,
	 7,
	 4,
	 9,
	 0},
	{"64: mov [rdi+0xb0],r12d (44 89 A7)",
	 {0x44, 0x89, 0xa7, 0xb0, 0, 0, 0},
	 7,
	 true,
	 INSN_MOV_STORE,
	 7,
	 4,
	 12,
	 0},
	{"64: movl $0,0xb0(%rax) (C7 80)",
	 {0xc7, 0x80, 0xb0, 0, 0, 0, 0, 0, 0, 0},
	 10,
	 true,
	 INSN_MOV_STORE_IMM,
	 10,
	 4,
	 0,
	 0},
	{"64: mov rax,[rdx] (48 8B 02)", {0x48, 0x8b, 0x02}, 3, true, INSN_MOV_LOAD, 3, 8, 0, 0},
	{"64: movabs eax,[moffs64] (A1)",
	 {0xa1, 0xb0, 0, 0xe0, 0xfe, 0, 0, 0, 0},
	 9,
	 true,
	 INSN_MOV_LOAD,
	 9,
	 4,
	 0,
	 0},
	{"64: addr32 mov eax,[moffs32] (67 A1)",
	 {0x67, 0xa1, 0xb0, 0, 0xe0, 0xfe},
	 6,
	 true,
	 INSN_MOV_LOAD,
	 6,
	 4,
	 0,
	 0},
	{"64: movq $-1,(%rax) (48 C7 00)",
	 {0x48, 0xc7, 0x00, 0xff, 0xff, 0xff, 0xff},
	 7,
	 true,
	 INSN_MOV_STORE_IMM,
	 7,
	 8,
	 0,
	 ~0ull},
	{"ds: mov eax,[ebx] (3E 8B 03)", {0x3e, 0x8b, 0x03}, 3, false, INSN_MOV_LOAD, 3, 4, 0, 0},
	/* 8- and 16-bit forms (a memset or a byte probe of a device page). */
	{"32: mov (%eax),%al (8A 00)", {0x8a, 0x00}, 2, false, INSN_MOV_LOAD, 2, 1, 0, 0},
	{"64: mov %sil,(%rcx) (40 88 31)", {0x40, 0x88, 0x31}, 3, true, INSN_MOV_STORE, 3, 1, 6, 0},
	{"32: mov %dl,0x10(%ebx) (88 53 10)",
	 {0x88, 0x53, 0x10},
	 3,
	 false,
	 INSN_MOV_STORE,
	 3,
	 1,
	 2,
	 0},
	{"32: mov (%eax),%ax (66 8B 00)", {0x66, 0x8b, 0x00}, 3, false, INSN_MOV_LOAD, 3, 2, 0, 0},
	{"64: mov %r9w,(%rax) (66 44 89 08)",
	 {0x66, 0x44, 0x89, 0x08},
	 4,
	 true,
	 INSN_MOV_STORE,
	 4,
	 2,
	 9,
	 0},
	{"32: movb $0xff,(%eax) (C6 00 FF)",
	 {0xc6, 0x00, 0xff},
	 3,
	 false,
	 INSN_MOV_STORE_IMM,
	 3,
	 1,
	 0,
	 0xff},
	{"32: movw $0x1234,(%eax) (66 C7 00 34 12)",
	 {0x66, 0xc7, 0x00, 0x34, 0x12},
	 5,
	 false,
	 INSN_MOV_STORE_IMM,
	 5,
	 2,
	 0,
	 0x1234},
	{"32: mov 0xfee00030,%al (A0 moffs32)",
	 {0xa0, 0x30, 0x00, 0xe0, 0xfe},
	 5,
	 false,
	 INSN_MOV_LOAD,
	 5,
	 1,
	 0,
	 0},
	{"64: rex.w mov (%rax),%rax wins over 66 (66 48 8B 00)",
	 {0x66, 0x48, 0x8b, 0x00},
	 4,
	 true,
	 INSN_MOV_LOAD,
	 4,
	 8,
	 0,
	 0},
};

/* AH..BH without REX, SPL..DIL with it (SDM Vol. 2A 3.1.1.1 note on 8-bit registers), and
 * how a load merges into the 64-bit register. */
static void test_byte_regs(void **state)
{
	(void)state;
	struct insn_mov in;
	assert_null(insn_mov_decode((const uint8_t[]){0x8a, 0x20}, 2, false, &in)); /* ah */
	assert_true(in.high8 && in.reg == 0 && in.size == 1);
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xab),
			 0x112233445566ab88ull);
	assert_null(insn_mov_decode((const uint8_t[]){0x40, 0x8a, 0x20}, 3, true, &in)); /* spl */
	assert_true(!in.high8 && in.reg == 4);
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xab),
			 0x11223344556677abull);
	assert_null(insn_mov_decode((const uint8_t[]){0x66, 0x8b, 0x00}, 3, false, &in));
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xffffffffull),
			 0x112233445566ffffull);
	assert_null(insn_mov_decode((const uint8_t[]){0x8b, 0x00}, 2, false, &in));
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xffffffffull),
			 0xffffffffull); /* 32-bit loads zero-extend */
	assert_null(insn_mov_decode((const uint8_t[]){0x48, 0x8b, 0x00}, 3, true, &in));
	assert_int_equal(insn_mov_load_result(&in, 1, ~0ull), ~0ull);
}

/* MOVZX / MOVSX (0F B6, B7, BE, BF; SDM Vol. 2B): a byte or word loaded, extended into
 * the 16-, 32- or 64-bit register (gcc's movzbl of a byte register). */
static void test_movzx(void **state)
{
	(void)state;
	struct insn_mov in;
	/* movzbl 0xfe000003,%eax: 0f b6 05 03 00 00 fe */
	assert_null(insn_mov_decode((const uint8_t[]){0x0f, 0xb6, 0x05, 0x03, 0x00, 0x00, 0xfe}, 7,
				    false, &in));
	assert_true(in.kind == INSN_MOV_LOAD && in.len == 7 && in.size == 1 && in.dst_size == 4 &&
		    in.reg == 0 && !in.sign && !in.high8);
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xff), 0xff);
	/* movsbl (%ecx),%edx: 0f be 11 */
	assert_null(insn_mov_decode((const uint8_t[]){0x0f, 0xbe, 0x11}, 3, false, &in));
	assert_true(in.size == 1 && in.dst_size == 4 && in.reg == 2 && in.sign);
	assert_int_equal(insn_mov_load_result(&in, 0, 0x80), 0xffffff80ull);
	assert_int_equal(insn_mov_load_result(&in, 0, 0x7f), 0x7f);
	/* movzwl (%eax),%esi: 0f b7 30; movswq (%rax),%r9: 4c 0f bf 08 */
	assert_null(insn_mov_decode((const uint8_t[]){0x0f, 0xb7, 0x30}, 3, false, &in));
	assert_true(in.size == 2 && in.dst_size == 4 && in.reg == 6);
	assert_null(insn_mov_decode((const uint8_t[]){0x4c, 0x0f, 0xbf, 0x08}, 4, true, &in));
	assert_true(in.size == 2 && in.dst_size == 8 && in.reg == 9 && in.sign && in.len == 4);
	assert_int_equal(insn_mov_load_result(&in, 0, 0x8000), 0xffffffffffff8000ull);
	/* movzbw (%eax),%ax: 66 0f b6 00 keeps bits 63:16 */
	assert_null(insn_mov_decode((const uint8_t[]){0x66, 0x0f, 0xb6, 0x00}, 4, false, &in));
	assert_true(in.size == 1 && in.dst_size == 2);
	assert_int_equal(insn_mov_load_result(&in, 0x1122334455667788ull, 0xab),
			 0x11223344556600abull);
	/* Other 0F opcodes, a register operand, a truncated one: refused. */
	assert_non_null(insn_mov_decode((const uint8_t[]){0x0f, 0xb0, 0x00}, 3, false, &in));
	assert_non_null(insn_mov_decode((const uint8_t[]){0x0f, 0xb6, 0xc0}, 3, false, &in));
	assert_non_null(insn_mov_decode((const uint8_t[]){0x0f}, 1, false, &in));
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct ref *r = &table[i];
		struct insn_mov in;
		const char *why = insn_mov_decode(r->b, r->n, r->long64, &in);
		if (why)
			fail_msg("%s: refused: %s", r->what, why);
		if (in.kind != r->kind || in.len != r->len || in.size != r->size ||
		    in.reg != r->reg || in.imm != r->imm)
			fail_msg("%s: kind %u len %u size %u reg %u imm %llx", r->what, in.kind,
				 in.len, in.size, in.reg, (unsigned long long)in.imm);
	}
}

static void test_refused(void **state)
{
	(void)state;
	static const struct {
		uint8_t b[15];
		unsigned n;
		bool long64;
	} bad[] = {
		{{0xc6, 0x08, 0}, 3, false},		    /* C6 /1 */
		{{0x66, 0xc7, 0x00, 0x34}, 4, false},	    /* truncated imm16 */
		{{0x67, 0x8b, 0x00}, 3, false},		    /* 16-bit addressing */
		{{0xf0, 0x89, 0x00}, 3, false},		    /* LOCK */
		{{0xf3, 0xa5}, 2, false},		    /* REP MOVSD */
		{{0x8b, 0xc0}, 2, false},		    /* register operand */
		{{0xc7, 0x08, 0, 0, 0, 0}, 6, false},	    /* C7 /1 */
		{{0x87, 0x00}, 2, false},		    /* XCHG */
		{{0x81, 0x08, 1, 0, 0, 0}, 6, false},	    /* OR imm */
		{{0x8b, 0x05, 0, 0}, 4, false},		    /* truncated disp32 */
		{{0xc7, 0x05, 0, 0, 0, 0, 1, 2}, 8, false}, /* truncated imm */
		{{0x48}, 1, true},			    /* REX alone */
		{{0x8b}, 1, false},			    /* no ModRM */
		{{0xa1, 0, 0, 0, 0}, 5, true},		    /* moffs64 cut */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct insn_mov in;
		if (!insn_mov_decode(bad[i].b, bad[i].n, bad[i].long64, &in))
			fail_msg("bad encoding %zu decoded (len %u)", i, in.len);
	}
	/* 15 prefixes then an opcode: over the architectural limit. */
	uint8_t many[15];
	memset(many, 0x3e, sizeof many);
	struct insn_mov in;
	assert_non_null(insn_mov_decode(many, 15, false, &in));
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)rs;
}

static const uint8_t segs[] = {0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65};

/* Builds one random valid encoding and its expected decode. */
static unsigned encode(uint8_t *b, bool long64, struct insn_mov *want)
{
	unsigned i = 0;
	bool a32 = false;
	for (unsigned p = rnd() % 4; p; p--) {
		if (long64 && rnd() % 4 == 0) {
			b[i++] = 0x67;
			a32 = true;
		} else {
			b[i++] = segs[rnd() % 6];
		}
	}
	bool w = false, r = false;
	if (long64 && rnd() % 2) {
		w = rnd() % 4 == 0;
		r = rnd() % 2;
		b[i++] = (uint8_t)(0x40 | (w ? 8 : 0) | (r ? 4 : 0) | (rnd() % 4));
	}
	*want = (struct insn_mov){.size = w ? 8 : 4, .dst_size = w ? 8 : 4};
	unsigned form = rnd() % 5;
	if (form == 3) { /* moffs */
		bool load = rnd() % 2;
		b[i++] = load ? 0xa1 : 0xa3;
		unsigned off = long64 && !a32 ? 8 : 4;
		for (unsigned k = 0; k < off; k++)
			b[i++] = (uint8_t)rnd();
		want->kind = load ? INSN_MOV_LOAD : INSN_MOV_STORE;
		want->reg = 0;
		want->len = (uint8_t)i;
		return i;
	}
	static const uint8_t ops[] = {0x8b, 0x89, 0xc7, 0, 0x0f};
	uint8_t op = ops[form];
	b[i++] = op;
	if (op == 0x0f) { /* MOVZX/MOVSX: a load of a byte or word, extended */
		static const uint8_t ext[] = {0xb6, 0xb7, 0xbe, 0xbf};
		uint8_t op2 = ext[rnd() % 4];
		b[i++] = op2;
		want->size = op2 & 1 ? 2 : 1;
		want->sign = op2 >= 0xbe;
		op = 0x8b;
	}
	unsigned mod = rnd() % 3, reg = op == 0xc7 ? 0 : rnd() % 8, rm = rnd() % 8;
	b[i++] = (uint8_t)(mod << 6 | reg << 3 | rm);
	unsigned disp = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (rm == 4) {
		uint8_t sib = (uint8_t)rnd();
		b[i++] = sib;
		if (mod == 0 && (sib & 7) == 5)
			disp = 4;
	} else if (mod == 0 && rm == 5) {
		disp = 4;
	}
	for (unsigned k = 0; k < disp; k++)
		b[i++] = (uint8_t)rnd();
	if (op == 0xc7) {
		uint32_t imm = rnd();
		memcpy(b + i, &imm, 4);
		i += 4;
		want->kind = INSN_MOV_STORE_IMM;
		want->imm = w ? (uint64_t)(int64_t)(int32_t)imm : imm;
	} else {
		want->kind = op == 0x8b ? INSN_MOV_LOAD : INSN_MOV_STORE;
		want->reg = (uint8_t)(reg | (r ? 8 : 0));
	}
	want->len = (uint8_t)i;
	return i;
}

static void test_random(void **state)
{
	(void)state;
	unsigned checked = 0, cut = 0;
	for (unsigned t = 0; t < 100000; t++) {
		uint8_t b[32];
		memset(b, 0x90, sizeof b);
		bool long64 = rnd() % 2;
		struct insn_mov want, got;
		unsigned n = encode(b, long64, &want);
		const char *why = insn_mov_decode(b, 15, long64, &got);
		if (n > 15) {
			assert_non_null(why);
			continue;
		}
		if (why)
			fail_msg("seed case %u: refused: %s", t, why);
		if (memcmp(&want, &got, sizeof want))
			fail_msg("case %u (64=%d): len %u/%u kind %u/%u reg %u/%u size %u/%u", t,
				 long64, got.len, want.len, got.kind, want.kind, got.reg, want.reg,
				 got.size, want.size);
		checked++;
		/* The same bytes cut one short must be refused, never read past n. */
		unsigned short_n = n - 1 - rnd() % n;
		if (insn_mov_decode(b, short_n, long64, &got) == NULL)
			fail_msg("case %u: decoded from %u of %u bytes", t, short_n, n);
		cut++;
	}
	assert_true(checked > 90000 && cut == checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),	  cmocka_unit_test(test_refused),
		cmocka_unit_test(test_byte_regs), cmocka_unit_test(test_movzx),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
