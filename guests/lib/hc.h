/* Hypercall wrappers for 32-bit guests (convention in include/sliver/hypercall.h:
 * EAX = number, EDI, ESI, EDX, ECX, EBX = arguments, result in EAX, EDX clobbered), with
 * the vendor's instruction (hcinsn.h). */
#ifndef GUESTS_LIB_HC_H
#define GUESTS_LIB_HC_H
#include <stdint.h>
#include "sliver/hypercall.h"
#include "sliver/errno.h"
#include "sliver/event.h"
#include "guests/lib/hcinsn.h"

static inline int32_t hc5(uint32_t nr, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
			  uint32_t a4)
{
	uint32_t eax = nr, edx = a2;
	__asm__ volatile(HC_INSN
			 : "+a"(eax), "+d"(edx)
			 : "D"(a0), "S"(a1), "c"(a3), "b"(a4), HC_FLAG
			 : "memory", "cc");
	return (int32_t)eax;
}
static inline int32_t hc3(uint32_t nr, uint32_t a0, uint32_t a1, uint32_t a2)
{
	return hc5(nr, a0, a1, a2, 0, 0);
}
static inline uint64_t hc_ret64(uint32_t nr)
{
	uint32_t eax = nr, edx = 0;
	__asm__ volatile(HC_INSN : "+a"(eax), "+d"(edx) : HC_FLAG : "memory", "cc");
	return ((uint64_t)edx << 32) | eax;
}

/* All len bytes: HC_CONSOLE_WRITE returns a short count after the vCPU waited for the
 * console to make room (docs/hypercalls.md), and the rest is written again. */
static inline int32_t hc_console_write(const void *buf, uint32_t len)
{
	const char *p = buf;
	uint32_t left = len;
	while (left) {
		int32_t r = hc3(HC_CONSOLE_WRITE, (uint32_t)(uintptr_t)p, left, 0);
		if (r < 0)
			return r;
		p += r;
		left -= (uint32_t)r;
	}
	return (int32_t)len;
}
static inline int32_t hc_yield(void)
{
	return hc3(HC_YIELD, 0, 0, 0);
}
static inline int32_t hc_block(void)
{
	return hc3(HC_BLOCK, 0, 0, 0);
}
static inline int32_t hc_set_timer(uint64_t ns)
{
	return hc3(HC_SET_TIMER, (uint32_t)ns, (uint32_t)(ns >> 32), 0);
}
static inline uint64_t hc_clock(void)
{
	return hc_ret64(HC_CLOCK);
}
static inline int32_t hc_event_send(uint32_t dom, uint32_t port)
{
	return hc3(HC_EVENT_SEND, dom, port, 0);
}
static inline int32_t hc_event_bind(uint32_t port, uint32_t vector, uint32_t vcpu)
{
	return hc3(HC_EVENT_BIND, port, vector, vcpu);
}
static inline int32_t hc_event_recv(uint32_t port)
{
	return hc3(HC_EVENT_RECV, port, 0, 0);
}
__attribute__((noreturn)) static inline void hc_shutdown(uint32_t code)
{
	for (;;)
		hc3(HC_SHUTDOWN, code, 0, 0);
}

#endif
