#include "drivers/fb.h"
#include "arch/x86_64/memory.h"
#include "drivers/font8x16.h"
#include "lib/string.h"

#define EGA_ATTR     0x07 /* light grey on black */
#define FG_INTENSITY 0xaa /* the same grey for RGB: 0xAA of each component */
/* The text grid kept in RAM (enough for 3840x2160 in 8x16 cells; a larger screen uses its
 * top-left part). Scrolling redraws from it the cells that change instead of moving the
 * framebuffer: device memory is uncached or write-combining, slow to read back. */
#define GRID_COLS 480
#define GRID_ROWS 135

static struct fb_info fb;
static bool on;
static unsigned cols, rows, col, row;
static uint32_t fg_pixel; /* black, the background, is 0 in every RGB layout */
static char grid[GRID_ROWS][GRID_COLS];

static void clear_row(unsigned r);

static uint32_t pack(uint8_t v, uint8_t pos, uint8_t size)
{
	return size ? (uint32_t)(v >> (8 - (size > 8 ? 8 : size))) << pos : 0;
}

const char *fb_init(const struct fb_info *f)
{
	if (f->type == FB_NONE)
		return "no framebuffer from the boot loader";
	if (!f->addr || !mmio_map(f->addr, (uint64_t)f->pitch * f->height, true))
		return "framebuffer cannot be mapped";
	if (f->type == FB_EGA_TEXT) {
		if (!f->width || !f->height || f->pitch < f->width * 2)
			return "bad EGA text geometry";
		cols = f->width;
		rows = f->height;
		if (cols > GRID_COLS || rows > GRID_ROWS)
			return "EGA text grid larger than expected";
	} else {
		if (f->bpp != 16 && f->bpp != 24 && f->bpp != 32)
			return "unsupported pixel depth";
		if (f->width < FONT_WIDTH || f->height < FONT_HEIGHT ||
		    f->pitch < f->width * (f->bpp / 8))
			return "bad framebuffer geometry";
		cols = f->width / FONT_WIDTH < GRID_COLS ? f->width / FONT_WIDTH : GRID_COLS;
		rows = f->height / FONT_HEIGHT < GRID_ROWS ? f->height / FONT_HEIGHT : GRID_ROWS;
		fg_pixel = pack(FG_INTENSITY, f->red_pos, f->red_size) |
			   pack(FG_INTENSITY, f->green_pos, f->green_size) |
			   pack(FG_INTENSITY, f->blue_pos, f->blue_size);
	}
	fb = *f;
	col = row = 0;
	for (unsigned r = 0; r < rows; r++)
		clear_row(r);
	on = true;
	return NULL;
}

void fb_grid(unsigned *c, unsigned *r)
{
	*c = on ? cols : 0;
	*r = on ? rows : 0;
}

static uint8_t *line_ptr(unsigned y)
{
	return (uint8_t *)phys_to_virt(fb.addr) + (uint64_t)y * fb.pitch;
}

static void fill(uint8_t *dst, size_t n)
{
	if (!(((uintptr_t)dst | n) & 7)) {
		volatile uint64_t *d = (volatile uint64_t *)dst;
		for (size_t i = 0; i < n / 8; i++)
			d[i] = 0;
		return;
	}
	memset(dst, 0, n);
}

static void put_pixel_row(uint8_t *p, uint8_t bits)
{
	unsigned bytes = fb.bpp / 8;
	for (unsigned x = 0; x < FONT_WIDTH; x++, p += bytes) {
		uint32_t v = (bits & (0x80 >> x)) ? fg_pixel : 0;
		if (bytes == 4) {
			*(volatile uint32_t *)p = v;
		} else if (bytes == 2) {
			*(volatile uint16_t *)p = (uint16_t)v;
		} else {
			p[0] = (uint8_t)v;
			p[1] = (uint8_t)(v >> 8);
			p[2] = (uint8_t)(v >> 16);
		}
	}
}

static void draw(unsigned c, unsigned r, char ch)
{
	uint8_t g = (uint8_t)ch;
	if (g < FONT_FIRST || g >= FONT_FIRST + FONT_GLYPHS)
		g = '?';
	grid[r][c] = (char)g;
	if (fb.type == FB_EGA_TEXT) {
		volatile uint16_t *cell = (volatile uint16_t *)(line_ptr(r) + 2 * c);
		*cell = (uint16_t)(EGA_ATTR << 8 | g);
		return;
	}
	const uint8_t *glyph = font8x16[g - FONT_FIRST];
	for (unsigned y = 0; y < FONT_HEIGHT; y++)
		put_pixel_row(line_ptr(r * FONT_HEIGHT + y) + c * FONT_WIDTH * (fb.bpp / 8),
			      glyph[y]);
}

static void clear_row(unsigned r)
{
	if (fb.type == FB_EGA_TEXT) {
		for (unsigned c = 0; c < cols; c++)
			draw(c, r, ' ');
		return;
	}
	fill(line_ptr(r * FONT_HEIGHT), (size_t)fb.pitch * FONT_HEIGHT);
	memset(grid[r], ' ', cols);
}

/* One row up: each cell is redrawn only where the character below it differs (lines of a
 * log share prefixes and blanks), and nothing is read from the framebuffer. */
static void scroll_up(void)
{
	for (unsigned r = 0; r + 1 < rows; r++)
		for (unsigned c = 0; c < cols; c++)
			if (grid[r][c] != grid[r + 1][c])
				draw(c, r, grid[r + 1][c]);
}

static void new_line(void)
{
	col = 0;
	if (row + 1 < rows) {
		row++;
	} else {
		scroll_up();
	}
	clear_row(row);
}

void fb_write(const char *s, size_t n)
{
	if (!on)
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			new_line();
		} else if (c == '\r') {
			col = 0;
		} else if (c == '\t') {
			do
				fb_write(" ", 1);
			while (col % 8);
		} else {
			if (col == cols)
				new_line();
			draw(col++, row, c);
		}
	}
}
