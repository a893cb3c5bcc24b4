/* drivers/uart16550: the register accessor on an MMIO UART with 32-bit registers 4 apart
 * (reg_shift 2, as SPCR/mmio32@ describe them), over host memory standing in for the
 * device: uart_init programs the divisor and line control at the right offsets, uart_putc
 * waits for THRE and writes whole dwords, and the probe rejects what reads all ones. The
 * I/O-port path is the same code with inb/outb (exercised by every QEMU/Bochs boot). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/uart16550.h"

enum { THR = 0, IER = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5, SCR = 7 };

static uint32_t regs[8];

static struct uart mmio32(uint32_t baud)
{
	return (struct uart){.space = UART_SPACE_MMIO,
			     .base = (uint64_t)(uintptr_t)regs,
			     .reg_shift = 2,
			     .reg_width = 4,
			     .baud = baud,
			     .lcr = 0x1b}; /* 8 data bits, even parity, 1 stop */
}

static void test_init_offsets(void **state)
{
	(void)state;
	memset(regs, 0xee, sizeof(regs));
	struct uart u = mmio32(9600);
	uart_init(&u);
	assert_int_equal(regs[THR], 12); /* DLL: 1843200 / 16 / 9600; DLAB shares offset 0 */
	assert_int_equal(regs[IER], 0);	 /* DLM 0 (IER was 0 before) */
	assert_int_equal(regs[LCR], 0x1b);
	assert_int_equal(regs[FCR], 0x07);
	assert_int_equal(regs[MCR], 0x03);
	assert_int_equal(regs[6], 0xeeeeeeee); /* MSR: never written */
	assert_int_equal(regs[SCR], 0xeeeeeeee);
	u.baud = 0; /* auto: the divisor is left alone */
	regs[THR] = 0x55;
	uart_init(&u);
	assert_int_equal(regs[THR], 0x55);
}

static void test_putc_and_getc(void **state)
{
	(void)state;
	memset(regs, 0, sizeof(regs));
	struct uart u = mmio32(115200);
	regs[LSR] = 0xffffff60; /* THRE and TEMT; upper bytes are not the register */
	uart_putc(&u, 'x');
	assert_int_equal(regs[THR], 'x'); /* one whole dword, upper bytes zero */
	assert_int_equal(uart_getc(&u), -1);
	regs[LSR] = 0x61;
	regs[THR] = 0xab;
	assert_int_equal(uart_getc(&u), 0xab);
	uart_drain(&u);
}

static void test_probe(void **state)
{
	(void)state;
	struct uart u = mmio32(115200);
	memset(regs, 0, sizeof(regs));
	regs[SCR] = 0x42;
	assert_true(uart_probe(&u));
	assert_int_equal(regs[SCR], 0x42); /* put back */
	regs[LSR] = 0xff;		   /* an absent device */
	assert_false(uart_probe(&u));
	/* Byte registers one apart: register i at base + i. */
	uint8_t bytes[8] = {0};
	struct uart b = {.space = UART_SPACE_MMIO,
			 .base = (uint64_t)(uintptr_t)bytes,
			 .reg_width = 1,
			 .baud = 115200,
			 .lcr = 3};
	uart_init(&b);
	assert_int_equal(bytes[LCR], 3);
	assert_int_equal(bytes[THR], 1); /* DLL for 115200 */
	assert_true(uart_probe(&b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_offsets),
		cmocka_unit_test(test_putc_and_getc),
		cmocka_unit_test(test_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
