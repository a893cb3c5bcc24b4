/* The hypervisor console: the UART and/or framebuffer drivers/conport.c chose, mirrored to port
 * 0xE9 under Bochs. Whole lines are written under one lock, so output from several CPUs does not
 * interleave. */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "drivers/conport.h"

void console_init(void);
bool console_is_bochs(void);
void console_write(const char *s, size_t n);
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *fmt, va_list ap);
/* Used by panic: stop honouring the lock (its holder may be stopped for good). */
void console_break_lock(void);
void console_drain(void);
/* Polled input; -1 when none. */
int console_getc(void);
/* The console UART's receive interrupt: its ISA IRQ (drivers/conport.c: 4 for 0x3F8, 3 for
 * 0x2F8, the SPCR's PC-AT IRQ; 16, which routes nowhere, for a PCI UART). */
void console_enable_rx_irq(void);
#define CONSOLE_ISA_IRQ conport_isa_irq()

#endif
