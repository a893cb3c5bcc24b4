/* drivers/acpi_tables.c on the tables captured from QEMU (SeaBIOS), OVMF and Bochs
 * (test/unit/fixtures/acpi, DSDTs trimmed to the \_S5 package), on every truncation of
 * them, and on the overruns the fuzzer found: a 36-byte MADT, a 2-byte IOAPIC entry at the
 * end, zero-length entries, \_S5 at the very end of the DSDT, a root table of length 0.
 * Every buffer is malloc'd to its exact size, so ASan reports any read past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/acpi_tables.h"

struct blob {
	uint8_t *p;
	size_t len;
};

static struct blob load(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/acpi/%s", FIXTURES, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	struct blob b = {malloc(4096), 0};
	b.len = fread(b.p, 1, 4096, f);
	fclose(f);
	assert_true(b.len > 0 && b.len < 4096);
	return b;
}

static uint8_t *exact(const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	memcpy(p, src, len);
	return p;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t sum = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		sum += p[i];
	p[at] = (uint8_t)-sum;
}

/* A table: header with sig and length, body, valid checksum. */
static size_t table(uint8_t *t, const char *sig, const void *body, size_t blen)
{
	memset(t, 0, ACPI_HEADER_LEN);
	memcpy(t, sig, 4);
	put32(t + 4, (uint32_t)(ACPI_HEADER_LEN + blen));
	t[8] = 1;
	if (blen)
		memcpy(t + ACPI_HEADER_LEN, body, blen);
	fix_sum(t, ACPI_HEADER_LEN + blen, 9);
	return ACPI_HEADER_LEN + blen;
}

static void test_madt_fixtures(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		unsigned cpus;
		uint32_t irq0;
	} cases[] = {{"qemu-apic.bin", 4, 2}, {"ovmf-apic.bin", 2, 2}, {"bochs-apic.bin", 2, 2}};
	for (unsigned i = 0; i < 3; i++) {
		struct blob b = load(cases[i].name);
		uint8_t *t = exact(b.p, b.len);
		struct acpi_info ai = {0};
		assert_true(acpi_table_ok(t, b.len));
		assert_true(acpi_parse_madt(&ai, t, b.len));
		assert_int_equal(ai.nr_cpus, cases[i].cpus);
		for (unsigned c = 0; c < ai.nr_cpus; c++)
			assert_int_equal(ai.apic_ids[c], c);
		assert_int_equal(ai.lapic_base, 0xfee00000);
		assert_int_equal(ai.ioapic_base, 0xfec00000);
		assert_int_equal(ai.isa_gsi[0], cases[i].irq0);
		assert_int_equal(ai.isa_gsi[1], 1);
		free(t);
		free(b.p);
	}
}

static void test_fadt_and_s5_fixtures(void **state)
{
	(void)state;
	static const struct {
		const char *emu;
		uint16_t pm1a;
	} cases[] = {{"qemu", 0x604}, {"ovmf", 0xb004}, {"bochs", 0xb004}};
	for (unsigned i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s-facp.bin", cases[i].emu);
		struct blob f = load(name);
		snprintf(name, sizeof(name), "%s-dsdt-s5.bin", cases[i].emu);
		struct blob d = load(name);
		struct acpi_power pw = {0};
		assert_true(acpi_parse_fadt(&pw, f.p, f.len));
		assert_int_equal(pw.pm1a_cnt.addr, cases[i].pm1a);
		assert_int_equal(pw.smi_cmd, 0xb2);
		assert_int_equal(pw.acpi_enable, 0xf1);
		pw.slp_typ_a = pw.slp_typ_b = 7;
		assert_true(acpi_find_s5(&pw, d.p, d.len));
		assert_int_equal(pw.slp_typ_a, 0); /* QEMU and Bochs: Package {0, 0, 0, 0} */
		assert_int_equal(pw.slp_typ_b, 0);
		free(f.p);
		free(d.p);
	}
}

/* Every fixture, cut at every length (the length field left as captured): the parsers
 * refuse what does not fit and read nothing past the cut (ASan). */
static void test_every_truncation(void **state)
{
	(void)state;
	static const char *const names[] = {
		"qemu-apic.bin",  "ovmf-apic.bin",    "bochs-apic.bin",	   "qemu-facp.bin",
		"bochs-facp.bin", "qemu-dsdt-s5.bin", "bochs-dsdt-s5.bin", "ovmf-xsdt.bin",
		"qemu-rsdt.bin",  "qemu-rsdp.bin",    "ovmf-rsdp.bin"};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct blob b = load(names[i]);
		for (size_t len = 0; len < b.len; len++) {
			uint8_t *t = exact(b.p, len);
			struct acpi_info ai = {0};
			struct acpi_power pw = {0};
			uint64_t root;
			bool x;
			bool is_table = b.len >= ACPI_HEADER_LEN;
			if (is_table) {
				assert_false(acpi_table_ok(t, len));
				assert_false(acpi_parse_madt(&ai, t, len));
				assert_false(acpi_parse_fadt(&pw, t, len));
				assert_false(acpi_find_s5(&pw, t, len));
				assert_int_equal(acpi_root_count(t, len, false), 0);
				assert_int_equal(acpi_root_count(t, len, true), 0);
			} else if (len < ACPI_RSDP_V1_LEN) {
				assert_false(acpi_parse_rsdp(t, len, &root, &x));
			} else {
				/* A 2.0 RSDP cut to 20 bytes still names its RSDT. */
				assert_true(acpi_parse_rsdp(t, len, &root, &x));
				assert_false(x);
			}
			assert_int_equal(ai.nr_cpus, 0);
			free(t);
		}
		free(b.p);
	}
}

/* The case: a 36-byte MADT has no LAPIC address or flags; it used to read them. */
static void test_madt_36_bytes(void **state)
{
	(void)state;
	uint8_t buf[64];
	size_t n = table(buf, "APIC", NULL, 0);
	uint8_t *t = exact(buf, n);
	struct acpi_info ai = {.lapic_base = 1};
	assert_true(acpi_table_ok(t, n));
	assert_false(acpi_parse_madt(&ai, t, n));
	assert_int_equal(ai.lapic_base, 1);
	free(t);
}

/* Every MADT entry type cut to every length below its layout, at the end of the table:
 * ignored (the IOAPIC one used to read its address and GSI base past the table). */
static void test_madt_short_entries(void **state)
{
	(void)state;
	static const uint8_t full[][16] = {
		{0, 8, 0, 5, 1, 0, 0, 0},			    /* LAPIC id 5 */
		{1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0},	    /* IOAPIC */
		{2, 10, 0, 0, 2, 0, 0, 0, 0, 0},		    /* ISO 0->2 */
		{5, 12, 0, 0, 0, 0, 0xe1, 0xfe, 0, 0, 0, 0},	    /* override */
		{9, 16, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}}; /* x2APIC 7 */
	for (unsigned k = 0; k < 5; k++) {
		uint8_t body[8 + 16], buf[ACPI_HEADER_LEN + sizeof(body)];
		put32(body, 0xfee00000);
		put32(body + 4, 1);
		for (uint8_t elen = 0; elen <= full[k][1]; elen++) {
			memcpy(body + 8, full[k], elen);
			if (elen >= 2)
				body[9] = elen;
			size_t n = table(buf, "APIC", body, 8 + (size_t)elen);
			uint8_t *t = exact(buf, n);
			struct acpi_info ai = {0};
			assert_true(acpi_parse_madt(&ai, t, n));
			bool whole = elen == full[k][1];
			assert_int_equal(ai.nr_cpus, whole && (k == 0 || k == 4));
			assert_int_equal(ai.ioapic_base, whole && k == 1 ? 0xfec00000 : 0);
			assert_int_equal(ai.isa_gsi[0], whole && k == 2 ? 2 : 0);
			assert_int_equal(ai.lapic_base, whole && k == 3 ? 0xfee10000 : 0xfee00000);
			free(t);
		}
	}
}

/* A zero-length (or 1-byte) entry would never advance: the walk stops there, and an entry
 * running past the table stops it too; entries before still count. */
static void test_madt_entry_lengths(void **state)
{
	(void)state;
	for (uint8_t bad = 0; bad < 2; bad++) {
		uint8_t body[8 + 8 + 2 + 8], buf[ACPI_HEADER_LEN + sizeof(body)];
		static const uint8_t lapic0[8] = {0, 8, 0, 0, 1, 0, 0, 0};
		static const uint8_t lapic1[8] = {0, 8, 1, 1, 1, 0, 0, 0};
		put32(body, 0xfee00000);
		put32(body + 4, 1);
		memcpy(body + 8, lapic0, 8);
		body[16] = 0, body[17] = bad;
		memcpy(body + 18, lapic1, 8);
		size_t n = table(buf, "APIC", body, sizeof(body));
		struct acpi_info ai = {0};
		assert_true(acpi_parse_madt(&ai, buf, n));
		assert_int_equal(ai.nr_cpus, 1);
	}
	uint8_t body[8 + 8], buf[ACPI_HEADER_LEN + sizeof(body)];
	static const uint8_t too_long[8] = {0, 9, 0, 0, 1, 0, 0, 0};
	put32(body, 0xfee00000);
	put32(body + 4, 1);
	memcpy(body + 8, too_long, 8);
	size_t n = table(buf, "APIC", body, sizeof(body));
	struct acpi_info ai = {0};
	assert_true(acpi_parse_madt(&ai, buf, n));
	assert_int_equal(ai.nr_cpus, 0);
}

/* \_S5 with BytePrefix values at the very end of the DSDT: every cut refuses, the whole
 * package is read; values keep only SLP_TYP's 3 bits. */
static void test_s5_at_end(void **state)
{
	(void)state;
	static const uint8_t aml[] = {'_', 'S', '5', '_',  0x12, 0xc9, 0,
				      0,   0,	4,   0x0a, 0x05, 0x0a, 0x0e};
	for (size_t cut = 0; cut <= sizeof(aml); cut++) {
		uint8_t buf[ACPI_HEADER_LEN + sizeof(aml)];
		size_t n = table(buf, "DSDT", aml, cut);
		uint8_t *t = exact(buf, n);
		struct acpi_power pw = {0};
		assert_int_equal(acpi_find_s5(&pw, t, n), cut == sizeof(aml));
		if (cut == sizeof(aml)) {
			assert_int_equal(pw.slp_typ_a, 5);
			assert_int_equal(pw.slp_typ_b, 6);
		}
		free(t);
	}
}

/* A VarPackage whose PkgLength is shorter than its own encoding, at the end of the table:
 * refused without reading past the package (or the table). */
static void test_s5_short_pkglength(void **state)
{
	(void)state;
	static const uint8_t aml[] = {'_', 'S', '5', '_', 0x13, 0x40, 0x00};
	uint8_t buf[ACPI_HEADER_LEN + sizeof(aml)];
	size_t n = table(buf, "SSDT", aml, sizeof(aml));
	uint8_t *t = exact(buf, n);
	struct acpi_power pw = {0};
	assert_false(acpi_find_s5(&pw, t, n));
	free(t);
}

static void test_checksums_and_lengths(void **state)
{
	(void)state;
	uint8_t buf[ACPI_HEADER_LEN + 8];
	size_t n = table(buf, "RSDT", "\x00\x10\x00\x00\x00\x20\x00\x00", 8);
	assert_true(acpi_table_ok(buf, n));
	assert_int_equal(acpi_root_count(buf, n, false), 2);
	assert_int_equal(acpi_root_entry(buf, n, false, 1), 0x2000);
	assert_int_equal(acpi_root_entry(buf, n, false, 2), 0); /* past the count */
	assert_int_equal(acpi_root_count(buf, n, true), 1);
	assert_false(acpi_table_ok(buf, n - 1)); /* the length field exceeds the buffer */
	buf[20] ^= 1;
	assert_false(acpi_table_ok(buf, n));
	/* Lengths below a header, and beyond ACPI_TABLE_MAX (never summed), are refused. */
	static const uint32_t bad[] = {0, 1, 35, ACPI_TABLE_MAX + 1, 0xffffffff};
	for (unsigned i = 0; i < 5; i++) {
		put32(buf + 4, bad[i]);
		assert_int_equal(acpi_table_length(buf, n), 0);
		assert_false(acpi_table_ok(buf, n));
		assert_int_equal(acpi_root_count(buf, n, false), 0);
	}
	/* Whole entries only: 37..39 bytes hold no RSDT entry, 43 no XSDT entry. */
	for (uint32_t len = 36; len <= 44; len++) {
		put32(buf + 4, len);
		assert_int_equal(acpi_root_count(buf, n, false), (len - 36) / 4);
		assert_int_equal(acpi_root_count(buf, n, true), (len - 36) / 8);
	}
}

static void test_rsdp(void **state)
{
	(void)state;
	struct blob v1 = load("qemu-rsdp.bin"), v2 = load("ovmf-rsdp.bin");
	uint64_t root;
	bool x;
	assert_true(acpi_parse_rsdp(v1.p, v1.len, &root, &x));
	assert_false(x);
	assert_int_equal(root, 0xffe1bef);
	assert_true(acpi_parse_rsdp(v2.p, v2.len, &root, &x));
	assert_true(x);
	assert_int_equal(root, 0xf77d0e8);
	v2.p[33] ^= 1; /* extended checksum broken: fall back to the RSDT */
	assert_true(acpi_parse_rsdp(v2.p, v2.len, &root, &x));
	assert_false(x);
	v1.p[9] ^= 1; /* first checksum broken */
	assert_false(acpi_parse_rsdp(v1.p, v1.len, &root, &x));
	/* Found on a 16-byte boundary in a scanned area, never at an odd offset. */
	uint8_t area[96] = {0};
	memcpy(area + 48, v2.p, 20);
	assert_int_equal(acpi_find_rsdp(area, sizeof(area)), 48);
	assert_int_equal(acpi_find_rsdp(area, 67), -1); /* cut inside it */
	memmove(area + 49, area + 48, 20);
	assert_int_equal(acpi_find_rsdp(area, sizeof(area)), -1);
	free(v1.p);
	free(v2.p);
}

/* The walk over a small memory: RSDP at 0, then the captured MADT, FADT and DSDT. */
struct mem {
	uint8_t p[2048];
	size_t len;
};

static const uint8_t *map(uint64_t pa, size_t len, void *ctx)
{
	struct mem *m = ctx;
	if (pa >= m->len || len > m->len - pa)
		return NULL;
	return m->p + pa;
}

static size_t put_table(struct mem *m, size_t at, const char *name)
{
	struct blob b = load(name);
	memcpy(m->p + at, b.p, b.len);
	free(b.p);
	return b.len;
}

static void build_memory(struct mem *m, bool xsdt, uint32_t root_len)
{
	memset(m, 0, sizeof(*m));
	put_table(m, 256, "qemu-apic.bin");
	put_table(m, 512, "qemu-facp.bin");
	put32(m->p + 512 + 40, 768); /* DSDT */
	fix_sum(m->p + 512, 116, 9);
	put_table(m, 768, "qemu-dsdt-s5.bin");
	uint8_t *r = m->p + 1024;
	memcpy(r, xsdt ? "XSDT" : "RSDT", 4);
	if (xsdt)
		put64(r + 36, 256), put64(r + 44, 512), put64(r + 52, 0xffffffff0000);
	else
		put32(r + 36, 256), put32(r + 40, 512), put32(r + 44, 1 << 30);
	put32(r + 4, root_len);
	fix_sum(r, root_len < 64 ? root_len : 64, 9);
	memcpy(m->p, "RSD PTR ", 8);
	m->p[15] = xsdt ? 2 : 0;
	put32(m->p + 16, 1024);
	put32(m->p + 20, 36);
	put64(m->p + 24, xsdt ? 1024 : 0);
	fix_sum(m->p, 20, 8);
	fix_sum(m->p, 36, 32);
	m->len = sizeof(m->p);
}

static void test_walk(void **state)
{
	(void)state;
	static struct mem m;
	struct acpi_info ai;
	struct acpi_power pw;
	for (int xsdt = 0; xsdt < 2; xsdt++) {
		/* Three entries; the third points outside the memory and is skipped. */
		build_memory(&m, xsdt, 36 + 3 * (xsdt ? 8 : 4));
		assert_null(acpi_walk(&ai, &pw, m.p, 36, map, &m));
		assert_int_equal(ai.nr_cpus, 4);
		assert_true(ai.have_s5);
		assert_int_equal(pw.pm1a_cnt.addr, 0x604);
		assert_int_equal(pw.dsdt, 768);
	}
	/* A root table of length 0 used to give (0 - 36) / 4 entries. */
	build_memory(&m, false, 0);
	assert_string_equal(acpi_walk(&ai, &pw, m.p, 36, map, &m), "bad RSDT");
	/* Only the MADT's entry fits: no FADT, no S5, CPUs found. */
	build_memory(&m, false, 40);
	assert_null(acpi_walk(&ai, &pw, m.p, 36, map, &m));
	assert_false(ai.have_s5);
	/* A broken MADT checksum: skipped, so no usable MADT. */
	build_memory(&m, false, 44);
	m.p[256 + 20] ^= 1;
	assert_non_null(acpi_walk(&ai, &pw, m.p, 36, map, &m));
	/* Memory that ends inside the root table. */
	build_memory(&m, false, 44);
	m.len = 1024 + 40;
	assert_string_equal(acpi_walk(&ai, &pw, m.p, 36, map, &m), "bad RSDT");
	/* The RSDP from a 20-byte tag (ACPI 1.0), and one cut shorter. */
	build_memory(&m, false, 44);
	assert_null(acpi_walk(&ai, &pw, m.p, 20, map, &m));
	assert_string_equal(acpi_walk(&ai, &pw, m.p, 19, map, &m), "bad RSDP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_madt_fixtures),
		cmocka_unit_test(test_fadt_and_s5_fixtures),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_madt_36_bytes),
		cmocka_unit_test(test_madt_short_entries),
		cmocka_unit_test(test_madt_entry_lengths),
		cmocka_unit_test(test_s5_at_end),
		cmocka_unit_test(test_s5_short_pkglength),
		cmocka_unit_test(test_checksums_and_lengths),
		cmocka_unit_test(test_rsdp),
		cmocka_unit_test(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
