/* VMCB set-up for a new vCPU (APM Vol. 2 15.5, 15.9-15.13, appendix B): intercepts
 * equivalent to VMX's set (docs/svm.md), nested paging, virtual interrupt masking, and a
 * guest in 32-bit protected mode, flat, paging off, like a multiboot kernel (the state
 * vmx/vmcs.c gives). */
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/svm/svm.h"
#include "lib/string.h"

static void segment(struct vmcb_seg *s, uint16_t sel, uint32_t limit, uint16_t attrib)
{
	s->selector = sel;
	s->base = 0;
	s->limit = limit;
	s->attrib = attrib;
}

static void intercepts(struct vmcb *vb)
{
	/* CR0 reads and writes (the guest sees its own CR0: CD/NW never reach the hardware,
	 * as under VMX), CR4 writes (checked), CR8 both ways (core/ keeps a virtual TPR).
	 * CR3 needs none under nested paging. */
	vb->intercept_cr = (1u << 0) | (1u << 8) | (1u << 16) | (1u << 20) | (1u << 24);
	vb->intercept_dr = 0x00ff00ffu; /* MOV from/to DR0-DR7 */
	vb->intercept_exceptions = 0;
	vb->intercept_misc1 = INTERCEPT_INTR | INTERCEPT_NMI | INTERCEPT_SMI | INTERCEPT_RDPMC |
			      INTERCEPT_CPUID | INTERCEPT_INVD | INTERCEPT_HLT | INTERCEPT_INVLPGA |
			      INTERCEPT_IOIO_PROT | INTERCEPT_MSR_PROT | INTERCEPT_TASK_SWITCH |
			      INTERCEPT_SHUTDOWN;
	vb->intercept_misc2 = INTERCEPT_VMRUN | INTERCEPT_VMMCALL | INTERCEPT_VMLOAD |
			      INTERCEPT_VMSAVE | INTERCEPT_STGI | INTERCEPT_CLGI |
			      INTERCEPT_SKINIT | INTERCEPT_RDTSCP | INTERCEPT_WBINVD |
			      INTERCEPT_MONITOR | INTERCEPT_MWAIT | INTERCEPT_MWAIT_COND |
			      INTERCEPT_XSETBV;
	/* PAUSE: intercepted through the filter only when core asked for PAUSE-loop
	 * detection (svm_ple_setup, pause.c); otherwise it never exits, as under VMX. */
}

static void guest_state(struct svm_vcpu *s, uint64_t rip, uint32_t eax, uint32_t ebx)
{
	struct vmcb *vb = s->vmcb;
	/* Attributes: type | S<<4 | DPL<<5 | P<<7 | AVL<<8 | L<<9 | D/B<<10 | G<<11. */
	segment(&vb->cs, 0x08, 0xffffffff, 0xc9b);
	segment(&vb->ss, 0x10, 0xffffffff, 0xc93);
	segment(&vb->ds, 0x10, 0xffffffff, 0xc93);
	segment(&vb->es, 0x10, 0xffffffff, 0xc93);
	segment(&vb->fs, 0x10, 0xffffffff, 0xc93);
	segment(&vb->gs, 0x10, 0xffffffff, 0xc93);
	segment(&vb->ldtr, 0, 0, 0);
	segment(&vb->tr, 0, 0xff, 0x8b); /* busy 32-bit TSS */
	segment(&vb->gdtr, 0, 0xffff, 0);
	segment(&vb->idtr, 0, 0xffff, 0);
	vb->cpl = 0;
	s->cr0 = CR0_PE | CR0_ET;
	s->cr4 = 0;
	s->efer = 0;
	svm_write_cr((struct hv_vcpu *)s, 0, s->cr0);
	svm_write_cr((struct hv_vcpu *)s, 4, s->cr4);
	vb->cr3 = 0;
	vb->efer = EFER_SVME; /* required in the guest's EFER (15.5.1); hidden from it */
	vb->dr7 = DR7_RESET;
	vb->dr6 = DR6_RESET;
	vb->rflags = 0x2;
	vb->rip = rip;
	vb->rsp = 0;
	vb->g_pat = 0x0007040600070406ull; /* the reset value of IA32_PAT */
	s->g.r[HV_RAX] = eax;
	s->g.r[HV_RBX] = ebx;
}

struct hv_vcpu *svm_vcpu_create(struct hv_space *sp, uint16_t asid, uint64_t rip, uint32_t eax,
				uint32_t ebx, const char **why)
{
	(void)asid; /* ASIDs are per pCPU with generations (run.c), not per vCPU */
	_Static_assert(sizeof(struct svm_vcpu) <= PAGE_SIZE, "svm_vcpu fits a frame");
	uint64_t vpa = svm_frame_alloc(), vmcb = svm_frame_alloc();
	if (!vpa || !vmcb) {
		if (vpa)
			svm_frame_free(vpa);
		if (vmcb)
			svm_frame_free(vmcb);
		*why = "out of memory for the VMCB";
		return NULL;
	}
	struct svm_vcpu *s = phys_to_virt(vpa);
	s->vmcb = phys_to_virt(vmcb);
	s->vmcb_pa = vmcb;
	s->space = sp;
	s->cpu = -1;
	s->asid_cpu = -1;
	s->dirty = CLEAN_ALL;
	/* x87/SSE reset state: FCW 0x37f, MXCSR 0x1f80, rest zero. */
	s->fpu[0] = 0x7f;
	s->fpu[1] = 0x03;
	*(uint32_t *)&s->fpu[24] = 0x1f80;

	struct vmcb *vb = s->vmcb;
	intercepts(vb);
	vb->iopm_base_pa = svm_iopm_pa();
	vb->msrpm_base_pa = svm_msrpm_pa();
	vb->tsc_offset = 0;
	vb->asid = 0; /* set before the first VMRUN (run.c) */
	/* V_INTR_MASKING: the guest's RFLAGS.IF and CR8 gate only virtual interrupts; the
	 * host's RFLAGS.IF at VMRUN gates physical ones, so a guest can neither mask the
	 * scheduler's timer nor write the host's TPR (15.21.1). */
	vb->vintr = V_INTR_MASKING;
	vb->np_enable = 1;
	vb->n_cr3 = sp->root_pa;
	guest_state(s, rip, eax, ebx);
	svm_ple_setup(s);
	return (struct hv_vcpu *)s;
}

void svm_vcpu_put(struct hv_vcpu *v)
{
	struct svm_vcpu *s = to_svm(v);
	if (s->cpu < 0)
		return;
	struct svm_cpu *sc = &svm_cpu[s->cpu];
	/* The guest's x87/SSE registers leave with it (loaded again in run.c). CR2, the
	 * SWAPGS/SYSCALL MSRs and FS/GS already live in the VMCB (VMRUN/VMSAVE). */
	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])s->fpu));
	if (sc->current == s)
		sc->current = NULL;
	__atomic_store_n(&s->cpu, -1, __ATOMIC_RELEASE);
}

int svm_vcpu_loaded_on(struct hv_vcpu *v)
{
	return __atomic_load_n(&to_svm(v)->cpu, __ATOMIC_ACQUIRE);
}

void svm_vcpu_destroy(struct hv_vcpu *v)
{
	if (!v)
		return;
	struct svm_vcpu *s = to_svm(v);
	if (s->cpu >= 0)
		svm_vcpu_put(v);
	memset(s->vmcb, 0, PAGE_SIZE);
	svm_frame_free(s->vmcb_pa);
	svm_frame_free(virt_to_phys(s));
}

/* Real mode at cs:ip (boot=real's start, and the SIPI after a virtual INIT): CR0 = ET,
 * paging off, EFER = SVME only, every segment a 64 KiB real-mode one (base = selector <<
 * 4), IDTR the real-mode IVT. Nested paging runs real mode natively (APM 15.19: no
 * paged-real-mode trick needed). The vCPU is not running; its pCPU is this one or none. */
bool svm_start_real(struct hv_vcpu *v, uint16_t cs, uint16_t ip)
{
	struct svm_vcpu *s = (struct svm_vcpu *)v;
	struct vmcb *vb = s->vmcb;
	segment(&vb->cs, cs, 0xffff, 0x9b);
	vb->cs.base = (uint64_t)cs << 4;
	segment(&vb->ss, 0, 0xffff, 0x93);
	segment(&vb->ds, 0, 0xffff, 0x93);
	segment(&vb->es, 0, 0xffff, 0x93);
	segment(&vb->fs, 0, 0xffff, 0x93);
	segment(&vb->gs, 0, 0xffff, 0x93);
	segment(&vb->ldtr, 0, 0xffff, 0x82);
	segment(&vb->tr, 0, 0xffff, 0x8b);
	segment(&vb->gdtr, 0, 0xffff, 0);
	segment(&vb->idtr, 0, 0x3ff, 0);
	vb->cpl = 0;
	s->cr0 = CR0_ET;
	s->cr4 = 0;
	s->efer = 0;
	svm_write_cr(v, 0, s->cr0);
	svm_write_cr(v, 4, s->cr4);
	vb->cr3 = 0;
	vb->efer = EFER_SVME;
	vb->rflags = 0x2;
	vb->dr7 = DR7_RESET; /* INIT: debug registers at their reset values (SDM 9.1.1) */
	vb->dr6 = DR6_RESET;
	for (unsigned i = 0; i < 4; i++)
		svm_dr_set(v, i, 0);
	vb->rip = ip;
	vb->rsp = 0;
	vb->eventinj = 0;
	s->pending_event = false; /* INIT drops what was to be delivered */
	svm_nmi_reset(s);	  /* and NMI blocking */
	s->dirty = CLEAN_ALL;
	return true;
}

/* IA32_TSC / TSC_ADJUST writes: the VMCB's TSC offset (APM 15.30.3) makes RDTSC, RDTSCP
 * and RDMSR TSC read TSC + offset; the host's TSC is never written. */
bool svm_set_tsc_offset(struct hv_vcpu *v, uint64_t offset)
{
	struct svm_vcpu *s = (struct svm_vcpu *)v;
	s->vmcb->tsc_offset = offset;
	s->dirty |= CLEAN_I;
	return true;
}
