/* drivers/spcr: real tables (as QEMU generates them, transcribed from the iasl dumps in
 * QEMU's tests/data/acpi history), an x86 I/O-port table built here, and malformed ones:
 * every truncation, bad lengths, checksums, fields, and seeded random corruption. Each
 * table is parsed from a heap copy of exactly `len` bytes, so ASan catches any over-read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/spcr.h"

/* QEMU riscv64 virt, revision 4: a 16550 described by the GAS, MMIO at 0x10000000, byte
 * access, 115200 baud. */
static const uint8_t riscv_rev4[90] = {
	0x53, 0x50, 0x43, 0x52, 0x5A, 0x00, 0x00, 0x00, 0x04, 0x13, 0x42, 0x4F, 0x43, 0x48, 0x53,
	0x20, 0x42, 0x58, 0x50, 0x43, 0x20, 0x20, 0x20, 0x20, 0x01, 0x00, 0x00, 0x00, 0x42, 0x58,
	0x50, 0x43, 0x01, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x07, 0x00,
	0x01, 0x00, 0x00, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x58, 0x00, 0x2E, 0x00,
};

/* The same machine's older revision 2 table: interface type 0 (full 16550). */
static const uint8_t riscv_rev2[80] = {
	0x53, 0x50, 0x43, 0x52, 0x50, 0x00, 0x00, 0x00, 0x02, 0xB9, 0x42, 0x4F, 0x43, 0x48,
	0x53, 0x20, 0x42, 0x58, 0x50, 0x43, 0x20, 0x20, 0x20, 0x20, 0x01, 0x00, 0x00, 0x00,
	0x42, 0x58, 0x50, 0x43, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x0A, 0x00,
	0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* QEMU aarch64 virt: a PL011 (interface type 3), which is no 16550. */
static const uint8_t arm_pl011[80] = {
	0x53, 0x50, 0x43, 0x52, 0x50, 0x00, 0x00, 0x00, 0x02, 0xB1, 0x42, 0x4F, 0x43, 0x48,
	0x53, 0x20, 0x42, 0x58, 0x50, 0x43, 0x20, 0x20, 0x20, 0x20, 0x01, 0x00, 0x00, 0x00,
	0x42, 0x58, 0x50, 0x43, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x20,
	0x00, 0x03, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x21, 0x00,
	0x00, 0x00, 0x03, 0x00, 0x01, 0x02, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void fix_checksum(uint8_t *t, size_t len)
{
	uint8_t sum = 0;
	t[9] = 0;
	for (size_t i = 0; i < len; i++)
		sum += t[i];
	t[9] = (uint8_t)-sum;
}

/* An x86 table as tools/mkspcr.py writes it for the e2e test: COM2, I/O, 8-bit. */
static void make_x86(uint8_t t[80], uint16_t port, uint8_t baud_code)
{
	memset(t, 0, 80);
	memcpy(t, "SPCR", 4);
	t[4] = 80;
	t[8] = 2;
	t[36] = 0x00;
	t[40] = 1; /* system I/O */
	t[41] = 8; /* bit width */
	t[43] = 1; /* byte access */
	t[44] = (uint8_t)port;
	t[45] = (uint8_t)(port >> 8);
	t[52] = 1; /* PC-AT interrupt */
	t[53] = 3; /* IRQ 3 */
	t[58] = baud_code;
	t[60] = 1;
	t[64] = t[65] = t[66] = t[67] = 0xff;
	fix_checksum(t, 80);
}

static const char *parse_copy(const uint8_t *t, size_t len, struct spcr_info *s)
{
	uint8_t *c = malloc(len ? len : 1);
	memcpy(c, t, len);
	const char *err = spcr_parse(c, len, s);
	free(c);
	return err;
}

static void test_real_tables(void **state)
{
	(void)state;
	struct spcr_info s;
	assert_null(parse_copy(riscv_rev4, sizeof(riscv_rev4), &s));
	assert_int_equal(s.revision, 4);
	assert_int_equal(s.interface_type, 0x12);
	assert_true(s.mmio);
	assert_int_equal(s.base, 0x10000000);
	assert_int_equal(s.reg_width, 1);
	assert_int_equal(s.reg_shift, 0);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(s.pc_irq, -1); /* interrupt type 0x10: a RISC-V PLIC, no PC-AT IRQ */
	assert_false(s.pci);

	assert_null(parse_copy(riscv_rev2, sizeof(riscv_rev2), &s));
	assert_int_equal(s.revision, 2);
	assert_int_equal(s.interface_type, 0);
	assert_int_equal(s.base, 0x10000000);

	assert_string_equal(parse_copy(arm_pl011, sizeof(arm_pl011), &s),
			    "not a 16550-compatible UART");
	/* A longer buffer than the table is fine: only the table's own length is read. */
	uint8_t big[200] = {0};
	memcpy(big, riscv_rev2, sizeof(riscv_rev2));
	assert_null(parse_copy(big, sizeof(big), &s));
}

static void test_x86_io_and_mmio32(void **state)
{
	(void)state;
	uint8_t t[80];
	struct spcr_info s;
	make_x86(t, 0x2f8, 7);
	assert_null(parse_copy(t, 80, &s));
	assert_false(s.mmio);
	assert_int_equal(s.base, 0x2f8);
	assert_int_equal(s.reg_width, 1);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(s.pc_irq, 3);
	make_x86(t, 0x3f8, 0);
	assert_null(parse_copy(t, 80, &s));
	assert_int_equal(s.baud, 0); /* as is */
	/* A PCI card's MMIO BAR with 32-bit registers: legacy access size 0, bit width 32. */
	make_x86(t, 0, 4);
	t[40] = 0;
	t[41] = 32;
	t[43] = 0;
	uint64_t a = 0xfebd1000;
	memcpy(t + 44, &a, 8);
	t[64] = 0x02, t[65] = 0x00, t[66] = 0x36, t[67] = 0x1b; /* 1b36:0002 */
	t[68] = 0, t[69] = 3, t[70] = 0;
	fix_checksum(t, 80);
	assert_null(parse_copy(t, 80, &s));
	assert_true(s.mmio);
	assert_int_equal(s.base, 0xfebd1000);
	assert_int_equal(s.reg_width, 4);
	assert_int_equal(s.reg_shift, 2);
	assert_int_equal(s.baud, 19200);
	assert_true(s.pci);
	assert_int_equal(s.pci_dev, 3);
}

static void test_every_truncation(void **state)
{
	(void)state;
	struct spcr_info s;
	for (size_t len = 0; len < sizeof(riscv_rev4); len++)
		assert_non_null(parse_copy(riscv_rev4, len, &s));
	assert_null(spcr_parse(NULL, 100, &s) ? NULL : "accepted NULL");
}

static void test_malformed_fields(void **state)
{
	(void)state;
	struct spcr_info s;
	uint8_t t[80];
	struct {
		unsigned off;
		uint8_t val;
		const char *err;
	} cases[] = {
		{0, 'X', "not an SPCR table"},
		{4, 79, "bad table length"}, /* below the minimum */
		{4, 81, "bad table length"}, /* beyond the buffer */
		{36, 0x03, "not a 16550-compatible UART"},
		{40, 2, "base address neither memory nor I/O"}, /* PCI config space */
		{43, 4, "unsupported register access size"},	/* qword */
		{43, 3, "bad I/O port"},			/* dword I/O */
		{58, 5, "unknown baud rate code"},
		{58, 8, "unknown baud rate code"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_x86(t, 0x2f8, 7);
		t[cases[i].off] = cases[i].val;
		fix_checksum(t, 80);
		const char *err = parse_copy(t, 80, &s);
		assert_non_null(err);
		assert_string_equal(err, cases[i].err);
	}
	make_x86(t, 0, 7); /* base address 0: redirection disabled */
	assert_string_equal(parse_copy(t, 80, &s), "console redirection disabled (base address 0)");
	make_x86(t, 0x2f8, 7);
	t[20] ^= 1; /* any byte changed without fixing the checksum */
	assert_string_equal(parse_copy(t, 80, &s), "bad checksum");
}

/* Seeded random corruption: the parser never reads past len (ASan), and whatever it accepts
 * is self-consistent. */
static void test_random_corruption(void **state)
{
	(void)state;
	srand(9);
	unsigned accepted = 0;
	for (int round = 0; round < 20000; round++) {
		uint8_t t[96];
		size_t len = sizeof(riscv_rev4);
		memcpy(t, riscv_rev4, len);
		int flips = 1 + rand() % 4;
		for (int i = 0; i < flips; i++)
			t[rand() % len] = (uint8_t)rand();
		if (rand() % 2)
			fix_checksum(t, len);
		len = (size_t)(rand() % 4 ? (int)len : rand() % (int)len);
		struct spcr_info s;
		if (parse_copy(t, len, &s))
			continue;
		accepted++;
		uint32_t tlen;
		memcpy(&tlen, t + 4, 4);
		assert_true(tlen >= SPCR_MIN_LENGTH && tlen <= len);
		assert_true(s.base != 0);
		assert_true(s.reg_width == 1u << s.reg_shift && s.reg_width <= 4);
		assert_true(s.mmio || s.base <= 0xfff8);
	}
	assert_true(accepted > 100); /* the generator does reach the accepting path */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_tables),	  cmocka_unit_test(test_x86_io_and_mmio32),
		cmocka_unit_test(test_every_truncation),  cmocka_unit_test(test_malformed_fields),
		cmocka_unit_test(test_random_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
