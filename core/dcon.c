/* The domain console: bytes from HC_CONSOLE_WRITE, COM1 and port 0xE9 are collected into
 * lines and queued with the "(d<id>) " prefix, one whole line at a time, in the console's
 * rings (drivers/console.c): a write costs a bounded copy, never a wait for the UART.
 * Every domain but the service domain is rate-limited (a token bucket of bytes, refilled
 * continuously): a flooding guest cannot drown the others or the hypervisor, whose own
 * lines share the same UART. What is dropped, by the rate limit or because the ring was
 * full, is counted and reported in the domain's next line that gets through
 * (docs/console.md gives the formats). */
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "core/bootargs.h"
#include "lib/string.h"
#include "core/conin.h"

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

/* Formatting by hand, not with fmt: this is on every guest line's path, and an emulator
 * charges every instruction of a general printf. */
static size_t put_str(char *p, const char *s)
{
	size_t n = 0;
	while (s[n]) {
		p[n] = s[n];
		n++;
	}
	return n;
}

static size_t put_u64(char *p, uint64_t v)
{
	char digits[20];
	unsigned nd = 0;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	size_t n = 0;
	while (nd)
		p[n++] = digits[--nd];
	return n;
}

/* "(d<id>) " */
static size_t prefix(char *p, unsigned id)
{
	size_t n = put_str(p, "(d");
	n += put_u64(p + n, id);
	return n + put_str(p + n, ") ");
}

/* "(d<id>) [console <why>: <n> bytes dropped<end>]\n" */
static size_t drop_note(char *p, unsigned id, const char *why, uint64_t bytes, const char *end)
{
	size_t n = prefix(p, id);
	n += put_str(p + n, "[console ");
	n += put_str(p + n, why);
	n += put_str(p + n, ": ");
	n += put_u64(p + n, bytes);
	n += put_str(p + n, " bytes dropped");
	n += put_str(p + n, end);
	return n + put_str(p + n, "]\n");
}

/* Queues one line (len bytes, without its newline), preceded by the drop notes. */
static void emit_locked(struct domain *d, const char *s, unsigned len)
{
	if (!allowed(d, len + 8)) {
		d->con.dropped += len + 1;
		return;
	}
	char buf[2 * 64 + DCON_LINE + 16];
	size_t n = 0;
	if (d->con.dropped)
		n += drop_note(buf + n, d->id, "rate limit", d->con.dropped, "");
	if (d->con.ring_dropped)
		n += drop_note(buf + n, d->id, "ring full", d->con.ring_dropped, "");
	n += prefix(buf + n, d->id);
	memcpy(buf + n, s, len); /* buf has room: len <= DCON_LINE */
	n += len;
	buf[n++] = '\n';
	if (console_put_line(d->id, d->role == SLIVER_ROLE_SERVICE, buf, n)) {
		d->con.dropped = 0;
		d->con.ring_dropped = 0;
	} else {
		d->con.ring_dropped += len + 1;
	}
}

static void flush_locked(struct domain *d, struct dcon_line *l)
{
	if (!l->len)
		return;
	emit_locked(d, l->line, l->len);
	l->len = 0;
}

static void putc_locked(struct domain *d, struct dcon_line *l, char c)
{
	if (c == '\n') {
		if (l->len)
			flush_locked(d, l);
		else
			emit_locked(d, "", 0);
		return;
	}
	if (c == '\r')
		return;
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '?';
	l->line[l->len++] = c;
	if (l->len == DCON_LINE)
		flush_locked(d, l);
}

/* Lines are assembled per vCPU (a domain's vCPUs print at once on several pCPUs), the
 * rate limit and the drop counts are per domain. */
void dcon_putc(struct vcpu *v, char c)
{
	struct domain *d = v->dom;
	spin_lock(&d->con.lock);
	putc_locked(d, &v->con, c);
	spin_unlock(&d->con.lock);
}

/* The hot path of HC_CONSOLE_WRITE: runs of printable bytes are copied into the line in a
 * tight loop (an emulator charges every instruction, and the pCPU is not preemptible
 * here); newlines and control bytes take putc_locked. */
void dcon_write(struct vcpu *v, const char *s, uint64_t n)
{
	struct domain *d = v->dom;
	struct dcon_line *l = &v->con;
	spin_lock(&d->con.lock);
	uint64_t i = 0;
	while (i < n) {
		char *dst = l->line + l->len;
		uint64_t room = DCON_LINE - l->len, j = 0;
		if (room > n - i)
			room = n - i;
		/* 8 bytes at a time while none is below 0x20 ("hasless", Bit Twiddling Hacks). */
		while (j + 8 <= room) {
			uint64_t w;
			__builtin_memcpy(&w, s + i + j, 8);
			if ((w - 0x2020202020202020ull) & ~w & 0x8080808080808080ull)
				break;
			__builtin_memcpy(dst + j, &w, 8);
			j += 8;
		}
		while (j < room && (unsigned char)s[i + j] >= 0x20) {
			dst[j] = s[i + j];
			j++;
		}
		l->len += (unsigned)j;
		i += j;
		if (l->len == DCON_LINE)
			flush_locked(d, l);
		else if (i < n)
			putc_locked(d, l, s[i++]);
	}
	spin_unlock(&d->con.lock);
}

/* Called once a domain ends: its unfinished lines go out, and so do the drop notes its last
 * lines were owed (they come with the next line that passes, and an ended domain has no
 * next line), as "[... bytes dropped, domain ended]". They skip the rate limit: one short
 * record per domain's end. */
void dcon_flush(struct domain *d)
{
	spin_lock(&d->con.lock);
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if (d->vcpu[i])
			flush_locked(d, &d->vcpu[i]->con);
	char buf[2 * 80];
	size_t n = 0;
	if (d->con.dropped)
		n += drop_note(buf + n, d->id, "rate limit", d->con.dropped, ", domain ended");
	if (d->con.ring_dropped)
		n += drop_note(buf + n, d->id, "ring full", d->con.ring_dropped, ", domain ended");
	if (n && console_put_line(d->id, d->role == SLIVER_ROLE_SERVICE, buf, n)) {
		d->con.dropped = 0;
		d->con.ring_dropped = 0;
	}
	spin_unlock(&d->con.lock);
}

/* The console goes asynchronous once the domains exist: the UART's interrupt (output drain
 * and input) is sent to the service domain's pCPU, the first one its pin= allows, so that
 * feeding the UART never takes time from a latency domain's pCPU; without a pinned
 * service domain, to the last pCPU (docs/console.md). Without an IOAPIC the console stays
 * synchronous. */
void dcon_start_async(void)
{
	unsigned cpu = cpu_count() - 1;
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domains[id];
		if (d && d->role == SLIVER_ROLE_SERVICE && d->nr_vcpus) {
			sched_cpumask_t pin = d->vcpu[0]->s.sv.affinity;
			if (!cpumask_empty(pin))
				cpu = cpumask_first(pin);
			break;
		}
	}
	printk("sliver: console: asynchronous, drained by cpu%u\n", cpu);
	if (!conin_start_output(cpu))
		printk("sliver: console: no IOAPIC route: the console stays synchronous\n");
}
