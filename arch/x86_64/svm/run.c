/* Running a vCPU (APM Vol. 2 15.5-15.6, 15.16, 15.20-15.21): load it on this pCPU (x87/SSE
 * state, a fresh ASID when it comes from elsewhere or the generation turned), inject what
 * is pending or ask for a virtual-interrupt window, VMRUN (enter.h), decode the exit.
 * A physical interrupt always exits (INTR intercept; with V_INTR_MASKING the host's
 * RFLAGS.IF, set under GIF=0 right before VMRUN, gates it, never the guest's IF), so the
 * scheduler's LAPIC timer takes the pCPU back by itself: no preemption-timer backstop as
 * VMX needs under Bochs, and deadline_tsc is not used. */
#include "arch/x86_64/panic.h"
#include "arch/x86_64/svm/enter.h"
#include "arch/x86_64/svm/svm.h"
#include "lib/compiler.h"
#include "lib/string.h"

static bool load_here(struct svm_vcpu *s, unsigned cpu, struct hv_exit *e)
{
	struct svm_cpu *sc = &svm_cpu[cpu];
	if (likely(sc->current == s))
		return true;
	if (sc->current)
		svm_vcpu_put((struct hv_vcpu *)sc->current);
	if (s->cpu >= 0) {
		e->kind = HV_EXIT_ENTRY_FAIL;
		e->fail.why = "vCPU is still loaded on another pCPU (missing hv_vcpu_put)";
		return false;
	}
	sc->current = s;
	__atomic_store_n(&s->cpu, (int)cpu, __ATOMIC_RELEASE);
	__asm__ volatile("fxrstor64 %0" : : "m"(*(const uint8_t(*)[512])s->fpu));
	svm_load_debug_regs(s); /* VMRUN does not switch DR0-DR3 */
	/* The clean bits let VMRUN reuse what this CPU cached from this VMCB (APM 15.15.3): on
	 * another pCPU than the one it last ran on (asid_cpu, not yet updated), or the first
	 * time, nothing is clean. Back on the same pCPU after other vCPUs ran there, only what
	 * sliver changed is dirty, as KVM does (svm.c pre_svm_run marks all dirty only when
	 * the vCPU's pCPU changed). */
	if (s->asid_cpu != (int)cpu)
		s->dirty = CLEAN_ALL;
	svm_ple_load(s); /* loaded after a put: it was descheduled (KVM: sched_in) */
	return true;
}

/* ASIDs per pCPU with generations (KVM's scheme): a vCPU keeps its ASID while it stays on
 * this pCPU in this generation; otherwise it takes the next one, and when they run out a
 * new generation starts with a flush of every ASID on this pCPU. A fresh ASID is flushed
 * once (TLB_CONTROL, 15.16.1) in case an earlier generation left translations for it. */
static void assign_asid(struct svm_vcpu *s, unsigned cpu)
{
	struct svm_cpu *sc = &svm_cpu[cpu];
	struct vmcb *vb = s->vmcb;
	if (likely(s->asid_cpu == (int)cpu && s->asid_gen == sc->asid_gen))
		return;
	uint8_t flush = svm_has(CPUID_8000000A_EDX_FLUSH_BY_ASID) ? TLB_CONTROL_FLUSH_ASID
								  : TLB_CONTROL_FLUSH_ALL;
	if (sc->next_asid >= svm_caps.nr_asids) {
		sc->asid_gen++;
		sc->next_asid = 1;
		flush = TLB_CONTROL_FLUSH_ALL;
	}
	vb->asid = sc->next_asid++;
	vb->tlb_control = flush;
	s->asid_cpu = (int)cpu;
	s->asid_gen = sc->asid_gen;
	s->dirty |= CLEAN_ASID;
}

static void set_vintr_window(struct svm_vcpu *s, bool on)
{
	struct vmcb *vb = s->vmcb;
	/* #VMEXIT writes V_IRQ back (cleared once the CPU took or dropped it, 15.21.4), so the
	 * VMCB, not a cached flag, says whether the request is still armed. */
	bool armed = (vb->vintr & V_IRQ) && (vb->intercept_misc1 & INTERCEPT_VINTR);
	bool any = (vb->vintr & V_IRQ) || (vb->intercept_misc1 & INTERCEPT_VINTR);
	if (on && !armed) {
		/* A virtual interrupt that ignores V_TPR (core/ applies the guest's TPR itself)
		 * and exits when the guest could take it: RFLAGS.IF and no shadow. */
		vb->vintr = (vb->vintr & ~(0xfull << V_INTR_PRIO_SHIFT)) | V_IRQ | V_IGN_TPR |
			    (0xfull << V_INTR_PRIO_SHIFT);
		vb->intercept_misc1 |= INTERCEPT_VINTR;
		s->dirty |= CLEAN_I | CLEAN_TPR;
	} else if (!on && any) {
		vb->vintr &= ~(V_IRQ | V_IGN_TPR);
		vb->intercept_misc1 &= ~INTERCEPT_VINTR;
		s->dirty |= CLEAN_I | CLEAN_TPR;
	}
}

/* Guest NMIs (APM Vol. 2 8.4.2, 15.20, 15.21): an NMI injected through EVENTINJ leaves no
 * NMI blocking a VMCB shows (QEMU's TCG sets none either), so the blocking is kept here as
 * KVM's SVM code does: from the injection until the guest's IRET has completed. The IRET
 * is intercepted (it exits before it runs); then one single step (RFLAGS.TF with #DB
 * intercepted) finds its end, or any later exit at another RIP does. An STI / MOV-SS
 * shadow also blocks an NMI (kvm-unit-tests' nmi-after-sti): one step ends it too. */
#define RFLAGS_TF  (1ull << 8)
#define EXCP_DB_IN (1u << 1) /* intercept_exceptions bit of vector 1 */

void svm_request_nmi(struct hv_vcpu *v)
{
	to_svm(v)->nmi_requested = true;
}

bool svm_nmi_masked(struct hv_vcpu *v)
{
	return __atomic_load_n(&to_svm(v)->nmi_masked, __ATOMIC_RELAXED);
}

void svm_nmi_reset(struct svm_vcpu *s)
{
	struct vmcb *vb = s->vmcb;
	s->nmi_requested = s->nmi_masked = s->iret_seen = false;
	vb->intercept_misc1 &= ~INTERCEPT_IRET;
	if (s->nmi_step && s->step_db)
		vb->intercept_exceptions &= ~EXCP_DB_IN;
	if (s->nmi_step && s->step_tf)
		vb->rflags &= ~RFLAGS_TF;
	s->nmi_step = false;
	s->dirty |= CLEAN_I;
}

static void set_iret_intercept(struct svm_vcpu *s, bool on)
{
	struct vmcb *vb = s->vmcb;
	uint32_t m =
		on ? vb->intercept_misc1 | INTERCEPT_IRET : vb->intercept_misc1 & ~INTERCEPT_IRET;
	if (m != vb->intercept_misc1) {
		vb->intercept_misc1 = m;
		s->dirty |= CLEAN_I;
	}
}

/* The NMI cannot go in now: ask for an exit when it can. Blocked by an NMI whose IRET has
 * not been reached: its intercept exits. Past that intercept, or in a shadow: one step.
 * Behind an event being delivered: the next exit (a step would push TF in its frame). */
static void nmi_window(struct svm_vcpu *s, bool event)
{
	struct vmcb *vb = s->vmcb;
	if (event || s->nmi_step || (s->nmi_masked && !s->iret_seen))
		return;
	s->nmi_step = true;
	s->step_tf = !(vb->rflags & RFLAGS_TF);
	vb->rflags |= RFLAGS_TF;
	s->step_db = !(vb->intercept_exceptions & EXCP_DB_IN);
	if (s->step_db) {
		vb->intercept_exceptions |= EXCP_DB_IN;
		s->dirty |= CLEAN_I;
	}
}

/* After each exit: the single step ended (its #DB is ours), the IRET completed. */
static void nmi_after_exit(struct svm_vcpu *s, struct hv_exit *e)
{
	struct vmcb *vb = s->vmcb;
	s->maybe_shadow = vb->exitcode == VMEXIT_INTR && (vb->rflags & RFLAGS_IF);
	if (likely(vb->exitcode != VMEXIT_IRET && !s->nmi_step && !s->iret_seen))
		return; /* no NMI under way: the common exit */
	if (vb->exitcode == VMEXIT_IRET) {
		set_iret_intercept(s, false);
		s->iret_seen = true;
		s->iret_rip = vb->rip;
	}
	/* The step ends at any exit, its own #DB or another one that came first (the stepped
	 * instruction exits, an interrupt): TF and the intercept it set are undone before the
	 * exit is handled, so that core sees the guest's own RFLAGS (hv_skip_insn would take
	 * the step's TF for the guest's and deliver a single-step #DB); the next entry asks
	 * again if the NMI still waits. */
	if (s->nmi_step) {
		s->nmi_step = false;
		if (s->step_tf)
			vb->rflags &= ~RFLAGS_TF;
		if (s->step_db) {
			vb->intercept_exceptions &= ~EXCP_DB_IN;
			s->dirty |= CLEAN_I;
		}
		if (vb->exitcode == VMEXIT_EXCP_DB && s->step_db) {
			bool own =
				!s->step_tf; /* the guest single-steps too: the #DB is its also */
			*e = (struct hv_exit){.kind = HV_EXIT_NMI_WINDOW,
					      .reason = e->reason,
					      .entry_tsc = e->entry_tsc,
					      .injected = e->injected,
					      .nmi_injected = e->nmi_injected};
			if (own)
				svm_inject_exception((struct hv_vcpu *)s, 1, false, 0);
		}
	}
	if (s->iret_seen && vb->rip != s->iret_rip)
		s->nmi_masked = s->iret_seen = false;
}

/* QEMU TCG (docs/svm.md, QEMU item 11): helper_vmrun delivers an EVENTINJ interrupt at once
 * but also leaves its vector as the CPU's pending exception; when the vCPU's execution loop
 * stops for the emulator (its icount budget at a timer deadline, the round robin) before
 * the next #VMEXIT, cpu_handle_exception delivers that vector a second time, whatever the
 * guest's IF: Linux then spun for ever on an irq_desc lock in the nested handler
 * (e2e-linux-echo-svm). A virtual interrupt has no such leftover: V_IRQ with the vector
 * (V_IGN_TPR, priority 15, VINTR not intercepted), which QEMU delivers at the first
 * instruction boundary where the guest takes interrupts (it is only offered when IF=1 and
 * no shadow, as EVENTINJ was) and clears once delivered. Whether it went in is known only
 * after the exit (virq_after_exit). */
static void give_virq(struct svm_vcpu *s, int vector)
{
	struct vmcb *vb = s->vmcb;
	vb->vintr = (vb->vintr & ~(0xffull << 32 | 0xfull << V_INTR_PRIO_SHIFT)) | V_IRQ |
		    V_IGN_TPR | 0xfull << V_INTR_PRIO_SHIFT | (uint64_t)vector << 32;
	vb->intercept_misc1 &= ~INTERCEPT_VINTR;
	s->dirty |= CLEAN_I | CLEAN_TPR;
	s->virq = true;
}

/* After the exit of an entry that offered a vector through V_IRQ: QEMU cleared V_IRQ when it
 * delivered the vector (e->injected, which core reads before it handles the exit). Still
 * set: an exit came first (a host interrupt is taken before a virtual one), or cut the
 * delivery short (its EXITINTINFO is QEMU's own record of it, type 3: not redelivered
 * from there, core offers the vector again); the offer is withdrawn. */
static void virq_after_exit(struct svm_vcpu *s, struct hv_exit *e)
{
	struct vmcb *vb = s->vmcb;
	s->virq = false;
	if (!(vb->vintr & V_IRQ)) {
		e->injected = true;
		return;
	}
	uint32_t vec = (uint32_t)(vb->vintr >> 32) & 0xff;
	if ((vb->exitintinfo & EVENT_VALID) && (vb->exitintinfo & EVENT_VECTOR_MASK) == vec &&
	    (vb->exitintinfo & EVENT_TYPE_MASK) == EVENT_TYPE_EXCEPT)
		vb->exitintinfo = 0;
	vb->vintr &= ~(V_IRQ | V_IGN_TPR);
	s->dirty |= CLEAN_I | CLEAN_TPR;
}

static void inject(struct svm_vcpu *s, int vector, struct hv_exit *e)
{
	struct vmcb *vb = s->vmcb;
	bool want_window = false;
	bool nmi = s->nmi_requested;
	if (likely(!nmi && !s->pending_event && vector < 0)) { /* nothing to deliver */
		vb->eventinj = 0;
		if (unlikely((vb->vintr & V_IRQ) || (vb->intercept_misc1 & INTERCEPT_VINTR)))
			set_vintr_window(s, false);
		/* An NMI single step still under way is a window too (nmi_window). */
		e->calm = !s->nmi_step;
		return;
	}
	/* QEMU 7.2 TCG takes the INTR intercept inside an STI shadow and saves no shadow
	 * (shared/emulators.md): after a physical-interrupt exit with IF=1 a shadow may have
	 * been lost, so the NMI waits one step (one more exit per such NMI on hardware). */
	bool shadow = (vb->interrupt_shadow & INTERRUPT_SHADOW) || s->maybe_shadow;
	s->nmi_requested = false;
	vb->eventinj = 0;
	if (s->pending_event) {
		vb->eventinj = s->event;
		s->pending_event = false;
		want_window = vector >= 0;
		if (nmi)
			nmi_window(s, true);
	} else if (nmi && !s->nmi_masked && !shadow) {
		vb->eventinj = EVENT_VALID | EVENT_TYPE_NMI | 2u;
		e->nmi_injected = true;
		s->nmi_masked = true;
		s->iret_seen = false;
		set_iret_intercept(s, true);
		want_window = vector >= 0;
	} else {
		if (nmi)
			nmi_window(s, false);
		if (vector >= 0 && (vb->rflags & RFLAGS_IF) && !shadow) {
			if (unlikely(svm_caps.qemu_tcg)) {
				give_virq(s, vector);
				return;
			}
			vb->eventinj = EVENT_VALID | EVENT_TYPE_INTR | (uint32_t)vector;
			e->injected = true;
		} else {
			want_window = vector >= 0;
		}
	}
	set_vintr_window(s, want_window);
}

/* An event whose delivery the exit interrupted (EXITINTINFO, 15.7.2) is delivered again
 * at the next VMRUN, before anything new. INT n, INT3 and INTO are not: RIP still points
 * at the instruction, which raises them again. */
static void requeue_exitintinfo(struct svm_vcpu *s)
{
	uint64_t info = s->vmcb->exitintinfo;
	if (!(info & EVENT_VALID))
		return;
	uint32_t type = info & EVENT_TYPE_MASK, vec = info & EVENT_VECTOR_MASK;
	if (type == EVENT_TYPE_SOFT || (type == EVENT_TYPE_EXCEPT && (vec == 3 || vec == 4)))
		return;
	s->pending_event = true;
	s->event = info;
}

#ifdef SLIVER_EXITSTATS
/* The VMCB as #VMEXIT left it, per pCPU, and whose it is: at the next VMRUN of that vCPU the
 * quadwords sliver changed since are counted. */
static uint64_t vmcb_seen[MAX_CPUS][PAGE_SIZE / 8] __attribute__((aligned(64)));
static const struct svm_vcpu *vmcb_seen_of[MAX_CPUS];

static void stats_before_vmrun(struct svm_vcpu *s)
{
	unsigned cpu = this_cpu()->id;
	const uint64_t *now = (const uint64_t *)s->vmcb;
	if (vmcb_seen_of[cpu] == s)
		for (unsigned i = 0; i < PAGE_SIZE / 8; i++)
			s->xs.cur[0] += now[i] != vmcb_seen[cpu][i];
	for (uint32_t d = s->dirty; d; d &= d - 1) /* no libgcc: count the bits by hand */
		s->xs.cur[1]++;
}

static void stats_after_vmexit(struct svm_vcpu *s)
{
	unsigned cpu = this_cpu()->id;
	exitstats_close(&s->xs);
	memcpy(vmcb_seen[cpu], s->vmcb, PAGE_SIZE);
	vmcb_seen_of[cpu] = s;
}
#endif

void svm_vcpu_run(struct hv_vcpu *v, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e)
{
	(void)deadline_tsc; /* physical interrupts always exit: see the top of this file */
	struct svm_vcpu *s = to_svm(v);
	struct vmcb *vb = s->vmcb;
	unsigned cpu = this_cpu()->id;
	/* Once per exit core completed on its quick path (hv.h, hv_exit_quick): a host
	 * interrupt that came meanwhile exits the next VMRUN at once, whatever the guest's IF. */
	for (;; inject_vector = HV_INJECT_SAME) {
		e->kind = HV_EXIT_NONE;
		e->injected = e->nmi_injected = e->calm = false;
		if (likely(inject_vector == HV_INJECT_SAME &&
			   !(s->pending_event | s->nmi_requested | s->nmi_step))) {
			/* The last entry again (hv.h): the VMCB is still loaded here with its
			 * ASID, no window is open, EVENTINJ is still 0 (inject wrote it). An event
			 * to deliver again or raised by the handler, an NMI asked for after all or
			 * a single step under way take the whole path. */
			e->calm = true;
#ifdef SLIVER_PINGTRACE
			e->loaded_tsc = rdtsc();
#endif
		} else {
			e->entry_tsc = 0;
			if (!load_here(s, cpu, e))
				return;
			assign_asid(s, cpu);
#ifdef SLIVER_PINGTRACE
			e->loaded_tsc = rdtsc();
#endif
			inject(s, inject_vector < 0 ? -1 : inject_vector, e);
		}
		vb->rax = s->g.r[HV_RAX];
		s->last_eventinj = vb->eventinj;
		vb->clean = svm_has(CPUID_8000000A_EDX_VMCB_CLEAN) ? CLEAN_ALL & ~s->dirty : 0;
#ifdef SLIVER_EXITSTATS
		stats_before_vmrun(s);
#endif
		s->dirty = 0;
		e->entry_tsc = rdtsc(); /* the last instant before VMRUN (core's wake-to-run) */
		svm_enter(&s->g, s->vmcb_pa, svm_cpu[cpu].host_vmcb_pa);
#ifdef SLIVER_PINGTRACE
		e->exit_tsc = rdtsc();
#endif
#ifdef SLIVER_EXITSTATS
		stats_after_vmexit(s);
#endif
		s->g.r[HV_RAX] = vb->rax;
		vb->tlb_control = TLB_CONTROL_DO_NOTHING;
		/* With V_INTR_MASKING the guest's CR8 is V_TPR, never the host's: check it
		 * stayed 0 (a raised host TPR would mask the scheduler's timer and freeze this
		 * pCPU). */
		uint64_t tpr;
		__asm__ volatile("mov %%cr8, %0" : "=r"(tpr));
		if (unlikely(tpr))
			panic("svm: host TPR is %lu after #VMEXIT (V_INTR_MASKING missing?)",
			      (unsigned long)tpr);
		/* The quick path's exits decoded here when their length is plain (NRIP, or the
		 * bare opcode at RIP); every other one, and those, by svm_decode_exit. */
		uint64_t code = vb->exitcode;
		unsigned len;
		if ((code == VMEXIT_CPUID || code == VMEXIT_VMMCALL) &&
		    (len = svm_plain_length(s, code, 0))) {
			bool cpuid = code == VMEXIT_CPUID;
			s->exit_len = (uint8_t)len;
			e->reason = cpuid ? SVM_REASON_CPUID : SVM_REASON_VMMCALL;
			e->kind = cpuid ? HV_EXIT_CPUID : HV_EXIT_HYPERCALL;
		} else {
			svm_decode_exit(s, e);
		}
		if (unlikely(s->virq))
			virq_after_exit(s, e);
		if (unlikely(e->kind == HV_EXIT_ENTRY_FAIL)) {
			e->injected = e->nmi_injected = false;
		} else {
			requeue_exitintinfo(s);
			nmi_after_exit(s, e);
		}
		if (unlikely(e->kind == HV_EXIT_INTWIN))
			set_vintr_window(s, false);
#ifdef SLIVER_EXITSTATS
		exitstats_open(&s->xs, e->kind);
#endif
		if (!((HV_EXIT_QUICK_KINDS >> e->kind) & 1) || !e->calm || s->virq ||
		    s->pending_event || !hv_exit_quick(v, e))
			return;
		svm_skip_insn(v, -1);
	}
}
