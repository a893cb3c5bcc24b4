/* Guest register access for core/, and the emulation of guest writes to CR0/CR4/EFER with
 * the checks hardware makes (the same rules as vmx/regs.c, SDM/APM "MOV CRn"): the guest
 * sees its own CR0/CR4/EFER (CR0 reads and EFER reads are intercepted) while the VMCB holds
 * CR0 without CD/NW and EFER with SVME (APM 15.5.1) and LMA following CR0.PG with
 * EFER.LME (APM Vol. 2 14.6). */
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/svm/svm.h"

uint64_t svm_gpr_get(struct hv_vcpu *v, unsigned idx)
{
	struct svm_vcpu *s = to_svm(v);
	if (idx == HV_RSP)
		return s->vmcb->rsp;
	return idx < 16 ? s->g.r[idx] : 0;
}

uint64_t svm_rsp_get(struct hv_vcpu *v)
{
	return to_svm(v)->vmcb->rsp;
}

void svm_rsp_set(struct hv_vcpu *v, uint64_t val)
{
	to_svm(v)->vmcb->rsp = val;
}

/* len < 0: the exiting instruction's length as decoded at the exit (exits.c: NRIP,
 * EXITINFO2 or the decoder). */
void svm_skip_insn(struct hv_vcpu *v, int len)
{
	struct svm_vcpu *s = to_svm(v);
	struct vmcb *vb = s->vmcb;
	vb->rip += len < 0 ? s->exit_len : (unsigned)len;
	if (!svm_in_64bit_code(s))
		vb->rip = (uint32_t)vb->rip;
	vb->interrupt_shadow &= ~INTERRUPT_SHADOW; /* STI/MOV SS blocking ends (15.21.5) */
	uint64_t rflags = vb->rflags;
	if (rflags & RFLAGS_RF)
		vb->rflags = rflags & ~RFLAGS_RF;
	if (rflags & RFLAGS_TF)
		hv_single_step_trap(v);
}

uint64_t svm_rflags_get(struct hv_vcpu *v)
{
	return to_svm(v)->vmcb->rflags;
}

void svm_rflags_set(struct hv_vcpu *v, uint64_t val)
{
	to_svm(v)->vmcb->rflags = val;
}

void svm_inject_exception(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error)
{
	struct svm_vcpu *s = to_svm(v);
	/* Vector 2 is an NMI (core's vLAPIC delivers NMI IPIs this way): EVENTINJ takes it
	 * only as TYPE=NMI, an exception with vector 2 makes VMRUN fail (APM Vol. 2 15.20). */
	uint64_t type = vector == 2 ? EVENT_TYPE_NMI : EVENT_TYPE_EXCEPT;
	if (vector == 2)
		has_error = false;
	s->pending_event = true;
	s->event =
		EVENT_VALID | type | vector | (has_error ? EVENT_EV : 0) | ((uint64_t)error << 32);
}

bool svm_guest_long_mode(struct hv_vcpu *v)
{
	return to_svm(v)->efer & EFER_LMA;
}

unsigned svm_guest_cpl(struct hv_vcpu *v)
{
	return to_svm(v)->vmcb->cpl & 3;
}

bool svm_guest_if(struct hv_vcpu *v)
{
	return to_svm(v)->vmcb->rflags & RFLAGS_IF;
}

/* 64-bit mode proper (long mode with CS.L=1), not compatibility mode. */
bool svm_in_64bit_code(struct svm_vcpu *s)
{
	return (s->efer & EFER_LMA) && (s->vmcb->cs.attrib & SEG_ATTR_L);
}

static void update_long_mode(struct svm_vcpu *s)
{
	bool lma = (s->cr0 & CR0_PG) && (s->efer & EFER_LME);
	s->efer = lma ? s->efer | EFER_LMA : s->efer & ~EFER_LMA;
	/* The VMCB holds LME only together with LMA: CR0 writes are intercepted, so the
	 * hardware never activates long mode by itself, and QEMU's SVM mishandles a guest
	 * entered with LME=1 and paging off (docs/svm.md). SVME must stay set (15.5.1). */
	s->vmcb->efer = (s->efer & ~EFER_LME) | (lma ? EFER_LME : 0) | EFER_SVME;
	s->dirty |= CLEAN_CRX;
}

/* Outside long mode, PAE paging reads its four PDPTEs when CR0/CR4 turn it on: a reserved
 * bit set is #GP (SDM Vol. 3A 4.4.1), checked here as vmx/regs.c does. */
static bool pdptes_ok(struct svm_vcpu *s)
{
	if (!(s->cr0 & CR0_PG) || !(s->cr4 & CR4_PAE) || (s->efer & EFER_LMA))
		return true;
	uint64_t cr3 = s->vmcb->cr3 & 0xffffffe0ull;
	const uint64_t *pdpte = hv_space_ptr(s->space, cr3, 32);
	if (!pdpte)
		return false;
	for (unsigned i = 0; i < 4; i++)
		if (pdpte_reserved(pdpte[i]))
			return false;
	return true;
}

bool svm_write_cr(struct hv_vcpu *v, unsigned cr, uint64_t val)
{
	struct svm_vcpu *s = to_svm(v);
	if (cr == 0) {
		if (!cr0_write_ok(s->cr0, s->cr4, s->efer, svm_in_64bit_code(s), val))
			return false;
		val = (val & CR0_DEFINED) | CR0_ET;
		uint64_t old = s->cr0;
		s->cr0 = val;
		update_long_mode(s);
		if (!pdptes_ok(s)) {
			s->cr0 = old;
			update_long_mode(s);
			return false;
		}
		/* Guest memory is write-back and coherent: CD/NW stay the guest's belief. */
		s->vmcb->cr0 = val & ~(CR0_CD | CR0_NW);
		s->dirty |= CLEAN_CRX;
		return true;
	}
	if (cr == 4) {
		if (!cr4_write_ok(svm_caps.guest_cr4_valid, s->cr4, s->efer, s->vmcb->cr3, val))
			return false;
		uint64_t old = s->cr4;
		s->cr4 = val;
		if (!pdptes_ok(s)) {
			s->cr4 = old;
			return false;
		}
		s->vmcb->cr4 = val;
		s->dirty |= CLEAN_CRX;
		return true;
	}
	return false;
}

uint64_t svm_read_cr(struct hv_vcpu *v, unsigned cr)
{
	struct svm_vcpu *s = to_svm(v);
	switch (cr) {
	case 0:
		return s->cr0;
	case 3:
		return s->vmcb->cr3;
	case 4:
		return s->cr4;
	default:
		return 0;
	}
}

bool svm_write_efer(struct hv_vcpu *v, uint64_t val)
{
	struct svm_vcpu *s = to_svm(v);
	if (val & ~svm_caps.guest_efer_valid)
		return false; /* reserved (SVME included: no nested SVM), or NXE without NX */
	if ((s->cr0 & CR0_PG) && ((val ^ s->efer) & EFER_LME))
		return false; /* LME may change only with paging off */
	s->efer = (val & ~EFER_LMA) | (s->efer & EFER_LMA);
	update_long_mode(s);
	return true;
}

uint64_t svm_read_efer(struct hv_vcpu *v)
{
	return to_svm(v)->efer;
}

void svm_read_state(struct hv_vcpu *v, struct hv_state *st)
{
	struct svm_vcpu *s = to_svm(v);
	struct vmcb *vb = s->vmcb;
	for (unsigned i = 0; i < 16; i++)
		st->gpr[i] = svm_gpr_get(v, i);
	st->rip = vb->rip;
	st->rflags = vb->rflags;
	st->cr0 = vb->cr0;
	st->cr3 = vb->cr3;
	st->cr4 = vb->cr4;
	st->cr0_shadow = s->cr0;
	st->cr4_shadow = s->cr4;
	st->efer = vb->efer;
	st->cs = vb->cs.selector;
	st->ss = vb->ss.selector;
	st->cs_ar = vb->cs.attrib;
	st->intr_state = (uint32_t)vb->interrupt_shadow;
	st->activity = 0;
	st->idt_vectoring = vb->exitintinfo;
	/* core fetches MMIO instructions (the vLAPIC) at CS.base+RIP in the code's size:
	 * 64 in 64-bit mode, else CS.D (real mode: 16), APM Vol. 2 4.7-4.8. */
	st->cs_base = vb->cs.base;
	st->code_bits = svm_in_64bit_code(s)		? 64
			: !(s->cr0 & CR0_PE)		? 16
			: (vb->cs.attrib & SEG_ATTR_DB) ? 32
							: 16;
}

/* The test hook: EFER.SVME clear in the guest state is an illegal VMCB (APM 15.5.1), so the
 * next VMRUN exits with VMEXIT_INVALID. */
void svm_test_break_guest_state(struct hv_vcpu *v)
{
	struct svm_vcpu *s = to_svm(v);
	s->vmcb->efer &= ~EFER_SVME;
	s->dirty |= CLEAN_CRX;
}

/* DR6 and DR7 are the VMCB's: VMRUN loads them and #VMEXIT saves them (the guest's own
 * #DBs change DR6 and clear DR7.GD there) and restores the host's (APM Vol. 2 15.5.1,
 * 15.6). DR0-DR3 are in the hardware while the vCPU is loaded (svm_load_debug_regs). */
uint64_t svm_dr_get(struct hv_vcpu *v, unsigned dr)
{
	struct svm_vcpu *s = to_svm(v);
	if (dr == 6)
		return s->vmcb->dr6;
	if (dr == 7)
		return s->vmcb->dr7;
	return dr < 4 ? s->dr[dr] : 0;
}

void svm_dr_set(struct hv_vcpu *v, unsigned dr, uint64_t val)
{
	struct svm_vcpu *s = to_svm(v);
	if (dr == 6 || dr == 7) {
		if (dr == 6)
			s->vmcb->dr6 = val;
		else
			s->vmcb->dr7 = val;
		s->dirty |= CLEAN_DRX;
	} else if (dr < 4) {
		s->dr[dr] = val;
		if (s->cpu >= 0)
			write_dr_n(dr, val);
	}
}

/* Loading s on this pCPU: its DR0-DR3 go to the hardware; they arm nothing until VMRUN
 * loads the guest's DR7 (the host's DR7, restored at #VMEXIT, is 0x400). */
void svm_load_debug_regs(struct svm_vcpu *s)
{
	write_dr0_3(s->dr);
}

/* 48-bit linear addresses: bits 63:47 all equal. */
static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/* The SWAPGS/SYSCALL MSRs live in the VMCB save area, switched by VMLOAD/VMSAVE around
 * every VMRUN (enter.h): a checked write lands there and the next VMLOAD loads it. */
int svm_msr_write(struct hv_vcpu *v, uint32_t msr, uint64_t val)
{
	struct vmcb *vb = to_svm(v)->vmcb;
	uint64_t *slot;
	switch (msr) {
	case MSR_KERNEL_GS_BASE:
		slot = &vb->kernel_gs_base;
		break;
	case MSR_STAR:
		slot = &vb->star;
		break;
	case MSR_LSTAR:
		slot = &vb->lstar;
		break;
	case MSR_CSTAR:
		slot = &vb->cstar;
		break;
	case MSR_SFMASK:
		slot = &vb->sfmask;
		break;
	default:
		return 0;
	}
	if ((msr == MSR_KERNEL_GS_BASE || msr == MSR_LSTAR || msr == MSR_CSTAR) && !canonical(val))
		return -1;
	if (msr == MSR_SFMASK && (val >> 32))
		return -1;
	*slot = val;
	return 1;
}
