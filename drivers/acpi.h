/* ACPI tables: the MADT (which CPUs exist, their LAPIC IDs, the IOAPICs and their GSI
 * bases), the FADT (power-off, reset, PM timer) and \_S5 from the DSDT or an SSDT. */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_MAX_CPUS	 256 /* = MAX_CPUS (arch/x86_64/cpu.h) */
#define ACPI_BEYOND_IDS	 64  /* APIC IDs of CPUs past ACPI_MAX_CPUS kept to be named */
#define ACPI_MAX_IOAPICS 16
#define ACPI_PM_TIMER_HZ 3579545u /* the PM timer's rate (ACPI 6.5, 4.8.3.3) */

struct acpi_ioapic {
	uint32_t id;
	uint32_t gsi_base;
	uint64_t base;
};

struct acpi_info {
	unsigned nr_cpus;
	uint32_t apic_ids[ACPI_MAX_CPUS];
	/* Enabled CPUs the MADT lists past the first ACPI_MAX_CPUS (not started; main.c names
	 * them in its `cpu:` line), the APIC IDs of the first ACPI_BEYOND_IDS of them. */
	unsigned cpus_beyond;
	uint32_t beyond_ids[ACPI_BEYOND_IDS];
	uint64_t lapic_base;
	uint64_t ioapic_base; /* the IOAPIC with GSI base 0; 0 if none */
	unsigned nr_ioapics;  /* every IOAPIC, in MADT order (ioapics_beyond past the array) */
	unsigned ioapics_beyond;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	uint32_t isa_gsi[16];	/* ISA IRQ -> GSI, after interrupt source overrides */
	uint16_t isa_flags[16]; /* MPS INTI flags of each override (polarity, trigger) */
	bool have_s5;
};

extern struct acpi_info acpi;

/* rsdp: the copy GRUB gave (multiboot2 tag 14/15) and its length, or NULL to scan the BIOS
 * areas. Returns false (with a message) when no usable MADT is found. The parsing is in
 * acpi_tables.c and acpi_fadt.c (pure, host-tested and fuzzed). Prints one `acpi:` line
 * naming how the machine will be powered off and reset, or why it cannot be. */
bool acpi_init(const void *rsdp, size_t rsdp_len);
/* S5 through the FADT (PM1a/PM1b control blocks, or the sleep control register of a
 * hardware-reduced FADT). Returns only when that did not power the machine off, with the
 * reason (`no \_S5 in DSDT or SSDTs`, ...). */
const char *acpi_poweroff(void);
/* Reset through the FADT reset register, then port 0xCF9, then the keyboard controller
 * (each given about 50 ms). Returns only when none worked, with what was tried. */
const char *acpi_reset(void);
/* The ACPI PM timer (3.579545 MHz): false when the FADT names none. Its value is 24 or 32
 * bits wide (*bits). */
bool acpi_pm_timer(uint32_t *value, unsigned *bits);
/* The table with signature `sig` listed in the RSDT/XSDT of the RSDP copy (rsdp_len bytes),
 * and its length (length field and checksum checked by acpi_lookup); NULL when absent. */
const void *acpi_find_table(const void *rsdp, size_t rsdp_len, const char sig[4], uint32_t *len);

#endif
