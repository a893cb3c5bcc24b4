/* Exit dispatch by normalized kind: a const table, bounds-checked. Every kind without a
 * handler crashes the domain (exit_fatal): nothing is skipped silently. Counting per raw
 * reason happens in the loop (vmm.c). */
#include "arch/x86_64/tsc.h"
#include "core/pingtrace.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/compiler.h"
#include "lib/fmt.h"

typedef enum exit_action (*exit_handler)(struct vcpu *v, struct hv_exit *e);

static enum exit_action exit_nothing(struct vcpu *v, struct hv_exit *e)
{
	(void)v, (void)e;
	return ACT_CONTINUE; /* host interrupt, preemption timer, NMI, interrupt window */
}

/* PAUSE; INVD, WBINVD (HV_EXIT_NOP): guest memory is write-back and coherent, so there is
 * nothing to flush that the guest could notice, and a real WBINVD would hold the pCPU for
 * the whole flush. The instruction completes with no other effect. */
static enum exit_action exit_skip(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	hv_skip_exit_insn(v->hv);
	return ACT_CONTINUE;
}

static const exit_handler handlers[HV_EXIT_NR_KINDS] = {
	[HV_EXIT_EXTINT] = exit_nothing,
	[HV_EXIT_PREEMPT] = exit_nothing,
	[HV_EXIT_NMI] = exit_nothing,
	[HV_EXIT_NMI_WINDOW] = exit_nothing, /* vlapic_before_entry asks again */
	[HV_EXIT_INTWIN] = exit_nothing,
	[HV_EXIT_HYPERCALL] = hypercall,
	[HV_EXIT_CPUID] = exit_cpuid,
	[HV_EXIT_RDMSR] = exit_rdmsr,
	[HV_EXIT_WRMSR] = exit_wrmsr,
	[HV_EXIT_IO] = exit_io,
	[HV_EXIT_HLT] = exit_hlt,
	[HV_EXIT_PAUSE] = exit_skip,
	[HV_EXIT_PAUSE_LOOP] = exit_pause_loop,
	[HV_EXIT_CR] = exit_cr,
	[HV_EXIT_DR] = exit_dr,
	[HV_EXIT_UD] = exit_ud,
	[HV_EXIT_GP] = exit_gp,
	[HV_EXIT_NOP] = exit_skip,
	[HV_EXIT_EPT] = exit_ept,
	[HV_EXIT_TRIPLE_FAULT] = exit_fatal,
	[HV_EXIT_ENTRY_FAIL] = exit_fatal,
	[HV_EXIT_UNHANDLED] = exit_fatal,
};

enum exit_action exit_dispatch(struct vcpu *v, struct hv_exit *e)
{
	if (e->kind >= HV_EXIT_NR_KINDS || !handlers[e->kind])
		return exit_fatal(v, e);
	return handlers[e->kind](v, e);
}

/* The quick path (hv.h, hv_set_exit_quick): what run_vcpu (vmm.c) does on its same path for an
 * exit that changes nothing but the vCPU's registers, RIP and flags (CPUID, HC_CLOCK),
 * less what cannot have changed there: the checks of state set without an interrupt
 * (need_resched, dying, paused), the guest's time, the counters and the answer (the
 * backend completes the instruction). A host
 * interrupt that came meanwhile is still pending: the next entry exits for it at once,
 * back to run_vcpu. Decided before anything is done, so false leaves the exit as it was. */
static __attribute__((noinline)) bool exit_quick(struct hv_vcpu *hv, struct hv_exit *e)
{
	struct vmm_cpu *pc = vmm_this();
	struct vcpu *v = pc->curr;
	if (e->kind == HV_EXIT_HYPERCALL && !hypercall_is_clock(hv))
		return false;
	if (__atomic_load_n(&pc->need_resched, __ATOMIC_ACQUIRE) || v->dom->dying ||
	    __atomic_load_n(&v->s.paused, __ATOMIC_ACQUIRE))
		return false;
	PT_HOOK(pt_ran(v->dom->id, e->entry_tsc, e->loaded_tsc, e->exit_tsc, e->reason));
	v->guest_tsc += rdtsc() - e->entry_tsc;
	__atomic_fetch_add(&v->dom->exits[e->reason], 1, __ATOMIC_RELAXED); /* < NR: hv.h */
	v->exits++;
	PT_HOOK(pt_run(v->dom->id));
	if (e->kind == HV_EXIT_CPUID)
		cpuid_answer(v);
	else
		hypercall_clock(v);
	return true;
}

/* Every other hypercall is turned away here, before anything is loaded. */
bool exit_quick_offer(struct hv_vcpu *hv, struct hv_exit *e)
{
	if (e->kind == HV_EXIT_HYPERCALL && !hypercall_nr_is_clock(hv))
		return false;
	return exit_quick(hv, e);
}

/* EXITSTATS builds (hv_exit_stats): per exit kind, the round trips of every domain so far
 * and what the backend did to its VMCS / VMCB per trip on average, e.g.
 * `exitstats cpuid n=20001 vmread=8.00 vmwrite=3.00`; once per run. Nothing in other
 * builds. */
void exit_stats_report(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	for (unsigned k = 0; k < HV_EXIT_NR_KINDS; k++) {
		struct hv_exit_stats st;
		unsigned nc = hv_exit_stats(k, &st);
		if (!nc || !st.n)
			continue;
		char line[160];
		size_t len = 0;
		for (unsigned c = 0; c < nc && len < sizeof line; c++) {
			uint64_t hundredths = st.val[c] * 100 / st.n;
			len += (size_t)fmt_snprintf(line + len, sizeof line - len, " %s=%lu.%02lu",
						    st.name[c], (unsigned long)(hundredths / 100),
						    (unsigned long)(hundredths % 100));
		}
		printk("exitstats %s n=%lu%s\n", hv_exit_kind_name(k), (unsigned long)st.n, line);
	}
}
