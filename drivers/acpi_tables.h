/* ACPI table parsing (ACPI 6.5, chapter 5.2): pure functions over one table's bytes, each
 * checking every length against its container before reading, and the walk from the RSDP
 * through the RSDT/XSDT to the MADT, FADT, DSDT and SSDTs over a caller's map of physical
 * memory (the FADT and \_S5 are in acpi_fadt.c).
 * No I/O and no physical addresses dereferenced here: acpi.c supplies the map; the host
 * tests (test/unit/test_acpi.c) and the fuzzer (test/fuzz/fuzz_acpi.c) supply buffers. */
#ifndef DRIVERS_ACPI_TABLES_H
#define DRIVERS_ACPI_TABLES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "drivers/acpi.h"

#define ACPI_HEADER_LEN	  36	     /* the System Description Table Header, 5.2.6 */
#define ACPI_RSDP_V1_LEN  20	     /* the part the first checksum covers, 5.2.5.3 */
#define ACPI_RSDP_V2_LEN  36	     /* with the XSDT address and the extended checksum */
#define ACPI_MADT_ENTRIES 44	     /* header, LAPIC address, flags: entries follow */
#define ACPI_FADT_MIN_LEN 72	     /* through PM1b_CNT_BLK; later fields read when present */
#define ACPI_TABLE_MAX	  (1u << 20) /* larger than any real table: refuse, do not sum 4 GiB */

/* Generic Address Structure (ACPI 6.5, 5.2.3.2): where a register is (address space,
 * address) and how wide it is. The FADT's 32-bit blocks become I/O-space GAS here. */
enum { ACPI_GAS_MEMORY = 0, ACPI_GAS_IO = 1, ACPI_GAS_PCI = 2 };
struct acpi_gas {
	uint8_t space, bit_width, bit_offset, access_size; /* access: 1 byte .. 4 qword */
	uint64_t addr;					   /* 0: absent */
};

/* FADT flags (5.2.9, table 5.10) and IAPC_BOOT_ARCH (5.2.9.3). */
#define ACPI_FADT_TMR_VAL_EXT	 (1u << 8)
#define ACPI_FADT_RESET_REG_SUP	 (1u << 10)
#define ACPI_FADT_HW_REDUCED	 (1u << 20)
#define ACPI_BOOT_ARCH_8042	 (1u << 1)
#define ACPI_FADT_HW_REDUCED_MIN 268 /* through SLEEP_STATUS_REG (ACPI 5.0+) */

/* Where \_S5 was found (acpi_power.s5_from). */
enum { ACPI_S5_NONE, ACPI_S5_DSDT, ACPI_S5_SSDT, ACPI_S5_METHOD };

/* What power-off, reset and the PM timer need: the FADT's registers (64-bit X_ fields when
 * non-zero, else the 32-bit blocks), \_S5's values and where they came from. */
struct acpi_power {
	bool have_fadt;
	uint32_t flags;
	uint16_t boot_arch;
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	struct acpi_gas pm1a_cnt, pm1b_cnt, pm_tmr, reset, sleep_ctl, sleep_sts;
	uint8_t reset_value;
	uint64_t dsdt; /* X_DSDT when present and non-zero, else DSDT */
	uint16_t slp_typ_a, slp_typ_b;
	uint8_t s5_from; /* ACPI_S5_*; ACPI_S5_METHOD: only a Method \_S5 (not run) */
};

/* How the machine would be powered off / reset (acpi_poweroff_plan, acpi_reset_plan). */
enum { ACPI_OFF_NONE, ACPI_OFF_PM1, ACPI_OFF_SLEEP_REG };
enum { ACPI_RESET_NONE, ACPI_RESET_FADT, ACPI_RESET_CF9, ACPI_RESET_KBC };

/* RSDP (5.2.5): signature and the checksum of the first 20 bytes; the XSDT is used when the
 * revision is >= 2, the 36 bytes are there, their extended checksum holds and it is non-zero,
 * else the RSDT. Returns false when no root table can be named. */
bool acpi_parse_rsdp(const uint8_t *p, size_t len, uint64_t *root, bool *xsdt);
/* Offset of the first valid RSDP on a 16-byte boundary in [p, p + len), or -1. */
long acpi_find_rsdp(const uint8_t *p, size_t len);
/* The header's length field when len holds a header and the field is in
 * [ACPI_HEADER_LEN, ACPI_TABLE_MAX], else 0. */
uint32_t acpi_table_length(const uint8_t *p, size_t len);
/* True when the table's length field fits in len and its bytes sum to 0. */
bool acpi_table_ok(const uint8_t *p, size_t len);
/* RSDT (4-byte) or XSDT (8-byte) entries: whole entries inside the table's length only. */
unsigned acpi_root_count(const uint8_t *p, size_t len, bool xsdt);
uint64_t acpi_root_entry(const uint8_t *p, size_t len, bool xsdt, unsigned i);
/* MADT (5.2.12; the walk takes the first one listed): CPUs (LAPIC and x2APIC entries, enabled ones,
 * each APIC ID once; those past ACPI_MAX_CPUS counted in cpus_beyond, the first ACPI_BEYOND_IDS
 * of them in beyond_ids), the LAPIC address, every
 * IOAPIC with its GSI base, ISA overrides into ai. Entries shorter than their type's layout are
 * skipped; an entry of length < 2 or past the end stops the walk. Returns false when the table is
 * too short for its fixed fields. */
bool acpi_parse_madt(struct acpi_info *ai, const uint8_t *p, size_t len);
/* FADT (5.2.9): registers and the DSDT address into pw. False when too short. */
bool acpi_parse_fadt(struct acpi_power *pw, const uint8_t *p, size_t len);
/* \_S5 in a DSDT's or SSDT's AML (7.4.2): SLP_TYPa/b into pw. The package forms firmware
 * ships: Package or VarPackage; Zero, One, Ones, Byte/Word/DWord/QWord constants; a single
 * element holds SLP_TYPa in bits 0-7 and SLP_TYPb in bits 8-15 (ACPI 1.0, as ACPICA reads
 * it). False when absent, truncated or not constant; *method set when \_S5 is a Method. */
bool acpi_find_s5(struct acpi_power *pw, const uint8_t *p, size_t len);
bool acpi_find_s5_ex(struct acpi_power *pw, const uint8_t *p, size_t len, bool *method);
/* Which path power-off would take, or ACPI_OFF_NONE with the reason in *why. */
int acpi_poweroff_plan(const struct acpi_power *pw, bool have_s5, const char **why);
/* Which reset comes first: the FADT reset register (flag RESET_REG_SUP, an address, bit
 * offset 0), else port 0xCF9 on a machine with legacy hardware, else the 8042 when
 * IAPC_BOOT_ARCH says there is one, else (hardware-reduced) a reset register filled in
 * without the flag; ACPI_RESET_NONE with *why. */
int acpi_reset_plan(const struct acpi_power *pw, const char **why);

/* The IOAPIC that owns `gsi`: the one with the highest GSI base at or below it (index into
 * ai->ioapics), or -1. The caller checks gsi against its redirection entries (IOAPICVER). */
int acpi_ioapic_for_gsi(const struct acpi_info *ai, uint32_t gsi);

/* Returns a pointer to len readable bytes at physical address pa, or NULL. */
typedef const uint8_t *(*acpi_map_fn)(uint64_t pa, size_t len, void *ctx);
/* From the RSDP copy through every table: fills ai and pw (cleared first); \_S5 from the
 * DSDT, else from the first SSDT (in root-table order) that defines it. Tables that do
 * not map, or whose length or checksum is bad, are skipped. Returns NULL, or the reason no
 * usable MADT was found. */
const char *acpi_walk(struct acpi_info *ai, struct acpi_power *pw, const uint8_t *rsdp,
		      size_t rsdp_len, acpi_map_fn map, void *ctx);

/* The first table with signature sig listed in the RSDT/XSDT, its length and checksum
 * checked (map_table), or NULL; *len gets its length. */
const uint8_t *acpi_lookup(const uint8_t *rsdp, size_t rsdp_len, const char sig[4], acpi_map_fn map,
			   void *ctx, size_t *len);

#endif
