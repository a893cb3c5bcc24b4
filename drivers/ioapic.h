/* I/O APICs: route one interrupt (the UART's) to a vector on one CPU, through the IOAPIC
 * that owns its GSI (a machine may have several, each with its GSI base in the MADT).
 * Everything else stays masked: the hypervisor needs no other device interrupt. */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H
#include <stdbool.h>
#include <stdint.h>

/* Routes GSI `gsi` to `vector` on the CPU with `apic_id`, level- or edge-triggered, active
 * low or high. False when no IOAPIC owns that GSI, or apic_id is above 254 (an x2APIC ID
 * an IOAPIC cannot name without interrupt remapping). */
bool ioapic_route_gsi(uint32_t gsi, uint8_t vector, uint32_t apic_id, bool level, bool active_low);
/* ISA IRQ `irq` (after the MADT's overrides; edge/active-high unless they say otherwise). */
bool ioapic_route_isa(unsigned irq, uint8_t vector, uint32_t apic_id);
/* A PCI INTx line whose GSI is known (PCI: level-triggered, active low). */
bool ioapic_route_pci(uint32_t gsi, uint8_t vector, uint32_t apic_id);

#endif
