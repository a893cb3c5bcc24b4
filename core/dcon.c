/* The domain console: bytes from HC_CONSOLE_WRITE, COM1 and port 0xE9 are collected into
 * lines and printed with the "(d<id>) " prefix, one whole line at a time. */
#include "core/vmm.h"
#include "drivers/console.h"

static void flush_locked(struct domain *d)
{
	if (d->con.len) {
		printk("(d%u) %.*s\n", d->id, (int)d->con.len, d->con.line);
		d->con.len = 0;
	}
}

static void putc_locked(struct domain *d, char c)
{
	if (c == '\n') {
		if (!d->con.len)
			printk("(d%u) \n", d->id);
		flush_locked(d);
		return;
	}
	if (c == '\r')
		return;
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '?';
	d->con.line[d->con.len++] = c;
	if (d->con.len == DCON_LINE)
		flush_locked(d);
}

void dcon_putc(struct domain *d, char c)
{
	spin_lock(&d->con.lock);
	putc_locked(d, c);
	spin_unlock(&d->con.lock);
}

void dcon_write(struct domain *d, const char *s, uint64_t n)
{
	spin_lock(&d->con.lock);
	for (uint64_t i = 0; i < n; i++)
		putc_locked(d, s[i]);
	spin_unlock(&d->con.lock);
}

void dcon_flush(struct domain *d)
{
	spin_lock(&d->con.lock);
	flush_locked(d);
	spin_unlock(&d->con.lock);
}
