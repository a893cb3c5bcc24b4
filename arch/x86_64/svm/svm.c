/* SVM detection (APM Vol. 2 15.4), EFER.SVME and the host save area on each pCPU
 * (15.5.1, 15.30.4), the I/O and MSR permission maps (15.10.1, 15.11) and the backend
 * table hv.c picks when this CPU is AMD. */
#include "arch/x86_64/svm/svm.h"
#include "lib/string.h"

struct svm_caps svm_caps;
struct svm_cpu svm_cpu[MAX_CPUS];

/* IOPM: 12 KiB, one bit per port, all set: every IN/OUT exits to core/ (exit_io.c), as
 * VMX's unconditional I/O exiting. MSRPM: 8 KiB, two bits (read, write) per MSR in three
 * 8 K-MSR ranges; MSRs outside them always exit. Both are physically contiguous, shared by
 * every vCPU, and live in the image (identity-mapped, memory.h). */
static uint8_t iopm[3 * 4096] __attribute__((aligned(4096)));
static uint8_t msrpm[2 * 4096] __attribute__((aligned(4096)));

uint64_t svm_iopm_pa(void)
{
	return virt_to_phys(iopm);
}

uint64_t svm_msrpm_pa(void)
{
	return virt_to_phys(msrpm);
}

/* APM 15.11, figure 15-4: MSRs 0-0x1fff at byte 0, 0xc0000000-0xc0001fff at 0x800,
 * 0xc0010000-0xc0011fff at 0x1000. */
static void msrpm_pass(uint32_t msr, bool read, bool write)
{
	unsigned base;
	if (msr < 0x2000)
		base = 0;
	else if (msr - 0xc0000000u < 0x2000)
		base = 0x800;
	else
		return; /* outside the map: always intercepted */
	unsigned bit = 2 * (msr & 0x1fff);
	uint8_t *b = &msrpm[base + bit / 8];
	if (read)
		*b &= (uint8_t) ~(1u << (bit % 8));
	if (write)
		*b &= (uint8_t) ~(2u << (bit % 8));
}

static bool svm_detect(const char **why)
{
	struct svm_caps *c = &svm_caps;
	if (cpuid(0x80000000u, 0).eax < 0x8000000au ||
	    !(cpuid(0x80000001u, 0).ecx & CPUID_80000001_ECX_SVM)) {
		*why = "CPUID 0x80000001:ECX.SVM[bit 2] is clear";
		return false;
	}
	/* Probed without trusting CPUID: the MSRs may be missing (Bochs' ryzen model). */
	uint64_t vm_cr, efer;
	if (!rdmsr_safe(MSR_VM_CR, &vm_cr)) {
		*why = "CPUID shows SVM but VM_CR (MSR 0xc0010114) faults";
		return false;
	}
	if (vm_cr & VM_CR_SVMDIS) {
		*why = "VM_CR.SVMDIS is set (SVM disabled by firmware)";
		return false;
	}
	if (!rdmsr_safe(MSR_IA32_EFER, &efer) || !wrmsr_safe(MSR_IA32_EFER, efer | EFER_SVME) ||
	    !wrmsr_safe(MSR_IA32_EFER, efer)) {
		*why = "CPUID shows SVM but EFER.SVME cannot be set";
		return false;
	}
	uint64_t hsave;
	if (!rdmsr_safe(MSR_VM_HSAVE_PA, &hsave)) {
		*why = "CPUID shows SVM but VM_HSAVE_PA (MSR 0xc0010117) faults";
		return false;
	}
	struct cpuid_regs a = cpuid(0x8000000au, 0);
	c->features = a.edx;
	c->nr_asids = a.ebx;
	if (!(a.edx & CPUID_8000000A_EDX_NP)) {
		*why = "SVM without nested paging (CPUID 0x8000000A:EDX.NP)";
		return false;
	}
	if (c->nr_asids < 2) {
		*why = "SVM offers no guest ASID";
		return false;
	}
	/* Same CR4 policy as VMX (docs/vmx.md): MCE allowed (zero banks), never PCIDE, OSXSAVE,
	 * UMIP, LA57, PKE, CET; FSGSBASE/SMEP/SMAP only where CPUID shows them. */
	struct cpuid_regs l7 = cpuid(0, 0).eax >= 7 ? cpuid(7, 0) : (struct cpuid_regs){0};
	c->guest_cr4_valid = CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PSE | CR4_PAE | CR4_MCE |
			     CR4_PGE | CR4_PCE | CR4_OSFXSR | CR4_OSXMMEXCPT |
			     ((l7.ebx & CPUID_7_FSGSBASE) ? CR4_FSGSBASE : 0) |
			     ((l7.ebx & CPUID_7_SMEP) ? CR4_SMEP : 0) |
			     ((l7.ebx & CPUID_7_SMAP) ? CR4_SMAP : 0);
	c->guest_efer_valid = EFER_SCE | EFER_LME | EFER_LMA;
	if (cpuid(0x80000001u, 0).edx & CPUID_80000001_NX)
		c->guest_efer_valid |= EFER_NXE;

	memset(iopm, 0xff, sizeof iopm);
	/* The MSR allow-list of VMX (vmx.c): FS/GS base and SYSENTER_* are switched per vCPU
	 * (VMCB save area through VMLOAD/VMSAVE), the SWAPGS/SYSCALL MSRs (also VMLOAD/VMSAVE
	 * state) are read freely and written through hv_msr_write's checks. Everything else
	 * exits to core/ (exit_cpuid_msr.c), EFER included, and IA32_TSC reads too (VMX passes
	 * them): QEMU 7.2 TCG returns 0 for a guest's RDMSR of IA32_TSC that the MSRPM lets
	 * through (docs/svm.md, QEMU item 10; kvm-unit-tests x86/apic.c writes that value as an
	 * already-due TSC deadline). One exit per RDMSR of the TSC; RDTSC does not exit. */
	memset(msrpm, 0xff, sizeof msrpm);
	msrpm_pass(MSR_FS_BASE, true, true);
	msrpm_pass(MSR_GS_BASE, true, true);
	msrpm_pass(MSR_IA32_SYSENTER_CS, true, true);
	msrpm_pass(MSR_IA32_SYSENTER_ESP, true, true);
	msrpm_pass(MSR_IA32_SYSENTER_EIP, true, true);
	msrpm_pass(MSR_KERNEL_GS_BASE, true, false);
	msrpm_pass(MSR_STAR, true, false);
	msrpm_pass(MSR_LSTAR, true, false);
	msrpm_pass(MSR_CSTAR, true, false);
	msrpm_pass(MSR_SFMASK, true, false);
	svm_exits_init();
	c->qemu_tcg = cpu_is_qemu_tcg();
	return true;
}

static int svm_cpu_init(const char **why)
{
	struct svm_cpu *sc = &svm_cpu[this_cpu()->id];
	if (sc->on)
		return 0;
	if (rdmsr(MSR_VM_CR) & VM_CR_SVMDIS) {
		*why = "VM_CR.SVMDIS is set on this CPU";
		return -1;
	}
	/* CR4.OSFXSR lets FXSAVE/FXRSTOR carry the guests' SSE state (the host uses none). */
	write_cr0(read_cr0() & ~CR0_TS);
	write_cr4(read_cr4() | CR4_OSFXSR);
	if (!sc->hsave_pa)
		sc->hsave_pa = svm_frame_alloc();
	if (!sc->host_vmcb_pa)
		sc->host_vmcb_pa = svm_frame_alloc();
	if (!sc->hsave_pa || !sc->host_vmcb_pa) {
		*why = "out of memory for the SVM host save area";
		return -1;
	}
	wrmsr(MSR_IA32_EFER, rdmsr(MSR_IA32_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, sc->hsave_pa);
	/* The host state VMRUN does not switch (FS, GS with its base: the per-CPU block, TR,
	 * LDTR, KERNEL_GS_BASE, STAR/LSTAR/CSTAR/SFMASK, SYSENTER_*) never changes after this
	 * point, so it is saved once here and VMLOADed after every #VMEXIT (enter.h), as
	 * KVM saves it once per vCPU load (APM 15.5.2: VMSAVE/VMLOAD). */
	__asm__ volatile("vmsave %%rax" : : "a"(sc->host_vmcb_pa) : "memory");
	/* ASID generation 1, starting at ASID 1 (0 is the host's): every vCPU gets a fresh
	 * ASID from this pCPU on its first run here, with a flush (run.c). */
	sc->asid_gen = 1;
	sc->next_asid = svm_caps.nr_asids; /* forces a new generation (and a full flush) first */
	sc->on = true;
	return 0;
}

static uint64_t svm_guest_cr4_valid(void)
{
	return svm_caps.guest_cr4_valid;
}

const struct hv_backend svm_backend = {
	.name = "svm",
	.fault_name = "NPT fault",
	.detect = svm_detect,
	.cpu_init = svm_cpu_init,
	.space_map = svm_space_map,
	.space_unmap = svm_space_unmap,
	.vcpu_create = svm_vcpu_create,
	.pause_loop_supported = svm_pause_loop_supported,
	.vcpu_destroy = svm_vcpu_destroy,
	.vcpu_put = svm_vcpu_put,
	.vcpu_loaded_on = svm_vcpu_loaded_on,
	.vcpu_run = svm_vcpu_run,
	.vcpu_reset_real = svm_start_real,
	.start_real = svm_start_real,
	.set_tsc_offset = svm_set_tsc_offset,
	.rsp_get = svm_rsp_get,
	.rsp_set = svm_rsp_set,
	.skip_insn = svm_skip_insn,
	.inject_exception = svm_inject_exception,
	.request_nmi = svm_request_nmi,
	.nmi_masked = svm_nmi_masked,
	.guest_long_mode = svm_guest_long_mode,
	.guest_cpl = svm_guest_cpl,
	.guest_if = svm_guest_if,
	.write_cr = svm_write_cr,
	.read_cr = svm_read_cr,
	.write_efer = svm_write_efer,
	.read_efer = svm_read_efer,
	.guest_cr4_valid = svm_guest_cr4_valid,
	.msr_write = svm_msr_write,
	.read_state = svm_read_state,
	.dr_get = svm_dr_get,
	.dr_set = svm_dr_set,
	.rflags_get = svm_rflags_get,
	.rflags_set = svm_rflags_set,
	.test_break_guest_state = svm_test_break_guest_state,
	.exit_reason_name = svm_exit_reason_name,
	.insn_error_name = svm_insn_error_name,
	.exit_stats_names = {"vmcb_qwords", "clean_cleared"},
};
