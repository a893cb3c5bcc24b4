/* Running a vCPU: make its VMCS current on this pCPU, inject what is pending, arm the
 * VMX-preemption timer, enter, and decode the exit.
 * Bochs bugs (docs: shared/emulators.md): (1) an external interrupt does not force an
 * exit while a guest entered with IF=0 keeps IF=0, so an entry with IF=0 (only such an
 * entry) arms the preemption timer to the same deadline as the LAPIC timer, and at most
 * IF0_BACKSTOP_NS ahead (a reschedule IPI to a pCPU with no deadline would wait for the
 * guest's STI); (2) after an NMI
 * exit, "blocking by NMI" stays set in the guest and the host stays NMI-blocked, so we clear the
 * guest bit and run the host NMI handler through `int $2`, whose IRET unblocks NMIs. */
#include "arch/x86_64/panic.h"
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/vmx/enter.h"
#include "arch/x86_64/vmx/vmx.h"
#include "lib/compiler.h"

/* Bochs bug 1: how long a kick may wait while the guest keeps IF=0. On hardware the IPI
 * exits at once and this costs one exit per millisecond of IF=0 guest code. */
#define IF0_BACKSTOP_NS 1000000ull

static bool load_here(struct vmx_vcpu *v, struct hv_exit *e)
{
	unsigned cpu = this_cpu()->id;
	struct vmx_cpu *vc = &vmx_cpu[cpu];
	if (likely(vc->current == v))
		return true;
	if (vc->current)
		vmx_vcpu_put(to_hv(vc->current));
	if (v->cpu >= 0) {
		e->kind = HV_EXIT_ENTRY_FAIL;
		e->fail.why = "vCPU is still current on another pCPU (missing hv_vcpu_put)";
		return false;
	}
	if (!vmptrld(v->vmcs_pa)) {
		e->kind = HV_EXIT_ENTRY_FAIL;
		e->fail.why = "VMPTRLD failed";
		return false;
	}
	vc->current = v;
	__atomic_store_n(&v->cpu, (int)cpu, __ATOMIC_RELEASE);
	v->launched = false;
	vmx_uncache(v);
	/* The host's per-pCPU fields stay in the VMCS across VMCLEAR: written again only when
	 * it comes to another pCPU than the one that wrote them. */
	if (v->host_cpu != (int)cpu) {
		vmcs_write_host_percpu(v);
		v->host_cpu = (int)cpu;
	}
	__asm__ volatile("fxrstor64 %0" : : "m"(*(const uint8_t(*)[512])v->fpu));
	write_cr2(v->cr2);	/* VMX does not switch CR2 (SDM 27.3): it follows the vCPU */
	vmx_load_debug_regs(v); /* nor DR0-DR3, DR6: they follow it too */
	for (unsigned i = 0; i < VMX_NR_LAZY_MSRS; i++) {
		if (vc->hw_lazy[i] != v->lazy_msr[i]) {
			wrmsr(vmx_lazy_msrs[i], v->lazy_msr[i]);
			vc->hw_lazy[i] = v->lazy_msr[i];
		}
	}
	v->long_seen = v->efer & EFER_LMA;
	if (v->ple_on)
		vmx_ple_shrink(v); /* loaded after a put: it was descheduled (KVM: sched_in) */
	/* Translations of an earlier user of this EPT root or VPID must not survive. */
	bool ok = (vmx_caps.ept_vpid & EPT_CAP_INVEPT_SINGLE) ? invept(1, ept_pointer(v->space))
							      : invept(2, 0);
	ok = ok &&
	     ((vmx_caps.ept_vpid & EPT_CAP_INVVPID_SINGLE) ? invvpid(1, v->vpid) : invvpid(2, 0));
	if (!ok) {
		e->kind = HV_EXIT_ENTRY_FAIL;
		e->fail.why = "INVEPT/INVVPID failed";
		return false;
	}
	return true;
}

void vmx_request_nmi(struct hv_vcpu *hv)
{
	to_vmx(hv)->nmi_requested = true;
}

bool vmx_nmi_masked(struct hv_vcpu *hv)
{
	return __atomic_load_n(&to_vmx(hv)->nmi_masked, __ATOMIC_RELAXED);
}

/* What goes in at this entry: a pending exception (or an event to deliver again) first,
 * then a requested NMI, then the external interrupt `vector`. With virtual NMIs the NMI
 * goes in as type NMI (26.6.1.2: it sets virtual-NMI blocking, which the guest's IRET
 * clears, 25.3) only when the guest blocks no NMI: not after one it has not IRETed yet
 * (interruptibility bit 3), nor in an STI or MOV-SS shadow (which KVM treats as blocking
 * too, and 26.3.1.5 lets a CPU refuse an NMI under STI blocking); otherwise NMI-window
 * exiting brings the vCPU back when it can take it (26.7.6). */
static void inject(struct vmx_vcpu *v, int vector, struct hv_exit *e)
{
	bool want_window = false, want_nmi_window = false;
	bool nmi = v->nmi_requested;
	if (likely(!nmi && !v->pending_exc && vector < 0 &&
		   !(v->cpu_ctls & (CPU_INTERRUPT_WINDOW_EXITING | CPU_NMI_WINDOW_EXITING)))) {
		e->calm = true;
		return; /* nothing to deliver, no window open: the common exit */
	}
	v->nmi_requested = false;
	if (nmi && !vmx_caps.vnmi && !v->pending_exc) {
		/* No virtual NMIs: vector 2 at once, without blocking (an NMI that arrives while
		 * the guest handles one nests). */
		vmx_inject_exception(to_hv(v), 2, false, 0);
		e->nmi_injected = true;
		nmi = false;
	}
	if (v->pending_exc) {
		vmcs_write(v, VMCS_ENTRY_INTERRUPTION_INFO, v->exc_info);
		if (v->exc_info & INTR_INFO_DELIVER_ERROR_CODE)
			vmcs_write(v, VMCS_ENTRY_EXCEPTION_ERROR_CODE, v->exc_error);
		vmcs_write(v, VMCS_ENTRY_INSTRUCTION_LENGTH, v->exc_len);
		if (vmx_caps.vnmi && (v->exc_info & INTR_TYPE_MASK) == INTR_TYPE_NMI)
			__atomic_store_n(&v->nmi_masked, true, __ATOMIC_RELAXED); /* again */
		v->pending_exc = false;
		want_window = vector >= 0;
		want_nmi_window = nmi;
	} else if (nmi || vector >= 0) {
		/* Read only when something may go in (and once per exit: vmx_intr). */
		uint64_t intr = vmx_intr(v);
		bool shadow = intr & (INTR_BLOCKING_BY_STI | INTR_BLOCKING_BY_MOV_SS);
		if (nmi && !shadow && !(intr & INTR_BLOCKING_BY_NMI)) {
			vmcs_write(v, VMCS_ENTRY_INTERRUPTION_INFO,
				   INTR_INFO_VALID | INTR_TYPE_NMI | 2u);
			e->nmi_injected = true;
			/* Its delivery sets virtual-NMI blocking (26.6.1.2): masked from now until
			 * an exit finds the blocking gone (after_exit_slow). */
			__atomic_store_n(&v->nmi_masked, true, __ATOMIC_RELAXED);
			want_window = vector >= 0;
		} else {
			want_nmi_window = nmi;
			/* The CPU blocks NMIs though no NMI of ours is under way that we know of
			 * (Bochs reports virtual-NMI blocking in guests that never had an NMI:
			 * the echo beside an NMI storm, at its interrupt-window exits): from here
			 * on nmi_masked says so, the exits read it again (after_exit_slow), and a
			 * HLT with only this NMI pending blocks instead of returning at once for
			 * ever (issue 30 item 3). */
			if (nmi && vmx_caps.vnmi && (intr & INTR_BLOCKING_BY_NMI))
				__atomic_store_n(&v->nmi_masked, true, __ATOMIC_RELAXED);
			if (vector >= 0 && (vmx_rflags(v) & RFLAGS_IF) && !shadow) {
				vmcs_write(v, VMCS_ENTRY_INTERRUPTION_INFO,
					   INTR_INFO_VALID | INTR_TYPE_EXTERNAL | (uint32_t)vector);
				e->injected = true;
			} else {
				want_window = vector >= 0;
			}
		}
	}
	uint32_t ctls = want_window ? v->cpu_ctls | CPU_INTERRUPT_WINDOW_EXITING
				    : v->cpu_ctls & ~CPU_INTERRUPT_WINDOW_EXITING;
	ctls = want_nmi_window ? ctls | CPU_NMI_WINDOW_EXITING : ctls & ~CPU_NMI_WINDOW_EXITING;
	if (ctls != v->cpu_ctls) {
		v->cpu_ctls = ctls;
		vmcs_write(v, VMCS_PROC_BASED_CONTROLS, ctls);
	}
}

/* Only an entry with IF=0 needs the timer (Bochs bug 1): with IF=1 the host's LAPIC timer,
 * armed by core for the same deadline, exits the guest by itself, so the timer holds
 * 2^32 - 1 and is not written again while the guest keeps entering with IF=1 (the value
 * last written stays: "save VMX-preemption timer value" is off). With IF=0 it counts only
 * while the guest runs, so its value is rewritten at every such entry. `now` is the TSC
 * right before the entry. */
static void arm_preemption_timer(struct vmx_vcpu *v, uint64_t deadline_tsc, uint64_t now)
{
	uint64_t ticks = 0xffffffffull;
	if (unlikely(!(vmx_rflags(v) & RFLAGS_IF))) {
		uint64_t cap = now + ns_to_tsc(IF0_BACKSTOP_NS);
		if (deadline_tsc > cap)
			deadline_tsc = cap;
		ticks = deadline_tsc > now ? (deadline_tsc - now) >> vmx_caps.preempt_shift : 0;
		if (ticks > 0xffffffffull)
			ticks = 0xffffffffull;
	}
	if (ticks != v->preempt_ticks) {
		v->preempt_ticks = ticks;
		vmcs_write(v, VMCS_PREEMPTION_TIMER_VALUE, ticks);
	}
}

/* Whether an exit of this basic reason can have interrupted the delivery of an event, so
 * that the IDT-vectoring information may be valid (SDM Vol. 3C 27.2.4): an exception
 * (NMI exits and the exception bitmap), a task switch through a task gate, an APIC
 * access, an EPT violation or misconfiguration, a full page-modification log. Every other
 * exit (an instruction's, a window's, the preemption timer's, an external interrupt's)
 * happens at an instruction boundary with the field invalid, so it is not read. */
static bool during_delivery(uint32_t basic)
{
	return basic == EXIT_REASON_EXCEPTION_NMI || basic == EXIT_REASON_TASK_SWITCH ||
	       basic == EXIT_REASON_APIC_ACCESS || basic == EXIT_REASON_EPT_VIOLATION ||
	       basic == EXIT_REASON_EPT_MISCONFIG || basic == EXIT_REASON_PML_FULL;
}

/* An event whose delivery the exit interrupted (27.2.4) is delivered again at the next
 * entry, before anything new. */
static void requeue_vectoring(struct vmx_vcpu *v)
{
	uint32_t info = (uint32_t)vmcs_read(v, VMCS_IDT_VECTORING_INFO);
	if (!(info & INTR_INFO_VALID))
		return;
	v->pending_exc = true;
	v->exc_info = info & ~(1u << 12); /* bit 12 is undefined on entry */
	/* An NMI whose delivery the exit interrupted goes in again: virtual-NMI blocking must
	 * then be clear (26.3.1.5), as it was before that delivery (KVM does the same). */
	if ((info & INTR_TYPE_MASK) == INTR_TYPE_NMI && vmx_caps.vnmi)
		vmx_set_intr(v, vmx_intr(v) & ~(uint64_t)INTR_BLOCKING_BY_NMI);
	v->exc_error = (uint32_t)vmcs_read(v, VMCS_IDT_VECTORING_ERROR);
	uint32_t type = info & INTR_TYPE_MASK;
	/* Software interrupts and exceptions (types 4-6) need their instruction length. */
	v->exc_len = type >= INTR_TYPE_SW_INTERRUPT && type <= (6u << 8)
			     ? (uint32_t)vmcs_read(v, VMCS_EXIT_INSTRUCTION_LENGTH)
			     : 0;
}

/* An IRET that faulted (an exception exit, an EPT violation) had already unblocked virtual
 * NMIs: it runs again after the exit, so the blocking comes back (SDM 27.2.3). Not when the
 * exit happened while delivering an event (the IRET did not run then). */
static void nmi_unblocking_iret(struct vmx_vcpu *v, uint32_t raw)
{
	uint32_t basic = raw & 0xffff, bit;
	if (basic == EXIT_REASON_EXCEPTION_NMI)
		bit = (uint32_t)vmcs_read(v, VMCS_EXIT_INTERRUPTION_INFO);
	else if (basic == EXIT_REASON_EPT_VIOLATION)
		bit = (uint32_t)vmcs_read(v, VMCS_EXIT_QUALIFICATION);
	else
		return;
	if (!(bit & NMI_UNBLOCKING_DUE_TO_IRET) ||
	    ((uint32_t)vmcs_read(v, VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID))
		return;
	vmx_set_intr(v, vmx_intr(v) | INTR_BLOCKING_BY_NMI);
}

/* Everything an exit may need beyond its kind, off the common path: operands, entry
 * failures and unhandled reasons (vmx_decode_exit), host NMIs, guest NMI blocking, an
 * event whose delivery the exit interrupted, a failed VMREAD. */
static void after_exit_slow(struct vmx_vcpu *v, uint32_t raw, struct hv_exit *e)
{
	vmx_decode_exit(v, raw, e);
	if (e->kind == HV_EXIT_NMI) {
		/* A host NMI. With virtual NMIs the guest's "blocking by NMI" is its own
		 * (virtual-NMI blocking, saved as it was: Bochs too), so it stays; without them
		 * it is the host's NMI blocked by the exit, which Bochs (bug 2) leaves set. */
		if (!vmx_caps.vnmi)
			vmx_set_intr(v, vmx_intr(v) & ~(uint64_t)INTR_BLOCKING_BY_NMI);
		__asm__ volatile("int $2" ::: "memory");
	}
	/* NMI blocking can only be set by an NMI that went in (inject sets nmi_masked then)
	 * and ends at its IRET: while none is involved, the exit path reads nothing for it. */
	bool nmi_live = vmx_caps.vnmi && v->nmi_masked;
	if (e->kind != HV_EXIT_ENTRY_FAIL) {
		if (nmi_live)
			nmi_unblocking_iret(v, raw);
		if (during_delivery(raw & 0xffff))
			requeue_vectoring(v);
	}
	if (nmi_live)
		__atomic_store_n(&v->nmi_masked, (vmx_intr(v) & INTR_BLOCKING_BY_NMI) != 0,
				 __ATOMIC_RELAXED);
	if (v->vmx_error && e->kind != HV_EXIT_ENTRY_FAIL) {
		e->kind = HV_EXIT_ENTRY_FAIL;
		e->fail.error = v->vmx_error_field;
		e->fail.why = "a VMREAD failed while decoding the exit";
	}
}

void vmx_vcpu_run(struct hv_vcpu *hv, uint64_t deadline_tsc, int inject_vector, struct hv_exit *e)
{
	struct vmx_vcpu *v = to_vmx(hv);
	/* Once per exit core completed on its quick path (hv.h, hv_exit_quick), with the same
	 * deadline and HV_INJECT_SAME. */
	for (bool quick = false;; quick = true, inject_vector = HV_INJECT_SAME) {
		e->kind = HV_EXIT_NONE;
		e->injected = e->nmi_injected = e->calm = false;
		if (likely(inject_vector == HV_INJECT_SAME &&
			   !(v->pending_exc | v->nmi_requested))) {
			/* The last entry again (hv.h): the VMCS is still current here, no reset
			 * was asked for since, no window is open; an exception the handler raised
			 * (a single step) or an NMI asked for after all take the whole path. */
			e->calm = true;
#ifdef SLIVER_PINGTRACE
			e->loaded_tsc = rdtsc();
#endif
		} else {
			e->entry_tsc = 0;
			if (!load_here(v, e))
				return;
#ifdef SLIVER_PINGTRACE
			e->loaded_tsc = rdtsc();
#endif
			if (unlikely(v->reset_pending)) { /* INIT/SIPI: the VMCS is current now */
				v->reset_pending = false;
				vmcs_reset_real(v);
			}
			inject(v, inject_vector < 0 ? -1 : inject_vector, e);
		}
		uint64_t now = rdtsc();
		/* After a quick exit IF is set: a timer at its maximum stays there. */
		if (!quick || v->preempt_ticks != 0xffffffffull)
			arm_preemption_timer(v, deadline_tsc, now);
		if (unlikely(v->vmx_error)) {
			e->entry_tsc = 0;
			e->kind = HV_EXIT_ENTRY_FAIL;
			e->fail.error = v->vmx_error_field;
			e->fail.why = "a VMREAD/VMWRITE failed (fail.error = VMCS field)";
			return;
		}
#ifdef SLIVER_EXITSTATS
		uint64_t rsp_before = v->host_rsp;
#endif
		e->entry_tsc = now; /* right before the entry (core's wake-to-run) */
		int failed = vmx_enter(&v->g, v->launched, &v->host_rsp);
#ifdef SLIVER_PINGTRACE
		e->exit_tsc = rdtsc();
#endif
		if (unlikely(failed)) {
			uint64_t err = 0;
			vmread_checked(VMCS_VM_INSTRUCTION_ERROR, &err);
			e->kind = HV_EXIT_ENTRY_FAIL;
			e->injected = false;
			e->fail.error = (uint32_t)err;
			e->fail.why = vmx_insn_error_name((uint32_t)err);
			return;
		}
		v->launched = true;
		vmx_uncache(v); /* the exit saved the guest state: nothing read before holds */
#ifdef SLIVER_EXITSTATS
		v->xs.cur[1] += v->host_rsp != rsp_before; /* enter.h wrote HOST_RSP */
		exitstats_close(&v->xs);
#endif
		/* CR8 exiting keeps the guest off the host's TPR: the scheduler's timer relies
		 * on it staying 0 (a guest that could raise it would freeze this pCPU). */
		uint64_t tpr;
		__asm__ volatile("mov %%cr8, %0" : "=r"(tpr));
		if (unlikely(tpr))
			panic("vmx: host TPR is %lu after a VM exit (CR8 exiting missing?)",
			      (unsigned long)tpr);
		uint32_t raw = (uint32_t)vmcs_read(v, VMCS_EXIT_REASON);
		/* The common exit: its reason says it all (no operands but an I/O
		 * instruction's; by construction not one that can interrupt an event's
		 * delivery, during_delivery), no flag bit is set in the exit-reason field (a
		 * failed entry) and no NMI is involved. */
		uint8_t kind = raw < VMX_NR_EXIT_REASONS ? vmx_exit_fast_kind[raw] : 0;
		if (unlikely(!kind || v->vmx_error || v->nmi_masked)) {
			after_exit_slow(v, raw, e);
#ifdef SLIVER_EXITSTATS
			exitstats_open(&v->xs, e->kind);
#endif
			return;
		}
		e->reason = (uint16_t)raw;
		e->kind = kind;
		if (kind == HV_EXIT_IO)
			vmx_decode_io(v, e);
#ifdef SLIVER_EXITSTATS
		exitstats_open(&v->xs, e->kind);
#endif
		/* Core's quick path: with the guest's IF clear a pending host interrupt would
		 * not exit the next entry at once (Bochs bug 1), so only with it set. RFLAGS
		 * is not read yet (vmx_uncache above). */
		if (!((HV_EXIT_QUICK_KINDS >> kind) & 1) || !e->calm)
			return;
		uint64_t rflags = v->c_rflags = vmcs_read(v, VMCS_GUEST_RFLAGS);
		if (!(rflags & RFLAGS_IF) || !hv_exit_quick(hv, e))
			return;
		vmx_skip(v, vmcs_read(v, VMCS_EXIT_INSTRUCTION_LENGTH), rflags);
	}
}
