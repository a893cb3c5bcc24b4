/* A decoder for the MOV forms guests use on memory-mapped device registers (the vLAPIC
 * page): MOV r32/r64 <- m (8B), MOV m <- r32/r64 (89), MOV m <- imm32 (C7 /0), MOV
 * EAX/RAX <-> moffs (A1, A3), with legacy prefixes, REX, ModRM, SIB and displacements,
 * in 32-bit and 64-bit code (SDM Vol. 2A 2.1-2.2, MOV). Pure: the caller fetches the
 * bytes (core/gwalk.c) and knows the address from the fault exit, so only the length,
 * the direction, the register and the immediate are needed. Anything else (16-bit
 * operands or addressing, a register operand, LOCK, other opcodes) is refused, and the
 * caller crashes the domain with the bytes in its message. */
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
	uint8_t kind; /* enum insn_mov_kind */
	uint8_t len;  /* bytes of the instruction */
	uint8_t size; /* operand bytes: 4, or 8 with REX.W */
	uint8_t reg;  /* HV_RAX.. numbering (SDM register encoding, REX.R applied) */
	uint64_t imm;
};

/* bytes[0..n) from the guest's RIP (n may be shorter than 15 when the fetch stopped at
 * an unmapped page); long64: 64-bit code (CS.L with EFER.LMA), else 32-bit code. NULL on
 * success, else why it was refused. */
const char *insn_mov_decode(const uint8_t *bytes, unsigned n, bool long64, struct insn_mov *out);

#endif
