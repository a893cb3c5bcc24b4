#include "drivers/console.h"
#include "arch/x86_64/spinlock.h"
#include "drivers/uart16550.h"
#include "lib/fmt.h"

#define BOCHS_E9_PORT 0xe9

static spinlock_t lock = SPINLOCK_INIT;
static bool lock_broken, mirror_e9;

void console_init(void)
{
	uart_init(COM1_PORT);
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
		if (s[i] == '\n')
			uart_putc(COM1_PORT, '\r');
		uart_putc(COM1_PORT, s[i]);
		if (mirror_e9)
			outb(BOCHS_E9_PORT, (uint8_t)s[i]);
	}
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
	uart_drain(COM1_PORT);
}

int console_getc(void)
{
	return uart_getc(COM1_PORT);
}

void console_enable_rx_irq(void)
{
	uart_enable_rx_irq(COM1_PORT);
}
