/* What every layer of core/ may ask of the pCPUs (vmm.h, "pcpu.c"), kept below the loop that
 * runs them (vmm.c), so that a device or the scheduler door waking a vCPU does not call up
 * into the loop. */
#include "arch/x86_64/idt.h"
#include "arch/x86_64/smp.h"
#include "core/pingtrace.h"
#include "core/vmm.h"

uint64_t vmm_run_end_ns;

void vmm_kick_cpu(unsigned cpu, bool resched)
{
	if (resched) {
		struct vmm_cpu *pc = percpu[cpu].vmm;
		__atomic_fetch_or(&pc->need_resched, RESCHED_KICK, __ATOMIC_RELEASE);
	}
	if (cpu != this_cpu()->id)
		smp_send_ipi(cpu, VEC_RESCHEDULE);
	PT_HOOK(pt_kick(cpu));
}
