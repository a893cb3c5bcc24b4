/* A generator of ACPI tables in the shapes real firmware ships (issue 26), driven by a
 * seed, for the host tests: RSDP -> RSDT or XSDT -> MADT, FADT (-> DSDT), SSDTs, SPCR, laid
 * out in a buffer that stands for physical memory (addresses are offsets into it). It
 * records what a correct parser must find (struct acpi_gen_truth). Written from the ACPI 6.5
 * specification and the shapes seen in public dumps of real machines; no table is copied.
 * test/unit/test_acpi_corpus.c runs sliver's parsers over it; issue 24's 80-CPU MADT test
 * can call acpi_gen_machine with cfg.ncpus = 80. */
#ifndef TEST_UNIT_ACPI_GEN_H
#define TEST_UNIT_ACPI_GEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/acpi_tables.h"

#define GEN_MAX_CPUS	1024
#define GEN_MAX_IOAPICS 5

/* FADT shapes. */
enum {
	GEN_FADT_V1,	      /* 116 bytes, 32-bit blocks only */
	GEN_FADT_BOTH,	      /* 244 bytes, 32-bit and X_ blocks alike */
	GEN_FADT_X_ONLY,      /* 244 bytes, X_ blocks only (32-bit fields zero) */
	GEN_FADT_X_MEM,	      /* 276 bytes, PM1 control in memory space, X_ only */
	GEN_FADT_HWR,	      /* 276 bytes, hardware-reduced, sleep control/status registers */
	GEN_FADT_HWR_NOSLEEP, /* 268 bytes, hardware-reduced without sleep registers (tablets) */
	GEN_FADT_NONE,	      /* no FADT at all */
	GEN_FADT_KINDS
};
/* Where \_S5 is defined. */
enum { GEN_S5_DSDT, GEN_S5_SSDT, GEN_S5_NONE, GEN_S5_METHOD, GEN_S5_WHERE };
/* Reset register shapes. */
enum { GEN_RST_NONE, GEN_RST_IO, GEN_RST_MEM, GEN_RST_PCI, GEN_RST_UNFLAGGED, GEN_RST_KINDS };

struct acpi_gen_cfg {
	bool xsdt;
	unsigned ncpus;	      /* enabled CPUs */
	bool x2apic;	      /* x2APIC entries for every CPU (else only for IDs >= 255) */
	bool dup_x2apic;      /* LAPIC and x2APIC entries both, for IDs < 255 */
	unsigned nioapics;    /* 1..GEN_MAX_IOAPICS */
	unsigned fadt;	      /* GEN_FADT_* */
	unsigned s5_where;    /* GEN_S5_* */
	unsigned s5_enc;      /* which AML encoding of the package (acpi_gen.c) */
	unsigned reset;	      /* GEN_RST_* */
	unsigned nssdt;	      /* SSDTs besides the one with \_S5 */
	unsigned spcr;	      /* 0 none, 1 I/O 0x3F8, 2 MMIO above 4 GiB */
	bool two_madts;	      /* the root lists a second, different MADT after the first */
	uint8_t slp_a, slp_b; /* \_S5's values (0-7) */
	uint64_t seed;	      /* for the filler bytes and table order */
};

struct acpi_gen_truth {
	unsigned ncpus, beyond;
	uint32_t ids[ACPI_MAX_CPUS];
	uint32_t beyond_ids[ACPI_BEYOND_IDS];
	unsigned nioapics;
	uint32_t gsi_base[GEN_MAX_IOAPICS];
	uint64_t ioapic_base[GEN_MAX_IOAPICS];
	uint32_t isa_gsi[16];
	uint16_t isa_flags[16];
	bool have_s5;
	uint8_t s5_from;
	uint16_t slp_a, slp_b;
	int off_plan, reset_plan;
	struct acpi_gas off_reg; /* PM1a control or sleep control */
	uint64_t pm1b;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	bool spcr, spcr_mmio;
	uint64_t spcr_base;
};

/* A random machine's configuration from a seed (every shape above, in proportions like
 * the real dumps'). */
void acpi_gen_random_cfg(uint64_t seed, struct acpi_gen_cfg *cfg);
/* Lays out the machine in mem (cap bytes, zeroed here); the RSDP is at offset 0 (36 bytes).
 * Returns the bytes used. */
size_t acpi_gen_machine(uint8_t *mem, size_t cap, const struct acpi_gen_cfg *cfg,
			struct acpi_gen_truth *truth);

#endif
