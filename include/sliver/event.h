/* sliver guest ABI: event ports.
 * Each domain has SLIVER_NR_PORTS ports. Raising a port (HC_EVENT_SEND from another
 * domain, the domain's timer, a ping from the hypervisor) marks it pending and records
 * the sender; if the port is bound (HC_EVENT_BIND), its vector is made pending on the
 * bound vCPU and injected as an external interrupt when the vCPU has RFLAGS.IF=1 (at the
 * latest at its next VM entry; a vCPU blocked in HLT or HC_BLOCK wakes). Raising a port
 * that is already pending coalesces. The guest clears a port with HC_EVENT_RECV, which
 * returns the sender's domain id. There is no EOI: each injection consumes the vector. */
#ifndef SLIVER_EVENT_H
#define SLIVER_EVENT_H

#define SLIVER_NR_PORTS	    32
#define SLIVER_PORT_TIMER   0 /* raised by the hypervisor when HC_SET_TIMER expires */
#define SLIVER_PORT_PING    1 /* ping requests; echo replies on SLIVER_PORT_PONG      */
#define SLIVER_PORT_PONG    2 /* ping replies arrive here (sender = pinged domain)    */
#define SLIVER_PORT_CONSOLE 3 /* console input is available (service domain)         */
#define SLIVER_PORT_USER    8 /* first port free for guests' own use                  */

#define SLIVER_DOMID_HV 0  /* the hypervisor as an event sender/receiver          */
#define SLIVER_MAX_DOMS 32 /* domain ids are 1..SLIVER_MAX_DOMS-1                  */

#define SLIVER_VECTOR_MIN 32 /* vectors below are exceptions                        */

#endif
