/* core/bootinfo: the multiboot2 framebuffer tag (type 8), as GRUB writes it for EGA text
 * (BIOS, gfxpayload=text) and for an RGB mode (UEFI GOP), and tags it must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "core/bootinfo.h"

static size_t tag(uint8_t *t, uint64_t addr, uint32_t pitch, uint32_t w, uint32_t h, uint8_t bpp,
		  uint8_t type)
{
	memset(t, 0, 40);
	uint32_t v = 8;
	memcpy(t, &v, 4);
	memcpy(t + 8, &addr, 8);
	memcpy(t + 16, &pitch, 4);
	memcpy(t + 20, &w, 4);
	memcpy(t + 24, &h, 4);
	t[28] = bpp;
	t[29] = type;
	return 32;
}

static void test_ega_text(void **state)
{
	(void)state;
	uint8_t t[40];
	struct fb_info fb = {0};
	bootinfo_parse_fb(&fb, t, (uint32_t)tag(t, 0xb8000, 160, 80, 25, 16, 2));
	assert_int_equal(fb.type, FB_EGA_TEXT);
	assert_int_equal(fb.addr, 0xb8000);
	assert_int_equal(fb.pitch, 160);
	assert_int_equal(fb.width, 80);
	assert_int_equal(fb.height, 25);
}

static void test_rgb(void **state)
{
	(void)state;
	uint8_t t[40];
	struct fb_info fb = {0};
	tag(t, 0x80000000, 3200, 800, 600, 32, 1);
	const uint8_t bgrx[6] = {16, 8, 8, 8, 0, 8}; /* OVMF's GOP: red at 16, blue at 0 */
	memcpy(t + 32, bgrx, 6);
	bootinfo_parse_fb(&fb, t, 38);
	assert_int_equal(fb.type, FB_RGB);
	assert_int_equal(fb.addr, 0x80000000);
	assert_int_equal(fb.bpp, 32);
	assert_int_equal(fb.red_pos, 16);
	assert_int_equal(fb.green_pos, 8);
	assert_int_equal(fb.blue_pos, 0);
	assert_int_equal(fb.blue_size, 8);
}

static void test_refused(void **state)
{
	(void)state;
	uint8_t t[40];
	struct fb_info fb = {.type = FB_NONE};
	tag(t, 0x80000000, 3200, 800, 600, 32, 1);
	bootinfo_parse_fb(&fb, t, 37); /* RGB without the whole colour info */
	assert_int_equal(fb.type, FB_NONE);
	tag(t, 0xa0000, 320, 320, 200, 8, 0); /* indexed colour: not drawn on */
	bootinfo_parse_fb(&fb, t, 40);
	assert_int_equal(fb.type, FB_NONE);
	tag(t, 0xb8000, 160, 80, 25, 16, 2);
	for (uint32_t size = 0; size < 32; size++) {
		bootinfo_parse_fb(&fb, t, size);
		assert_int_equal(fb.type, FB_NONE);
	}
	tag(t, 0xb8000, 160, 80, 25, 16, 3); /* unknown type */
	bootinfo_parse_fb(&fb, t, 32);
	assert_int_equal(fb.type, FB_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ega_text),
		cmocka_unit_test(test_rgb),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
