/* Private to arch/x86_64/svm: capabilities found at detection, per-pCPU SVM state, the
 * per-vCPU state behind the opaque struct hv_vcpu, and the functions the backend table
 * (svm.c) points at. */
#ifndef ARCH_X86_64_SVM_SVM_H
#define ARCH_X86_64_SVM_SVM_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/exitstats.h"
#include "arch/x86_64/hv_backend.h"
#include "arch/x86_64/memory.h"
#include "arch/x86_64/svm/svm_defs.h"
#include "arch/x86_64/cr.h"

struct svm_caps {
	uint32_t features;	   /* CPUID 0x8000000A EDX */
	uint32_t nr_asids;	   /* CPUID 0x8000000A EBX: ASIDs 1 .. nr_asids - 1 */
	uint64_t guest_cr4_valid;  /* CR4 bits a guest may set */
	uint64_t guest_efer_valid; /* EFER bits a guest may write */
	/* QEMU TCG (cpu_is_qemu_tcg): interrupts go in through V_IRQ, not EVENTINJ (run.c;
	 * docs/svm.md, QEMU item 11). */
	bool qemu_tcg;
};
extern struct svm_caps svm_caps;

static inline bool svm_has(uint32_t feature)
{
	return svm_caps.features & feature;
}

static inline uint64_t svm_frame_alloc(void)
{
	return hv_frames.alloc();
}
static inline void svm_frame_free(uint64_t pa)
{
	hv_frames.free(pa);
}

struct svm_gprs {
	uint64_t r[16]; /* r[HV_RAX] mirrors vmcb->rax between exits; r[HV_RSP] is unused */
};

struct svm_vcpu {
	union { /* first: enter.h addresses it directly; core reads it as struct hv_vcpu */
		struct svm_gprs g;
		struct hv_vcpu hv;
	};
	uint8_t fpu[512] __attribute__((aligned(64))); /* FXSAVE image: x87/SSE state */
	struct vmcb *vmcb;
	uint64_t vmcb_pa;
	/* The guest's DR0-DR3 (in the hardware while loaded: svm_load_debug_regs); DR6 and
	 * DR7 are the VMCB's. */
	uint64_t dr[4];
	struct hv_space *space;
	int cpu;	   /* pCPU this vCPU is loaded on (FPU state live there), -1 = none */
	int asid_cpu;	   /* pCPU whose ASID generation `asid` belongs to, -1 = none */
	uint64_t asid_gen; /* that pCPU's generation when `asid` was handed out */
	uint32_t dirty;	   /* VMCB clean bits to clear at the next VMRUN */
	uint64_t cr0, cr4; /* what the guest believes */
	uint64_t efer;	   /* what the guest believes (SVME hidden) */
	bool pending_event;
	uint64_t event;		/* EVENTINJ value for the next VMRUN */
	uint64_t last_eventinj; /* EVENTINJ of the last VMRUN (for a VMEXIT_INVALID dump) */
	bool ple_on;		/* PAUSE filter on (hv_pause_loop, pause.c) */
	uint32_t ple_window;	/* its PAUSE_FILTER_COUNT now (grows on exit, shrinks at load) */
	/* The guest's NMI blocking, kept here (EVENTINJ sets none a VMCB shows; run.c): from
	 * an NMI's injection until the IRET after it has completed. */
	bool nmi_requested; /* hv_request_nmi for the next VMRUN */
	bool nmi_masked;    /* an NMI went in, its IRET has not completed */
	bool iret_seen;	    /* that IRET was intercepted (at iret_rip), not yet past it */
	bool nmi_step;	    /* single-stepping (TF, #DB intercepted) to an NMI window */
	bool step_tf;	    /* the step set RFLAGS.TF (the guest's own was clear) */
	bool step_db;	    /* the step set the #DB intercept (nobody else had it) */
	bool maybe_shadow;  /* exited on INTR with IF=1: an STI shadow may be lost */
	bool virq;	    /* QEMU TCG: the last VMRUN offered a vector through V_IRQ */
	uint64_t iret_rip;
	uint8_t exit_len; /* the exiting instruction's length, where decoded (exits.c) */
#ifdef SLIVER_EXITSTATS
	/* [0] VMCB quadwords changed between #VMEXIT and the next VMRUN, [1] clean bits
	 * cleared for that VMRUN (hv_exit_stats; run.c). */
	struct exitstats_trip xs;
#endif
};

_Static_assert(__builtin_offsetof(struct svm_vcpu, g) == 0 &&
		       sizeof(struct svm_gprs) == sizeof(struct hv_vcpu),
	       "the general registers are core's struct hv_vcpu");

static inline struct svm_vcpu *to_svm(struct hv_vcpu *v)
{
	return (struct svm_vcpu *)v;
}

/* Per pCPU: the host save area (VM_HSAVE_PA), a VMCB-format page for the host state that
 * VMSAVE/VMLOAD switch (FS, GS, TR, LDTR, KERNEL_GS_BASE, STAR..., SYSENTER_*), ASIDs. */
struct svm_cpu {
	uint64_t hsave_pa;
	uint64_t host_vmcb_pa;
	struct svm_vcpu *current;
	uint64_t asid_gen;
	uint32_t next_asid;
	bool on;
};
extern struct svm_cpu svm_cpu[MAX_CPUS];

/* svm.c */
uint64_t svm_iopm_pa(void);
uint64_t svm_msrpm_pa(void);

/* npt.c */
bool svm_space_map(struct hv_space *s);
void svm_space_unmap(struct hv_space *s);

/* vmcb.c */
bool svm_start_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip);
bool svm_set_tsc_offset(struct hv_vcpu *v, uint64_t offset);
struct hv_vcpu *svm_vcpu_create(struct hv_space *s, uint16_t asid, uint64_t rip, uint32_t eax,
				uint32_t ebx, const char **why);
void svm_vcpu_destroy(struct hv_vcpu *v);
void svm_vcpu_put(struct hv_vcpu *v);
int svm_vcpu_loaded_on(struct hv_vcpu *v);

/* run.c */
void svm_vcpu_run(struct hv_vcpu *v, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e);

/* regs.c */
uint64_t svm_gpr_get(struct hv_vcpu *v, unsigned idx);
uint64_t svm_rsp_get(struct hv_vcpu *v);
void svm_rsp_set(struct hv_vcpu *v, uint64_t val);
void svm_skip_insn(struct hv_vcpu *v, int len);
void svm_inject_exception(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error);
void svm_request_nmi(struct hv_vcpu *v);
bool svm_nmi_masked(struct hv_vcpu *v);
void svm_nmi_reset(struct svm_vcpu *s); /* INIT: no NMI blocking, no IRET intercept */
bool svm_guest_long_mode(struct hv_vcpu *v);
unsigned svm_guest_cpl(struct hv_vcpu *v);
bool svm_guest_if(struct hv_vcpu *v);
bool svm_write_cr(struct hv_vcpu *v, unsigned cr, uint64_t val);
uint64_t svm_read_cr(struct hv_vcpu *v, unsigned cr);
bool svm_write_efer(struct hv_vcpu *v, uint64_t val);
uint64_t svm_read_efer(struct hv_vcpu *v);
int svm_msr_write(struct hv_vcpu *v, uint32_t msr, uint64_t val);
void svm_read_state(struct hv_vcpu *v, struct hv_state *st);
uint64_t svm_dr_get(struct hv_vcpu *v, unsigned dr);
void svm_dr_set(struct hv_vcpu *v, unsigned dr, uint64_t val);
void svm_load_debug_regs(struct svm_vcpu *s);
uint64_t svm_rflags_get(struct hv_vcpu *v);
void svm_rflags_set(struct hv_vcpu *v, uint64_t val);
void svm_test_break_guest_state(struct hv_vcpu *v);
bool svm_in_64bit_code(struct svm_vcpu *s);

/* exits.c */
void svm_decode_exit(struct svm_vcpu *s, struct hv_exit *e);
void svm_exits_init(void); /* at detection: the EXITCODE index */
const char *svm_exit_reason_name(unsigned reason);
const char *svm_insn_error_name(uint32_t err);

/* decode.c: the exiting instruction, read from guest memory (no NRIPS/decode assists). */
struct svm_insn {
	uint8_t len;
	uint8_t op[3]; /* opcode bytes after prefixes (0F xx [modrm]) */
	uint8_t nop;   /* number of opcode bytes */
	bool rex_r, rex_b, lock, rep;
	uint8_t modrm;
};
bool svm_fetch_decode(struct svm_vcpu *s, struct svm_insn *in, const char **why);
/* Guest-linear to guest-physical through the guest's page tables, or false. */
bool svm_translate(struct svm_vcpu *s, uint64_t la, uint64_t *gpa);
/* The exiting instruction's first bytes, those in RIP's page (at most 15; 0 when they
 * cannot be read): *p points at them in guest memory. Inline in the exit decode (exits.c,
 * svm_opcode_length, for the exits whose instruction is usually the bare opcode): no per-byte
 * state, one translation when paging is on. */
static inline unsigned svm_insn_bytes(struct svm_vcpu *s, const uint8_t **p)
{
	const struct vmcb *vb = s->vmcb;
	uint64_t la = vb->rip, gpa;
	if (!(s->efer & EFER_LMA) || !(vb->cs.attrib & SEG_ATTR_L)) /* not 64-bit code */
		la = (uint32_t)(la + vb->cs.base);
	unsigned n = 4096 - (unsigned)(la & 0xfff);
	if (n > 15)
		n = 15;
	gpa = (uint32_t)la; /* paging off */
	if ((s->cr0 & CR0_PG) && !svm_translate(s, la, &gpa))
		return 0;
	*p = hv_space_ptr(s->space, gpa, n);
	return *p ? n : 0;
}

/* The length of the exiting instruction when its bytes at RIP are exactly the opcode
 * the exit expects, without a prefix (the usual case: CPUID is 0F A2, VMMCALL 0F 01 D9,
 * PAUSE F3 90), else 0 (the decoder then reads prefixes and checks the opcode). */
static inline __attribute__((always_inline)) unsigned
svm_opcode_length(uint64_t code, uint32_t info1, const uint8_t *p, unsigned n)
{
	switch (code) {
	case VMEXIT_CPUID:
		return n >= 2 && p[0] == 0x0f && p[1] == 0xa2 ? 2 : 0;
	case VMEXIT_VMMCALL:
		return n >= 3 && p[0] == 0x0f && p[1] == 0x01 && p[2] == 0xd9 ? 3 : 0;
	case VMEXIT_HLT:
		return n >= 1 && p[0] == 0xf4 ? 1 : 0;
	case VMEXIT_PAUSE:
		return n >= 2 && p[0] == 0xf3 && p[1] == 0x90 ? 2 : 0;
	case VMEXIT_MSR:
		return n >= 2 && p[0] == 0x0f && p[1] == (info1 ? 0x30 : 0x32) ? 2 : 0;
	default:
		return 0;
	}
}

/* The exiting instruction's length from NRIP when the CPU saves it, else from its bytes at
 * RIP when they are the bare opcode the exit expects; 0 otherwise (exits.c then decodes).
 * info1: EXITINFO1 (RDMSR or WRMSR). */
static inline __attribute__((always_inline)) unsigned
svm_plain_length(struct svm_vcpu *s, uint64_t code, uint32_t info1)
{
	struct vmcb *vb = s->vmcb;
	if (svm_has(CPUID_8000000A_EDX_NRIPS) && vb->next_rip > vb->rip &&
	    vb->next_rip - vb->rip <= 15)
		return (unsigned)(vb->next_rip - vb->rip);
	const uint8_t *p;
	unsigned n = svm_insn_bytes(s, &p);
	return svm_opcode_length(code, info1, p, n);
}

/* Dense reasons (exits.c's table; svm_exits_init checks them) of the exits run.c decodes
 * itself for core's quick path. */
#define SVM_REASON_CPUID   4
#define SVM_REASON_VMMCALL 8

/* PAUSE-loop detection through the PAUSE filter (pause.c). */
uint32_t svm_ple_grow(const struct hv_pause_loop *p, uint32_t w);
uint32_t svm_ple_shrink(const struct hv_pause_loop *p, uint32_t w);
bool svm_pause_loop_supported(void);
void svm_ple_setup(struct svm_vcpu *s);
void svm_ple_exit(struct svm_vcpu *s);
void svm_ple_load(struct svm_vcpu *s);

#endif
