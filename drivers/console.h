/* The hypervisor console: the UART and/or framebuffer drivers/conport.c chose, mirrored to
 * port 0xE9 under Bochs (docs/console.md).
 * Synchronous (polled, whole writes under one lock) until console_start_async(); then
 * every line goes into a lock-free ring and the UART's THR-empty interrupt drains it, so
 * nothing waits for the UART but the sync paths: panic (console_break_lock), the debug
 * keys (console_sync_begin/end) and power-off (console_drain). */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/conport.h"

void console_init(void);
bool console_is_bochs(void);
/* The hypervisor's own output: queued a whole line at a time, per pCPU. */
void console_write(const char *s, size_t n);
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap);
/* One or more whole lines (each ending in '\n') from domain `dom`, queued as one record:
 * `priority` (the service domain) in the hypervisor's ring, outside the reserve kept for
 * the hypervisor's lines; else in the guest ring. False when the ring had no room (the
 * caller counts the drop). Never waits. */
bool console_put_line(unsigned dom, bool priority, const char *s, size_t n);
/* The bytes of records a domain's lines may fill in the ring console_put_line(priority)
 * uses, and how many of them are free now (headers and padding make a record take up to
 * 31 bytes more than its text: conring_cost). */
uint32_t console_ring_limit(bool priority);
uint32_t console_room(bool priority);
/* fn(tag, len) runs each time the drain has taken the last byte of a domain's record
 * (tag = the dom of console_put_line, never 0) out of its ring: core/dcon.c counts each
 * domain's queued bytes with it. It runs in the drain's owner, which may be a producer
 * holding locks: it must only do atomic arithmetic. */
void console_set_consumed_hook(void (*fn)(unsigned tag, uint32_t len));

/* Turns the rings on and the UART's THR-empty interrupt (IER bit 1); the UART's IRQ must
 * already be routed to pCPU `cpu`, which drains. Another pCPU that queues a line while
 * the transmitter is idle calls kick_cpu (an IPI to `cpu`, whose handler calls
 * console_kicked) instead of touching the UART itself. */
void console_start_async(unsigned cpu, void (*kick_cpu)(void));
/* On the drain pCPU, from the kick IPI: feeds the transmitter if it is idle. */
void console_kicked(void);
bool console_is_async(void);
/* The UART interrupt handler's part: IIR said the transmitter is empty. */
void console_tx_irq(void);
/* The UART's IIR (bit 0 set: no interrupt pending; bits 1-3: the cause). */
uint8_t console_irq_id(void);

/* Panic: finish the line on the wire, write what is queued (until deadline_tsc), then
 * write synchronously without honouring any lock (the holder may be stopped for good). */
void console_break_lock(uint64_t deadline_tsc);
/* Debug keys: between begin and end, this pCPU's output goes straight to the wire (after
 * the line being sent is finished); the others' stays queued. */
void console_sync_begin(void);
void console_sync_end(void);
/* Power-off: everything queued so far reaches the wire (until deadline_tsc), then this
 * pCPU keeps the UART and writes synchronously; waits for the transmitter to be empty. */
void console_drain(uint64_t deadline_tsc);

/* The drain's watchdog for a lost THR-empty interrupt (console.c): call it on the drain
 * pCPU CONSOLE_WATCHDOG_MS after its last UART interrupt, and again every period while it
 * returns true (output in flight). */
#define CONSOLE_WATCHDOG_MS 100
bool console_watchdog(void);

struct console_stats {
	uint64_t watchdog_kicks; /* stalls the watchdog re-kicked */
	uint64_t wire_bytes;	 /* bytes the drain gave the UART */
	uint64_t dropped_bytes;	 /* bytes refused because a ring was full */
	uint64_t tx_irqs;	 /* THR-empty interrupts taken */
	uint64_t queued_bytes;	 /* in the rings now */
};
void console_get_stats(struct console_stats *s);

/* Polled input; -1 when none. */
int console_getc(void);
/* The console UART's receive interrupt: its ISA IRQ (drivers/conport.c: 4 for 0x3F8, 3 for
 * 0x2F8, the SPCR's PC-AT IRQ; 16, which routes nowhere, for a PCI UART). */
void console_enable_rx_irq(void);
#define CONSOLE_ISA_IRQ conport_isa_irq()

#endif
