/* sliver's ACPI parsers (drivers/acpi_tables.c, acpi_fadt.c, spcr.c) over generated
 * machines in the shapes real firmware ships (test/unit/acpi_gen.c), each laid out in a
 * buffer of its exact size (ASan catches any read past it), compared field by field with
 * what the generator put there: CPUs and APIC IDs (and those past ACPI_MAX_CPUS, counted),
 * IOAPICs and GSI bases, ISA overrides, \_S5 (where and its values), the power-off and
 * reset paths and their registers, the SPCR. Then the shapes a run over 654 real machines'
 * dumps found failing on main (docs/metal.md), one test each.
 *   ACPI_GEN_MACHINES=n  how many seeds (default 3000); ACPI_GEN_SEED=s  only seed s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/acpi_tables.h"
#include "drivers/spcr.h"
#include "test/unit/acpi_gen.h"
#include "test/unit/acpi_mem.h"

#define CAP (1u << 20)

static unsigned counts[3][4]; /* [0] off plans, [1] reset plans, [2] s5 from */

static void check_gas(const struct acpi_gas *got, const struct acpi_gas *want)
{
	assert_int_equal(got->space, want->space);
	assert_int_equal(got->addr, want->addr);
}

/* Generates the machine of cfg and checks every field; returns the walk's error. */
static const char *run(const struct acpi_gen_cfg *cfg, struct acpi_info *ai, struct acpi_power *pw)
{
	static uint8_t big[CAP];
	struct acpi_gen_truth t;
	size_t used = acpi_gen_machine(big, sizeof big, cfg, &t);
	static struct acpi_mem m;
	free(m.p); /* the previous machine's (kept so a failed assert leaks nothing) */
	m = (struct acpi_mem){malloc(used), used};
	memcpy(m.p, big, used);
	const char *err = acpi_walk(ai, pw, m.p, ACPI_RSDP_V2_LEN, acpi_mem_map, &m);
	assert_null(err);
	assert_int_equal(ai->nr_cpus, t.ncpus);
	assert_int_equal(ai->cpus_beyond, t.beyond);
	assert_memory_equal(ai->beyond_ids, t.beyond_ids,
			    (t.beyond < ACPI_BEYOND_IDS ? t.beyond : ACPI_BEYOND_IDS) *
				    sizeof t.ids[0]);
	assert_memory_equal(ai->apic_ids, t.ids, t.ncpus * sizeof t.ids[0]);
	assert_int_equal(ai->nr_ioapics, t.nioapics);
	for (unsigned k = 0; k < t.nioapics; k++) {
		assert_int_equal(ai->ioapics[k].gsi_base, t.gsi_base[k]);
		assert_int_equal(ai->ioapics[k].base, t.ioapic_base[k]);
	}
	assert_int_equal(ai->ioapic_base, t.ioapic_base[0]);
	/* Every GSI goes to the IOAPIC whose range holds it (24 entries each here). */
	for (unsigned k = 0; k < t.nioapics; k++) {
		assert_int_equal(acpi_ioapic_for_gsi(ai, t.gsi_base[k]), (int)k);
		assert_int_equal(acpi_ioapic_for_gsi(ai, t.gsi_base[k] + 7), (int)k);
	}
	assert_int_equal(acpi_ioapic_for_gsi(ai, ai->isa_gsi[4]), 0); /* COM1's IRQ */
	assert_memory_equal(ai->isa_gsi, t.isa_gsi, sizeof t.isa_gsi);
	assert_memory_equal(ai->isa_flags, t.isa_flags, sizeof t.isa_flags);
	assert_int_equal(ai->have_s5, t.have_s5);
	assert_int_equal(pw->s5_from, t.s5_from);
	if (t.have_s5) {
		assert_int_equal(pw->slp_typ_a, t.slp_a);
		assert_int_equal(pw->slp_typ_b, t.slp_b);
	}
	const char *why = NULL;
	int off = acpi_poweroff_plan(pw, ai->have_s5, &why);
	assert_int_equal(off, t.off_plan);
	if (off == ACPI_OFF_PM1) {
		check_gas(&pw->pm1a_cnt, &t.off_reg);
		assert_int_equal(pw->pm1b_cnt.addr, t.pm1b);
	} else if (off == ACPI_OFF_SLEEP_REG) {
		check_gas(&pw->sleep_ctl, &t.off_reg);
	} else {
		assert_non_null(why);
	}
	int rs = acpi_reset_plan(pw, &why);
	assert_int_equal(rs, t.reset_plan);
	if (rs == ACPI_RESET_FADT) {
		check_gas(&pw->reset, &t.reset_reg);
		assert_int_equal(pw->reset_value, t.reset_value);
	}
	size_t slen = 0;
	const uint8_t *s = acpi_lookup(m.p, ACPI_RSDP_V2_LEN, "SPCR", acpi_mem_map, &m, &slen);
	assert_int_equal(s != NULL, t.spcr);
	if (s) {
		struct spcr_info si;
		assert_null(spcr_parse(s, slen, &si));
		assert_int_equal(si.mmio, t.spcr_mmio);
		assert_int_equal(si.base, t.spcr_base);
	}
	counts[0][off]++;
	counts[1][rs]++;
	counts[2][pw->s5_from]++;
	return err;
}

static uint64_t current_seed; /* the seed being checked: printed when an assert fails */

static int say_seed(void **state)
{
	(void)state;
	if (current_seed)
		printf("acpi corpus: failed on seed %llu (replay: ACPI_GEN_SEED=%llu %s)\n",
		       (unsigned long long)current_seed, (unsigned long long)current_seed,
		       "build/unit/acpi_corpus");
	current_seed = 0;
	return 0;
}

static void test_generated_machines(void **state)
{
	(void)state;
	const char *one = getenv("ACPI_GEN_SEED"), *nm = getenv("ACPI_GEN_MACHINES");
	uint64_t first = one ? strtoull(one, NULL, 0) : 1;
	uint64_t n = one ? 1 : nm ? strtoull(nm, NULL, 0) : 3000;
	for (uint64_t seed = first; seed < first + n; seed++) {
		struct acpi_gen_cfg cfg;
		struct acpi_info ai;
		struct acpi_power pw;
		acpi_gen_random_cfg(seed, &cfg);
		current_seed = seed;
		run(&cfg, &ai, &pw);
	}
	current_seed = 0;
	printf("acpi corpus: %llu generated machines; power-off PM1 %u, sleep register %u, "
	       "none %u; reset FADT %u, 0xCF9 %u, 8042 %u, none %u; \\_S5 from DSDT %u, SSDT %u, "
	       "method %u, none %u\n",
	       (unsigned long long)n, counts[0][ACPI_OFF_PM1], counts[0][ACPI_OFF_SLEEP_REG],
	       counts[0][ACPI_OFF_NONE], counts[1][ACPI_RESET_FADT], counts[1][ACPI_RESET_CF9],
	       counts[1][ACPI_RESET_KBC], counts[1][ACPI_RESET_NONE], counts[2][ACPI_S5_DSDT],
	       counts[2][ACPI_S5_SSDT], counts[2][ACPI_S5_METHOD], counts[2][ACPI_S5_NONE]);
}

/* A plain desktop: 8 CPUs, one IOAPIC, legacy FADT with both blocks, \_S5 in the DSDT. */
static struct acpi_gen_cfg desktop(void)
{
	return (struct acpi_gen_cfg){.xsdt = true,
				     .ncpus = 8,
				     .nioapics = 1,
				     .fadt = GEN_FADT_BOTH,
				     .s5_where = GEN_S5_DSDT,
				     .reset = GEN_RST_IO,
				     .nssdt = 3,
				     .slp_a = 7,
				     .slp_b = 7,
				     .seed = 42};
}

/* The shapes main could not power off (20 of 605 machines: 32-bit PM1a_CNT_BLK zero). */
static void test_x_pm1a_only(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	c.fadt = GEN_FADT_X_ONLY;
	struct acpi_info ai;
	struct acpi_power pw;
	run(&c, &ai, &pw);
	assert_int_equal(pw.pm1a_cnt.space, ACPI_GAS_IO);
	assert_int_equal(pw.pm1a_cnt.bit_width, 16);
}

/* Hardware-reduced with sleep control/status registers (6 machines). */
static void test_hw_reduced_sleep_register(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	c.fadt = GEN_FADT_HWR;
	for (c.seed = 0; c.seed < 2; c.seed++) { /* I/O and memory space */
		struct acpi_info ai;
		struct acpi_power pw;
		run(&c, &ai, &pw);
		const char *why;
		assert_int_equal(acpi_poweroff_plan(&pw, ai.have_s5, &why), ACPI_OFF_SLEEP_REG);
	}
}

/* \_S5 only in an SSDT (3 machines), in every encoding. */
static void test_s5_only_in_ssdt(void **state)
{
	(void)state;
	for (unsigned enc = 0; enc < 8; enc++) {
		struct acpi_gen_cfg c = desktop();
		c.s5_where = GEN_S5_SSDT, c.s5_enc = enc, c.nssdt = 6, c.slp_a = 5, c.slp_b = 3;
		struct acpi_info ai;
		struct acpi_power pw;
		run(&c, &ai, &pw);
		assert_int_equal(pw.s5_from, ACPI_S5_SSDT);
	}
}

/* A dump with two MADTs (the second a copy with other flags): the first one counts; parsing
 * both listed its IOAPIC twice and let the second's ISA flags win. */
static void test_two_madts(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	c.two_madts = true;
	struct acpi_info ai;
	struct acpi_power pw;
	run(&c, &ai, &pw);
	assert_int_equal(ai.nr_ioapics, 1);
}

/* A Bay Trail tablet's shape (Dell Venue 8 Pro): hardware-reduced, no sleep registers, a
 * reset register at 0xCF9 without RESET_REG_SUP. Power-off cannot work without UEFI runtime
 * services (said in one line); reset goes through that register. */
static void test_tablet_without_sleep_registers(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	c.fadt = GEN_FADT_HWR_NOSLEEP, c.reset = GEN_RST_UNFLAGGED;
	struct acpi_info ai;
	struct acpi_power pw;
	run(&c, &ai, &pw);
	const char *why = NULL;
	assert_int_equal(acpi_poweroff_plan(&pw, ai.have_s5, &why), ACPI_OFF_NONE);
	assert_string_equal(why, "hardware-reduced FADT without a sleep control register");
	assert_int_equal(acpi_reset_plan(&pw, &why), ACPI_RESET_FADT);
	assert_int_equal(pw.reset.addr, 0xcf9);
}

/* The reasons power-off names when it cannot work. */
static void test_poweroff_reasons(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	struct acpi_info ai;
	struct acpi_power pw;
	const char *why = NULL;
	c.s5_where = GEN_S5_NONE;
	run(&c, &ai, &pw);
	acpi_poweroff_plan(&pw, ai.have_s5, &why);
	assert_string_equal(why, "no \\_S5 in DSDT or SSDTs");
	c.s5_where = GEN_S5_METHOD;
	run(&c, &ai, &pw);
	acpi_poweroff_plan(&pw, ai.have_s5, &why);
	assert_string_equal(why, "\\_S5 is a method (sliver runs no AML)");
	c.s5_where = GEN_S5_DSDT, c.fadt = GEN_FADT_NONE;
	run(&c, &ai, &pw);
	acpi_poweroff_plan(&pw, ai.have_s5, &why);
	assert_string_equal(why, "no FADT");
}

/* Servers: 80 CPUs (issue 24: all kept now that ACPI_MAX_CPUS is 256; before, the 16 past
 * 64 were counted and not started), 5 IOAPICs, x2APIC entries. */
static void test_80_cpus_5_ioapics(void **state)
{
	(void)state;
	struct acpi_gen_cfg c = desktop();
	c.ncpus = 80, c.x2apic = true, c.dup_x2apic = true, c.nioapics = 5;
	struct acpi_info ai;
	struct acpi_power pw;
	run(&c, &ai, &pw);
	assert_int_equal(ai.nr_cpus, 80);
	assert_int_equal(ai.cpus_beyond, 0);
	assert_int_equal(ai.nr_ioapics, 5);
	assert_int_equal(ai.ioapics[4].gsi_base, 88);
}

/* The real MADT of the 80-CPU server of the run over 654 dumps (docs/metal.md): a Dell
 * PowerEdge R820, 4 sockets x 10 cores x 2 threads (linux-hardware.org's linuxhw/ACPI,
 * Server/Dell/PowerEdge/PowerEdge R820/E5985CCBA349, CC-BY 4.0), rebuilt here entry by entry
 * from the dump's `Raw Table Data` (898 bytes; the stored checksum 0x96 must make it sum
 * to 0, so a byte transcribed wrong fails the test): 80 enabled Processor Local APIC
 * entries (processor IDs 1..80, APIC IDs in this order), 16 disabled ones (0x51..0x60, APIC
 * IDs 0xd0..0xdf), a Local APIC NMI, two interrupt source overrides and 5 IOAPICs. Before
 * issue 24 sliver kept 64 of its CPUs; all 80 are kept, with their APIC IDs. */
static const uint8_t r820_apic_ids[80] = {
	0x00, 0x20, 0x40, 0x60, 0x02, 0x22, 0x42, 0x62, 0x04, 0x24, 0x44, 0x64, 0x06, 0x26,
	0x46, 0x66, 0x08, 0x28, 0x48, 0x68, 0x10, 0x30, 0x50, 0x70, 0x12, 0x32, 0x52, 0x72,
	0x14, 0x34, 0x54, 0x74, 0x16, 0x36, 0x56, 0x76, 0x18, 0x38, 0x58, 0x78, 0x01, 0x21,
	0x41, 0x61, 0x03, 0x23, 0x43, 0x63, 0x05, 0x25, 0x45, 0x65, 0x07, 0x27, 0x47, 0x67,
	0x09, 0x29, 0x49, 0x69, 0x11, 0x31, 0x51, 0x71, 0x13, 0x33, 0x53, 0x73, 0x15, 0x35,
	0x55, 0x75, 0x17, 0x37, 0x57, 0x77, 0x19, 0x39, 0x59, 0x79};

static size_t r820_madt(uint8_t *t)
{
	static const uint8_t tail[] = {
		4, 6,  0xff, 5, 0, 1,			      /* Local APIC NMI: all, LINT1 */
		2, 10, 0,    0, 2, 0,	 0,    0,    0,	   0, /* ISO: IRQ 0 -> GSI 2 */
		2, 10, 0,    9, 9, 0,	 0,    0,    0x0d, 0, /* ISO: IRQ 9 -> GSI 9, level, low */
		1, 12, 0,    0, 0, 0,	 0xc0, 0xfe, 0x00, 0, 0, 0,  /* IOAPIC 0, GSI 0 */
		1, 12, 1,    0, 0, 0xf0, 0xc3, 0xfe, 0x20, 0, 0, 0,  /* IOAPIC 1, GSI 32 */
		1, 12, 2,    0, 0, 0xf0, 0xc7, 0xfe, 0x40, 0, 0, 0,  /* IOAPIC 2, GSI 64 */
		1, 12, 3,    0, 0, 0,	 0xc8, 0xfe, 0x60, 0, 0, 0,  /* IOAPIC 3, GSI 96 */
		1, 12, 4,    0, 0, 0,	 0xcc, 0xfe, 0x80, 0, 0, 0}; /* IOAPIC 4, GSI 128 */
	/* Signature, length, revision, checksum, OEM ID and table ID, OEM revision, creator ID
	 * and revision; then the Local APIC address and the flags (PC-AT compatible). */
	memcpy(t,
	       "APIC\x82\x03\0\0\x01\x96"
	       "DELL  "
	       "PE_SC3  "
	       "\x01\0\0\0"
	       "DELL"
	       "\x01\0\0\0",
	       36);
	memcpy(t + 36, "\0\0\xe0\xfe\x01\0\0\0", 8);
	size_t n = 44;
	for (unsigned i = 0; i < 96; i++, n += 8) { /* type 0, length 8, UID, APIC ID, flags */
		uint8_t e[8] = {0, 8, (uint8_t)(i + 1), i < 80 ? r820_apic_ids[i] : 0xd0 + i - 80,
				i < 80};
		memcpy(t + n, e, 8);
	}
	memcpy(t + n, tail, sizeof tail);
	return n + sizeof tail;
}

static void test_dell_r820_80_cpus(void **state)
{
	(void)state;
	uint8_t *t = malloc(0x382); /* its exact size: ASan catches a read past it */
	assert_non_null(t);
	assert_int_equal(r820_madt(t), 0x382);
	uint8_t sum = 0;
	for (size_t i = 0; i < 0x382; i++)
		sum = (uint8_t)(sum + t[i]);
	assert_int_equal(sum, 0); /* the dump's checksum holds: these are its bytes */
	assert_true(acpi_table_ok(t, 0x382));
	static struct acpi_info ai;
	memset(&ai, 0, sizeof ai);
	assert_true(acpi_parse_madt(&ai, t, 0x382));
	assert_int_equal(ai.nr_cpus, 80);
	assert_int_equal(ai.cpus_beyond, 0);
	for (unsigned i = 0; i < 80; i++)
		assert_int_equal(ai.apic_ids[i], r820_apic_ids[i]);
	assert_int_equal(ai.lapic_base, 0xfee00000);
	assert_int_equal(ai.nr_ioapics, 5);
	static const uint64_t base[5] = {0xfec00000, 0xfec3f000, 0xfec7f000, 0xfec80000,
					 0xfecc0000};
	for (unsigned k = 0; k < 5; k++) {
		assert_int_equal(ai.ioapics[k].id, k);
		assert_int_equal(ai.ioapics[k].base, base[k]);
		assert_int_equal(ai.ioapics[k].gsi_base, 32 * k);
	}
	assert_int_equal(ai.ioapic_base, 0xfec00000);
	assert_int_equal(ai.isa_gsi[0], 2);
	assert_int_equal(ai.isa_gsi[9], 9);
	assert_int_equal(ai.isa_flags[9], 0x0d);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_generated_machines, say_seed),
		cmocka_unit_test(test_x_pm1a_only),
		cmocka_unit_test(test_hw_reduced_sleep_register),
		cmocka_unit_test(test_s5_only_in_ssdt),
		cmocka_unit_test(test_two_madts),
		cmocka_unit_test(test_tablet_without_sleep_registers),
		cmocka_unit_test(test_poweroff_reasons),
		cmocka_unit_test(test_80_cpus_5_ioapics),
		cmocka_unit_test(test_dell_r820_80_cpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
