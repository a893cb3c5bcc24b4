/* The framebuffer console's font: 8x16 glyphs for printable ASCII (drivers/font8x16.c). */
#ifndef DRIVERS_FONT8X16_H
#define DRIVERS_FONT8X16_H
#include <stdint.h>

#define FONT_WIDTH  8
#define FONT_HEIGHT 16
#define FONT_FIRST  0x20
#define FONT_GLYPHS 95 /* 0x20-0x7E */

extern const uint8_t font8x16[FONT_GLYPHS][FONT_HEIGHT];

#endif
