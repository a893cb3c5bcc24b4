/* sliver guest ABI: event ports.
 * Each domain has SLIVER_NR_PORTS ports. Raising a port (HC_EVENT_SEND from another
 * domain, the domain's timer, a ping from the hypervisor) marks it pending and records
 * the sender; if the port is bound (HC_EVENT_BIND), its vector is made pending on the
 * bound vCPU and injected as an external interrupt when the vCPU has RFLAGS.IF=1 (at the
 * latest at its next VM entry; a vCPU blocked in HLT or HC_BLOCK wakes). There is no EOI:
 * each injection consumes the vector.
 *
 * Coalescing loses no sender: raising a port that is already pending adds one to its
 * count and the sender's bit to its sender set (one bit per domain id, 0 = the
 * hypervisor). HC_EVENT_RECV clears the port and returns the last sender; HC_EVENT_INFO
 * clears it and returns all of it (struct sliver_event_info).
 *
 * Who may raise a port (docs/hypercalls.md): any domain may signal the hypervisor, the
 * service domain, and itself; the service domain may signal any port; any other port
 * only when its owner allowed the sender (HC_EVENT_ALLOW, or `evt.allow=` on the
 * owner's module line), or as a reply: a domain that signalled you may be signalled
 * back. Everything else gets -SLIVER_EPERM, counted per sending domain. */
#ifndef SLIVER_EVENT_H
#define SLIVER_EVENT_H
#include <stdint.h>

#define SLIVER_NR_PORTS	    32
#define SLIVER_PORT_TIMER   0 /* raised by the hypervisor when HC_SET_TIMER expires */
#define SLIVER_PORT_PING    1 /* ping requests; echo replies on SLIVER_PORT_PONG      */
#define SLIVER_PORT_PONG    2 /* ping replies arrive here (sender = pinged domain)    */
#define SLIVER_PORT_CONSOLE 3 /* console input is available (service domain)         */
#define SLIVER_PORT_USER    8 /* first port free for guests' own use                  */

#define SLIVER_DOMID_HV	    0		/* the hypervisor as an event sender/receiver     */
#define SLIVER_DOMID_ANY    0xffffffffu /* HC_EVENT_ALLOW: every domain                   */
#define SLIVER_MAX_DOMS	    1024	/* domain ids 1..1023                             */
#define SLIVER_DOMSET_WORDS (SLIVER_MAX_DOMS / 64) /* a set of domain ids, bit per id */

#define SLIVER_VECTOR_MIN 32 /* vectors below are exceptions                        */

/* HC_EVENT_INFO: what was pending on a port, taken (and cleared) at once. The call
 * copies as much as the guest's buffer holds: a 16-byte buffer gets the sender set of
 * ids 0..63 only (the layout of the ABI before 1024 domains). */
struct sliver_event_info {
	uint32_t count; /* raises since the last receive (saturates at 2^32-1) */
	uint32_t last;	/* domain id of the last sender */
	/* bit i % 64 of word i / 64: domain i raised it at least once (bit 0: the hypervisor) */
	uint64_t senders[SLIVER_DOMSET_WORDS];
};

#endif
