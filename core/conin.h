/* Console input. The UART's receive interrupt (IRQ 4 through the IOAPIC, to CPU 0) fills a
 * ring that the service domain drains with HC_CONSOLE_READ; a notify hook tells it that
 * input arrived. Ctrl-] followed by a key runs one of the hypervisor's own debug keys
 * instead, so run queues and counters can be read even when the service domain is dead;
 * Ctrl-] Ctrl-] passes one Ctrl-] through. */
#ifndef CORE_CONIN_H
#define CORE_CONIN_H
#include <stdbool.h>
#include <stddef.h>

#define CONIN_ESCAPE 0x1d /* Ctrl-] */

/* Routes and enables the interrupt; false (input stays off) without an IOAPIC. */
bool conin_init(void);
/* Copies up to len buffered bytes; returns the count. Safe from any CPU. */
size_t conin_read(char *buf, size_t len);
/* Called (from the interrupt, CPU 0) after bytes were added to the ring. */
void conin_set_notify(void (*fn)(void));
/* Debug key: Ctrl-] then `key` runs fn (interrupt context, CPU 0). */
void conin_register_key(char key, const char *help, void (*fn)(void));
/* Feeds one byte as if it came from the UART (the interrupt handler and tests use it). */
void conin_feed(char c);

#endif
