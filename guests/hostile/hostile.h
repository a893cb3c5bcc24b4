/* What the hostile guest's check files share: the verdict lines (hostile.c), the fault
 * catcher's state and the probes that run one instruction under it (probe.c), and the
 * check groups main() runs in turn. Private to guests/hostile/. */
#ifndef GUESTS_HOSTILE_HOSTILE_H
#define GUESTS_HOSTILE_HOSTILE_H
#include <stdbool.h>
#include <stdint.h>
#include "guests/lib/rt.h"

/* --- verdicts (hostile.c) ----------------------------------------------------------------- */
/* Prints `hostile: <what>: got <got> ok|BAD` (terse=1: BAD only) and counts it. */
void verdict(const char *what, const char *got, bool ok);
/* ok when a hypercall returned -want. */
void expect_err(const char *what, int32_t r, int32_t want);

/* --- the fault catcher (hostile.c) --------------------------------------------------------
 * #UD and #GP go to catch_fault: with fault_skip set it records the vector in fault_vec and
 * resumes fault_skip bytes on; with nothing armed the domain ends. */
extern volatile int fault_vec;	     /* vector of the last caught fault, -1 = none */
extern volatile uint32_t fault_skip; /* bytes to skip over the faulting instruction */

/* Probes: run one instruction with the fault catcher armed for exactly its length (the
 * assembler measures it); the result is the vector it raised, or -1. */
#define PROBE_BEGIN "movl $2f-1f, %[skip]\n1: "
#define PROBE_END   "\n2:"
#define PROBE(insn, ...)                                                                           \
	({                                                                                         \
		fault_vec = -1;                                                                    \
		__asm__ volatile(PROBE_BEGIN insn PROBE_END : [skip] "=m"(fault_skip)__VA_ARGS__); \
		fault_skip = 0;                                                                    \
		fault_vec;                                                                         \
	})

/* --- probes (probe.c) ------------------------------------------------------------------------ */
int wr_cr0(uint32_t v);
int wr_cr4(uint32_t v);
uint32_t rd_cr0(void);
uint32_t rd_cr4(void);
int wr_msr(uint32_t msr, uint64_t val);
int rd_msr(uint32_t msr, uint64_t *val);
struct cpuid_regs {
	uint32_t a, b, c, d;
};
struct cpuid_regs cpuid_of(uint32_t leaf); /* subleaf 0 */
const char *vec_name(int v);		   /* "no fault", "#UD", "#GP", "vec<n>" */
void expect_vec(const char *what, int got, int want);

/* --- the check groups, in the order main() runs them ------------------------------------ */
void try_sane(const struct sliver_boot_info *bi);	       /* abi.c */
void try_hypercalls(const struct sliver_boot_info *bi);	       /* abi.c */
void try_events(const struct sliver_boot_info *bi);	       /* abi.c */
void try_msrs(void);					       /* refused.c */
void try_io(void);					       /* refused.c */
void try_cpu(void);					       /* refused.c */
void try_fpu(const struct sliver_boot_info *bi);	       /* vcpu_state.c */
void try_debug_regs(void);				       /* vcpu_state.c */
void try_debug_isolation(const struct sliver_boot_info *bi);   /* vcpu_state.c */
void try_arch_faults(void);				       /* arch_faults.c */
void try_random_writes(const struct sliver_boot_info *bi);     /* arch_faults.c */
void try_insns(void);					       /* refused.c */
void try_cpuid_consistency(void);			       /* cpuid.c */
void try_tsc(const struct sliver_boot_info *bi);	       /* cpuid.c */
void try_long64(const struct sliver_boot_info *bi, bool hold); /* long64_checks.c */

#endif
