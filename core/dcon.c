/* The domain console: bytes from HC_CONSOLE_WRITE, COM1 and port 0xE9 are collected into
 * lines and printed with the "(d<id>) " prefix, one whole line at a time.
 * Every domain but the service domain is rate-limited (a token bucket of bytes, refilled
 * continuously): a flooding guest cannot drown the others or the hypervisor, whose own
 * lines share the same UART. What is dropped is counted and reported in the domain's next
 * line that gets through. */
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "core/bootargs.h"

static uint64_t rate = 2048, burst = 8192; /* bytes/s, bytes: a UART does ~11 KB/s */

void dcon_init(const char *cmdline)
{
	(void)cmdline; /* the keys are checked and read through core/bootargs.c */
	rate = bootarg_u64("console.rate");
	burst = bootarg_u64("console.burst");
	if (rate && burst < DCON_LINE + 16)
		burst = DCON_LINE + 16; /* a whole line must be able to pass */
}

/* Takes `cost` bytes from the domain's bucket; false when it is empty. */
static bool allowed(struct domain *d, uint64_t cost)
{
	if (!rate || d->role == SLIVER_ROLE_SERVICE)
		return true;
	uint64_t now = now_ns();
	if (!d->con.refill) {
		d->con.tokens = burst;
	} else {
		uint64_t add = (now - d->con.refill) / 1000 * rate / 1000000;
		if (!add)
			return d->con.tokens >= cost ? (d->con.tokens -= cost, true) : false;
		d->con.tokens = d->con.tokens + add > burst ? burst : d->con.tokens + add;
	}
	d->con.refill = now;
	if (d->con.tokens < cost)
		return false;
	d->con.tokens -= cost;
	return true;
}

static void flush_locked(struct domain *d)
{
	if (!d->con.len)
		return;
	uint64_t cost = d->con.len + 8;
	if (!allowed(d, cost)) {
		d->con.dropped += d->con.len + 1;
	} else if (d->con.dropped) {
		printk("(d%u) [console rate limit: %lu bytes dropped]\n(d%u) %.*s\n", d->id,
		       (unsigned long)d->con.dropped, d->id, (int)d->con.len, d->con.line);
		d->con.dropped = 0;
	} else {
		printk("(d%u) %.*s\n", d->id, (int)d->con.len, d->con.line);
	}
	d->con.len = 0;
}

static void putc_locked(struct domain *d, char c)
{
	if (c == '\n') {
		if (d->con.len)
			flush_locked(d);
		else if (allowed(d, 8))
			printk("(d%u) \n", d->id);
		else
			d->con.dropped++;
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
