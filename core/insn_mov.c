/* The MOV decoder (insn_mov.h). Operand-size and address-size rules: SDM Vol. 2A 2.2.1
 * (REX), table 2-2 (32-bit ModRM), 2-3 (SIB), 2.2.1.3 (the SIB base 101 with mod 00 takes
 * a disp32), 2.2.1.6 (RIP-relative: the same bytes); moffs is 4 bytes in 32-bit code, 8 in
 * 64-bit code, 4 there with the 67 prefix. */
#include "core/insn_mov.h"

const char *insn_mov_decode(const uint8_t *b, unsigned n, bool long64, struct insn_mov *out)
{
	*out = (struct insn_mov){0};
	unsigned i = 0;
	bool rex = false, rex_w = false, rex_r = false, addr32_in64 = false, opsz16 = false;
	if (n > INSN_MAX_LEN)
		n = INSN_MAX_LEN;
	/* Legacy prefixes (any order), then at most one REX right before the opcode. */
	for (;; i++) {
		if (i >= n)
			return "instruction runs past the bytes fetched";
		uint8_t c = b[i];
		if (c == 0x2e || c == 0x36 || c == 0x3e || c == 0x26 || c == 0x64 || c == 0x65)
			continue; /* segment overrides: the address comes from the fault */
		if (c == 0x66) {
			opsz16 = true;
			continue;
		}
		if (c == 0x67) {
			if (!long64)
				return "16-bit addressing (67 prefix in 32-bit code) is not "
				       "emulated";
			addr32_in64 = true;
			continue;
		}
		if (c == 0xf0)
			return "LOCK prefix";
		if (c == 0xf2 || c == 0xf3)
			return "REP/REPNE prefix";
		break;
	}
	if (long64 && (b[i] & 0xf0) == 0x40) {
		rex = true;
		rex_w = b[i] & 8;
		rex_r = b[i] & 4;
		if (++i >= n)
			return "instruction runs past the bytes fetched";
	}
	uint8_t op = b[i++];
	bool byte = op == 0x88 || op == 0x8a || op == 0xc6 || op == 0xa0 || op == 0xa2;
	out->size = byte ? 1 : rex_w ? 8 : opsz16 ? 2 : 4;
	out->dst_size = out->size;
	if (op == 0x0f) { /* MOVZX / MOVSX r, m8 / m16 */
		if (i >= n)
			return "instruction runs past the bytes fetched";
		uint8_t op2 = b[i++];
		if (op2 != 0xb6 && op2 != 0xb7 && op2 != 0xbe && op2 != 0xbf)
			return "not a MOV this decoder knows (88-8B, C6/C7 /0, A0-A3, 0F "
			       "B6/B7/BE/BF)";
		out->size = op2 & 1 ? 2 : 1;
		out->sign = op2 >= 0xbe;
		op = 0x8b; /* then decoded as a load into the full-size register */
	}
	if (op >= 0xa0 && op <= 0xa3) { /* MOV AL/eAX, moffs / MOV moffs, AL/eAX */
		unsigned off = long64 && !addr32_in64 ? 8 : 4;
		if (i + off > n)
			return "instruction runs past the bytes fetched";
		out->kind = op <= 0xa1 ? INSN_MOV_LOAD : INSN_MOV_STORE;
		out->reg = 0;
		out->len = (uint8_t)(i + off);
		return 0;
	}
	if (op != 0x8a && op != 0x8b && op != 0x88 && op != 0x89 && op != 0xc6 && op != 0xc7)
		return "not a MOV this decoder knows (88-8B, C6/C7 /0, A0-A3, 0F B6/B7/BE/BF)";
	if (i >= n)
		return "instruction runs past the bytes fetched";
	uint8_t modrm = b[i++];
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
	if (mod == 3)
		return "register operand: not a memory access";
	if ((op == 0xc6 || op == 0xc7) && reg != 0)
		return "C6/C7 with a ModRM reg field other than 0";
	unsigned disp = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (rm == 4) { /* SIB */
		if (i >= n)
			return "instruction runs past the bytes fetched";
		uint8_t sib = b[i++];
		if (mod == 0 && (sib & 7) == 5)
			disp = 4;
	} else if (mod == 0 && rm == 5) {
		disp = 4; /* disp32 (RIP-relative in 64-bit code) */
	}
	i += disp;
	if (op == 0xc6 || op == 0xc7) {
		unsigned isz = out->size == 8 ? 4 : out->size; /* imm32 sign-extends to 64 */
		if (i + isz > n)
			return "instruction runs past the bytes fetched";
		uint64_t imm = 0;
		for (unsigned k = 0; k < isz; k++)
			imm |= (uint64_t)b[i + k] << (8 * k);
		out->imm = out->size == 8 ? (uint64_t)(int64_t)(int32_t)imm : imm;
		i += isz;
		out->kind = INSN_MOV_STORE_IMM;
	} else {
		if (i > n)
			return "instruction runs past the bytes fetched";
		out->kind = op == 0x8a || op == 0x8b ? INSN_MOV_LOAD : INSN_MOV_STORE;
		out->reg = (uint8_t)(reg | (rex_r ? 8 : 0));
		if (byte && !rex && reg >= 4) {
			out->high8 = true;
			out->reg = (uint8_t)(reg - 4);
		}
	}
	out->len = (uint8_t)i;
	return 0;
}

uint64_t insn_mov_load_result(const struct insn_mov *in, uint64_t old, uint64_t val)
{
	unsigned dst = in->dst_size ? in->dst_size : in->size;
	if (dst != in->size) { /* MOVZX / MOVSX */
		unsigned bits = 8 * in->size;
		val &= (1ull << bits) - 1;
		if (in->sign && (val >> (bits - 1)))
			val |= ~0ull << bits;
	}
	switch (dst) {
	case 1:
		return in->high8 ? (old & ~0xff00ull) | (val & 0xff) << 8
				 : (old & ~0xffull) | (val & 0xff);
	case 2:
		return (old & ~0xffffull) | (val & 0xffff);
	case 4:
		return (uint32_t)val;
	default:
		return val;
	}
}
