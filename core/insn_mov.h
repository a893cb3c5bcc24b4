/* A decoder for the MOV forms guests use on memory-mapped device registers (the vLAPIC
 * page, the IOAPIC and other emulated MMIO: core/mmio.c): MOV r <- m (8A, 8B), MOV m <- r
 * (88, 89), MOV m <- imm (C6 /0, C7 /0), MOV AL/AX/EAX/RAX <-> moffs (A0-A3), MOVZX and
 * MOVSX r <- m8/m16 (0F B6, B7, BE, BF), in 8-, 16- (66 prefix), 32- and 64-bit (REX.W) operand
 * sizes, with legacy prefixes, REX, ModRM, SIB and displacements, in 32-bit and 64-bit
 * code (SDM Vol. 2A 2.1-2.2, MOV). Pure: the caller fetches the bytes (core/gwalk.c) and
 * knows the address from the fault exit, so only the length, the direction, the size,
 * the register and the immediate are needed. Anything else (16-bit addressing, a register
 * operand, LOCK, REP, other opcodes) is refused, and the caller crashes the domain with
 * the bytes in its message. */
#ifndef CORE_INSN_MOV_H
#define CORE_INSN_MOV_H
#include <stdbool.h>
#include <stdint.h>

#define INSN_MAX_LEN 15

enum insn_mov_kind {
	INSN_MOV_LOAD,	    /* reg <- [mem] */
	INSN_MOV_STORE,	    /* [mem] <- reg */
	INSN_MOV_STORE_IMM, /* [mem] <- imm (sign-extended to 64 with REX.W) */
};

struct insn_mov {
	uint8_t kind;	  /* enum insn_mov_kind */
	uint8_t len;	  /* bytes of the instruction */
	uint8_t size;	  /* bytes accessed in memory: 1, 2, 4 or 8 */
	uint8_t dst_size; /* a load's register bytes: size, or larger for MOVZX/MOVSX */
	bool sign;	  /* MOVSX: the loaded value is sign-extended to dst_size */
	uint8_t reg;	  /* HV_RAX.. numbering (SDM register encoding, REX.R applied) */
	bool high8;	  /* size 1, no REX, reg field 4-7: AH, CH, DH, BH (reg is then 0-3) */
	uint64_t imm;
};

/* bytes[0..n) from the guest's RIP (n may be shorter than 15 when the fetch stopped at
 * an unmapped page); long64: 64-bit code (CS.L with EFER.LMA), else 32-bit code. NULL on
 * success, else why it was refused. */
const char *insn_mov_decode(const uint8_t *bytes, unsigned n, bool long64, struct insn_mov *out);

/* The 64-bit register after a load of `val` by in: MOVZX/MOVSX extend val from size to
 * dst_size bytes; then 8- and 16-bit results replace only their part (AH..BH bits 15:8), a
 * 32-bit one zero-extends (SDM Vol. 1 3.4.1.1). */
uint64_t insn_mov_load_result(const struct insn_mov *in, uint64_t old, uint64_t val);

#endif
