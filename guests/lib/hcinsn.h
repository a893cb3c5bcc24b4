/* The hypercall instruction (docs/hypercalls.md): VMCALL (0f 01 c1) under Intel VMX,
 * VMMCALL (0f 01 d9) under AMD SVM; the other vendor's instruction is #UD in the guest.
 * A guest picks once at start, from the CPUID vendor string (leaf 0: "AuthenticAMD" ->
 * VMMCALL, anything else -> VMCALL), into the byte hc_vmmcall that each hypercall site
 * tests: one compare and a branch, no exit of its own. The runtimes set it in their
 * 32-bit entry before the first hypercall (guests/lib/entry.S, guests/fuzz/entry64.S,
 * with the assembly macros of hcinsn.inc). */
#ifndef GUESTS_LIB_HCINSN_H
#define GUESTS_LIB_HCINSN_H
#include <stdint.h>

extern uint8_t hc_vmmcall; /* 1: VMMCALL */

/* Inline asm: HC_INSN as the template, HC_FLAG among the inputs, "cc" clobbered. */
#define HC_INSN                                                                                    \
	"cmpb $0, %[hc_flag]\n\t"                                                                  \
	"jne 1f\n\t"                                                                               \
	"vmcall\n\t"                                                                               \
	"jmp 2f\n"                                                                                 \
	"1:\tvmmcall\n"                                                                            \
	"2:"
#define HC_FLAG [hc_flag] "m"(hc_vmmcall)

#endif
