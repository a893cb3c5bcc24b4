/* The console options of the hypervisor command line, in Xen's style (docs/console.md,
 * "Console device"). Pure parsers: no hardware access.
 *   com1=<baud>|auto[,<data><parity><stop>][,<where>]
 *     where: 0x<io-base> | pci | pci@<bus>:<dev>.<fn> | mmio@<addr> | mmio32@<addr>
 *   console=<sink>[,<sink>...]   sink: com1 | vga | none */
#ifndef DRIVERS_COMSPEC_H
#define DRIVERS_COMSPEC_H
#include <stdbool.h>
#include <stdint.h>

enum com_where { COM_AT_DEFAULT, COM_AT_IO, COM_AT_MMIO, COM_AT_PCI };

struct com_spec {
	uint32_t baud; /* 0: auto (keep the firmware's divisor) */
	uint8_t lcr;   /* 16550 line control value for the data/parity/stop given */
	enum com_where where;
	uint64_t addr;	   /* COM_AT_IO: port; COM_AT_MMIO: physical address */
	uint8_t reg_shift; /* COM_AT_MMIO: 0 for mmio@, 2 for mmio32@ */
	uint8_t reg_width;
	bool pci_bdf; /* COM_AT_PCI: a bus:dev.fn was given */
	uint8_t bus, dev, fn;
};

#define CONSOLE_SINK_COM1 0x1
#define CONSOLE_SINK_VGA  0x2

/* Returns NULL and fills *out, or what is wrong with s. */
const char *com_spec_parse(const char *s, struct com_spec *out);
/* console= value to a CONSOLE_SINK_* mask ("none" is 0). */
const char *console_sinks_parse(const char *s, unsigned *mask);

#endif
