/* CPUID and MSR exits.
 * CPUID passes the host's values through allow-lists: a guest sees only features whose
 * instructions, control bits and MSRs sliver really gives it (docs/vmx.md, "Pass-through
 * audit"): no VMX/SMX, MONITOR, PMU/PDCM, debug store, thermal/power, MCE/MCA with
 * zero banks (MCG_CAP 0, MCG_STATUS 0, CR4.MCE allowed, as KVM always offers),
 * APIC/x2APIC/TSC-deadline (unless the domain has lapic=1), PCID, XSAVE/AVX (no XCR0), RDTSCP, PKU;
 * FSGSBASE/SMEP/SMAP only when the backend lets CR4 enable them. The hypervisor bit is set and leaf
 * 0x40000000 names sliver; leaf 0x40000001 names the platform sliver itself runs on (the host's
 * leaf 0x40000000 signature when the host's hypervisor bit is set, e.g. "TCGTCGTCGTCG" under QEMU's
 * emulator, else zeros), so that a test guest can tell an emulator's known gap from a sliver bug
 * (docs/hypercalls.md). MSRs: the per-vCPU ones pass in the bitmap (arch: reads, and writes of the
 * VMCS- switched ones); here EFER and the SWAPGS/SYSCALL MSRs go to the backend, which checks them
 * (hv_write_efer, hv_msr_write), PAT and MTRR_DEF_TYPE are checked per-vCPU values, MTRRCAP a
 * constant, MISC_ENABLE a per-vCPU value with one writable bit, IA32_TSC and TSC_ADJUST a per-vCPU
 * TSC offset (the host's TSC is never written: emulators.md, Bochs bug 3), and everything else is
 * #GP(0) and counted per domain (`msr` line of a run's end). */
#include "arch/x86_64/cr.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/tsc.h"
#include "core/pcboot.h"
#include "core/vlapic.h"
#include "core/vmm.h"
#include "drivers/console.h"

#define SIG_B 0x76696c53u /* "Sliv" */
#define SIG_C 0x6c537265u /* "erSl" */
#define SIG_D 0x72657669u /* "iver" */

#define BIT(n) (1u << (n))
/* CPUID.1:ECX: SSE3, PCLMULQDQ, SSSE3, CX16, SSE4.1, SSE4.2, MOVBE, POPCNT, AES, RDRAND
 * (RDRAND runs without an exit; it reaches no state of another domain). */
#define LEAF1_ECX_OK                                                                               \
	(BIT(0) | BIT(1) | BIT(9) | BIT(13) | BIT(19) | BIT(20) | BIT(22) | BIT(23) | BIT(25) |    \
	 BIT(30))
/* CPUID.1:EDX: FPU, VME, DE, PSE, TSC, MSR, PAE, MCE, CX8, SEP, MTRR (MTRRCAP = 0), PGE,
 * MCA (MCG_CAP = 0 banks), CMOV, PAT, PSE36, CLFSH, MMX, FXSR, SSE, SSE2, SS, HTT. */
#define LEAF1_EDX_OK                                                                               \
	(BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(7) | BIT(8) |          \
	 BIT(11) | BIT(12) | BIT(13) | BIT(14) | BIT(15) | BIT(16) | BIT(17) | BIT(19) | BIT(23) | \
	 BIT(24) | BIT(25) | BIT(26) | BIT(27) | BIT(28))
/* CPUID.7.0:EBX: FSGSBASE, TSC_ADJUST (a per-vCPU offset), BMI1, SMEP, BMI2, ERMS, ADX,
 * SMAP, CLFLUSHOPT. */
#define LEAF7_EBX_OK                                                                               \
	(BIT(0) | BIT(1) | BIT(3) | BIT(7) | BIT(8) | BIT(9) | BIT(19) | BIT(20) | BIT(23))
/* CPUID.80000001H: ECX LAHF, LZCNT, PREFETCHW; EDX SYSCALL, NX, 1 GiB pages, LM. */
#define EXT1_ECX_OK (BIT(0) | BIT(5) | BIT(8))
#define EXT1_EDX_OK (BIT(11) | BIT(20) | BIT(26) | BIT(29))

static inline __attribute__((always_inline)) struct cpuid_regs
cpuid_filter(const struct vcpu *v, uint32_t leaf, uint32_t sub)
{
	struct cpuid_regs r = cpuid(leaf, sub);
	switch (leaf) {
	case 0xb: /* topology: with a vLAPIC, EDX is the vCPU's x2APIC ID */
		if (v->dom->lapic)
			r.edx = v->id;
		return r;
	case 0x15: /* TSC = crystal (ECX, Hz) * EBX / EAX: the rate sliver measured against
		    * the PIT, which the guest's TSC runs at (the host's leaf is meaningless in
		    * an emulator: Bochs says 3.5 GHz for a 50 MHz TSC; Linux trusts it) */
		if (tsc_hz <= UINT32_MAX)
			return (struct cpuid_regs){1, 1, (uint32_t)tsc_hz, 0};
		return (struct cpuid_regs){1, (uint32_t)((tsc_hz + 500000) / 1000000), 1000000, 0};
	case 0x16: /* base and maximum frequency in MHz (the TSC's), no bus frequency */
		return (struct cpuid_regs){(uint32_t)((tsc_hz + 500000) / 1000000),
					   (uint32_t)((tsc_hz + 500000) / 1000000), 0, 0};
	case 0:
	case 2:
	case 4:
	case 0x80000000u:
	case 0x80000002u:
	case 0x80000003u:
	case 0x80000004u: /* brand string */
	case 0x80000006u: /* cache */
		return r;
	case 1:
		r.ecx = (r.ecx & LEAF1_ECX_OK) | BIT(31);
		r.edx &= LEAF1_EDX_OK;
		if (v->dom->lapic) { /* APIC (while APIC_BASE.EN), x2APIC, TSC-deadline */
			r.ecx |= BIT(21) | BIT(24);
			if (v->lapic.apic_base & (1u << 11))
				r.edx |= BIT(9);
		}
		r.ebx = (r.ebx & 0x0000ffffu) | (1u << 16) | (v->id << 24);
		return r;
	case 7: {
		if (sub)
			return (struct cpuid_regs){0, 0, 0, 0};
		uint64_t cr4 = hv_guest_cr4_valid();
		uint32_t ebx = r.ebx & LEAF7_EBX_OK;
		if (!(cr4 & CR4_FSGSBASE))
			ebx &= ~CPUID_7_FSGSBASE;
		if (!(cr4 & CR4_SMEP))
			ebx &= ~CPUID_7_SMEP;
		if (!(cr4 & CR4_SMAP))
			ebx &= ~CPUID_7_SMAP;
		return (struct cpuid_regs){0, ebx, 0, 0};
	}
	case 0x80000001u:
		return (struct cpuid_regs){r.eax, 0, r.ecx & EXT1_ECX_OK, r.edx & EXT1_EDX_OK};
	case 0x80000007u:
		return (struct cpuid_regs){0, 0, 0, r.edx & BIT(8)}; /* invariant TSC */
	case 0x80000008u:
		return (struct cpuid_regs){r.eax, 0, 0, 0}; /* address sizes */
	default:
		/* MONITOR (5), power (6), PMU (0xA), XSAVE (0xD), RDT (0xF, 0x10), SGX (0x12),
		 * PT (0x14) and everything newer: the features are hidden, so are the leaves. */
		return (struct cpuid_regs){0, 0, 0, 0};
	}
}

/* CPUID's answer in the guest's registers, the instruction not completed yet (exit_cpuid;
 * core's quick path, exit.c, leaves that to the backend). */
void cpuid_answer(struct vcpu *v)
{
	struct hv_vcpu *h = v->hv;
	uint32_t leaf = (uint32_t)hv_gpr_get(h, HV_RAX), sub = (uint32_t)hv_gpr_get(h, HV_RCX);
	struct cpuid_regs r = {0, 0, 0, 0};
	if (leaf == 0x40000000u)
		r = (struct cpuid_regs){0x40000001u, SIG_B, SIG_C, SIG_D};
	else if (leaf == 0x40000001u && cpu_has_feature_ecx1(31)) {
		r = cpuid(0x40000000u, 0);
		r.eax = 0;
	} else if (leaf < 0x40000000u || leaf >= 0x80000000u)
		r = cpuid_filter(v, leaf, sub);
	hv_gpr_set(h, HV_RAX, r.eax);
	hv_gpr_set(h, HV_RBX, r.ebx);
	hv_gpr_set(h, HV_RCX, r.ecx);
	hv_gpr_set(h, HV_RDX, r.edx);
}

enum exit_action exit_cpuid(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	cpuid_answer(v);
	hv_skip_exit_insn(v->hv);
	return ACT_RESUME; /* registers only */
}

/* PAT: eight memory types, each 0 (UC), 1 (WC), 4 (WT), 5 (WP), 6 (WB) or 7 (UC-); any
 * other value is #GP(0) (SDM Vol. 3A 11.12.2). */
static bool pat_ok(uint64_t val)
{
	for (unsigned i = 0; i < 8; i++) {
		unsigned t = (val >> (8 * i)) & 0xff;
		if (t == 2 || t == 3 || t > 7)
			return false;
	}
	return true;
}

/* MTRR_DEF_TYPE: type in bits 7:0 (0, 1, 4, 5, 6), E (bit 11); FE (bit 10) is reserved
 * with MTRRCAP.FIX = 0, as is everything else (SDM Vol. 3A 11.11.2.1). */
static bool mtrr_def_ok(uint64_t val)
{
	unsigned t = val & 0xff;
	return !(val & ~0x8ffull) && (t == 0 || t == 1 || (t >= 4 && t <= 6));
}

/* IA32_MISC_ENABLE (SDM Vol. 4 table 2-2), as KVM keeps it (Linux arch/x86/kvm/x86.c,
 * kvm_set_msr_common, MSR_IA32_MISC_ENABLE), which guests written for KVM test
 * (kvm-unit-tests x86/msr.c reads back what it wrote): BTS and PEBS unavailable (bits 11,
 * 12) are read-only and a write that changes them is #GP(0); EMON (bit 7, performance
 * monitoring available) stays 0 whatever is written; every other bit keeps what the guest
 * wrote and changes nothing (no thermal control, MONITOR, CPUID limit or XD disable is
 * emulated: CPUID and the hardware are not affected). Reset: fast strings, BTS/PEBS
 * unavailable. */
#define MISC_FAST_STRINGS (1ull << 0)
#define MISC_EMON	  (1ull << 7)
#define MISC_RO		  ((1ull << 11) | (1ull << 12))
#define MISC_RESET	  (MISC_FAST_STRINGS | MISC_RO)

static bool misc_enable_write(struct vcpu *v, uint64_t val)
{
	uint64_t old = v->misc_enable ? v->misc_enable : MISC_RESET;
	if ((old ^ val) & MISC_RO)
		return false;
	v->misc_enable = val & ~MISC_EMON;
	return true;
}

/* The guest's TSC is the host's plus v->tsc_offset. A write of IA32_TSC moves the offset and
 * IA32_TSC_ADJUST by the same amount, a write of TSC_ADJUST moves the offset by its change
 * (SDM Vol. 3B 17.17.3). A boot=sliver vCPU's boot-info tsc_base follows, so its clock
 * without exits stays the hypervisor's. */
static bool tsc_offset_set(struct vcpu *v, uint64_t offset)
{
	if (!hv_set_tsc_offset(v->hv, offset))
		return false;
	v->tsc_adjust += offset - v->tsc_offset;
	v->tsc_offset = offset;
	vlapic_tsc_moved(v);
	if (v->dom->boot == PC_BOOT_SLIVER) {
		struct sliver_boot_info *bi =
			hv_space_ptr(v->dom->space, SLIVER_BOOTINFO_GPA(v->id), sizeof *bi);
		if (bi)
			bi->tsc_base = tsc_at_boot + offset;
	}
	return true;
}

/* An MSR sliver does not offer: #GP(0), as on a CPU without it, counted per domain and
 * named for the first few (a guest kernel probing MSRs is worth knowing about). */
static enum exit_action msr_unknown(struct vcpu *v, struct hv_exit *e, bool write)
{
	struct domain *d = v->dom;
	uint64_t n = __atomic_add_fetch(&d->msr_unknown, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&d->msr_unknown_last, e->msr.index, __ATOMIC_RELAXED);
	if (n <= 4)
		printk("sliver: d%u %s 0x%x: MSR not offered, #GP\n", d->id,
		       write ? "wrmsr" : "rdmsr", e->msr.index);
	hv_inject_exception(v->hv, 13, true, 0);
	return ACT_CONTINUE;
}

/* On an AMD CPU (the guest sees the host's vendor) PerfEvtSel0-3/PerfCtr0-3 exist whatever
 * CPUID says, and guests use them unasked (kvm-unit-tests' pmu_init reads them at start):
 * they read 0 and writes are dropped, as KVM does without a PMU (arch/x86/kvm/x86.c,
 * kvm_get_msr_common / kvm_set_msr_common, MSR_K7_EVNTSEL0 ... MSR_K7_PERFCTR3). Nothing
 * counts: RDPMC stays #GP. The same for the interrupt-pending message MSR (0 = no C1E),
 * which Linux reads unchecked on the family 0xF models of AMD erratum 400 (QEMU's qemu64). */
static bool amd_legacy_pmc(uint32_t index)
{
	return ((index >= MSR_K7_EVNTSEL0 && index <= MSR_K7_PERFCTR3) ||
		index == MSR_K8_INT_PENDING_MSG) &&
	       cpuid(0, 0).ebx == 0x68747541u; /* "Auth" of AuthenticAMD */
}

enum exit_action exit_rdmsr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	uint64_t val = 0;
	int lr = vlapic_rdmsr(v, e->msr.index, &val); /* lapic=1: APIC_BASE, x2APIC, ... */
	if (lr) {
		if (lr < 0) {
			hv_inject_exception(h, 13, true, 0);
			return ACT_CONTINUE;
		}
		hv_gpr_set(h, HV_RAX, (uint32_t)val);
		hv_gpr_set(h, HV_RDX, val >> 32);
		hv_skip_exit_insn(v->hv);
		return ACT_CONTINUE;
	}
	switch (e->msr.index) {
	case MSR_IA32_PAT:
		val = v->msr_pat;
		break;
	case MSR_IA32_MTRR_DEF_TYPE:
		val = v->msr_mtrr_def;
		break;
	case MSR_IA32_EFER:
		val = hv_read_efer(h);
		break;
	case MSR_IA32_MISC_ENABLE:
		val = v->misc_enable ? v->misc_enable : MISC_RESET;
		break;
	case MSR_IA32_TSC_ADJUST:
		val = v->tsc_adjust;
		break;
	case MSR_IA32_TSC: /* VMX passes reads (the offset applies); a backend may exit */
		val = rdtsc() + v->tsc_offset;
		break;
	case MSR_IA32_MTRRCAP:
		val = 0; /* no variable or fixed ranges, no WC */
		break;
	case MSR_IA32_BIOS_SIGN_ID: /* microcode revision (bits 63:32), as KVM's default */
		val = 1ull << 32;
		break;
	case MSR_IA32_MCG_CAP: /* MCA with zero banks, no MCG_CTL: every MCi_* MSR is #GP */
	case MSR_IA32_MCG_STATUS:
		val = 0; /* kvm-unit-tests x86/msr.c reads MCG_CAP whatever CPUID says (KVM has it)
			  */
		break;
	default:
		if (!amd_legacy_pmc(e->msr.index))
			return msr_unknown(v, e, false);
		break;
	}
	hv_gpr_set(h, HV_RAX, (uint32_t)val);
	hv_gpr_set(h, HV_RDX, val >> 32);
	hv_skip_exit_insn(v->hv);
	return ACT_CONTINUE;
}

enum exit_action exit_wrmsr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	uint64_t val = e->msr.value;
	bool ok;
	int lr = vlapic_wrmsr(v, e->msr.index, val);
	if (lr) {
		if (lr < 0)
			hv_inject_exception(h, 13, true, 0);
		else
			hv_skip_exit_insn(v->hv);
		return v->dom->dying ? ACT_DEAD : ACT_CONTINUE;
	}
	switch (e->msr.index) {
	case MSR_IA32_PAT:
		ok = pat_ok(val);
		if (ok)
			v->msr_pat = val;
		break;
	case MSR_IA32_MTRR_DEF_TYPE:
		ok = mtrr_def_ok(val);
		if (ok)
			v->msr_mtrr_def = val;
		break;
	case MSR_IA32_EFER:
		ok = hv_write_efer(h, val);
		break;
	case MSR_IA32_MISC_ENABLE:
		ok = misc_enable_write(v, val);
		break;
	case MSR_IA32_TSC:
		ok = tsc_offset_set(v, val - rdtsc());
		break;
	case MSR_IA32_TSC_ADJUST:
		ok = tsc_offset_set(v, v->tsc_offset + (val - v->tsc_adjust));
		break;
	case MSR_IA32_MTRRCAP:
	case MSR_IA32_MCG_CAP:
		ok = false; /* offered read-only: a write is #GP like a read-only MSR's */
		break;
	case MSR_IA32_MCG_STATUS:
		ok = val == 0; /* no machine check is ever in progress */
		break;
	case MSR_IA32_BIOS_SIGN_ID: /* Linux writes 0 before CPUID to read it: no effect */
		ok = true;
		break;
	default: {
		int r = hv_msr_write(h, e->msr.index, val); /* SWAPGS/SYSCALL MSRs */
		if (!r && amd_legacy_pmc(e->msr.index))
			r = 1;
		if (!r)
			return msr_unknown(v, e, true);
		ok = r > 0;
		break;
	}
	}
	if (!ok) {
		hv_inject_exception(h, 13, true, 0);
		return ACT_CONTINUE;
	}
	hv_skip_exit_insn(v->hv);
	return ACT_CONTINUE;
}

void exit_msr_report(const struct domain *d)
{
	printk("msr d%u unknown=%lu last=0x%x\n", d->id,
	       (unsigned long)__atomic_load_n(&d->msr_unknown, __ATOMIC_RELAXED),
	       __atomic_load_n(&d->msr_unknown_last, __ATOMIC_RELAXED));
}
