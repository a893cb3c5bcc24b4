/* The ping path's stages, stamped with the TSC (issue 25): a build with PINGTRACE=1
 * (SLIVER_PINGTRACE, mk/pingtrace.mk) records, for every ping of the hypervisor's ping
 * source (core/ping.c), the TSC at each stage of its round trip below, and prints per path
 * and stage the ticks spent since the previous stage (p50, p99, min, max) at the end of the
 * run (`pingtrace ...` lines, tools/pingtrace-table.sh), and the stages of its five slowest
 * pings that were off their p50 (`pingtrace <path> slow ...`: where a p99 comes from).
 * Under Bochs one TSC tick is one instruction (`clock: sync=none`: deterministic). Every
 * other build compiles PT_STAMP and the other hooks to nothing: no code, no data. The hooks
 * are called from core/ping.c, core/vcpu.c, core/vmm.c, core/hypercall.c and
 * core/sched_door.c (which also builds for the host, without this option). */
#ifndef CORE_PINGTRACE_H
#define CORE_PINGTRACE_H

/* In path order. Sender pCPU (ping.cpu): */
enum pt_stage {
	PT_DUE,	   /* the ping's scheduled send time */
	PT_FIRE,   /* ping_fire runs: the timer interrupt and timer queue */
	PT_RAISE,  /* event_raise called: the ping source's bookkeeping */
	PT_NOTIFY, /* sd_notify called: the port's count and senders, the vector's IRR bit */
	PT_LOCKED, /* the echo's run-queue lock held */
	PT_WOKEN,  /* the policy's wake returned */
	PT_IPI,	   /* the kick's IPI sent: locks let go, kicks delivered */
	/* The echo's pCPU (the one the IPI went to): */
	PT_VMEXIT,  /* the guest there exits (the TSC right after VM exit: IPI delivery) */
	PT_EXITED,  /* hv_vcpu_run returned: the backend's exit path */
	PT_DRAIN,   /* the IPI's handler runs (irq_drain) */
	PT_PICK,    /* sd_pick called: exit dispatch, the loop sees need_resched */
	PT_PLOCKED, /* the pCPU's run-queue lock held */
	PT_PICKED,  /* the policy's pick returned */
	PT_PICKRET, /* sd_pick returned: door bookkeeping, unlock */
	PT_PUT,	    /* the previous vCPU let go (VMCLEAR / VMCB put), decision statistics */
	PT_ARMED,   /* the slice timer armed */
	PT_RUN,	    /* hv_vcpu_run called for the echo: run_vcpu's checks, the deadline */
	PT_LOADED,  /* the echo's VMCS / VMCB loaded on this pCPU */
	PT_ENTRY,   /* right before VM entry: the vector injected, preemption timer */
	/* The echo answers (guests/echo: HC_EVENT_INFO, then HC_EVENT_SEND per sender): */
	PT_INFO_EXIT,  /* its HC_EVENT_INFO exits: entry, the guest's ISR to the VMCALL */
	PT_INFO_HC,    /* the hypercall handler called: the backend's exit path, dispatch */
	PT_INFO_ENTRY, /* the next entry: the handler, the loop */
	PT_SEND_EXIT,  /* its HC_EVENT_SEND exits: the guest's ISR to that VMCALL */
	PT_REPLY,      /* ping_reply runs: exit path, dispatch (the round trip ends) */
	PT_N
};

#ifdef SLIVER_PINGTRACE
#include <stdbool.h>
#include <stdint.h>
/* Plain values only: this header is included by core/vmm.c and core/sched_door.c, and
 * pingtrace.c includes neither's header (no include cycle). */
void pt_stamp(enum pt_stage s);
void pt_ping_start(unsigned dom, unsigned cpu);
void pt_ping_fire(uint64_t due_tsc, uint64_t fire_tsc, bool late); /* late: PING_LATE_NS */
void pt_raising(bool on);
void pt_notify_result(bool woke); /* sd_notify woke the vCPU (SD_WAKE_WOKE) */
void pt_kick(unsigned cpu);
void pt_run(unsigned dom); /* hv_vcpu_run is called for a vCPU of domain `dom` */
/* ... and returned: the TSC of its entry (0: none), of its load, of its exit, and the exit's
 * raw reason (struct hv_exit's) */
void pt_ran(unsigned dom, uint64_t entry_tsc, uint64_t loaded_tsc, uint64_t exit_tsc,
	    unsigned reason);
void pt_hypercall(unsigned dom, uint64_t nr);
void pt_reply(uint64_t tsc);
void pt_report(void);
#define PT_STAMP(s) pt_stamp(s)
#define PT_HOOK(x)  x
#else
#define PT_STAMP(s) ((void)0)
#define PT_HOOK(x)  ((void)0)
#endif

#endif
