/* ACPI table parsing (ACPI 6.5, chapter 5.2): pure functions over one table's bytes, each
 * checking every length against its container before reading, and the walk from the RSDP
 * through the RSDT/XSDT to the MADT, FADT and DSDT over a caller's map of physical memory.
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
#define ACPI_FADT_MIN_LEN 72	     /* up to PM1b_CNT_BLK, the last field used before X_DSDT */
#define ACPI_TABLE_MAX	  (1u << 20) /* larger than any real table: refuse, do not sum 4 GiB */

/* What S5 power-off needs: the FADT's SMI command and PM1 control ports, \_S5's values. */
struct acpi_power {
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	uint16_t pm1a_cnt, pm1b_cnt;
	uint64_t dsdt; /* X_DSDT when present and non-zero, else DSDT */
	uint16_t slp_typ_a, slp_typ_b;
};

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
/* MADT (5.2.12): CPUs, LAPIC and IOAPIC addresses, ISA overrides into ai. Entries shorter
 * than their type's layout are skipped; an entry of length < 2 or past the end stops the
 * walk. Returns false when the table is too short for its fixed fields. */
bool acpi_parse_madt(struct acpi_info *ai, const uint8_t *p, size_t len);
/* FADT (5.2.9): ports and the DSDT address into pw. False when too short. */
bool acpi_parse_fadt(struct acpi_power *pw, const uint8_t *p, size_t len);
/* \_S5 in the DSDT's AML (7.4.2): SLP_TYPa/b into pw. False when absent or truncated. */
bool acpi_find_s5(struct acpi_power *pw, const uint8_t *p, size_t len);

/* Returns a pointer to len readable bytes at physical address pa, or NULL. */
typedef const uint8_t *(*acpi_map_fn)(uint64_t pa, size_t len, void *ctx);
/* From the RSDP copy through every table: fills ai and pw (cleared first). Tables that do
 * not map, or whose length or checksum is bad, are skipped. Returns NULL, or the reason no
 * usable MADT was found. */
const char *acpi_walk(struct acpi_info *ai, struct acpi_power *pw, const uint8_t *rsdp,
		      size_t rsdp_len, acpi_map_fn map, void *ctx);

/* The first table with signature sig listed in the RSDT/XSDT, its length and checksum
 * checked (map_table), or NULL; *len gets its length. */
const uint8_t *acpi_lookup(const uint8_t *rsdp, size_t rsdp_len, const char sig[4], acpi_map_fn map,
			   void *ctx, size_t *len);

#endif
