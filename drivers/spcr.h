/* ACPI SPCR (Serial Port Console Redirection, Microsoft's specification, revisions 1-4):
 * which UART the firmware redirected its console to. A pure parser: no hardware access. */
#ifndef DRIVERS_SPCR_H
#define DRIVERS_SPCR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPCR_MIN_LENGTH 80 /* revisions 1 and 2; 3 and 4 are longer */

struct spcr_info {
	uint8_t revision;
	uint8_t interface_type; /* 0x00 16550, 0x01 16450, 0x12 16550 described by the GAS */
	bool mmio;		/* GAS space 0 (system memory); otherwise 1 (system I/O) */
	uint64_t base;
	uint8_t reg_shift; /* from the GAS access size (or bit width when that is 0) */
	uint8_t reg_width; /* bytes */
	uint32_t baud;	   /* 0: as the firmware left it */
	int pc_irq;	   /* the PC-AT IRQ (interrupt type bit 0), or -1 */
	bool pci;	   /* PCI device ID/vendor ID are not 0xFFFF */
	uint8_t pci_bus, pci_dev, pci_fn;
};

/* Parses the table at t (len bytes, as found in memory: len is what may be read). Returns
 * NULL and fills *out, or a reason the table is unusable. */
const char *spcr_parse(const uint8_t *t, size_t len, struct spcr_info *out);

#endif
