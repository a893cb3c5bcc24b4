/* VMX detection, controls from the capability MSRs, and VMXON on each pCPU
 * (SDM Vol. 3C 23.6-23.8, appendix A). */
#include "arch/x86_64/vmx/vmx.h"
#include "lib/string.h"

struct vmx_caps vmx_caps;
struct vmx_cpu vmx_cpu[MAX_CPUS];

/* The MSRs a 64-bit guest kernel uses without an exit: SWAPGS exchanges GS.base with
 * KERNEL_GS_BASE, SYSCALL reads STAR/LSTAR/CSTAR/SFMASK. The VMCS does not switch them,
 * so they are switched per vCPU like Xen and KVM do (load_here, hv_vcpu_put), writing
 * only those that differ from what the pCPU holds: the host itself uses neither SWAPGS
 * nor SYSCALL, so it does not care what they hold. */
const uint32_t vmx_lazy_msrs[VMX_NR_LAZY_MSRS] = {MSR_KERNEL_GS_BASE, MSR_STAR, MSR_LSTAR,
						  MSR_CSTAR, MSR_SFMASK};

/* A control word from its capability MSR (A.3-A.5): low half = bits that must be 1,
 * high half = bits that may be 1. Fails when a required bit cannot be set. */
static bool adjust(uint32_t msr, uint32_t required, uint32_t optional, uint32_t *out)
{
	uint64_t cap = rdmsr(msr);
	uint32_t must1 = (uint32_t)cap, may1 = (uint32_t)(cap >> 32);
	if (required & ~may1)
		return false;
	*out = ((required | optional) & may1) | must1;
	return true;
}

static void msr_bitmap_pass(uint8_t *bm, uint32_t msr, bool read, bool write)
{
	unsigned base = msr >= 0xc0000000u ? 1024 : 0;
	uint32_t bit = msr & 0x1fff;
	if (read)
		bm[base + bit / 8] &= (uint8_t) ~(1u << (bit % 8));
	if (write)
		bm[2048 + base + bit / 8] &= (uint8_t) ~(1u << (bit % 8));
}

static bool vmx_detect(const char **why)
{
	struct vmx_caps *c = &vmx_caps;
	if (!(cpuid(1, 0).ecx & (1u << 5))) {
		*why = "CPUID.1:ECX.VMX[bit 5] is clear";
		return false;
	}
	/* Every capability MSR read below is probed first without trusting CPUID: a CPU (or
	 * an emulator, or a hypervisor under us) may show VMX without them. */
	static const uint32_t caps[] = {
		MSR_IA32_FEATURE_CONTROL,    MSR_IA32_VMX_BASIC,      MSR_IA32_VMX_PINBASED_CTLS,
		MSR_IA32_VMX_PROCBASED_CTLS, MSR_IA32_VMX_EXIT_CTLS,  MSR_IA32_VMX_ENTRY_CTLS,
		MSR_IA32_VMX_MISC,	     MSR_IA32_VMX_CR0_FIXED0, MSR_IA32_VMX_CR0_FIXED1,
		MSR_IA32_VMX_CR4_FIXED0,     MSR_IA32_VMX_CR4_FIXED1};
	uint64_t probe;
	for (unsigned i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		if (!rdmsr_safe(caps[i], &probe)) {
			*why = "CPUID shows VMX but a VMX capability MSR faults on RDMSR";
			return false;
		}
	}
	uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	if ((fc & FEATURE_CONTROL_LOCKED) && !(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		*why = "IA32_FEATURE_CONTROL is locked with VMX disabled (firmware setting)";
		return false;
	}
	uint64_t basic = rdmsr(MSR_IA32_VMX_BASIC);
	c->revision = (uint32_t)basic & 0x7fffffff;
	if (((basic >> 50) & 0xf) != 6) {
		*why = "VMCS memory type is not write-back";
		return false;
	}
	bool tru = basic & VMX_BASIC_TRUE_CTLS;
	static const uint32_t more[] = {MSR_IA32_VMX_TRUE_PINBASED_CTLS,
					MSR_IA32_VMX_TRUE_PROCBASED_CTLS,
					MSR_IA32_VMX_TRUE_EXIT_CTLS, MSR_IA32_VMX_TRUE_ENTRY_CTLS};
	for (unsigned i = 0; tru && i < sizeof more / sizeof more[0]; i++) {
		if (!rdmsr_safe(more[i], &probe)) {
			*why = "VMX_BASIC names TRUE controls but their MSRs fault";
			return false;
		}
	}
	if (!adjust(tru ? MSR_IA32_VMX_TRUE_PINBASED_CTLS : MSR_IA32_VMX_PINBASED_CTLS,
		    PIN_EXTERNAL_INTERRUPT_EXITING | PIN_NMI_EXITING | PIN_VMX_PREEMPTION_TIMER,
		    PIN_VIRTUAL_NMIS, &c->pin)) {
		*why = "pin-based controls lack external-interrupt/NMI exiting or the preemption "
		       "timer";
		return false;
	}
	if (!adjust(tru ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS : MSR_IA32_VMX_PROCBASED_CTLS,
		    CPU_HLT_EXITING | CPU_UNCONDITIONAL_IO_EXITING | CPU_USE_MSR_BITMAPS |
			    CPU_ACTIVATE_SECONDARY_CONTROLS | CPU_MOV_DR_EXITING |
			    CPU_CR8_LOAD_EXITING | CPU_CR8_STORE_EXITING,
		    CPU_MWAIT_EXITING | CPU_MONITOR_EXITING | CPU_RDPMC_EXITING |
			    CPU_USE_TSC_OFFSETTING,
		    &c->cpu)) {
		*why = "processor-based controls lack HLT/I/O/CR8 exiting, MSR bitmaps or "
		       "secondary controls";
		return false;
	}
	/* Guest NMIs with blocking need both virtual NMIs and NMI-window exiting (set per
	 * entry, run.c); virtual NMIs stay off without the window (SDM 26.2.1.1). */
	uint64_t cpu_may1 =
		rdmsr(tru ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS : MSR_IA32_VMX_PROCBASED_CTLS) >> 32;
	c->vnmi = (c->pin & PIN_VIRTUAL_NMIS) && (cpu_may1 & CPU_NMI_WINDOW_EXITING);
	if (!c->vnmi)
		c->pin &= ~PIN_VIRTUAL_NMIS;
	/* CR8 exiting is required: without it (and without a TPR shadow) a 64-bit guest's
	 * MOV to CR8 writes the host's LAPIC TPR and can mask the scheduler's timer. */
	if (c->cpu & (CPU_USE_TPR_SHADOW | CPU_PAUSE_EXITING | CPU_MONITOR_TRAP_FLAG)) {
		*why = "TPR shadow, PAUSE exiting or monitor trap flag cannot be turned off";
		return false;
	}
	if (c->cpu & (CPU_CR3_LOAD_EXITING | CPU_CR3_STORE_EXITING | CPU_RDTSC_EXITING)) {
		/* Only possible without TRUE controls on old CPUs; EPT makes CR3 exits useless. */
		*why = "CR3-load/store or RDTSC exiting cannot be turned off";
		return false;
	}
	if (!rdmsr_safe(MSR_IA32_VMX_PROCBASED_CTLS2, &probe) ||
	    !rdmsr_safe(MSR_IA32_VMX_EPT_VPID_CAP, &probe)) {
		*why = "no secondary controls or EPT/VPID capability MSR (RDMSR faults)";
		return false;
	}
	if (!adjust(MSR_IA32_VMX_PROCBASED_CTLS2,
		    CPU2_ENABLE_EPT | CPU2_ENABLE_VPID | CPU2_UNRESTRICTED_GUEST,
		    CPU2_WBINVD_EXITING | CPU2_PAUSE_LOOP_EXITING, &c->cpu2)) {
		*why = "no EPT, VPID or unrestricted guest";
		return false;
	}
	/* Not requested, so RDTSCP, INVPCID and XSAVES/XRSTORS #UD in the guest without an
	 * exit (24.6.2), as CPUID (which hides them) says. Without WBINVD exiting (an old
	 * CPU) a guest WBINVD runs natively: its cost is bounded by the cache size. */
	if (!adjust(tru ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS,
		    EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_IA32_EFER | EXIT_LOAD_IA32_EFER |
			    EXIT_SAVE_DEBUG_CONTROLS,
		    0, &c->exit)) {
		*why = "VM-exit controls lack 64-bit host or EFER save/load";
		return false;
	}
	c->exit &= ~EXIT_ACK_INTERRUPT_ON_EXIT; /* the host takes its interrupt at the drain */
	if (!adjust(tru ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS,
		    ENTRY_LOAD_IA32_EFER | ENTRY_LOAD_DEBUG_CONTROLS, 0, &c->entry)) {
		*why = "VM-entry controls lack EFER or debug-control load";
		return false;
	}
	c->entry &= ~ENTRY_IA32E_MODE_GUEST;
	c->ept_vpid = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	if ((c->ept_vpid & (EPT_CAP_WALK_4 | EPT_CAP_WB)) != (EPT_CAP_WALK_4 | EPT_CAP_WB) ||
	    !(c->ept_vpid & EPT_CAP_INVEPT) || !(c->ept_vpid & EPT_CAP_INVVPID)) {
		*why = "EPT lacks 4-level walks, write-back, INVEPT or INVVPID";
		return false;
	}
	c->preempt_shift = rdmsr(MSR_IA32_VMX_MISC) & 0x1f;
	c->cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
	/* CR4 bits a guest may set: those whose feature CPUID shows it (core's filter asks
	 * hv_guest_cr4_valid for FSGSBASE/SMEP/SMAP) and the CPU allows in VMX operation.
	 * MCE: CPUID shows MCE/MCA with zero banks. Never VMXE/SMXE (no nested VMX), PCIDE
	 * (PCID hidden), OSXSAVE (XSAVE hidden), UMIP, LA57, PKE, CET. */
	struct cpuid_regs l7 = cpuid(0, 0).eax >= 7 ? cpuid(7, 0) : (struct cpuid_regs){0};
	c->guest_cr4_valid = (CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PSE | CR4_PAE | CR4_MCE |
			      CR4_PGE | CR4_PCE | CR4_OSFXSR | CR4_OSXMMEXCPT |
			      ((l7.ebx & CPUID_7_FSGSBASE) ? CR4_FSGSBASE : 0) |
			      ((l7.ebx & CPUID_7_SMEP) ? CR4_SMEP : 0) |
			      ((l7.ebx & CPUID_7_SMAP) ? CR4_SMAP : 0)) &
			     c->cr4_fixed1;
	c->guest_efer_valid = EFER_SCE | EFER_LME | EFER_LMA;
	if (cpuid(0x80000001u, 0).edx & CPUID_80000001_NX)
		c->guest_efer_valid |= EFER_NXE;

	/* MSR bitmap (24.6.9): an allow-list. Everything is intercepted, then the MSRs that
	 * are per-vCPU state anyway pass: FS/GS base and SYSENTER_* are switched by the VMCS
	 * on every entry and exit, the lazy MSRs by load_here/hv_vcpu_put, and TSC is read
	 * only. Every other MSR exits to core/ (exit_cpuid_msr.c). */
	c->msr_bitmap_pa = frame_alloc();
	if (!c->msr_bitmap_pa) {
		*why = "out of memory for the MSR bitmap";
		return false;
	}
	uint8_t *bm = phys_to_virt(c->msr_bitmap_pa);
	memset(bm, 0xff, PAGE_SIZE);
	msr_bitmap_pass(bm, MSR_FS_BASE, true, true);
	msr_bitmap_pass(bm, MSR_GS_BASE, true, true);
	msr_bitmap_pass(bm, MSR_IA32_SYSENTER_CS, true, true);
	msr_bitmap_pass(bm, MSR_IA32_SYSENTER_ESP, true, true);
	msr_bitmap_pass(bm, MSR_IA32_SYSENTER_EIP, true, true);
	msr_bitmap_pass(bm, MSR_IA32_TSC, true, false); /* never written: Bochs bug 3 */
	for (unsigned i = 0; i < VMX_NR_LAZY_MSRS; i++)
		msr_bitmap_pass(bm, vmx_lazy_msrs[i], true, false); /* writes: hv_msr_write */
	vmx_exits_init();
	return true;
}

/* PAUSE-loop exiting (25.1.3) is optional: vmcs_setup turns it on per vCPU when asked. */
static bool vmx_pause_loop_supported(void)
{
	return vmx_caps.cpu2 & CPU2_PAUSE_LOOP_EXITING;
}

static uint64_t vmx_guest_cr4_valid(void)
{
	return vmx_caps.guest_cr4_valid;
}

static int vmx_cpu_init(const char **why)
{
	struct vmx_cpu *vc = &vmx_cpu[this_cpu()->id];
	if (vc->on)
		return 0;
	uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	if (!(fc & FEATURE_CONTROL_LOCKED))
		wrmsr(MSR_IA32_FEATURE_CONTROL,
		      fc | FEATURE_CONTROL_LOCKED | FEATURE_CONTROL_VMX_OUTSIDE_SMX);
	else if (!(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		*why = "IA32_FEATURE_CONTROL locked with VMX disabled";
		return -1;
	}
	/* CR0/CR4 must satisfy the fixed bits in VMX operation (23.8). CR4.OSFXSR lets
	 * FXSAVE/FXRSTOR carry the guests' SSE state (the host itself uses none). */
	write_cr0((read_cr0() | vmx_caps.cr0_fixed0) & vmx_caps.cr0_fixed1 & ~CR0_TS);
	write_cr4((read_cr4() | vmx_caps.cr4_fixed0 | CR4_VMXE | CR4_OSFXSR) & vmx_caps.cr4_fixed1);
	if (!vc->vmxon_pa)
		vc->vmxon_pa = frame_alloc();
	if (!vc->vmxon_pa) {
		*why = "out of memory for the VMXON region";
		return -1;
	}
	*(uint32_t *)phys_to_virt(vc->vmxon_pa) = vmx_caps.revision;
	if (!vmxon(vc->vmxon_pa)) {
		*why = "VMXON failed";
		return -1;
	}
	for (unsigned i = 0; i < VMX_NR_LAZY_MSRS; i++)
		vc->hw_lazy[i] = rdmsr(vmx_lazy_msrs[i]);
	/* Nothing from an earlier run of this CPU may stay in the TLBs. */
	if (((vmx_caps.ept_vpid & EPT_CAP_INVEPT_ALL) && !invept(2, 0)) ||
	    ((vmx_caps.ept_vpid & EPT_CAP_INVVPID_ALL) && !invvpid(2, 0))) {
		*why = "INVEPT/INVVPID (all contexts) failed after VMXON";
		return -1;
	}
	vc->on = true;
	return 0;
}

void vmcs_fail(struct vmx_vcpu *v, uint32_t field)
{
	if (!v->vmx_error) {
		v->vmx_error = true;
		v->vmx_error_field = field;
	}
}

/* What hv.c calls (hv_backend.h); each member has the contract of the hv.h function of
 * the same name. The functions take struct hv_vcpu and cast it to struct vmx_vcpu. */
const struct hv_backend vmx_backend = {
	.name = "vmx",
	.fault_name = "EPT violation",
	.detect = vmx_detect,
	.cpu_init = vmx_cpu_init,
	.space_map = vmx_space_map,
	.space_unmap = vmx_space_unmap,
	.vcpu_create = vmx_vcpu_create,
	.vcpu_destroy = vmx_vcpu_destroy,
	.vcpu_put = vmx_vcpu_put,
	.vcpu_loaded_on = vmx_vcpu_loaded_on,
	.vcpu_run = vmx_vcpu_run,
	.rsp_get = vmx_rsp_get,
	.rsp_set = vmx_rsp_set,
	.skip_insn = vmx_skip_insn,
	.inject_exception = vmx_inject_exception,
	.request_nmi = vmx_request_nmi,
	.nmi_masked = vmx_nmi_masked,
	.guest_long_mode = vmx_guest_long_mode,
	.guest_cpl = vmx_guest_cpl,
	.guest_if = vmx_guest_if,
	.write_cr = vmx_write_cr,
	.read_cr = vmx_read_cr,
	.write_efer = vmx_write_efer,
	.read_efer = vmx_read_efer,
	.guest_cr4_valid = vmx_guest_cr4_valid,
	.msr_write = vmx_msr_write,
	.set_tsc_offset = vmx_set_tsc_offset,
	.start_real = vmx_start_real,
	.read_state = vmx_read_state,
	.dr_get = vmx_dr_get,
	.dr_set = vmx_dr_set,
	.rflags_get = vmx_rflags_get,
	.rflags_set = vmx_rflags_set,
	.test_break_guest_state = vmx_test_break_guest_state,
	.vcpu_reset_real = vmx_vcpu_reset_real,
	.exit_reason_name = vmx_exit_reason_name,
	.insn_error_name = vmx_insn_error_name,
	.pause_loop_supported = vmx_pause_loop_supported,
	.exit_stats_names = {"vmread", "vmwrite"},
};
