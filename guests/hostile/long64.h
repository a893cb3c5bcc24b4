/* hostile64(): the 64-bit part of the hostile guest (long64.S). It enters IA-32e mode,
 * runs the checks that only exist there (MOV CR8, SYSCALL/SYSRET, SWAPGS, leaving long
 * mode the wrong way), records what it saw here and returns to 32-bit protected mode.
 * The field order is the assembly's offsets (L64_* in long64.S). */
#ifndef GUESTS_HOSTILE_LONG64_H
#define GUESTS_HOSTILE_LONG64_H
#include <stdint.h>

struct l64_result {
	uint64_t cr8_read;	/* MOV from CR8 after MOV $15 to CR8 */
	uint64_t ticks_tpr15;	/* timer interrupts (vector 0x20) taken with TPR 15, IF=1 */
	uint64_t ticks_tpr2;	/* same with TPR 2 (class 2 is not above 2: masked) */
	uint64_t ticks_tpr1;	/* same with TPR 1 (class 2 > 1: delivered) */
	uint64_t cr8_16_vec;	/* MOV $16 to CR8: vector (13) */
	uint64_t sc_rcx;	/* RCX at the LSTAR handler */
	uint64_t sc_want_rcx;	/* the address after the SYSCALL */
	uint64_t sc_r11;	/* R11 at the handler (RFLAGS before: IF and DF set) */
	uint64_t sc_rflags;	/* RFLAGS at the handler (SFMASK cleared IF and DF) */
	uint64_t sc_cs;		/* CS at the handler (STAR[47:32]) */
	uint64_t ring3_cs;	/* CS after SYSRETQ (STAR[63:48] + 16, RPL 3) */
	uint64_t kgs_bad;	/* SWAPGS rounds that saw another KERNEL_GS_BASE */
	uint64_t kgs_rounds;	/* SWAPGS rounds, each after a yield */
	uint64_t pg_clear_vec;	/* clearing CR0.PG in 64-bit code: vector (13) */
	uint64_t lme_clear_vec; /* clearing EFER.LME with paging on: vector (13) */
	uint64_t pae_clear_vec; /* clearing CR4.PAE in IA-32e mode: vector (13) */
	uint64_t pcide_vec;	/* setting CR4.PCIDE (PCID hidden): vector (13) */
	uint64_t kgs_pattern;	/* in: this domain's KERNEL_GS_BASE (canonical) */
	uint64_t sc_ud_vec;	/* SYSCALL with EFER.SCE = 0: vector (6) */
	uint64_t lstar_read;	/* RDMSR LSTAR after WRMSR */
	uint64_t hold_cr8;	/* in: 1 = end with TPR 15, IF=1, spinning forever */
	uint64_t done;		/* 0x64 when the 64-bit part ran to its end */
};

void hostile64(struct l64_result *r);
extern char l64_syscall_entry[]; /* what LSTAR is set to */

#endif
