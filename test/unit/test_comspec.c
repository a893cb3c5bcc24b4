/* drivers/comspec: the com1= and console= values of the hypervisor command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "drivers/comspec.h"

static struct com_spec ok(const char *s)
{
	struct com_spec c;
	const char *err = com_spec_parse(s, &c);
	if (err)
		fail_msg("%s: %s", s, err);
	return c;
}

static void test_com1_forms(void **state)
{
	(void)state;
	struct com_spec c = ok("115200");
	assert_int_equal(c.baud, 115200);
	assert_int_equal(c.lcr, 0x03);
	assert_int_equal(c.where, COM_AT_DEFAULT);
	c = ok("115200,8n1,0x2f8");
	assert_int_equal(c.where, COM_AT_IO);
	assert_int_equal(c.addr, 0x2f8);
	c = ok("9600,7e2");
	assert_int_equal(c.baud, 9600);
	assert_int_equal(c.lcr, 0x02 | 0x18 | 0x04);
	c = ok("auto,,0x3e8");
	assert_int_equal(c.baud, 0);
	assert_int_equal(c.addr, 0x3e8);
	c = ok("57600,0x2e8"); /* DPS left out */
	assert_int_equal(c.addr, 0x2e8);
	c = ok("115200,8n1,pci");
	assert_int_equal(c.where, COM_AT_PCI);
	assert_false(c.pci_bdf);
	c = ok("115200,8n1,pci@0:1f.7");
	assert_true(c.pci_bdf);
	assert_int_equal(c.bus, 0);
	assert_int_equal(c.dev, 0x1f);
	assert_int_equal(c.fn, 7);
	c = ok("115200,8n1,mmio@0xfebd1000");
	assert_int_equal(c.where, COM_AT_MMIO);
	assert_int_equal(c.addr, 0xfebd1000);
	assert_int_equal(c.reg_shift, 0);
	c = ok("115200,8n1,mmio32@0xfe030000");
	assert_int_equal(c.reg_shift, 2);
	assert_int_equal(c.reg_width, 4);
}

static void test_com1_errors(void **state)
{
	(void)state;
	const char *bad[] = {"",
			     "fast",
			     "115200x",
			     "0",
			     "230400",
			     "115200,9n1",
			     "115200,8x1",
			     "115200,8n3",
			     "115200,8n1,0",
			     "115200,8n1,0x10000",
			     "115200,8n1,pci@0:20.0",
			     "115200,8n1,pci@0:1.8",
			     "115200,8n1,pci@100:0.0",
			     "115200,8n1,pci@0.1:2",
			     "115200,8n1,mmio@",
			     "115200,8n1,mmio@0",
			     "115200,8n1,0x2f8,4",
			     "115200,8n1,serial"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct com_spec c;
		if (!com_spec_parse(bad[i], &c))
			fail_msg("accepted \"%s\"", bad[i]);
	}
}

static void test_console_sinks(void **state)
{
	(void)state;
	unsigned m = 99;
	assert_null(console_sinks_parse("com1", &m));
	assert_int_equal(m, CONSOLE_SINK_COM1);
	assert_null(console_sinks_parse("com1,vga", &m));
	assert_int_equal(m, CONSOLE_SINK_COM1 | CONSOLE_SINK_VGA);
	assert_null(console_sinks_parse("vga", &m));
	assert_int_equal(m, CONSOLE_SINK_VGA);
	assert_null(console_sinks_parse("none", &m));
	assert_int_equal(m, 0);
	assert_non_null(console_sinks_parse("com2", &m));
	assert_non_null(console_sinks_parse("com1,vgax", &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_com1_forms),
		cmocka_unit_test(test_com1_errors),
		cmocka_unit_test(test_console_sinks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
