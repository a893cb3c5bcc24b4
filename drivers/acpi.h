/* ACPI tables: the MADT (which CPUs exist, their LAPIC IDs) and the FADT (S5 power-off). */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_MAX_CPUS 64

struct acpi_info {
	unsigned nr_cpus;
	uint32_t apic_ids[ACPI_MAX_CPUS];
	uint64_t lapic_base;
	uint64_t ioapic_base;	/* the IOAPIC with GSI base 0; 0 if none */
	uint32_t isa_gsi[16];	/* ISA IRQ -> GSI, after interrupt source overrides */
	uint16_t isa_flags[16]; /* MPS INTI flags of each override (polarity, trigger) */
	bool have_s5;
};

extern struct acpi_info acpi;

/* rsdp: the copy GRUB gave (multiboot2 tag 14/15) and its length, or NULL to scan the BIOS
 * areas. Returns false (with a message) when no usable MADT is found. The parsing is in
 * acpi_tables.c (pure, host-tested and fuzzed). */
bool acpi_init(const void *rsdp, size_t rsdp_len);
void acpi_poweroff(void);
/* The table with signature `sig` listed in the RSDT/XSDT of the RSDP copy (rsdp_len bytes),
 * and its length (length field and checksum checked by acpi_lookup); NULL when absent. */
const void *acpi_find_table(const void *rsdp, size_t rsdp_len, const char sig[4], uint32_t *len);

#endif
