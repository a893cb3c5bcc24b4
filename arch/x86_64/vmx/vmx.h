/* Private to arch/x86_64/vmx: the capabilities found at detection, the controls chosen
 * from them, per-pCPU VMX state, and the sticky VMREAD/VMWRITE error. */
#ifndef ARCH_X86_64_VMX_VMX_H
#define ARCH_X86_64_VMX_VMX_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/memory.h"
#include "arch/x86_64/exitstats.h"
#include "arch/x86_64/hv_backend.h"
#include "arch/x86_64/vmx/vmx_defs.h"
#include "arch/x86_64/vmx/vmx_ops.h"
#include "lib/compiler.h"

struct vmx_caps {
	uint32_t revision;
	uint32_t pin, cpu, cpu2, exit, entry; /* controls we run with */
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	uint64_t ept_vpid;
	unsigned preempt_shift; /* preemption timer = TSC >> shift */
	uint64_t msr_bitmap_pa;
	uint64_t guest_cr4_valid;  /* CR4 bits a guest may set (hv_guest_cr4_valid) */
	uint64_t guest_efer_valid; /* EFER bits a guest may write (NXE only with NX) */
	/* Virtual NMIs and NMI-window exiting (SDM 25.3, 26.7.6): guest NMIs with blocking.
	 * Without them an NMI goes in at once, without blocking. */
	bool vnmi;
};
extern struct vmx_caps vmx_caps;

/* Frames from core/'s allocator (hv_set_frame_ops, hv.c). */
static inline uint64_t frame_alloc(void)
{
	return hv_frames.alloc();
}
static inline void frame_free(uint64_t pa)
{
	hv_frames.free(pa);
}

struct vmx_gprs {
	uint64_t r[16];
};

#define VMX_NR_LAZY_MSRS 5
extern const uint32_t vmx_lazy_msrs[VMX_NR_LAZY_MSRS];

struct vmx_vcpu {
	union { /* first: enter.h addresses it directly; core reads it as struct hv_vcpu */
		struct vmx_gprs g;
		struct hv_vcpu hv;
	};
	uint8_t fpu[512] __attribute__((aligned(64))); /* FXSAVE image: x87/SSE state */
	uint64_t vmcs_pa;
	/* The guest's DR0-DR3, DR6, DR7 while it is not loaded: loaded, DR0-3 and DR6 are
	 * in the hardware and DR7 in the VMCS (vmx_load_debug_regs, regs.c). */
	uint64_t dr[8];
	uint64_t cr2; /* the guest's CR2 while another vCPU or the host runs */
	/* MSRs the CPU uses without an exit (SWAPGS, SYSCALL), in the order of
	 * vmx_lazy_msrs[]: reads pass, writes exit (hv_msr_write: checked, kept here and
	 * written to the hardware); loaded when a pCPU loads the vCPU. SWAPGS changes
	 * KERNEL_GS_BASE without an exit, so hv_vcpu_put reads it back when the vCPU has
	 * been in IA-32e mode (SWAPGS is #UD elsewhere) since it was loaded. */
	uint64_t lazy_msr[VMX_NR_LAZY_MSRS];
	bool long_seen; /* EFER.LMA was 1 at some point since the last load */
	struct hv_space *space;
	uint16_t vpid;
	bool launched;
	int cpu;	     /* pCPU whose current VMCS this is, -1 = none */
	int host_cpu;	     /* pCPU whose host fields the VMCS holds, -1 = none yet */
	uint32_t entry_ctls; /* with IA-32e mode guest as the guest runs */
	uint32_t cpu_ctls;   /* with interrupt-window exiting as needed */
	uint64_t cr0, cr4;   /* what the guest believes (read shadows) */
	uint64_t efer;	     /* what the guest believes */
	bool pending_exc;
	bool nmi_requested; /* hv_request_nmi for the next entry */
	/* Virtual-NMI blocking (hv_nmi_masked): set when an NMI goes in, then as each exit
	 * finds it. */
	bool nmi_masked;
	uint32_t exc_info, exc_error, exc_len;
	bool ple_on;	     /* PAUSE-loop exiting on (hv_pause_loop, 25.1.3) */
	uint32_t ple_window; /* its PLE_Window now (grows on a PLE exit, shrinks at load) */
	bool vmx_error;	     /* a VMREAD/VMWRITE failed since the last entry */
	bool reset_pending;  /* hv_vcpu_reset_real: real mode at reset_cs:reset_ip next entry */
	uint16_t reset_cs, reset_ip;
	uint32_t vmx_error_field;
	/* Guest RFLAGS and interruptibility state as of this exit (VMX_UNREAD until read: no
	 * value either field can hold): vmx_rflags, vmx_intr. */
	uint64_t c_rflags, c_intr;
	uint64_t host_rsp;	/* HOST_RSP as last written (enter.h compares) */
	uint64_t preempt_ticks; /* the preemption timer value last written */
#ifdef SLIVER_EXITSTATS
	struct exitstats_trip xs; /* counters [0] VMREAD, [1] VMWRITE (hv_exit_stats) */
#endif
};

/* EXITSTATS builds: one more VMREAD (i = 0) or VMWRITE (i = 1) in v's round trip. */
#ifdef SLIVER_EXITSTATS
#define VMX_COUNT(v, i) ((v)->xs.cur[i]++)
#else
#define VMX_COUNT(v, i) ((void)(v))
#endif

_Static_assert(__builtin_offsetof(struct vmx_vcpu, g) == 0 &&
		       sizeof(struct vmx_gprs) == sizeof(struct hv_vcpu),
	       "the general registers are core's struct hv_vcpu");

/* The table boundary (hv_backend.h): core's struct hv_vcpu heads a struct vmx_vcpu. */
static inline struct vmx_vcpu *to_vmx(struct hv_vcpu *h)
{
	return (struct vmx_vcpu *)h;
}
static inline struct hv_vcpu *to_hv(struct vmx_vcpu *v)
{
	return (struct hv_vcpu *)v;
}

/* Per-pCPU: its VMXON region and the vCPU whose VMCS is current. */
struct vmx_cpu {
	uint64_t vmxon_pa;
	struct vmx_vcpu *current;
	bool on;
	uint64_t hw_lazy[VMX_NR_LAZY_MSRS]; /* what this pCPU's lazy MSRs hold now */
};
extern struct vmx_cpu vmx_cpu[MAX_CPUS];

/* VMREAD/VMWRITE of the current VMCS, inline (an exit path makes a handful): a failure
 * sets v->vmx_error through vmcs_fail (checked before the next entry, which is then refused
 * as a crash of that vCPU's domain) and a failed read returns 0. */
void vmcs_fail(struct vmx_vcpu *v, uint32_t field);
static inline uint64_t vmcs_read(struct vmx_vcpu *v, uint32_t field)
{
	uint64_t val = 0; /* the asm writes it; 0 also for cppcheck */
	VMX_COUNT(v, 0);
	__asm__ goto("vmread %1, %0; jbe %l[fail]"
		     : "=r"(val)
		     : "r"((uint64_t)field)
		     : "cc"
		     : fail);
	return val;
fail:
	vmcs_fail(v, field);
	return 0;
}
static inline void vmcs_write(struct vmx_vcpu *v, uint32_t field, uint64_t val)
{
	VMX_COUNT(v, 1);
	__asm__ goto("vmwrite %1, %0; jbe %l[fail]"
		     :
		     : "r"((uint64_t)field), "rm"(val)
		     : "cc"
		     : fail);
	return;
fail:
	vmcs_fail(v, field);
}

/* The guest's RFLAGS and interruptibility state are read by more than one step of a round
 * trip (skipping the instruction, injection, the preemption timer's IF test): each is read
 * at most once per exit, on demand, and written through. The exit (and anything that
 * writes them around these helpers) sets them VMX_UNREAD (vmx_uncache). RFLAGS bits 63:22
 * and interruptibility bits 63:32 are reserved, so VMX_UNREAD is never a value. */
#define VMX_UNREAD (~0ull)
static inline void vmx_uncache(struct vmx_vcpu *v)
{
	v->c_rflags = v->c_intr = VMX_UNREAD;
}
static inline uint64_t vmx_cached_read(struct vmx_vcpu *v, uint64_t *c, uint32_t field)
{
	if (*c == VMX_UNREAD)
		*c = vmcs_read(v, field);
	return *c;
}
static inline void vmx_cached_write(struct vmx_vcpu *v, uint64_t *c, uint32_t field, uint64_t val)
{
	vmcs_write(v, field, val);
	*c = val;
}
static inline uint64_t vmx_rflags(struct vmx_vcpu *v)
{
	return vmx_cached_read(v, &v->c_rflags, VMCS_GUEST_RFLAGS);
}
static inline void vmx_set_rflags(struct vmx_vcpu *v, uint64_t val)
{
	vmx_cached_write(v, &v->c_rflags, VMCS_GUEST_RFLAGS, val);
}
static inline uint64_t vmx_intr(struct vmx_vcpu *v)
{
	return vmx_cached_read(v, &v->c_intr, VMCS_GUEST_INTERRUPTIBILITY);
}
static inline void vmx_set_intr(struct vmx_vcpu *v, uint64_t val)
{
	vmx_cached_write(v, &v->c_intr, VMCS_GUEST_INTERRUPTIBILITY, val);
}

/* Writes the host-state fields that differ per pCPU (TR, GDTR, IDTR, GS bases). */
void vmcs_write_host_percpu(struct vmx_vcpu *v);
bool vmcs_setup(struct vmx_vcpu *v, uint64_t rip, uint32_t eax, uint32_t ebx, const char **why);
uint64_t ept_pointer(struct hv_space *s);

/* The members of vmx_backend (vmx.c), one file each: ept.c, vmcs.c, run.c, regs.c,
 * exits.c. Contracts: hv.h, the function of the same name with the hv_ prefix. */
bool vmx_space_map(struct hv_space *s);
void vmx_space_unmap(struct hv_space *s);
struct hv_vcpu *vmx_vcpu_create(struct hv_space *s, uint16_t vpid, uint64_t rip, uint32_t eax,
				uint32_t ebx, const char **why);
void vmx_vcpu_destroy(struct hv_vcpu *hv);
void vmx_vcpu_put(struct hv_vcpu *hv);
int vmx_vcpu_loaded_on(struct hv_vcpu *hv);
void vmx_vcpu_run(struct hv_vcpu *hv, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e);
uint64_t vmx_rsp_get(struct hv_vcpu *hv);
void vmx_rsp_set(struct hv_vcpu *hv, uint64_t val);
void vmx_skip_insn(struct hv_vcpu *hv, int len);
void vmx_skip_rare(struct vmx_vcpu *v, uint64_t intr, uint64_t rflags);
/* Completes an instruction of n bytes (vmx_skip_insn, and run.c's quick path), RFLAGS as
 * vmx_rflags reads it: RIP, then the STI / MOV-SS shadow, RF and TF (vmx_skip_rare). A CPUID or
 * VMCALL round trip reads the length, RIP, interruptibility and RFLAGS once each and writes RIP
 * alone. Interruptibility is read afresh, not through vmx_intr: at the skip it is not read yet as
 * a rule (the cache is written through, so both agree), and the test is saved. */
static inline void vmx_skip(struct vmx_vcpu *v, uint64_t n, uint64_t rflags)
{
	vmcs_write(v, VMCS_GUEST_RIP, vmcs_read(v, VMCS_GUEST_RIP) + n);
	uint64_t intr = v->c_intr = vmcs_read(v, VMCS_GUEST_INTERRUPTIBILITY);
	if (unlikely((intr & (INTR_BLOCKING_BY_STI | INTR_BLOCKING_BY_MOV_SS)) ||
		     (rflags & (RFLAGS_RF | RFLAGS_TF))))
		vmx_skip_rare(v, intr, rflags);
}
void vmx_inject_exception(struct hv_vcpu *hv, uint8_t vector, bool has_error, uint32_t error);
void vmx_request_nmi(struct hv_vcpu *hv);
bool vmx_nmi_masked(struct hv_vcpu *hv);
bool vmx_guest_long_mode(struct hv_vcpu *hv);
unsigned vmx_guest_cpl(struct hv_vcpu *hv);
bool vmx_guest_if(struct hv_vcpu *hv);
bool vmx_write_cr(struct hv_vcpu *hv, unsigned cr, uint64_t val);
uint64_t vmx_read_cr(struct hv_vcpu *hv, unsigned cr);
bool vmx_write_efer(struct hv_vcpu *hv, uint64_t val);
uint64_t vmx_read_efer(struct hv_vcpu *hv);
int vmx_msr_write(struct hv_vcpu *hv, uint32_t msr, uint64_t val);
bool vmx_set_tsc_offset(struct hv_vcpu *hv, uint64_t offset);
bool vmx_start_real(struct hv_vcpu *hv, uint16_t cs, uint16_t ip);
void vmx_read_state(struct hv_vcpu *hv, struct hv_state *st);
uint64_t vmx_dr_get(struct hv_vcpu *hv, unsigned dr);
void vmx_dr_set(struct hv_vcpu *hv, unsigned dr, uint64_t val);
void vmx_load_debug_regs(struct vmx_vcpu *v);
void vmx_save_debug_regs(struct vmx_vcpu *v);
uint64_t vmx_rflags_get(struct hv_vcpu *hv);
void vmx_rflags_set(struct hv_vcpu *hv, uint64_t val);
void vmx_test_break_guest_state(struct hv_vcpu *hv);
bool vmx_vcpu_reset_real(struct hv_vcpu *hv, uint16_t cs, uint16_t ip);
void vmcs_reset_real(struct vmx_vcpu *v); /* applies reset_cs/reset_ip (run.c, loaded) */
const char *vmx_exit_reason_name(unsigned reason);
const char *vmx_insn_error_name(uint32_t err);
/* exits.c: the exit record from the VMCS (raw = the exit-reason field). */
void vmx_decode_exit(struct vmx_vcpu *v, uint32_t raw, struct hv_exit *e);
/* exits.c: per basic exit reason, its kind when the reason alone says everything (no
 * operands to decode but I/O's, handled, not PAUSE: run.c's fast path), else 0
 * (vmx_decode_exit). Filled by vmx_exits_init at detection. */
extern uint8_t vmx_exit_fast_kind[VMX_NR_EXIT_REASONS];
void vmx_exits_init(void);
/* An I/O instruction's operands from the exit qualification (SDM table 27-5). */
static inline void vmx_decode_io(struct vmx_vcpu *v, struct hv_exit *e)
{
	uint64_t qual = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
	e->io.size = (qual & 7) + 1;
	e->io.in = qual & (1u << 3);
	e->io.string = qual & (1u << 4);
	e->io.rep = qual & (1u << 5);
	e->io.port = (uint16_t)(qual >> 16);
}
/* PAUSE-loop window: grown on a PAUSE-loop exit, shrunk when loaded after a put. */
void vmx_ple_grow(struct vmx_vcpu *v);
void vmx_ple_shrink(struct vmx_vcpu *v);

#endif
