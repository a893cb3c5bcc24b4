/* I/O APIC: routes one ISA interrupt (the UART's) to a vector on one CPU. Everything else
 * stays masked: the hypervisor needs no other device interrupt. */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H
#include <stdbool.h>
#include <stdint.h>

/* Routes ISA IRQ `irq` (after the MADT's overrides) to `vector` on the CPU with
 * `apic_id`. Returns false when the machine has no IOAPIC at GSI 0. */
bool ioapic_route_isa(unsigned irq, uint8_t vector, uint32_t apic_id);

#endif
