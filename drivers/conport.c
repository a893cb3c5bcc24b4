#include "drivers/conport.h"
#include "arch/x86_64/memory.h"
#include "drivers/acpi.h"
#include "drivers/comspec.h"
#include "drivers/console.h"
#include "drivers/pci.h"
#include "drivers/spcr.h"
#include "drivers/uart16550.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define PCI_CLASS_SERIAL_16550 0x070002 /* communication, serial, 16550-compatible */
#define OPT_MAX		       96

#define NO_ISA_IRQ 16 /* ioapic_route_isa() routes nothing for it */

bool conport_uart_on = true;
static unsigned isa_irq = 4; /* COM1's */

/* Where the UART came from and what it is, and the report of the choice. */
static char what[160];
static char report[4][200];
static unsigned nreport;

/* The boot page tables (boot/multiboot2.S) map [0, 4 GiB) with 2 MiB pages, 3-4 GiB with
 * PCD|PWT (UC). Below 3 GiB the firmware's MTRRs make device memory UC (MTRR UC wins over
 * PAT WB: SDM Vol. 3A 12.5.2.2). Above 4 GiB (servers put 64-bit BARs there) the UART is
 * mapped uncached on demand (arch/x86_64/paging.c; its early pool, as this runs before the
 * frame allocator). */
static bool mmio_mapped(uint64_t base, uint64_t len)
{
	return base && mmio_map(base, len, true);
}

static const char *uart_from_pci(const struct com_spec *c, struct uart *u)
{
	struct pci_addr a = {c->bus, c->dev, c->fn};
	if (c->pci_bdf) {
		if (!pci_present(a))
			return "no PCI device at that address";
	} else if (!pci_find_class(PCI_CLASS_SERIAL_16550, &a)) {
		return "no PCI 16550 (class 07/00/02)";
	}
	for (unsigned n = 0; n < 6; n++) {
		struct pci_bar b = pci_bar(a, n);
		if (!b.base)
			continue;
		if (!b.io && !mmio_mapped(b.base, 8))
			return "the PCI UART's BAR cannot be mapped";
		pci_enable(a, b.io);
		u->space = b.io ? UART_SPACE_IO : UART_SPACE_MMIO;
		u->base = b.base;
		fmt_snprintf(what, sizeof(what), "com1 pci %02x:%02x.%x %s 0x%lx", a.bus, a.dev,
			     a.fn, b.io ? "io" : "mmio", b.base);
		return NULL;
	}
	return "the PCI UART has no assigned BAR";
}

/* com1=: returns NULL and fills u, or why the value cannot be used. */
static const char *uart_from_cmdline(const char *val, struct uart *u)
{
	struct com_spec c;
	const char *err = com_spec_parse(val, &c);
	if (err)
		return err;
	u->baud = c.baud;
	u->lcr = c.lcr;
	switch (c.where) {
	case COM_AT_DEFAULT:
	case COM_AT_IO:
		u->space = UART_SPACE_IO;
		u->base = c.where == COM_AT_IO ? c.addr : COM1_PORT;
		fmt_snprintf(what, sizeof(what), "com1 io 0x%lx", u->base);
		return NULL;
	case COM_AT_MMIO:
		u->space = UART_SPACE_MMIO;
		u->base = c.addr;
		u->reg_shift = c.reg_shift;
		u->reg_width = c.reg_width;
		if (!mmio_mapped(u->base, UART_MMIO_SPAN(u)))
			return "MMIO address cannot be mapped";
		fmt_snprintf(what, sizeof(what), "com1 mmio%s 0x%lx", c.reg_width == 4 ? "32" : "",
			     u->base);
		return NULL;
	case COM_AT_PCI:
		return uart_from_pci(&c, u);
	}
	return "bad com1= value";
}

static const char *uart_from_spcr(const void *rsdp, size_t rsdp_len, struct uart *u)
{
	uint32_t len = 0;
	const uint8_t *t = acpi_find_table(rsdp, rsdp_len, "SPCR", &len);
	if (!t)
		return "no SPCR table";
	struct spcr_info s;
	const char *err = spcr_parse(t, len, &s);
	if (err)
		return err;
	u->space = s.mmio ? UART_SPACE_MMIO : UART_SPACE_IO;
	u->base = s.base;
	u->reg_shift = s.reg_shift;
	u->reg_width = s.reg_width;
	u->baud = s.baud;
	isa_irq = s.pc_irq >= 0 ? (unsigned)s.pc_irq : NO_ISA_IRQ;
	if (s.mmio && !mmio_mapped(u->base, UART_MMIO_SPAN(u)))
		return "SPCR UART cannot be mapped";
	fmt_snprintf(what, sizeof(what), "com1 %s 0x%lx", s.mmio ? "mmio" : "io", s.base);
	return NULL;
}

void conport_select(const char *cmdline, const void *rsdp, size_t rsdp_len,
		    const struct fb_info *fb)
{
	char sinks_opt[OPT_MAX], com1_opt[OPT_MAX];
	unsigned sinks = CONSOLE_SINK_COM1;
	bool explicit_sinks = cmdline_get(cmdline, "console", sinks_opt, sizeof(sinks_opt));
	const char *console_err = explicit_sinks ? console_sinks_parse(sinks_opt, &sinks) : NULL;
	if (console_err) {
		sinks = CONSOLE_SINK_COM1;
		explicit_sinks = false;
	}

	struct uart u = console_uart;
	const char *com1_err = NULL, *spcr_err = NULL, *source = "command line";
	bool have_com1 = cmdline_get(cmdline, "com1", com1_opt, sizeof(com1_opt));
	if (have_com1 && (com1_err = uart_from_cmdline(com1_opt, &u))) {
		u = console_uart; /* then SPCR, then COM1, as without com1= */
		have_com1 = false;
	}
	if (!have_com1) {
		source = "ACPI SPCR";
		if ((spcr_err = uart_from_spcr(rsdp, rsdp_len, &u))) {
			u = console_uart;
			source = "default";
			fmt_snprintf(what, sizeof(what), "com1 io 0x%x", COM1_PORT);
		}
	}

	bool uart_ok = (sinks & CONSOLE_SINK_COM1) && uart_probe(&u);
	/* The boot port as it is needs no second init, which would clear its receive FIFO
	 * (typed bytes waiting there). Another port: finish what is in flight on the old one. */
	bool same = u.space == console_uart.space && u.base == console_uart.base &&
		    u.reg_shift == console_uart.reg_shift && u.baud == console_uart.baud &&
		    u.lcr == console_uart.lcr;
	if (have_com1 || spcr_err) /* the legacy ports' IRQs (PC/AT: COM1/3 4, COM2/4 3) */
		isa_irq = u.space != UART_SPACE_IO	       ? NO_ISA_IRQ
			  : u.base == 0x3f8 || u.base == 0x3e8 ? 4
			  : u.base == 0x2f8 || u.base == 0x2e8 ? 3
							       : NO_ISA_IRQ;
	if (uart_ok && !same) {
		if (conport_uart_on)
			uart_drain(&console_uart);
		console_uart = u;
		uart_init(&console_uart);
	}
	conport_uart_on = uart_ok;

	/* A box is never left mute: when no UART answers, the framebuffer shows the lines
	 * (unless console=none asked for silence). */
	const char *fb_err = NULL;
	bool want_fb = (sinks & CONSOLE_SINK_VGA) || (!uart_ok && sinks);
	if (want_fb)
		fb_err = fb_init(fb);

	char line[200];
	int n;
	if (uart_ok && u.baud)
		n = fmt_snprintf(line, sizeof(line), "console: %s (%s), %u baud", what, source,
				 u.baud);
	else if (uart_ok)
		n = fmt_snprintf(line, sizeof(line), "console: %s (%s), baud as set", what, source);
	else
		n = fmt_snprintf(line, sizeof(line), "console: %s",
				 (sinks & CONSOLE_SINK_COM1) ? "no UART answers" : "no UART");
	size_t used = n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1;
	unsigned cols, rows;
	fb_grid(&cols, &rows);
	if (want_fb && !fb_err)
		fmt_snprintf(line + used, sizeof(line) - used,
			     "; framebuffer %s %ux%u, %ux%u characters",
			     fb->type == FB_EGA_TEXT ? "EGA text" : "RGB", fb->width, fb->height,
			     cols, rows);
	else if (want_fb)
		fmt_snprintf(line + used, sizeof(line) - used, "; no framebuffer: %s", fb_err);
	nreport = 0;
	fmt_snprintf(report[nreport++], sizeof(report[0]), "%s", line);
	if (console_err)
		fmt_snprintf(report[nreport++], sizeof(report[0]),
			     "console: console=%s: %s; using com1", sinks_opt, console_err);
	if (com1_err)
		fmt_snprintf(report[nreport++], sizeof(report[0]), "console: com1=%s: %s; ignored",
			     com1_opt, com1_err);
	if (spcr_err && strcmp(spcr_err, "no SPCR table"))
		fmt_snprintf(report[nreport++], sizeof(report[0]), "console: ACPI SPCR ignored: %s",
			     spcr_err);
}

void conport_report(void)
{
	for (unsigned i = 0; i < nreport; i++)
		printk("%s\n", report[i]);
}

unsigned conport_isa_irq(void)
{
	return conport_uart_on ? isa_irq : NO_ISA_IRQ;
}
