/* PCI configuration space through the legacy mechanism #1 (ports 0xCF8/0xCFC, PCI Local Bus
 * Specification 3.0, 3.2.2.3.2), and BAR decoding: enough to find a serial card. */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H
#include <stdbool.h>
#include <stdint.h>

struct pci_addr {
	uint8_t bus, dev, fn;
};

struct pci_bar {
	bool io;       /* I/O space; otherwise memory */
	uint64_t base; /* 0: the device has no such BAR, or firmware left it unassigned */
};

uint32_t pci_cfg_read32(struct pci_addr a, unsigned off);
void pci_cfg_write32(struct pci_addr a, unsigned off, uint32_t v);
/* Class code, subclass and programming interface: config bytes 0x0B, 0x0A, 0x09. */
uint32_t pci_class(struct pci_addr a);
/* BAR n (0-5) of a type 0 header; a 64-bit memory BAR takes n and n+1. */
struct pci_bar pci_bar(struct pci_addr a, unsigned n);
/* Turns on I/O or memory decoding (command register bits 0 and 1) for a BAR of that kind. */
void pci_enable(struct pci_addr a, bool io);
/* The first function of class `cls` (class << 16 | subclass << 8 | prog-if) in bus, device,
 * function order; false when there is none. */
bool pci_find_class(uint32_t cls, struct pci_addr *out);
bool pci_present(struct pci_addr a);

/* Pure decoding of a BAR's low and high dwords (high used by 64-bit memory BARs). */
struct pci_bar pci_bar_decode(uint32_t lo, uint32_t hi);

#endif
