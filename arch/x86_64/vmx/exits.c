/* VM-exit decoding: a const table indexed by the basic exit reason (SDM Vol. 3C
 * appendix C), bounds-checked, turns each exit into a normalized struct hv_exit with its
 * operands decoded from the exit qualification (SDM 27.2.1). Only the kinds with operands
 * read the qualification (and the EPT addresses, the exception's interruption info): a
 * CPUID, VMCALL or HLT exit is decoded from the exit reason alone, and the instruction
 * length is read when core skips the instruction (hv_skip_exit_insn). Reasons without an
 * entry decode as HV_EXIT_UNHANDLED: core/ crashes the domain, it never skips them. */
#include "arch/x86_64/vmx/vmx.h"

typedef void (*decode_fn)(struct vmx_vcpu *v, struct hv_exit *e);

struct exit_desc {
	const char *name;
	uint8_t kind;
	decode_fn decode;
};

static void dec_exception(struct vmx_vcpu *v, struct hv_exit *e)
{
	uint32_t info = (uint32_t)vmcs_read(v, VMCS_EXIT_INTERRUPTION_INFO);
	if ((info & INTR_INFO_VALID) && (info & INTR_TYPE_MASK) == INTR_TYPE_NMI)
		e->kind = HV_EXIT_NMI;
	else
		e->kind = HV_EXIT_UNHANDLED; /* the exception bitmap is 0: should not happen */
}

/* Table 27-3. */
static void dec_cr(struct vmx_vcpu *v, struct hv_exit *e)
{
	uint64_t qual = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
	static const uint8_t access[4] = {HV_CR_WRITE, HV_CR_READ, HV_CR_CLTS, HV_CR_LMSW};
	e->cr.cr = qual & 0xf;
	e->cr.type = access[(qual >> 4) & 3];
	e->cr.gpr = (qual >> 8) & 0xf;
	e->cr.lmsw = (uint16_t)(qual >> 16);
}

/* Table 27-4. */
static void dec_dr(struct vmx_vcpu *v, struct hv_exit *e)
{
	uint64_t qual = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
	e->dr.dr = qual & 7;
	e->dr.read = qual & (1u << 4);
	e->dr.gpr = (qual >> 8) & 0xf;
}

static void dec_io(struct vmx_vcpu *v, struct hv_exit *e)
{
	vmx_decode_io(v, e);
}

static void dec_rdmsr(struct vmx_vcpu *v, struct hv_exit *e)
{
	e->msr.index = (uint32_t)v->g.r[HV_RCX];
}

static void dec_wrmsr(struct vmx_vcpu *v, struct hv_exit *e)
{
	e->msr.index = (uint32_t)v->g.r[HV_RCX];
	e->msr.value = (v->g.r[HV_RDX] << 32) | (uint32_t)v->g.r[HV_RAX];
}

/* Table 27-7. */
static void dec_ept(struct vmx_vcpu *v, struct hv_exit *e)
{
	uint64_t qual = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
	e->ept.gpa = vmcs_read(v, VMCS_GUEST_PHYSICAL_ADDRESS);
	e->ept.read = qual & 1;
	e->ept.write = qual & 2;
	e->ept.fetch = qual & 4;
	e->ept.gla_valid = qual & (1u << 7);
	e->ept.gla = e->ept.gla_valid ? vmcs_read(v, VMCS_GUEST_LINEAR_ADDRESS) : 0;
}

/* UNHANDLED: the dump shows the faulting guest-physical address as fail.detail. */
static void dec_misconfig(struct vmx_vcpu *v, struct hv_exit *e)
{
	e->fail.detail = vmcs_read(v, VMCS_GUEST_PHYSICAL_ADDRESS);
}

/* The kinds follow what hardware does with the controls sliver runs with (docs/vmx.md,
 * "Pass-through audit"): INVD/WBINVD complete as no-ops (guest memory is write-back and
 * coherent, and a real WBINVD would hold the pCPU for a cache flush); RDPMC is #GP(0)
 * (CPUID leaf 0xA shows no counters, so every index is invalid); XSETBV is #UD (CR4.OSXSAVE
 * can never be set: XSAVE is hidden); RDTSCP, INVPCID, XSAVES/XRSTORS #UD without an exit
 * (their "enable" controls are 0) and map to #UD should a CPU exit anyway. INIT, SIPI,
 * SMI, task switches and the reasons of controls sliver never sets stay UNHANDLED: the
 * domain is crashed with a dump rather than guessed at. */
#define X(r, n, k, d) [EXIT_REASON_##r] = {n, HV_EXIT_##k, d}
static const struct exit_desc exit_table[VMX_NR_EXIT_REASONS] = {
	X(EXCEPTION_NMI, "exception or NMI", NMI, dec_exception),
	X(EXTERNAL_INTERRUPT, "external interrupt", EXTINT, 0),
	X(TRIPLE_FAULT, "triple fault", TRIPLE_FAULT, 0),
	X(INIT, "INIT signal", UNHANDLED, 0),
	X(SIPI, "SIPI", UNHANDLED, 0),
	X(IO_SMI, "I/O SMI", UNHANDLED, 0),
	X(OTHER_SMI, "other SMI", UNHANDLED, 0),
	X(INTERRUPT_WINDOW, "interrupt window", INTWIN, 0),
	X(NMI_WINDOW, "NMI window", NMI_WINDOW, 0),
	X(TASK_SWITCH, "task switch", UNHANDLED, 0),
	X(CPUID, "CPUID", CPUID, 0),
	X(GETSEC, "GETSEC", UD, 0),
	X(HLT, "HLT", HLT, 0),
	X(INVD, "INVD", NOP, 0),
	X(INVLPG, "INVLPG", UNHANDLED, 0),
	X(RDPMC, "RDPMC", GP, 0),
	X(RDTSC, "RDTSC", UNHANDLED, 0),
	X(RSM, "RSM", UD, 0),
	X(VMCALL, "VMCALL", HYPERCALL, 0),
	X(VMCLEAR, "VMCLEAR", UD, 0),
	X(VMLAUNCH, "VMLAUNCH", UD, 0),
	X(VMPTRLD, "VMPTRLD", UD, 0),
	X(VMPTRST, "VMPTRST", UD, 0),
	X(VMREAD, "VMREAD", UD, 0),
	X(VMRESUME, "VMRESUME", UD, 0),
	X(VMWRITE, "VMWRITE", UD, 0),
	X(VMXOFF, "VMXOFF", UD, 0),
	X(VMXON, "VMXON", UD, 0),
	X(CR_ACCESS, "control-register access", CR, dec_cr),
	X(DR_ACCESS, "debug-register access", DR, dec_dr),
	X(IO_INSTRUCTION, "I/O instruction", IO, dec_io),
	X(RDMSR, "RDMSR", RDMSR, dec_rdmsr),
	X(WRMSR, "WRMSR", WRMSR, dec_wrmsr),
	X(INVALID_GUEST_STATE, "VM entry: invalid guest state", ENTRY_FAIL, 0),
	X(MSR_LOADING, "VM entry: MSR loading", ENTRY_FAIL, 0),
	X(MWAIT, "MWAIT", UD, 0),
	X(MONITOR_TRAP_FLAG, "monitor trap flag", UNHANDLED, 0),
	X(MONITOR, "MONITOR", UD, 0),
	X(PAUSE, "PAUSE", PAUSE, 0),
	X(MACHINE_CHECK, "VM entry: machine check", ENTRY_FAIL, 0),
	X(TPR_BELOW_THRESHOLD, "TPR below threshold", UNHANDLED, 0),
	X(APIC_ACCESS, "APIC access", UNHANDLED, 0),
	X(VIRTUALIZED_EOI, "virtualized EOI", UNHANDLED, 0),
	X(GDTR_IDTR_ACCESS, "GDTR/IDTR access", UNHANDLED, 0),
	X(LDTR_TR_ACCESS, "LDTR/TR access", UNHANDLED, 0),
	X(EPT_VIOLATION, "EPT violation", EPT, dec_ept),
	X(EPT_MISCONFIG, "EPT misconfiguration", UNHANDLED, dec_misconfig),
	X(INVEPT, "INVEPT", UD, 0),
	X(RDTSCP, "RDTSCP", UD, 0),
	X(PREEMPTION_TIMER, "VMX-preemption timer", PREEMPT, 0),
	X(INVVPID, "INVVPID", UD, 0),
	X(WBINVD, "WBINVD", NOP, 0),
	X(XSETBV, "XSETBV", UD, 0),
	X(APIC_WRITE, "APIC write", UNHANDLED, 0),
	X(RDRAND, "RDRAND", UNHANDLED, 0),
	X(INVPCID, "INVPCID", UD, 0),
	X(VMFUNC, "VMFUNC", UD, 0),
	X(ENCLS, "ENCLS", UD, 0),
	X(RDSEED, "RDSEED", UNHANDLED, 0),
	X(PML_FULL, "PML full", UNHANDLED, 0),
	X(XSAVES, "XSAVES", UD, 0),
	X(XRSTORS, "XRSTORS", UD, 0),
};
#undef X
/* The dense index core counts by is the basic exit reason itself. */
_Static_assert(VMX_NR_EXIT_REASONS < HV_NR_EXIT_REASONS, "exit reasons fit core's counters");

uint8_t vmx_exit_fast_kind[VMX_NR_EXIT_REASONS];

void vmx_exits_init(void)
{
	for (unsigned r = 0; r < VMX_NR_EXIT_REASONS; r++) {
		const struct exit_desc *d = &exit_table[r];
		/* I/O's operands are decoded on the fast path itself (vmx_decode_io). */
		bool fast = d->name && (!d->decode || r == EXIT_REASON_IO_INSTRUCTION) &&
			    d->kind != HV_EXIT_UNHANDLED && d->kind != HV_EXIT_ENTRY_FAIL &&
			    r != EXIT_REASON_PAUSE;
		vmx_exit_fast_kind[r] = fast ? d->kind : 0;
	}
}

const char *vmx_exit_reason_name(unsigned reason)
{
	return reason < VMX_NR_EXIT_REASONS ? exit_table[reason].name : NULL;
}

/* SDM 30.4, table 30-1. */
static const char *const insn_errors[] = {
	[1] = "VMCALL executed in VMX root operation",
	[2] = "VMCLEAR with invalid physical address",
	[3] = "VMCLEAR with VMXON pointer",
	[4] = "VMLAUNCH with non-clear VMCS",
	[5] = "VMRESUME with non-launched VMCS",
	[6] = "VMRESUME after VMXOFF",
	[7] = "VM entry with invalid control field(s)",
	[8] = "VM entry with invalid host-state field(s)",
	[9] = "VMPTRLD with invalid physical address",
	[10] = "VMPTRLD with VMXON pointer",
	[11] = "VMPTRLD with incorrect VMCS revision identifier",
	[12] = "VMREAD/VMWRITE from/to unsupported VMCS component",
	[13] = "VMWRITE to read-only VMCS component",
	[15] = "VMXON executed in VMX root operation",
	[16] = "VM entry with invalid executive-VMCS pointer",
	[17] = "VM entry with non-launched executive VMCS",
	[18] = "VM entry with executive-VMCS pointer not VMXON pointer",
	[19] = "VMCALL with non-clear VMCS",
	[20] = "VMCALL with invalid VM-exit control fields",
	[22] = "VMCALL with incorrect MSEG revision identifier",
	[23] = "VMXOFF under dual-monitor treatment",
	[24] = "VMCALL with invalid SMM-monitor features",
	[25] = "VM entry with invalid VM-execution control fields in executive VMCS",
	[26] = "VM entry with events blocked by MOV SS",
	[28] = "Invalid operand to INVEPT/INVVPID",
};

const char *vmx_insn_error_name(uint32_t err)
{
	if (err < sizeof insn_errors / sizeof insn_errors[0] && insn_errors[err])
		return insn_errors[err];
	return "unknown VM-instruction error";
}

void vmx_decode_exit(struct vmx_vcpu *v, uint32_t raw, struct hv_exit *e)
{
	unsigned reason = raw & 0xffff;
	if (reason >= VMX_NR_EXIT_REASONS || !exit_table[reason].name) {
		e->reason = HV_NR_EXIT_REASONS - 1; /* counted, and named "unknown" below */
		e->kind = HV_EXIT_UNHANDLED;
		e->fail.error = reason;
		e->fail.why = "exit reason outside the table";
		e->fail.detail = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
		return;
	}
	const struct exit_desc *d = &exit_table[reason];
	e->reason = (uint16_t)reason;
	e->kind = d->kind;
	if (raw & EXIT_REASON_FAILED_VMENTRY)
		e->kind = HV_EXIT_ENTRY_FAIL;
	if (e->kind == HV_EXIT_UNHANDLED || e->kind == HV_EXIT_ENTRY_FAIL) {
		/* For core's crash line; a failed entry's qualification says which check or
		 * MSR-load entry failed (27.8). */
		e->fail.error = reason;
		e->fail.why = d->name;
		e->fail.detail = vmcs_read(v, VMCS_EXIT_QUALIFICATION);
		if (e->kind == HV_EXIT_ENTRY_FAIL)
			return;
	}
	if (d->decode)
		d->decode(v, e);
	if (reason == EXIT_REASON_PAUSE && v->ple_on) {
		/* With PAUSE exiting off, a PAUSE exit is a PAUSE-loop exit (25.1.3). */
		e->kind = HV_EXIT_PAUSE_LOOP;
		vmx_ple_grow(v);
	}
}

/* KVM's __grow_ple_window / __shrink_ple_window (arch/x86/kvm/x86.h, used by vmx/vmx.c
 * grow_ple_window and shrink_ple_window): a modifier of 0 resets to the base window, one
 * below the base window multiplies or divides, a larger one adds or subtracts; the
 * window stays in [window, window_max]. */
void vmx_ple_grow(struct vmx_vcpu *v)
{
	const struct hv_pause_loop *p = &hv_pause_loop;
	uint64_t w = v->ple_window;
	if (p->grow < 1)
		w = p->window;
	else
		w = p->grow < p->window ? w * p->grow : w + p->grow;
	if (w > p->window_max)
		w = p->window_max;
	if (w != v->ple_window) {
		v->ple_window = (uint32_t)w;
		vmcs_write(v, VMCS_PLE_WINDOW, w);
	}
}

void vmx_ple_shrink(struct vmx_vcpu *v)
{
	const struct hv_pause_loop *p = &hv_pause_loop;
	uint32_t w = v->ple_window;
	if (p->shrink < 1)
		w = p->window;
	else if (p->shrink < p->window)
		w /= p->shrink;
	else
		w = w > p->shrink ? w - p->shrink : 0;
	if (w < p->window)
		w = p->window;
	if (w != v->ple_window) {
		v->ple_window = w;
		vmcs_write(v, VMCS_PLE_WINDOW, w);
	}
}
