/* Runtime start, console, exit and command-line helpers. */
#include <stdarg.h>
#include "guests/lib/rt.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

const struct sliver_boot_info *rt_bi;

void rt_idt_init(void);
void rt_clock_init(const struct sliver_boot_info *bi);

__attribute__((weak)) int rt_main_ap(const struct sliver_boot_info *bi)
{
	(void)bi;
	for (;;)
		hc_block();
}

__attribute__((noreturn)) void rt_start(const struct sliver_boot_info *bi);
__attribute__((noreturn)) void rt_start(const struct sliver_boot_info *bi)
{
	rt_idt_init();
	int code;
	if (bi->vcpu_id == 0) {
		rt_bi = bi;
		rt_clock_init(bi);
		rt_sti();
		code = main(bi);
	} else {
		code = rt_main_ap(bi);
	}
	rt_exit(code);
}

void rt_exit(int code)
{
	hc_shutdown((uint32_t)code);
}

int rt_vprintf(const char *fmt, va_list ap)
{
	char buf[256];
	int n = fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	if (n > (int)sizeof buf - 1)
		n = sizeof buf - 1;
	if (n > 0)
		hc_console_write(buf, (uint32_t)n);
	return n;
}

int rt_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = rt_vprintf(fmt, ap);
	va_end(ap);
	return n;
}

void rt_puts(const char *s)
{
	hc_console_write(s, (uint32_t)strlen(s));
	hc_console_write("\n", 1);
}

static inline void io_out8(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint8_t io_in8(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void rt_com1_puts(const char *s)
{
	io_out8(0x3f8 + 3, 0x80); /* LCR: DLAB, divisor 1 (115200) */
	io_out8(0x3f8 + 0, 1);
	io_out8(0x3f8 + 1, 0);
	io_out8(0x3f8 + 3, 0x03); /* 8N1 */
	for (; *s; s++) {
		while (!(io_in8(0x3f8 + 5) & 0x20)) /* LSR.THRE */
			;
		io_out8(0x3f8, (uint8_t)*s);
	}
}

void rt_e9_puts(const char *s)
{
	for (; *s; s++)
		io_out8(0xe9, (uint8_t)*s);
}

bool rt_arg(const char *key, char *buf, size_t len)
{
	return cmdline_get(rt_bi->cmdline, key, buf, len);
}

bool rt_arg_u64(const char *key, uint64_t *out)
{
	return cmdline_get_u64(rt_bi->cmdline, key, out);
}
