#include "drivers/console.h"
#include "arch/x86_64/spinlock.h"
#include "drivers/conport.h"
#include "drivers/fb.h"
#include "drivers/uart16550.h"
#include "lib/fmt.h"

#define BOCHS_E9_PORT 0xe9

static spinlock_t lock = SPINLOCK_INIT;
static bool lock_broken, mirror_e9;

void console_init(void)
{
	uart_init(&console_uart); /* COM1 until conport_select() reads the command line */
	/* Bochs' port_e9_hack reads back 0xE9; absent ports read 0xFF. */
	mirror_e9 = inb(BOCHS_E9_PORT) == BOCHS_E9_PORT;
}

bool console_is_bochs(void)
{
	return mirror_e9;
}

static void write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (conport_uart_on && s[i] == '\n')
			uart_putc(&console_uart, '\r');
		if (conport_uart_on)
			uart_putc(&console_uart, s[i]);
		if (mirror_e9)
			outb(BOCHS_E9_PORT, (uint8_t)s[i]);
	}
	fb_write(s, n); /* the framebuffer sink: a no-op unless conport_select() chose it */
}

void console_write(const char *s, size_t n)
{
	if (lock_broken) {
		write_raw(s, n);
		return;
	}
	spin_lock(&lock);
	write_raw(s, n);
	spin_unlock(&lock);
}

void vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	console_write(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void console_break_lock(void)
{
	lock_broken = true;
}

void console_drain(void)
{
	if (conport_uart_on)
		uart_drain(&console_uart);
}

int console_getc(void)
{
	return conport_uart_on ? uart_getc(&console_uart) : -1;
}

void console_enable_rx_irq(void)
{
	if (conport_uart_on)
		uart_enable_rx_irq(&console_uart);
}
