/* Which devices the console writes to, chosen once at boot (docs/console.md, "Console
 * device"): the UART from `com1=`, else the ACPI SPCR table, else COM1 at 0x3F8, if it
 * answers; the multiboot2 framebuffer when `console=` names vga or when no UART answers. */
#ifndef DRIVERS_CONPORT_H
#define DRIVERS_CONPORT_H
#include <stdbool.h>
#include "drivers/fb.h"

/* Whether console output goes to console_uart (true at boot: COM1, as before selection). */
extern bool conport_uart_on;

/* rsdp: the multiboot2 RSDP copy or NULL; fb: the framebuffer tag (FB_NONE if absent). */
void conport_select(const char *cmdline, const void *rsdp, size_t rsdp_len,
		    const struct fb_info *fb);
/* Prints the `console:` line(s): what was chosen and why, and options that were ignored. */
void conport_report(void);
/* The console UART's ISA IRQ for input; 16 (routes nowhere) when it has none. */
unsigned conport_isa_irq(void);

#endif
