/* The state of a vCPU's virtual local APIC (core/vlapic.h has its functions): apart, so that
 * struct vcpu (core/vmm.h) holds it without the vCPU's header depending on the vLAPIC's. */
#ifndef CORE_VLAPIC_STATE_H
#define CORE_VLAPIC_STATE_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/spinlock.h"

#define VLAPIC_BASE_GPA 0xfee00000ull
#define VLAPIC_NR_LVT	7 /* CMCI, timer, thermal, perf, LINT0, LINT1, error (0x2F0, 0x320..) */

struct vlapic {
	spinlock_t lock;    /* timer state, ESR, ICR (the vCPU and timer callbacks) */
	uint64_t irr[4];    /* requests (atomic bit ops: any pCPU) */
	uint64_t isr[4];    /* in service: only the vCPU's own pCPU */
	uint64_t tmr[4];    /* trigger mode of each vector accepted: 1 level (atomic bit ops) */
	uint64_t apic_base; /* IA32_APIC_BASE */
	uint32_t svr, ldr, dfr, esr, esr_pending, icr_lo, icr_hi;
	uint32_t lvt[VLAPIC_NR_LVT];
	uint32_t tmict, tdcr;
	uint64_t tsc_deadline;	    /* IA32_TSC_DEADLINE as written (0: disarmed) */
	uint64_t t_start, t_period; /* one-shot/periodic: count start (ns), tmict*div ns */
	uint64_t t_next;	    /* next expiry armed (ns), 0: none */
	bool t_running;		    /* one-shot not yet expired, or periodic */
	/* t_next is not armed on any pCPU: the vCPU was preempted (vlapic_park) and the timer
	 * fires or is armed again at its next entry (atomic: read at every entry). */
	bool t_parked;
	uint32_t nmi_pending;		 /* atomic: NMIs arrived (IPIs), not yet latched */
	bool init_pending, sipi_pending; /* atomic: set by the sender, taken by the vCPU */
	uint8_t sipi_vector;		 /* the last SIPI's (real mode at vector << 12) */
	bool wait_sipi; /* after INIT, until a SIPI: the vCPU does not run (its own pCPU) */
	uint64_t timer_irqs, ipis; /* counters for the end-of-run line */
	/* NMIs the vCPU still owes its guest (its own pCPU), asked for at every entry
	 * (hv_request_nmi) until the backend delivers one (hv_exit.nmi_injected). As KVM's
	 * process_nmi: while the guest handles an NMI (hv_nmi_masked) one more can wait, else
	 * two (the first goes in at once, the second waits for its IRET); more merge
	 * (SDM Vol. 3A 6.7.1: one NMI pending, not more). */
	uint8_t nmi_latched;
};

#endif
