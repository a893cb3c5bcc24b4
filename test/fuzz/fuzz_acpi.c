/* libFuzzer target: drivers/acpi_tables.c. Every input goes through each table parser
 * (RSDP, RSDT/XSDT, MADT, FADT, the \_S5 search) as one table, then through the whole walk
 * as a small physical memory: the RSDP at offset 0 and every address an offset into the
 * input. The walk's map callback fixes each table's checksum as it hands the table out
 * (and the harness the RSDP's), so mutations reach the parsers instead of stopping at
 * acpi_table_ok; the checksum checks themselves are fuzzed by the per-table calls. */
#include <string.h>
#include "drivers/acpi_tables.h"
#include "fuzz.h"

struct mem {
	uint8_t *p;
	size_t len;
};

static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		sum += p[i];
	p[at] = (uint8_t)-sum;
}

static const uint8_t *map(uint64_t pa, size_t len, void *ctx)
{
	struct mem *m = ctx;
	if (pa >= m->len || len > m->len - pa)
		return NULL;
	uint8_t *t = m->p + pa;
	uint32_t n;
	memcpy(&n, t + 4, 4);
	if (len > ACPI_HEADER_LEN && len == n)
		fix_sum(t, len, 9);
	return t;
}

static void check_info(const struct acpi_info *ai, const struct acpi_power *pw)
{
	FUZZ_CHECK(ai->nr_cpus <= ACPI_MAX_CPUS);
	for (unsigned i = 0; i < ai->nr_cpus; i++)
		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(ai->apic_ids[i] != ai->apic_ids[j]);
	FUZZ_CHECK(pw->slp_typ_a < 8 && pw->slp_typ_b < 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acpi_info ai = {0};
	struct acpi_power pw = {0};
	uint64_t root;
	bool xsdt;
	acpi_parse_rsdp(data, size, &root, &xsdt);
	long off = acpi_find_rsdp(data, size);
	FUZZ_CHECK(off < 0 || (off % 16 == 0 && (size_t)off < size));
	acpi_table_ok(data, size);
	for (int x = 0; x < 2; x++) {
		unsigned n = acpi_root_count(data, size, x);
		FUZZ_CHECK(n == 0 || ACPI_HEADER_LEN + (size_t)n * (x ? 8 : 4) <= size);
		for (unsigned i = 0; i <= n; i++)
			acpi_root_entry(data, size, x, i);
	}
	acpi_parse_madt(&ai, data, size);
	acpi_parse_fadt(&pw, data, size);
	acpi_find_s5(&pw, data, size);
	check_info(&ai, &pw);

	/* The walk over a private copy that the map callback may patch. */
	struct mem m = {malloc(size ? size : 1), size};
	memcpy(m.p, data, size);
	if (size >= ACPI_RSDP_V2_LEN) {
		fix_sum(m.p, ACPI_RSDP_V1_LEN, 8);
		fix_sum(m.p, ACPI_RSDP_V2_LEN, 32);
	}
	const char *err = acpi_walk(&ai, &pw, m.p,
				    size < ACPI_RSDP_V2_LEN ? size : ACPI_RSDP_V2_LEN, map, &m);
	check_info(&ai, &pw);
	FUZZ_CHECK(err || ai.nr_cpus > 0);
	free(m.p);
	return 0;
}
