/* Console input. The UART's interrupt (IRQ 4 through the IOAPIC; to CPU 0 at boot, then
 * to the pCPU that drains the console: see dcon_start_async) fills a ring that the service domain
 * drains with HC_CONSOLE_READ; a notify hook tells it that input arrived. Ctrl-] followed by a key
 * runs one of the hypervisor's own debug keys instead, so run queues and counters can be read even
 * when the service domain is dead; Ctrl-] Ctrl-] passes one Ctrl-] through. */
#ifndef CORE_CONIN_H
#define CORE_CONIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONIN_ESCAPE 0x1d /* Ctrl-] */

/* Routes and enables the interrupt; false (input stays off) without an IOAPIC. */
bool conin_init(void);
/* Sends the UART's interrupt (input, and the output drain) to pCPU `cpu`. */
bool conin_route(unsigned cpu);
/* Routes it there and makes the console asynchronous, drained by that pCPU (other pCPUs
 * kick it with an IPI on the same vector); false without an IOAPIC. */
bool conin_start_output(unsigned cpu);
/* Copies up to len buffered bytes; returns the count. Safe from any CPU. */
size_t conin_read(char *buf, size_t len);
/* Called (from the interrupt, on its pCPU) after bytes were added to the ring. */
void conin_set_notify(void (*fn)(void));
/* fn runs after each UART interrupt and watchdog look on the drain pCPU, no lock held
 * (core/dcon.c wakes the vCPUs waiting for room in the rings). */
void conin_set_drained(void (*fn)(void));
/* Debug key: Ctrl-] then `key` runs fn (interrupt context; its output is synchronous). */
void conin_register_key(char key, const char *help, void (*fn)(void));
/* Feeds one byte as if it came from the UART (the interrupt handler and tests use it). */
void conin_feed(char c);

#endif
