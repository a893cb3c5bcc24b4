/* The framebuffer console: the same lines as the UART, drawn on the multiboot2 framebuffer,
 * for a box without a serial port. EGA text mode (BIOS, 0xB8000) or a linear RGB framebuffer
 * (UEFI GOP, VBE) with the 8x16 font of drivers/font8x16.c. */
#ifndef DRIVERS_FB_H
#define DRIVERS_FB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fb_type { FB_NONE, FB_RGB, FB_EGA_TEXT };

/* As the multiboot2 framebuffer tag describes it (core/bootinfo.c fills it). */
struct fb_info {
	enum fb_type type;
	uint64_t addr;			      /* physical */
	uint32_t pitch;			      /* bytes per line (of pixels, or of characters) */
	uint32_t width, height;		      /* pixels, or characters for EGA text */
	uint8_t bpp;			      /* bits per pixel (16 for EGA text) */
	uint8_t red_pos, red_size, green_pos; /* RGB: field positions and sizes in a pixel */
	uint8_t green_size, blue_pos, blue_size;
};

/* Checks that the framebuffer is usable (kind, depth, inside the identity map), clears it
 * and starts drawing every fb_write there. Returns NULL or why not. */
const char *fb_init(const struct fb_info *fb);
/* Draws the bytes as a terminal would: '\n' new line, '\r' column 0, '\t' to the next
 * multiple of 8, wrap at the right edge, scroll at the bottom. No-op until fb_init. */
void fb_write(const char *s, size_t n);
/* The text grid: columns and rows (0 before fb_init). */
void fb_grid(unsigned *cols, unsigned *rows);

#endif
