/* Guest register access for core/ (the VMCS of v must be current on this pCPU), and the
 * emulation of guest writes to CR0/CR4/EFER: every CR0/CR4 bit is host-owned (mask all
 * ones), so the guest sees its own values in the read shadows while the real registers
 * keep the VMX fixed bits (SDM 23.8, 25.3) and long-mode activation follows CR0.PG with
 * EFER.LME (SDM Vol. 3A 9.8.5). */
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/vmx/vmx.h"
#include "lib/compiler.h"

uint64_t vmx_rsp_get(struct hv_vcpu *hv)
{
	return vmcs_read(to_vmx(hv), VMCS_GUEST_RSP);
}

void vmx_rsp_set(struct hv_vcpu *hv, uint64_t val)
{
	vmcs_write(to_vmx(hv), VMCS_GUEST_RSP, val);
}

/* What skipping an instruction does beyond RIP, rarely needed (vmx_skip, vmx.h): end an
 * STI / MOV-SS shadow, clear RF, raise the single-step trap of TF. */
__attribute__((noinline)) void vmx_skip_rare(struct vmx_vcpu *v, uint64_t intr, uint64_t rflags)
{
	if (intr & (INTR_BLOCKING_BY_STI | INTR_BLOCKING_BY_MOV_SS))
		vmx_set_intr(v, intr & ~(uint64_t)(INTR_BLOCKING_BY_STI | INTR_BLOCKING_BY_MOV_SS));
	if (rflags & RFLAGS_RF)
		vmx_set_rflags(v, rflags & ~RFLAGS_RF);
	if (rflags & RFLAGS_TF)
		hv_single_step_trap(to_hv(v));
}

/* len < 0: the exiting instruction's length (SDM 27.2.5: defined for the exits of an
 * instruction), read only now. */
void vmx_skip_insn(struct hv_vcpu *hv, int len)
{
	struct vmx_vcpu *v = to_vmx(hv);
	uint64_t n = likely(len < 0) ? vmcs_read(v, VMCS_EXIT_INSTRUCTION_LENGTH) : (uint64_t)len;
	vmx_skip(v, n, vmx_rflags(v));
}

uint64_t vmx_rflags_get(struct hv_vcpu *hv)
{
	return vmx_rflags(to_vmx(hv));
}

void vmx_rflags_set(struct hv_vcpu *hv, uint64_t val)
{
	vmx_set_rflags(to_vmx(hv), val);
}

void vmx_inject_exception(struct hv_vcpu *hv, uint8_t vector, bool has_error, uint32_t error)
{
	struct vmx_vcpu *v = to_vmx(hv);
	/* An injected #DB replaces a single-step trap the exit left pending (the CPU saved
	 * BS there when the exiting instruction ran in a MOV SS shadow with TF, 27.3.4):
	 * otherwise the guest would take it twice. */
	if (vector == 1)
		vmcs_write(v, VMCS_GUEST_PENDING_DBG_EXCEPTIONS, 0);
	v->pending_exc = true;
	v->exc_info = INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | vector |
		      (has_error ? INTR_INFO_DELIVER_ERROR_CODE : 0);
	v->exc_error = error;
	v->exc_len = 0;
}

bool vmx_guest_long_mode(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	return v->efer & EFER_LMA;
}

unsigned vmx_guest_cpl(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	return (vmcs_read(v, VMCS_GUEST_SS_AR) >> 5) & 3;
}

bool vmx_guest_if(struct hv_vcpu *hv)
{
	return vmx_rflags(to_vmx(hv)) & RFLAGS_IF;
}

static void update_long_mode(struct vmx_vcpu *v)
{
	bool lma = (v->cr0 & CR0_PG) && (v->efer & EFER_LME);
	v->efer = lma ? v->efer | EFER_LMA : v->efer & ~EFER_LMA;
	v->long_seen |= lma;
	uint32_t entry = lma ? v->entry_ctls | ENTRY_IA32E_MODE_GUEST
			     : v->entry_ctls & ~ENTRY_IA32E_MODE_GUEST;
	if (entry != v->entry_ctls) {
		v->entry_ctls = entry;
		vmcs_write(v, VMCS_ENTRY_CONTROLS, entry);
	}
	vmcs_write(v, VMCS_GUEST_IA32_EFER, v->efer);
}

/* PAE paging outside long mode takes its four PDPTEs from the VMCS at VM entry (SDM
 * 26.3.2.4): after an emulated CR0/CR4 write turns it on, load them from guest memory
 * (CR3 writes do not exit: the CPU loads them itself then). Reserved bits set: false. */
static bool load_pdptes(struct vmx_vcpu *v)
{
	if (!(v->cr0 & CR0_PG) || !(v->cr4 & CR4_PAE) || (v->efer & EFER_LMA))
		return true;
	uint64_t cr3 = vmcs_read(v, VMCS_GUEST_CR3) & 0xffffffe0ull;
	const uint64_t *pdpte = hv_space_ptr(v->space, cr3, 32);
	if (!pdpte)
		return false;
	for (unsigned i = 0; i < 4; i++) {
		if (pdpte_reserved(pdpte[i]))
			return false;
		vmcs_write(v, VMCS_GUEST_PDPTE0 + 2 * i, pdpte[i]);
	}
	return true;
}

/* 64-bit mode proper (IA-32e with CS.L=1), not compatibility mode. */
static bool in_64bit_code(struct vmx_vcpu *v)
{
	return (v->efer & EFER_LMA) && (vmcs_read(v, VMCS_GUEST_CS_AR) & SEG_AR_L);
}

bool vmx_write_cr(struct hv_vcpu *hv, unsigned cr, uint64_t val)
{
	struct vmx_vcpu *v = to_vmx(hv);
	const struct vmx_caps *c = &vmx_caps;
	if (cr == 0) {
		if (!cr0_write_ok(v->cr0, v->cr4, v->efer, in_64bit_code(v), val))
			return false;
		val = (val & CR0_DEFINED) | CR0_ET;
		/* Unrestricted guest: PE and PG are the guest's own (26.3.1.1). */
		uint64_t fixed0 = c->cr0_fixed0 & ~(CR0_PE | CR0_PG);
		uint64_t real = ((val | fixed0) & c->cr0_fixed1) & ~(CR0_CD | CR0_NW);
		uint64_t old = v->cr0;
		v->cr0 = val;
		update_long_mode(v);
		if (!load_pdptes(v)) {
			v->cr0 = old;
			update_long_mode(v);
			return false;
		}
		vmcs_write(v, VMCS_CR0_READ_SHADOW, val);
		vmcs_write(v, VMCS_GUEST_CR0, real);
		return true;
	}
	if (cr == 4) {
		if (!cr4_write_ok(vmx_caps.guest_cr4_valid, v->cr4, v->efer,
				  vmcs_read(v, VMCS_GUEST_CR3), val))
			return false;
		uint64_t old = v->cr4;
		v->cr4 = val;
		if (!load_pdptes(v)) {
			v->cr4 = old;
			return false;
		}
		vmcs_write(v, VMCS_CR4_READ_SHADOW, val);
		vmcs_write(v, VMCS_GUEST_CR4, (val | c->cr4_fixed0) & c->cr4_fixed1);
		return true;
	}
	return false;
}

uint64_t vmx_read_cr(struct hv_vcpu *hv, unsigned cr)
{
	struct vmx_vcpu *v = to_vmx(hv);
	switch (cr) {
	case 0:
		return v->cr0;
	case 3:
		return vmcs_read(v, VMCS_GUEST_CR3);
	case 4:
		return v->cr4;
	default:
		return 0;
	}
}

bool vmx_write_efer(struct hv_vcpu *hv, uint64_t val)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (val & ~vmx_caps.guest_efer_valid)
		return false; /* reserved, or NXE while CPUID hides NX */
	if ((v->cr0 & CR0_PG) && ((val ^ v->efer) & EFER_LME))
		return false; /* LME may change only with paging off */
	v->efer = (val & ~EFER_LMA) | (v->efer & EFER_LMA);
	update_long_mode(v);
	return true;
}

uint64_t vmx_read_efer(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	return v->efer;
}

void vmx_read_state(struct hv_vcpu *hv, struct hv_state *st)
{
	struct vmx_vcpu *v = to_vmx(hv);
	for (unsigned i = 0; i < 16; i++)
		st->gpr[i] = i == HV_RSP ? vmx_rsp_get(hv) : v->g.r[i];
	st->rip = vmcs_read(v, VMCS_GUEST_RIP);
	st->rflags = vmcs_read(v, VMCS_GUEST_RFLAGS);
	st->cr0 = vmcs_read(v, VMCS_GUEST_CR0);
	st->cr3 = vmcs_read(v, VMCS_GUEST_CR3);
	st->cr4 = vmcs_read(v, VMCS_GUEST_CR4);
	st->cr0_shadow = v->cr0;
	st->cr4_shadow = v->cr4;
	st->efer = v->efer;
	st->cs = (uint16_t)vmcs_read(v, VMCS_GUEST_CS_SELECTOR);
	st->ss = (uint16_t)vmcs_read(v, VMCS_GUEST_SS_SELECTOR);
	st->cs_ar = (uint32_t)vmcs_read(v, VMCS_GUEST_CS_AR);
	st->cs_base = vmcs_read(v, VMCS_GUEST_CS_BASE);
	/* CS.L in IA-32e mode: 64-bit code; else CS.D/B: 32 or 16 (SDM 3.4.5). */
	st->code_bits = (v->efer & EFER_LMA) && (st->cs_ar & SEG_AR_L) ? 64
			: (st->cs_ar & (1u << 14))		       ? 32
								       : 16;
	st->intr_state = (uint32_t)vmcs_read(v, VMCS_GUEST_INTERRUPTIBILITY);
	st->activity = (uint32_t)vmcs_read(v, VMCS_GUEST_ACTIVITY_STATE);
	st->idt_vectoring = vmcs_read(v, VMCS_IDT_VECTORING_INFO);
}

void vmx_test_break_guest_state(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	vmx_set_rflags(v, vmx_rflags(v) & ~2ull);
}

/* DR0-DR3 and DR6 are in the hardware while v is loaded (vmx_load_debug_regs; the guest's
 * own #DBs update DR6 there), DR7 in the VMCS guest field (saved at every exit by "save
 * debug controls": a #DB clears DR7.GD without an exit). */
uint64_t vmx_dr_get(struct hv_vcpu *hv, unsigned dr)
{
	struct vmx_vcpu *v = to_vmx(hv);
	bool here = v->cpu >= 0;
	if (dr == 6)
		return here ? read_dr6() : v->dr[6];
	if (dr == 7)
		return here ? vmcs_read(v, VMCS_GUEST_DR7) : v->dr[7];
	return dr < 4 ? v->dr[dr] : 0;
}

void vmx_dr_set(struct hv_vcpu *hv, unsigned dr, uint64_t val)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (dr >= 8)
		return;
	v->dr[dr] = val;
	if (v->cpu < 0)
		return;
	if (dr < 4)
		write_dr_n(dr, val);
	else if (dr == 6)
		write_dr6(val);
	else if (dr == 7)
		vmcs_write(v, VMCS_GUEST_DR7, val);
}

/* Loading v on this pCPU (load_here, INIT): its DR0-DR3 and DR6 go to the hardware. The
 * host's DR7 is 0x400 outside guests (VM exit loads it, 28.3.1), so they arm nothing
 * until the entry loads the guest's DR7 from the VMCS. */
void vmx_load_debug_regs(struct vmx_vcpu *v)
{
	write_dr0_3(v->dr);
	write_dr6(v->dr[6]);
}

/* v leaves this pCPU: DR6 (changed by the guest's #DBs) and DR7 (DR7.GD cleared by one)
 * come back from the hardware and the VMCS. */
void vmx_save_debug_regs(struct vmx_vcpu *v)
{
	v->dr[6] = read_dr6();
	v->dr[7] = vmcs_read(v, VMCS_GUEST_DR7);
}

/* 48-bit linear addresses (LA57 is never offered): bits 63:47 all equal. */
static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

int vmx_msr_write(struct hv_vcpu *hv, uint32_t msr, uint64_t val)
{
	struct vmx_vcpu *v = to_vmx(hv);
	unsigned i = 0;
	while (i < VMX_NR_LAZY_MSRS && vmx_lazy_msrs[i] != msr)
		i++;
	if (i == VMX_NR_LAZY_MSRS)
		return 0;
	/* The #GP cases of WRMSR (SDM Vol. 4 table 2-2): addresses must be canonical,
	 * SFMASK bits 63:32 are reserved. STAR takes any value. */
	if ((msr == MSR_KERNEL_GS_BASE || msr == MSR_LSTAR || msr == MSR_CSTAR) && !canonical(val))
		return -1;
	if (msr == MSR_SFMASK && (val >> 32))
		return -1;
	v->lazy_msr[i] = val;
	if (v->cpu >= 0) { /* loaded here: the hardware follows at once */
		wrmsr(msr, val);
		vmx_cpu[v->cpu].hw_lazy[i] = val;
	}
	return 1;
}

/* IA32_TSC / TSC_ADJUST writes (core keeps the per-vCPU offset): "use TSC offsetting"
 * makes RDTSC, RDTSCP and RDMSR IA32_TSC return TSC + offset (SDM Vol. 3C 26.6.5, 27.3);
 * the host's TSC is never written. false when the CPU lacks the control. v is loaded here. */
bool vmx_set_tsc_offset(struct hv_vcpu *hv, uint64_t offset)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (!(v->cpu_ctls & CPU_USE_TSC_OFFSETTING))
		return false;
	vmcs_write(v, VMCS_TSC_OFFSET, offset);
	return !v->vmx_error;
}
