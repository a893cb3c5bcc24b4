/* The vendor-neutral half of hv.h: hv_detect picks the backend from the CPUID vendor
 * string (Intel SDM Vol. 2A CPUID leaf 0; AMD APM Vol. 3 CPUID Fn0000_0000) and every
 * hv_* function calls through its table (hv_backend.h). Guest address spaces are generic
 * here: one frame holds struct hv_space, the backend builds its tables (EPT or NPT) under
 * root_pa, and hv_space_ptr needs no tables at all (guest memory is one host range). */
#include "arch/x86_64/hv_backend.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/exitstats.h"
#include "arch/x86_64/memory.h"
#include "lib/string.h"

struct hv_frame_ops hv_frames;
static const struct hv_backend *be;

void hv_set_frame_ops(const struct hv_frame_ops *ops)
{
	hv_frames = *ops;
}

static bool no_quick(struct hv_vcpu *v, struct hv_exit *e)
{
	(void)v, (void)e;
	return false;
}

hv_exit_quick_fn hv_exit_quick = no_quick;

void hv_set_exit_quick(hv_exit_quick_fn fn)
{
	hv_exit_quick = fn;
}

struct hv_pause_loop hv_pause_loop;

void hv_set_pause_loop(const struct hv_pause_loop *p)
{
	hv_pause_loop = *p;
}

bool hv_pause_loop_supported(void)
{
	return be && be->pause_loop_supported && be->pause_loop_supported();
}

/* Vendor string in EBX, EDX, ECX order. */
static bool vendor_is(const char *id)
{
	struct cpuid_regs r = cpuid(0, 0);
	char v[12];
	memcpy(v, &r.ebx, 4);
	memcpy(v + 4, &r.edx, 4);
	memcpy(v + 8, &r.ecx, 4);
	return memcmp(v, id, 12) == 0;
}

/* The reasons both backends gave, for the line core prints before it gives up. */
static char why_both[192];

static void append(char *buf, size_t cap, const char *s)
{
	size_t n = strlen(buf);
	while (*s && n + 1 < cap)
		buf[n++] = *s++;
	buf[n] = 0;
}

/* The vendor's own backend first (AuthenticAMD: SVM, anything else: VMX), then the other,
 * so an unknown vendor (Hygon, an emulator) gets both and a CPU with neither gets both
 * reasons in why[0..cap) ("vmx: ...; svm: ..."). Each detect checks its own CPUID feature
 * bit before it touches an MSR, so asking the other vendor's backend is harmless. A NULL
 * backend (not linked in) is skipped. Apart from CPUID so that it is host-tested
 * (test/unit/test_hv.c). */
static const struct hv_backend *choose(bool amd, const struct hv_backend *vmx,
				       const struct hv_backend *svm, char *why, size_t cap)
{
	const struct hv_backend *order[2] = {amd ? svm : vmx, amd ? vmx : svm};
	why[0] = 0;
	for (unsigned i = 0; i < 2; i++) {
		const struct hv_backend *b = order[i];
		if (!b)
			continue;
		const char *w = "?";
		if (b->detect(&w))
			return b;
		if (why[0])
			append(why, cap, "; ");
		append(why, cap, b->name);
		append(why, cap, ": ");
		append(why, cap, w);
	}
	if (!why[0])
		append(why, cap, "no virtualization backend is linked in");
	return NULL;
}

bool hv_detect(const char **why)
{
	be = choose(vendor_is("AuthenticAMD"), &vmx_backend, &svm_backend, why_both,
		    sizeof why_both);
	if (!be)
		*why = why_both;
	return be != NULL;
}

const char *hv_backend_name(void)
{
	return be ? be->name : "none";
}

const char *hv_fault_name(void)
{
	return be ? be->fault_name : "guest-physical fault";
}

int hv_cpu_init(const char **why)
{
	return be->cpu_init(why);
}

struct hv_space *hv_space_create(uint64_t hpa, uint64_t size)
{
	_Static_assert(sizeof(struct hv_space) <= PAGE_SIZE, "hv_space fits a frame");
	uint64_t spa = hv_frames.alloc();
	if (!spa)
		return NULL;
	struct hv_space *s = phys_to_virt(spa);
	s->root_pa = 0;
	s->hpa = hpa;
	s->size = size;
	if (!be->space_map(s)) {
		hv_space_destroy(s);
		return NULL;
	}
	return s;
}

void hv_space_destroy(struct hv_space *s)
{
	if (!s)
		return;
	be->space_unmap(s);
	hv_frames.free(virt_to_phys(s));
}

void *hv_space_ptr(struct hv_space *s, uint64_t gpa, uint64_t len)
{
	if (gpa > s->size || len > s->size - gpa)
		return NULL;
	return phys_to_virt(s->hpa + gpa);
}

struct hv_vcpu *hv_vcpu_create(struct hv_space *s, uint16_t asid, uint64_t rip, uint32_t eax,
			       uint32_t ebx, const char **why)
{
	return be->vcpu_create(s, asid, rip, eax, ebx, why);
}

void hv_vcpu_destroy(struct hv_vcpu *v)
{
	if (v)
		be->vcpu_destroy(v);
}

void hv_vcpu_put(struct hv_vcpu *v)
{
	be->vcpu_put(v);
}

int hv_vcpu_loaded_on(struct hv_vcpu *v)
{
	return be->vcpu_loaded_on(v);
}

void hv_vcpu_run(struct hv_vcpu *v, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e)
{
	be->vcpu_run(v, deadline_tsc, inject_vector, e);
}

uint64_t hv_rsp_get(struct hv_vcpu *v)
{
	return be->rsp_get(v);
}

void hv_rsp_set(struct hv_vcpu *v, uint64_t val)
{
	be->rsp_set(v, val);
}

/* What the CPU does when an instruction completes (KVM: kvm_skip_emulated_instruction,
 * kvm_vcpu_do_singlestep): RF is cleared (SDM Vol. 3A 2.3: after any instruction that
 * completes; the backend's skip_insn does it with RIP and the shadow), and when TF was set
 * as it began a single-step #DB follows it with DR6.BS set and B0-B3 clear (SDM Vol. 3B
 * 18.3.1.4, 18.2.3): the backend calls hv_single_step_trap then. Event injection does not
 * touch DR6 (SDM Vol. 3C 27.6.1.2, APM Vol. 2 15.20), so DR6 is written here first. */
void hv_single_step_trap(struct hv_vcpu *v)
{
	be->dr_set(v, 6, (be->dr_get(v, 6) & ~DR6_B0_B3) | DR6_BS);
	be->inject_exception(v, 1, false, 0);
}

void hv_skip_exit_insn(struct hv_vcpu *v)
{
	be->skip_insn(v, -1);
}

void hv_skip_insn(struct hv_vcpu *v, unsigned len)
{
	be->skip_insn(v, (int)len);
}

/* Fault-class exceptions: all but #DB (trap, or fault for instruction breakpoints, which
 * the CPU raises itself), NMI, #BP and #OF (traps), #DF and #MC (aborts); KVM:
 * exception_type(). */
static bool is_fault(uint8_t vector)
{
	return vector < 32 && vector != 1 && vector != 2 && vector != 3 && vector != 4 &&
	       vector != 8 && vector != 18;
}

/* The CPU sets RF in the RFLAGS image it pushes for a fault (SDM Vol. 3A 6.12.1: so that
 * the IRET back to the faulting instruction does not hit its instruction breakpoint
 * again); an injected event pushes the guest's RFLAGS as it is, so RF goes there first
 * (KVM does the same in kvm_inject_exception's caller, inject_pending_event). */
void hv_inject_exception(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error)
{
	if (is_fault(vector))
		be->rflags_set(v, be->rflags_get(v) | RFLAGS_RF);
	be->inject_exception(v, vector, has_error, error);
}

void hv_request_nmi(struct hv_vcpu *v)
{
	be->request_nmi(v);
}

bool hv_nmi_masked(struct hv_vcpu *v)
{
	return be->nmi_masked(v);
}

bool hv_guest_long_mode(struct hv_vcpu *v)
{
	return be->guest_long_mode(v);
}

unsigned hv_guest_cpl(struct hv_vcpu *v)
{
	return be->guest_cpl(v);
}

bool hv_guest_if(struct hv_vcpu *v)
{
	return be->guest_if(v);
}

bool hv_write_cr(struct hv_vcpu *v, unsigned cr, uint64_t val)
{
	return be->write_cr(v, cr, val);
}

uint64_t hv_read_cr(struct hv_vcpu *v, unsigned cr)
{
	return be->read_cr(v, cr);
}

bool hv_write_efer(struct hv_vcpu *v, uint64_t val)
{
	return be->write_efer(v, val);
}

uint64_t hv_read_efer(struct hv_vcpu *v)
{
	return be->read_efer(v);
}

uint64_t hv_guest_cr4_valid(void)
{
	return be->guest_cr4_valid();
}

int hv_msr_write(struct hv_vcpu *v, uint32_t msr, uint64_t val)
{
	return be->msr_write(v, msr, val);
}

bool hv_set_tsc_offset(struct hv_vcpu *v, uint64_t offset)
{
	return be->set_tsc_offset && be->set_tsc_offset(v, offset);
}

bool hv_vcpu_start_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip)
{
	return be->start_real && be->start_real(v, cs, ip);
}

void hv_read_state(struct hv_vcpu *v, struct hv_state *st)
{
	memset(st, 0, sizeof *st);
	be->read_state(v, st);
}

uint64_t hv_dr_get(struct hv_vcpu *v, unsigned dr)
{
	return be->dr_get(v, dr);
}

void hv_dr_set(struct hv_vcpu *v, unsigned dr, uint64_t val)
{
	be->dr_set(v, dr, val);
}

bool hv_vcpu_reset_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip)
{
	return be->vcpu_reset_real && be->vcpu_reset_real(v, cs, ip);
}

void hv_test_break_guest_state(struct hv_vcpu *v)
{
	be->test_break_guest_state(v);
}

const char *hv_exit_reason_name(unsigned reason)
{
	const char *n = NULL;
	if (be && reason < HV_NR_EXIT_REASONS - 1)
		n = be->exit_reason_name(reason);
	return n ? n : "unknown";
}

#ifdef SLIVER_EXITSTATS
struct exitstats_sum hv_exitstats[MAX_CPUS];
#endif

unsigned hv_exit_stats(unsigned kind, struct hv_exit_stats *st)
{
	memset(st, 0, sizeof *st);
#ifdef SLIVER_EXITSTATS
	if (!be || kind >= HV_EXIT_NR_KINDS)
		return 0;
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		st->n += hv_exitstats[c].n[kind];
		for (unsigned i = 0; i < HV_EXIT_STATS_MAX; i++)
			st->val[i] += hv_exitstats[c].sum[kind][i];
	}
	for (unsigned i = 0; i < HV_EXIT_STATS_MAX; i++)
		st->name[i] = be->exit_stats_names[i];
	return HV_EXIT_STATS_MAX;
#else
	(void)kind;
	return 0;
#endif
}

const char *hv_insn_error_name(uint32_t err)
{
	return be ? be->insn_error_name(err) : "?";
}

static const char *const kind_names[HV_EXIT_NR_KINDS] = {
	[HV_EXIT_NONE] = "none",
	[HV_EXIT_EXTINT] = "interrupt",
	[HV_EXIT_PREEMPT] = "preempt",
	[HV_EXIT_NMI] = "nmi",
	[HV_EXIT_INTWIN] = "intwin",
	[HV_EXIT_HYPERCALL] = "hypercall",
	[HV_EXIT_CPUID] = "cpuid",
	[HV_EXIT_RDMSR] = "rdmsr",
	[HV_EXIT_WRMSR] = "wrmsr",
	[HV_EXIT_IO] = "io",
	[HV_EXIT_HLT] = "hlt",
	[HV_EXIT_PAUSE] = "pause",
	[HV_EXIT_PAUSE_LOOP] = "pause_loop",
	[HV_EXIT_CR] = "cr",
	[HV_EXIT_DR] = "dr",
	[HV_EXIT_UD] = "ud",
	[HV_EXIT_GP] = "gp",
	[HV_EXIT_NOP] = "nop",
	[HV_EXIT_EPT] = "ept",
	[HV_EXIT_TRIPLE_FAULT] = "triple-fault",
	[HV_EXIT_ENTRY_FAIL] = "entry-fail",
	[HV_EXIT_UNHANDLED] = "unhandled",
	[HV_EXIT_NMI_WINDOW] = "nmi_window",
};

const char *hv_exit_kind_name(unsigned kind)
{
	return kind < HV_EXIT_NR_KINDS && kind_names[kind] ? kind_names[kind] : "?";
}
