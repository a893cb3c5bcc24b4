/* CPUID and MSR exits. CPUID passes the host's values through a filter: no VMX, SMX,
 * MONITOR, x2APIC, TSC-deadline, PCID, XSAVE/AVX (guests get no XCR0 or APIC), the
 * hypervisor bit set and a 0x40000000 leaf naming sliver. MSRs: the harmless ones pass in
 * the bitmap (arch); here EFER is emulated, a few are per-vCPU shadows or constants, and
 * everything else is #GP(0), writes to IA32_TSC included (emulators.md, Bochs bug 3). */
#include "arch/x86_64/vmx/vmx_defs.h"
#include "core/vmm.h"

#define SIG_B 0x76696c53u /* "Sliv" */
#define SIG_C 0x6c537265u /* "erSl" */
#define SIG_D 0x72657669u /* "iver" */

enum exit_action exit_cpuid(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	uint32_t leaf = (uint32_t)hv_gpr_get(h, HV_RAX), sub = (uint32_t)hv_gpr_get(h, HV_RCX);
	struct cpuid_regs r = {0, 0, 0, 0};
	if (leaf == 0x40000000u) {
		r = (struct cpuid_regs){0x40000000u, SIG_B, SIG_C, SIG_D};
	} else if (leaf > 0x40000000u && leaf < 0x80000000u) {
		/* nothing */
	} else {
		r = cpuid(leaf, sub);
		switch (leaf) {
		case 1:
			r.ecx &= ~((1u << 3) | (1u << 5) | (1u << 6) | (1u << 17) | (1u << 21) |
				   (1u << 24) | (1u << 26) | (1u << 27) | (1u << 28));
			r.ecx |= 1u << 31;
			r.ebx = (r.ebx & 0x0000ffffu) | (1u << 16) | (v->id << 24);
			break;
		case 5:
		case 6:
		case 0xa:
		case 0xd:
			r = (struct cpuid_regs){0, 0, 0, 0};
			break;
		case 7:
			/* FSGSBASE, BMI1, SMEP, BMI2, ERMS, ADX, SMAP, CLFLUSHOPT only. */
			if (sub == 0)
				r = (struct cpuid_regs){0, r.ebx & 0x00980389u, 0, 0};
			else
				r = (struct cpuid_regs){0, 0, 0, 0};
			break;
		}
	}
	hv_gpr_set(h, HV_RAX, r.eax);
	hv_gpr_set(h, HV_RBX, r.ebx);
	hv_gpr_set(h, HV_RCX, r.ecx);
	hv_gpr_set(h, HV_RDX, r.edx);
	hv_skip_insn(h, e->insn_len);
	return ACT_CONTINUE;
}

static uint64_t *shadow(struct vcpu *v, uint32_t msr)
{
	switch (msr) {
	case MSR_STAR:
		return &v->msr_star;
	case MSR_LSTAR:
		return &v->msr_lstar;
	case MSR_CSTAR:
		return &v->msr_cstar;
	case MSR_SFMASK:
		return &v->msr_sfmask;
	case MSR_KERNEL_GS_BASE:
		return &v->msr_kgs;
	case MSR_IA32_PAT:
		return &v->msr_pat;
	case MSR_IA32_MTRR_DEF_TYPE:
		return &v->msr_mtrr_def;
	default:
		return 0;
	}
}

enum exit_action exit_rdmsr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	uint64_t val, *sh = shadow(v, e->msr.index);
	if (sh)
		val = *sh;
	else if (e->msr.index == MSR_IA32_EFER)
		val = hv_read_efer(h);
	else if (e->msr.index == MSR_IA32_MISC_ENABLE)
		val = 1; /* fast strings */
	else if (e->msr.index == MSR_IA32_MTRRCAP)
		val = 0;
	else {
		hv_inject_exception(h, 13, true, 0);
		return ACT_CONTINUE;
	}
	hv_gpr_set(h, HV_RAX, (uint32_t)val);
	hv_gpr_set(h, HV_RDX, val >> 32);
	hv_skip_insn(h, e->insn_len);
	return ACT_CONTINUE;
}

enum exit_action exit_wrmsr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	uint64_t *sh = shadow(v, e->msr.index);
	bool ok = true;
	if (sh)
		*sh = e->msr.value;
	else if (e->msr.index == MSR_IA32_EFER)
		ok = hv_write_efer(h, e->msr.value);
	else
		ok = false;
	if (!ok) {
		hv_inject_exception(h, 13, true, 0);
		return ACT_CONTINUE;
	}
	hv_skip_insn(h, e->insn_len);
	return ACT_CONTINUE;
}
