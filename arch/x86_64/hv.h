/* The hardware-virtualization interface that core/ uses, vendor-neutral: hv.c dispatches
 * each function to the backend hv_detect chose from CPUID (vmx/ on Intel, svm/ on AMD;
 * the table is hv_backend.h). core/ never sees a VMCS or a VMCB: it gets a normalized
 * exit record from hv_vcpu_run() and decides what it means. Nothing here calls core/
 * (the backend gets its memory through hv_set_frame_ops()). */
#ifndef ARCH_X86_64_HV_H
#define ARCH_X86_64_HV_H
#include <stdbool.h>
#include <stdint.h>

/* Raw exit reasons are counted per domain by a dense index < HV_NR_EXIT_REASONS that the
 * backend assigns (VMX: the basic exit reason; SVM: its own map of EXITCODE); the last
 * index counts reasons outside the backend's table. hv_exit_reason_name names them. */
#define HV_NR_EXIT_REASONS 96

/* Guest general registers, indexed as the SDM encodes them in exit qualifications
 * (0 = RAX, 1 = RCX, 2 = RDX, 3 = RBX, 4 = RSP, 5 = RBP, 6 = RSI, 7 = RDI, 8..15 = R8..R15).
 * RSP lives in the VMCS / VMCB: use hv_gpr_get/hv_gpr_set (struct hv_vcpu below). */
enum {
	HV_RAX,
	HV_RCX,
	HV_RDX,
	HV_RBX,
	HV_RSP,
	HV_RBP,
	HV_RSI,
	HV_RDI,
	HV_R8,
	HV_R9,
	HV_R10,
	HV_R11,
	HV_R12,
	HV_R13,
	HV_R14,
	HV_R15
};

/* What a CR exit did (struct hv_exit.cr.type). */
enum hv_cr_access { HV_CR_WRITE, HV_CR_READ, HV_CR_CLTS, HV_CR_LMSW };

enum hv_exit_kind {
	HV_EXIT_NONE = 0,
	HV_EXIT_EXTINT,	   /* a host interrupt arrived (taken at the drain) */
	HV_EXIT_PREEMPT,   /* the deadline backstop (VMX-preemption timer) */
	HV_EXIT_NMI,	   /* a host NMI (already handled by the backend) */
	HV_EXIT_INTWIN,	   /* the guest can take an interrupt now */
	HV_EXIT_HYPERCALL, /* the vendor's hypercall instruction (VMCALL, VMMCALL) */
	HV_EXIT_CPUID,
	HV_EXIT_RDMSR, /* msr.index */
	HV_EXIT_WRMSR, /* msr.index, msr.value */
	HV_EXIT_IO,    /* io.* */
	HV_EXIT_HLT,
	HV_EXIT_PAUSE,
	HV_EXIT_PAUSE_LOOP, /* the guest spins: PAUSE-loop exit (VMX) or PAUSE filter (SVM) */
	HV_EXIT_CR,	    /* cr.* */
	HV_EXIT_DR,	    /* dr.*: MOV to/from a debug register */
	HV_EXIT_UD,	    /* an instruction guests may not use (VMX, MONITOR...): #UD */
	HV_EXIT_GP,	    /* an instruction that gives #GP(0) here (RDPMC: no counters) */
	HV_EXIT_NOP,	    /* completes with no effect a guest can see (INVD, WBINVD) */
	HV_EXIT_EPT, /* ept.*: access outside the guest's memory (EPT violation, NPT fault) */
	HV_EXIT_TRIPLE_FAULT,
	HV_EXIT_ENTRY_FAIL, /* VM entry failed: fail.* */
	HV_EXIT_UNHANDLED,  /* a reason sliver does not handle (fail.*): crash the domain */
	HV_EXIT_NMI_WINDOW, /* the guest's NMI blocking may have ended (hv_request_nmi) */
	HV_EXIT_NR_KINDS
};

/* What an exit was, decoded from no more of the VMCS / VMCB than its kind needs: the kind
 * and, for the kinds that have them, the operands below. What a handler may also need is
 * read when it asks, through the accessors of this file (the exiting instruction's length
 * by hv_skip_exit_insn, the guest's registers, CPL, RFLAGS): on VMX every field read is a
 * VMREAD, and most exits need few. */
struct hv_exit {
	uint16_t reason; /* raw backend reason, < HV_NR_EXIT_REASONS (else UNHANDLED) */
	uint8_t kind;	 /* enum hv_exit_kind */
	bool injected;	 /* the vector passed to hv_vcpu_run was delivered at entry */
	/* The NMI hv_request_nmi asked for was delivered at entry. */
	bool nmi_injected;
	/* The entry had nothing to deliver and asked for no window (no vector, no NMI, no
	 * pending exception): an entry with inject_vector -1 and no NMI requested is the
	 * same entry again (core/vmm.c's same path). */
	bool calm;
	/* TSC read right before VM entry (VMLAUNCH/VMRESUME, VMRUN), after the VMCS load,
	 * TLB flushes and the FPU restore (0: no entry was tried): core's wake-to-run sample
	 * ends here. */
	uint64_t entry_tsc;
#ifdef SLIVER_PINGTRACE
	/* PINGTRACE builds (core/pingtrace.h): the TSC once the vCPU is loaded on this pCPU,
	 * and right after the VM exit. */
	uint64_t loaded_tsc, exit_tsc;
#endif
	union {
		struct {
			uint8_t dr, gpr;
			bool read; /* MOV from DR */
		} dr;
		struct {
			uint16_t port;
			uint8_t size;
			bool in, string, rep;
		} io;
		struct {
			uint32_t index;
			uint64_t value;
		} msr;
		struct {
			uint8_t cr, type, gpr; /* type: enum hv_cr_access */
			uint16_t lmsw;	       /* the LMSW source operand */
		} cr;
		struct {
			uint64_t gpa, gla;
			bool read, write, fetch, gla_valid;
		} ept;
		struct {
			uint32_t error;	 /* backend's code (VM-instruction error, reason) */
			const char *why; /* its text */
			uint64_t detail; /* raw backend detail for the dump (exit
					    qualification, EXITINFO1) */
		} fail;			 /* ENTRY_FAIL and UNHANDLED */
	};
};

struct hv_space; /* a guest-physical address space (EPT or nested page tables) */
/* One vCPU. Each backend's vCPU state begins with this part, which core reads directly on
 * its hot paths (hypercall arguments, CPUID results): the general registers as the
 * instruction that exited left them, RAX to R15 in the HV_* order; the RSP slot is unused
 * (RSP lives in the VMCS / VMCB). The rest is the backend's. */
struct hv_vcpu {
	uint64_t gpr[16];
};

/* The vCPU state a dump shows (hv_read_state; zero where a backend has no such field).
 * cs_ar, intr_state, activity and idt_vectoring are the backend's raw words, printed as
 * they are: VMX the VMCS access-rights format, interruptibility, activity state and
 * IDT-vectoring information; SVM the VMCB segment attributes, interrupt shadow, 0 and
 * EXITINTINFO. */
struct hv_state {
	uint64_t gpr[16];
	uint64_t rip, rflags, cr0, cr3, cr4, efer, cr0_shadow, cr4_shadow;
	uint16_t cs, ss;
	uint32_t cs_ar, intr_state, activity;
	uint64_t idt_vectoring;
	/* The code segment, for core's instruction fetch (the vLAPIC's MMIO): its base and
	 * the default size of the code, 16, 32 or 64 (0: the backend does not say; core
	 * then takes 64 in long mode, else 32). */
	uint64_t cs_base;
	uint8_t code_bits;
};

/* The backend takes its VMXON regions / host save areas, VMCSs / VMCBs, bitmaps and
 * nested page tables (zeroed 4 KiB frames) from the allocator core/ hands it here, before
 * hv_detect. */
struct hv_frame_ops {
	uint64_t (*alloc)(void); /* a zeroed frame, 0 when none is left */
	void (*free)(uint64_t pa);
};
void hv_set_frame_ops(const struct hv_frame_ops *ops);
/* PAUSE-loop detection (issue 14), set once before the first hv_vcpu_create; every vCPU
 * created after takes it. on: PAUSE-loop exits are reported as HV_EXIT_PAUSE_LOOP (the
 * PAUSE that ended the loop is the exiting instruction: hv_skip_exit_insn) and plain PAUSE
 * exiting is off; off (the default): PAUSE never exits. Each vCPU has its own window,
 * starting at `window`; like KVM's grow_ple_window/shrink_ple_window (arch/x86/kvm/vmx/
 * vmx.c, svm/svm.c) a PAUSE-loop exit grows it (x grow when grow < window, else + grow,
 * at most window_max) and loading the vCPU on a pCPU after it was put (descheduled)
 * shrinks it (/ shrink when shrink < window, else - shrink, at least `window`); a
 * modifier of 0 resets to `window` (KVM's default shrink).
 * VMX (SDM Vol. 3C 25.1.3, 25.6.13): secondary control "PAUSE-loop exiting" (bit 10),
 * PLE_Gap = gap (TSC cycles between two PAUSEs of one loop), PLE_Window = the window
 * (TSC cycles a loop may last). SVM (APM Vol. 2 15.14.4): intercept PAUSE with the
 * VMCB's PAUSE filter count = the window (as a PAUSE count) and, when the CPU has the
 * filter threshold (CPUID 8000_000A EDX[12]), the threshold = gap (cycles); the #VMEXIT
 * PAUSE is then HV_EXIT_PAUSE_LOOP. A backend without the feature reports none and says
 * so in hv_pause_loop_supported. */
struct hv_pause_loop {
	bool on;
	uint32_t gap, window, window_max, grow, shrink;
};
void hv_set_pause_loop(const struct hv_pause_loop *p);
/* After hv_detect: whether the CPU can report PAUSE loops. */
bool hv_pause_loop_supported(void);
/* Once on the BSP: chooses the backend from CPUID. false (with a reason naming what each
 * backend lacks) when this CPU cannot run guests. */
bool hv_detect(const char **why);
/* The chosen backend ("vmx", "svm"), "none" before hv_detect succeeds. */
const char *hv_backend_name(void);
/* What the backend calls a guest access outside its memory ("EPT violation", "NPT
 * fault"): core's crash line starts with it. */
const char *hv_fault_name(void);
/* On every pCPU before it runs guests: VMXON / EFER.SVME. 0, or -1 with a reason. */
int hv_cpu_init(const char **why);

/* Maps guest-physical [0, size) onto host [hpa, hpa + size), write-back, 2 MiB pages
 * where both are aligned. NULL when out of memory. */
struct hv_space *hv_space_create(uint64_t hpa, uint64_t size);
void hv_space_destroy(struct hv_space *s);
/* Guest-physical to host pointer, or NULL when [gpa, gpa + len) is not all guest memory. */
void *hv_space_ptr(struct hv_space *s, uint64_t gpa, uint64_t len);

/* A vCPU in 32-bit protected mode, flat, paging off, at rip with eax/ebx set.
 * asid 1..65535 tags the vCPU's TLB entries (VMX: the VPID; SVM: the backend maps it to
 * the CPU's ASIDs); core reuses tags after 65535 creations. NULL on failure (why set). */
struct hv_vcpu *hv_vcpu_create(struct hv_space *s, uint16_t asid, uint64_t rip, uint32_t eax,
			       uint32_t ebx, const char **why);
/* INIT then SIPI (SDM Vol. 3A 9.1.1 table 9-1, 10.6.1): at its next hv_vcpu_run, before
 * the entry, v is reset into real mode at CS = cs (base cs << 4), IP = ip, CR0 = ET, paging
 * off, EFER = 0, general registers 0, no pending event. Called on the pCPU about to run
 * v. false: the backend cannot (the caller ignores the INIT/SIPI). */
bool hv_vcpu_reset_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip);
/* The vCPU must not be running; frees its VMCS / VMCB and state. Any pCPU. */
void hv_vcpu_destroy(struct hv_vcpu *v);
/* Releases v from the pCPU it last ran on (VMCLEAR; SVM: saves what VMRUN does not
 * switch), so it can run on another one. Call on
 * that pCPU when switching away from v. */
void hv_vcpu_put(struct hv_vcpu *v);
/* The pCPU v is loaded on (before hv_vcpu_put), or -1. Any pCPU may ask. */
int hv_vcpu_loaded_on(struct hv_vcpu *v);

/* Enters the guest until the next exit; interrupts must be disabled. deadline_tsc arms
 * the backend's deadline backstop (UINT64_MAX: none). inject_vector >= 0 is an external
 * interrupt to deliver if the guest can take it now (e->injected says whether it was;
 * otherwise an interrupt window is requested). Pending exceptions (hv_inject_exception)
 * go first. Host interrupts that caused the exit are still pending on return: the caller
 * opens a window (sti; nop; cli) to take them. e->calm says the entry delivered nothing
 * and left no window open (see struct hv_exit). */
void hv_vcpu_run(struct hv_vcpu *v, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e);
/* inject_vector HV_INJECT_SAME: the last entry again, with nothing to deliver; only right
 * after an exit of v on this pCPU whose e->calm was set, with interrupts kept disabled and
 * nothing asked of v since but its registers, RIP and flags (hv_gpr_set, hv_skip_exit_insn)
 * or an exception (hv_inject_exception). The backend skips what cannot have changed (the
 * VMCS / VMCB is current here, no reset or NMI asked for, no window open). */
#define HV_INJECT_SAME (-2)
/* The quick path, core's (core/exit.c), handed to the backend by hv_set_exit_quick before
 * the first hv_vcpu_run, as the frames are (until then the backend asks nobody): inside an
 * hv_vcpu_run called with HV_INJECT_SAME, after an exit of e->kind (< HV_EXIT_NR_KINDS)
 * whose entry was calm and that needs nothing of the backend's slow path, the backend asks
 * core whether it completed the exit itself. true: core answered the exiting instruction in the
 * guest's registers and changed nothing else; the backend completes the instruction (as
 * hv_skip_exit_insn) and enters again at once with the same deadline (e->entry_tsc and the kind are
 * then the next exit's); false: core did nothing and the exit returns from hv_vcpu_run as any
 * other. Host interrupts stay disabled throughout: one pending exits the next entry at once (VMX:
 * the backend asks only when the guest's IF is set, Bochs bug 1 in vmx/run.c). */
typedef bool (*hv_exit_quick_fn)(struct hv_vcpu *v, struct hv_exit *e);
void hv_set_exit_quick(hv_exit_quick_fn fn);
/* The kinds the quick path may take (a bit per kind): the backend asks for no other. */
#define HV_EXIT_QUICK_KINDS ((1u << HV_EXIT_CPUID) | (1u << HV_EXIT_HYPERCALL))
_Static_assert(HV_EXIT_NR_KINDS <= 32, "HV_EXIT_QUICK_KINDS shifts by a kind");

/* RSP, from the VMCS / VMCB (the other registers are v->gpr). */
uint64_t hv_rsp_get(struct hv_vcpu *v);
void hv_rsp_set(struct hv_vcpu *v, uint64_t val);
/* General register idx (HV_RAX ... HV_R15; 0 / ignored for idx >= 16). */
static inline uint64_t hv_gpr_get(struct hv_vcpu *v, unsigned idx)
{
	if (idx == HV_RSP)
		return hv_rsp_get(v);
	return idx < 16 ? v->gpr[idx] : 0;
}
static inline void hv_gpr_set(struct hv_vcpu *v, unsigned idx, uint64_t val)
{
	if (idx == HV_RSP)
		hv_rsp_set(v, val);
	else if (idx < 16)
		v->gpr[idx] = val;
}
/* Completes the exiting instruction as the CPU would: RIP += its length (VMX: the VM-exit
 * instruction length, read here; SVM: NRIP, EXITINFO2 or the decoder, at the exit),
 * clears STI/MOV-SS blocking and RFLAGS.RF, and when RFLAGS.TF was set delivers the
 * single-step #DB (DR6.BS) at the next entry. Call it only for an exit of an instruction
 * that completed (not when it faulted). */
void hv_skip_exit_insn(struct hv_vcpu *v);
/* The same for an instruction of `len` bytes that core emulated itself (the vLAPIC's MMIO
 * accesses, an EPT exit): RIP += len. */
void hv_skip_insn(struct hv_vcpu *v, unsigned len);
/* Asks for an NMI at the next hv_vcpu_run only (core keeps the pending NMI and asks again
 * before each entry until it went in). The guest blocks NMIs from the delivery of one until
 * its next IRET, and for one instruction after STI or MOV SS (SDM Vol. 3A 6.7.1, APM Vol. 2
 * 8.4.2): when it can take one at this entry (and no exception is pending) the NMI goes in
 * with blocking (e->nmi_injected); otherwise the backend asks the CPU for an exit when the
 * blocking ends (HV_EXIT_NMI_WINDOW; VMX: virtual NMIs and NMI-window exiting, SDM Vol. 3C
 * 25.3, 26.7.6; SVM: IRET intercept and a single step over the IRET, APM Vol. 2 15.20,
 * 15.21; docs/svm.md). */
void hv_request_nmi(struct hv_vcpu *v);
/* Whether the guest was handling an NMI at its last exit (one was delivered and its IRET
 * has not completed): NMIs arriving now wait behind that IRET. Any pCPU may ask. */
bool hv_nmi_masked(struct hv_vcpu *v);
/* Delivers exception `vector` at the next entry (error code when has_error); for a
 * fault-class vector the pushed RFLAGS has RF set, as the CPU's own faults. */
void hv_inject_exception(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error);
bool hv_guest_long_mode(struct hv_vcpu *v);
unsigned hv_guest_cpl(struct hv_vcpu *v);
bool hv_guest_if(struct hv_vcpu *v);
/* Guest writes CR0/CR4 (mov to CR, clts, lmsw) and EFER: the backend keeps the forced
 * bits, the read shadows, and long-mode activation in step. false: give the guest #GP. */
bool hv_write_cr(struct hv_vcpu *v, unsigned cr, uint64_t val);
uint64_t hv_read_cr(struct hv_vcpu *v, unsigned cr);
bool hv_write_efer(struct hv_vcpu *v, uint64_t val);
uint64_t hv_read_efer(struct hv_vcpu *v);
/* CR4 bits a guest may set (hv_write_cr refuses the rest with #GP): CPUID must hide the
 * feature of every other CR4 bit (FSGSBASE, SMEP, SMAP depend on the CPU). */
uint64_t hv_guest_cr4_valid(void);
/* WRMSR of an MSR the backend keeps per vCPU (KERNEL_GS_BASE, STAR, LSTAR, CSTAR,
 * SFMASK): 1 done, -1 refused (#GP: non-canonical address, reserved bits), 0 not one of
 * them. v must be loaded on this pCPU. */
int hv_msr_write(struct hv_vcpu *v, uint32_t msr, uint64_t val);
/* The guest's TSC is the host's plus offset (mod 2^64) for RDTSC, RDTSCP and RDMSR
 * IA32_TSC; the host's TSC is never written. false: the backend cannot offset (the
 * write is then refused). v must be loaded on this pCPU. */
bool hv_set_tsc_offset(struct hv_vcpu *v, uint64_t offset);
/* Right after hv_vcpu_create, before the first run: the vCPU starts in real mode at
 * cs:ip (CS base cs * 16, the other segments 0, limits 0xffff, IVT at 0) instead of
 * 32-bit protected mode. false when the backend cannot (boot=real is then refused). */
bool hv_vcpu_start_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip);
void hv_read_state(struct hv_vcpu *v, struct hv_state *st);
/* The guest's debug registers DR0-3, DR6, DR7 (core maps 4 and 5): the backend gives them
 * to the hardware only while the vCPU runs (DR0-3 and, under VMX, DR6 loaded with the
 * vCPU on its pCPU, DR7 through the VMCS / VMCB, which VM exit and #VMEXIT replace by the
 * host's disabled DR7), so guest breakpoints fire in the guest and never in the
 * hypervisor or another domain. MOV DR still exits (core checks DR4/5 and reserved
 * bits). dr_set takes the value as the guest will read it back (fixed bits applied).
 * v must be loaded on this pCPU. */
uint64_t hv_dr_get(struct hv_vcpu *v, unsigned dr);
void hv_dr_set(struct hv_vcpu *v, unsigned dr, uint64_t val);
/* Test hook: makes the guest state invalid (RFLAGS bit 1 clear, SDM 26.3.1.4) so that the
 * next entry fails, to exercise the entry-failure path. v must be loaded here. */
void hv_test_break_guest_state(struct hv_vcpu *v);
/* Build option `make EXITSTATS=1` (SLIVER_EXITSTATS; docs/BENCHMARKS.md, "Cost of one exit
 * per kind"): the backend counts what it does to the VMCS / VMCB per round trip (a VM exit,
 * its handling and everything up to the next entry of that vCPU), by the kind of the exit
 * that began it: VMX its VMREADs and VMWRITEs, SVM the VMCB quadwords that changed between
 * #VMEXIT and the next VMRUN and the clean bits it cleared. hv_exit_stats fills st with the
 * sums over every pCPU and vCPU so far for `kind` (n = round trips) and returns how many
 * named counters it filled (0: not built in). */
#define HV_EXIT_STATS_MAX 2
struct hv_exit_stats {
	uint64_t n;
	const char *name[HV_EXIT_STATS_MAX];
	uint64_t val[HV_EXIT_STATS_MAX];
};
unsigned hv_exit_stats(unsigned kind, struct hv_exit_stats *st);
/* Name of a dense exit index (core's counters), "unknown" outside the backend's table. */
const char *hv_exit_reason_name(unsigned reason);
const char *hv_exit_kind_name(unsigned kind);
/* VM-instruction error text (SDM 30.4), for entry failures. */
const char *hv_insn_error_name(uint32_t err);

#endif
