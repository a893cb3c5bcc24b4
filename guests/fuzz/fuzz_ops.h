/* What the fuzzer's op files (op_*.c) share with its loop (fuzz.c) and its single-instruction
 * helpers (insn.c): the op classes, this run's state, the per-op PRNG, the verdicts and the
 * fault-recovery convention. Private to guests/fuzz/ (fuzz.h is the runtime's side). */
#ifndef GUESTS_FUZZ_FUZZ_OPS_H
#define GUESTS_FUZZ_FUZZ_OPS_H
#include "guests/fuzz/fuzz.h"

typedef unsigned long ureg; /* register width of the mode we are built for */

/* --- fault recovery ---------------------------------------------------------------------
 * An op arms fz_resume with the address right after the instruction that may fault; the
 * trap handler (fz_trap, fuzz.c) records the vector in fz_vec and resumes there. A fault
 * with nothing armed is a FAIL. ARM ... DISARM wraps one instruction in inline assembly. */
extern volatile uintptr_t fz_resume;
extern volatile int fz_vec;
extern volatile uint64_t fz_err;

#ifdef __x86_64__
#define ARM	 "leaq 1f(%%rip), %%r11\n\tmovq %%r11, fz_resume(%%rip)\n\t"
#define DISARM	 "\n1:\tmovq $0, fz_resume(%%rip)"
#define ARM_CLOB "r11",
#define LM	 1
#define DX_CLOB	 "rdx"
#else
#define DX_CLOB "edx"
#define ARM	"movl $1f, fz_resume\n\t"
#define DISARM	"\n1:\tmovl $0, fz_resume"
#define ARM_CLOB
#define LM 0
#endif

#define V_NONE (-1)
#define V_DB   1
#define V_UD   6
#define V_GP   13

/* --- op classes (names and defaults: cls_def in fuzz.c) ----------------------------------- */
enum {
	C_HC,
	C_IO,
	C_MSR,
	C_KGS,
	C_CR,
	C_DR,
	C_CPUID,
	C_CACHE,
	C_MWAIT,
	C_HLT,
	C_INT,
	C_VMX,
	C_PRIV,
	C_XSAVE,
	/* the holes issue 8 listed (fixed; e2e-fuzz-holes runs them on their own too) */
	C_CR8,
	C_SWAPGS,
	C_SYSCALL,
	C_CRINV,
	C_MSRINV,
	C_INVD,
	C_XSETBV,
	C_EVANY,
	C_NR
};

/* --- this run (fuzz.c) ------------------------------------------------------------------- */
extern const struct sliver_boot_info *bi;
extern bool enabled[C_NR];
extern uint64_t mem; /* bytes of guest RAM */
extern ureg cr0_base, cr4_base;
extern uint64_t efer_base, kgs_expect, last_clock;
extern uint32_t cpuid1_ecx, cpuid1_edx, cpuid7_ebx;
extern bool on_qemu_tcg;
/* Scratch memory: the only guest RAM a valid pointer argument may name (the hypervisor
 * writes there). */
extern uint8_t scratch[16384];

uint64_t rnd(void);	    /* the next draw of this op's PRNG */
uint32_t below(uint32_t n); /* uniform enough in [0, n) */
bool chance(uint32_t pct);  /* true pct times in 100 */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One of the allowed outcomes (a list of vectors, V_NONE for "no fault"), else FAIL. */
bool expect(int got, const char *what, int a, int b);
void emu_diff(const char *what, const char *why);
int64_t hc0(uint64_t nr, uint64_t a0, uint64_t a1);
void set_timer(uint64_t ns);

/* --- single instructions under a recovery point (insn.c): each returns the vector ------- */
#define MSR_EFER  0xc0000080u
#define MSR_STAR  0xc0000081u
#define MSR_LSTAR 0xc0000082u
#define MSR_CSTAR 0xc0000083u
#define MSR_FMASK 0xc0000084u
#define MSR_FSB	  0xc0000100u
#define MSR_GSB	  0xc0000101u
#define MSR_KGS	  0xc0000102u
#define MSR_PAT	  0x277u
#define PAT_BOOT  0x0007040600070406ull
#define EFER_SCE  (1ull << 0)
#define EFER_LME  (1ull << 8)
#define EFER_LMA  (1ull << 10)
#define EFER_NXE  (1ull << 11)

int x_rdmsr(uint32_t idx, uint64_t *val);
int x_wrmsr(uint32_t idx, uint64_t val);
uint64_t rdmsr_or_0(uint32_t idx);
int x_wrcr0(ureg v);
int x_wrcr3(ureg v);
int x_wrcr4(ureg v);
ureg rdcr0(void);
ureg rdcr3(void);
ureg rdcr4(void);
#ifdef __x86_64__
int x_wrcr8(ureg v);
ureg rdcr8(void);
#endif
int x_dr(unsigned n, bool write, ureg *v);
void x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);
/* Runs the bytes b[0..n) from a stub page, with RAX = a and RCX = c on entry (returned
 * through them); stub0 with RAX = scratch, RCX = 0. */
int x_stub(const uint8_t *b, unsigned n, ureg *a, ureg *c);
int stub0(const uint8_t *b, unsigned n);
void check_base(void); /* CR0/CR4 read their values from the start, else FAIL */
void check_efer(void); /* EFER too */

/* --- the ops, one per class (op_*.c) ------------------------------------------------------ */
void op_hc(void);
void op_evany(void);
void op_io(void);
void op_msr(void);
void op_efer(void); /* part of `msr` and of `cr` */
void op_kgs(void);
void op_msrinv(void);
void op_cr(void);
void op_crinv(void);
void op_dr(void);
void op_cpuid(void);
void op_cache(void);
void op_invd(void);
void op_mwait(void);
void op_hlt(void);
void op_int(void);
void op_vmx(void);
void op_priv(void);
void op_xsave(void);
void op_xsetbv(void);
void op_cr8(void);
void op_swapgs(void);
void op_syscall(void);

#endif
