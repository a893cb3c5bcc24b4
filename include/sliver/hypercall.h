/* sliver guest ABI: hypercall numbers and calling convention.
 * docs/hypercalls.md is the table of record; keep both in step.
 *
 * Calling convention (VMCALL):
 *   64-bit guest (IA-32e mode): number in RAX, arguments in RDI, RSI, RDX, R10, R8.
 *   32-bit guest (anything else): number in EAX, arguments in EDI, ESI, EDX, ECX, EBX
 *     (R10 -> ECX, R8 -> EBX); the hypervisor uses only the low 32 bits of each.
 *   Result in RAX/EAX: >= 0 success, -SLIVER_E* on failure. RDX/EDX is clobbered: it
 *   receives the high 32 bits of the result (so a 32-bit guest reads 64-bit results
 *   such as HC_CLOCK in EDX:EAX). All other registers are preserved.
 *   64-bit quantities passed as arguments are always two 32-bit halves, low word first,
 *   in both modes, so one wrapper serves both.
 *   Pointers are guest-physical addresses; every (pointer, length) must lie inside the
 *   caller's memory, else -SLIVER_EFAULT and nothing is read or written.
 *   Unknown numbers give -SLIVER_ENOSYS. Privileged calls (HC_PRIV_FIRST..63) from a
 *   domain without role=service give -SLIVER_EPERM. */
#ifndef SLIVER_HYPERCALL_H
#define SLIVER_HYPERCALL_H

/* --- calls every domain may make --- */
#define HC_CONSOLE_WRITE 0 /* (gpa buf, len) -> bytes taken; len <= HC_CONSOLE_MAX     */
#define HC_YIELD	 1 /* () -> 0: give up the rest of the slice                   */
#define HC_BLOCK	 2 /* () -> 0: sleep until an interrupt is pending for this vCPU */
#define HC_SET_TIMER                                                                               \
	3	   /* (ns_lo, ns_hi) -> 0: one-shot at absolute guest time;                        \
		      0 cancels. Fires an event on SLIVER_PORT_TIMER.          */
#define HC_CLOCK 4 /* () -> ns since hypervisor boot (64-bit, EDX:EAX)         */
#define HC_EVENT_SEND                                                                              \
	5 /* (dom, port) -> 0: raise port on domain dom                                            \
	     (dom SLIVER_DOMID_HV = the hypervisor itself);                                        \
	     -SLIVER_EPERM when dom did not allow it (sliver/event.h)  */
#define HC_EVENT_BIND                                                                              \
	6 /* (port, vector, vcpu) -> 0: deliver port as interrupt                                  \
	     `vector` (32..255) to vCPU `vcpu`; vector 0 unbinds      */
#define HC_EVENT_RECV                                                                              \
	7	       /* (port) -> the last sender's domid of the pending port, clearing          \
			  it; -SLIVER_EAGAIN when the port is not pending           */
#define HC_SHUTDOWN  8 /* (code) -> does not return: the domain ends             */
#define HC_SELF_INFO 9 /* (gpa buf, len) -> bytes: struct sliver_dom_info of self */
#define HC_EVENT_ALLOW                                                                             \
	10 /* (port, dom, on) -> 0: let domain dom (SLIVER_DOMID_ANY: all) raise                   \
	      this domain's port (on=1) or no longer (on=0) */
#define HC_EVENT_INFO                                                                              \
	11 /* (port, gpa struct sliver_event_info *, len) -> bytes: like                           \
	      HC_EVENT_RECV, with the count and every sender */

/* --- privileged: role=service only (the rest get -SLIVER_EPERM) --- */
#define HC_PRIV_FIRST	32
#define HC_DOM_LIST	32 /* (gpa buf, max entries) -> n: struct sliver_dom_info[]    */
#define HC_DOM_COUNTERS 33 /* (dom, gpa buf, len) -> bytes: struct sliver_dom_counters */
#define HC_SCHED_SET	34 /* (dom, weight, cap) -> 0                                  */
#define HC_SCHED_GLOBAL                                                                            \
	35		  /* (gpa str, len) -> 0: one scheduler setting as on the boot             \
			     command line, e.g. "credit.tslice_us=500"              */
#define HC_DOM_PAUSE   36 /* (dom) -> 0                                               */
#define HC_DOM_UNPAUSE 37 /* (dom) -> 0                                               */
#define HC_DOM_DESTROY 38 /* (dom) -> 0: crash-free teardown, memory scrubbed         */
#define HC_PING                                                                                    \
	39		   /* (dom, gpa struct sliver_ping_result *) -> 0: the hypervisor          \
			      posts SLIVER_PORT_PING to dom, time-stamps post and reply */
#define HC_CONSOLE_READ 40 /* (gpa buf, len) -> bytes read from the console input      */
#define HC_NR		41
#define HC_PRIV_END	64 /* privileged numbers are HC_PRIV_FIRST..63; from 64: ENOSYS */

#define HC_CONSOLE_MAX 4096 /* longest single console write                            */

/* The service domain's further calls (41..) are in sliver/service.h. */

#endif
