/* The domain console: bytes from HC_CONSOLE_WRITE, COM1 and port 0xE9 are collected into
 * lines and queued with the "(d<id>) " prefix, one whole line at a time, in the console's
 * rings (drivers/console.c): a write costs a bounded copy, never a wait for the UART.
 * Every domain but the service domain is rate-limited (a token bucket of bytes, refilled
 * continuously): a flooding guest cannot drown the others or the hypervisor, whose own
 * lines share the same UART. What the rate limit drops is counted and reported in the
 * domain's next line that gets through (docs/console.md gives the formats).
 *
 * Backpressure instead of drops (issue 27): a finished line that finds no room (the ring is
 * full, or the domain already has its share of the guest ring queued) stays in its vCPU's
 * line buffer, "held", and the vCPU waits: its UART says the transmitter is busy and a
 * vCPU that waits for it (HC_CONSOLE_WRITE, an LSR poll, a THR write) blocks in the
 * scheduler until the drain has made room; the UART's interrupt wakes it (dcon_drained).
 * No pCPU spins for it. Each domain may fill at most a quarter of the guest ring, so a
 * flooding domain never fills it for the others, and since the drain takes records in
 * order, every domain's lines wait behind at most a share of each other domain's. */
#include "arch/x86_64/tsc.h"
#include "core/pc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "core/bootargs.h"
#include "lib/string.h"
#include "core/conin.h"

static uint64_t rate = 2048, burst = 8192; /* bytes/s, bytes: a UART does ~11 KB/s */

/* Bytes of each domain's records in the console's rings (added before a record is queued,
 * taken off by the drain, console_set_consumed_hook): its share is checked against it. */
static uint32_t queued[SLIVER_MAX_DOMS];
/* Domains with a vCPU waiting for room (bit per id; each domain's con.waiting has a bit per
 * vCPU); `wake_from` makes the wake-ups go round the domains in turn. */
static uint64_t waiting_doms[SLIVER_MAX_DOMS / 64];
static unsigned wake_from;
_Static_assert(SLIVER_MAX_VCPUS <= 64, "con.waiting has a bit per vCPU");

/* A domain waits until its ring has DCON_WAKE_ROOM bytes free and, outside the service
 * domain, until its queued bytes are DCON_WAKE_ROOM under its share: a woken writer then
 * queues a few lines at once instead of one per wake-up (about one wake-up per 2 KiB, i.e.
 * per 180 ms of UART time). Larger than any record dcon queues. */
#define DCON_WAKE_ROOM 2048u

static void consumed(unsigned tag, uint32_t len)
{
	if (tag < SLIVER_MAX_DOMS)
		__atomic_fetch_sub(&queued[tag], len, __ATOMIC_SEQ_CST);
}

static bool is_service(const struct domain *d)
{
	return d->role == SLIVER_ROLE_SERVICE;
}

/* Each domain's part of the guest ring: a quarter, so that three flooding domains still
 * leave room for everybody else's lines. The service domain's lines go to the priority
 * ring, which it shares only with the hypervisor's: no share there. */
static uint32_t share(void)
{
	return console_ring_limit(false) / 4;
}

void dcon_init(const char *cmdline)
{
	(void)cmdline; /* the keys are checked and read through core/bootargs.c */
	rate = bootarg_u64("console.rate");
	burst = bootarg_u64("console.burst");
	if (rate && burst < DCON_LINE + 16)
		burst = DCON_LINE + 16; /* a whole line must be able to pass */
	console_set_consumed_hook(consumed);
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

/* One record of d's into its ring, counted in queued[] (before it can be drained, so the
 * drain never subtracts first; while the console is synchronous nothing is queued). */
static bool queue_record(struct domain *d, const char *buf, size_t n)
{
	bool count = console_is_async();
	if (count)
		__atomic_fetch_add(&queued[d->id], (uint32_t)n, __ATOMIC_SEQ_CST);
	if (console_put_line(d->id, is_service(d), buf, n))
		return true;
	if (count)
		__atomic_fetch_sub(&queued[d->id], (uint32_t)n, __ATOMIC_SEQ_CST);
	return false;
}

/* Queues the finished line l (its len bytes and a newline), preceded by the drop notes:
 * false when there is no room for it now (the ring is full, or the domain has its share
 * queued; `force`: the share is not looked at). */
static bool put_locked(struct domain *d, struct dcon_line *l, bool force)
{
	char buf[2 * 64 + DCON_LINE + 16];
	size_t n = 0;
	if (d->con.dropped)
		n += drop_note(buf + n, d->id, "rate limit", d->con.dropped, "");
	if (d->con.ring_dropped)
		n += drop_note(buf + n, d->id, "ring full", d->con.ring_dropped, "");
	n += prefix(buf + n, d->id);
	memcpy(buf + n, l->line, l->len); /* buf has room: len <= DCON_LINE */
	n += l->len;
	buf[n++] = '\n';
	if (!is_service(d) && !force && console_is_async() &&
	    __atomic_load_n(&queued[d->id], __ATOMIC_SEQ_CST) + n > share())
		return false;
	if (!queue_record(d, buf, n))
		return false;
	d->con.dropped = 0;
	d->con.ring_dropped = 0;
	l->len = 0;
	l->held = false;
	return true;
}

/* The line in l is finished: the rate limit drops it (counted), or it is queued, or it
 * stays held until there is room (the caller makes its vCPU wait: dcon_wait). */
static void finish_locked(struct domain *d, struct dcon_line *l)
{
	if (!allowed(d, l->len + 8)) {
		d->con.dropped += l->len + 1;
		l->len = 0;
		return;
	}
	l->held = true;
	put_locked(d, l, false);
}

static void putc_locked(struct domain *d, struct dcon_line *l, char c)
{
	if (c == '\n') {
		finish_locked(d, l);
		return;
	}
	if (c == '\r')
		return;
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '?';
	l->line[l->len++] = c;
	if (l->len == DCON_LINE)
		finish_locked(d, l);
}

/* Lines are assembled per vCPU (a domain's vCPUs print at once on several pCPUs), the
 * rate limit and the drop counts are per domain. The caller checked dcon_busy first: a
 * vCPU with a held line takes no byte. */
void dcon_putc(struct vcpu *v, char c)
{
	struct domain *d = v->dom;
	spin_lock(&d->con.lock);
	if (!v->con.held)
		putc_locked(d, &v->con, c);
	spin_unlock(&d->con.lock);
}

bool dcon_busy(struct vcpu *v)
{
	if (!__atomic_load_n(&v->con.held, __ATOMIC_ACQUIRE))
		return false;
	struct domain *d = v->dom;
	spin_lock(&d->con.lock);
	if (v->con.held)
		put_locked(d, &v->con, false);
	bool held = v->con.held;
	spin_unlock(&d->con.lock);
	return held;
}

/* The hot path of HC_CONSOLE_WRITE: runs of printable bytes are copied into the line in a
 * tight loop (an emulator charges every instruction, and the pCPU is not preemptible
 * here); newlines and control bytes take putc_locked. Stops after the byte that finished
 * a line that had to be held: returns the bytes taken. */
uint64_t dcon_write(struct vcpu *v, const char *s, uint64_t n)
{
	struct domain *d = v->dom;
	struct dcon_line *l = &v->con;
	spin_lock(&d->con.lock);
	if (l->held)
		put_locked(d, l, false);
	uint64_t i = 0;
	while (i < n && !l->held) {
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
			finish_locked(d, l);
		else if (i < n)
			putc_locked(d, l, s[i++]);
	}
	spin_unlock(&d->con.lock);
	return i;
}

/* ---- waiting for room ---- */

/* Could v's held line go in now (or has it none)? Read without the domain's lock: the
 * answer only decides whether v sleeps, and a wrong "yes" costs one more try. */
bool dcon_room_for(struct vcpu *v)
{
	struct domain *d = v->dom;
	if (!__atomic_load_n(&v->con.held, __ATOMIC_ACQUIRE))
		return true;
	/* The record: notes, prefix, the line and its newline, its header; in the ring maybe
	 * twice that (a record that would cross the ring's end is preceded by padding to it),
	 * so that "room" never says yes to a line the ring then refuses (which would spin). */
	uint32_t rec = v->con.len + 2 * 64 + 48;
	bool svc = is_service(d);
	if (console_room(svc) < 2 * rec)
		return false;
	return svc || __atomic_load_n(&queued[d->id], __ATOMIC_SEQ_CST) + rec <= share();
}

enum exit_action dcon_wait(struct vcpu *v)
{
	struct domain *d = v->dom;
	v->con_wait = true;
	v->con_wait_if = hv_guest_if(v->hv);
	/* The vCPU's bit before the domain's (dcon_drained clears them in the other order),
	 * both before the look at the room that decides the block (vcpu_block_refused, under
	 * the run-queue lock): a drain that made room after this is seen by that look or wakes
	 * it (SEQ_CST on both sides). */
	__atomic_fetch_or(&d->con.waiting, 1ull << v->id, __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&waiting_doms[d->id / 64], 1ull << (d->id % 64), __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&d->con.waits, 1, __ATOMIC_RELAXED);
	return ACT_HALT;
}

/* Wakes the waiting vCPUs of d when its ring (and share) has DCON_WAKE_ROOM bytes free. */
static void wake_dom(struct domain *d, unsigned id)
{
	bool svc = is_service(d);
	if (!d->dying) {
		if (console_room(svc) < DCON_WAKE_ROOM)
			return;
		if (!svc &&
		    __atomic_load_n(&queued[id], __ATOMIC_SEQ_CST) + DCON_WAKE_ROOM > share())
			return;
	}
	__atomic_fetch_and(&waiting_doms[id / 64], ~(1ull << (id % 64)), __ATOMIC_SEQ_CST);
	uint64_t m = __atomic_exchange_n(&d->con.waiting, 0, __ATOMIC_SEQ_CST);
	for (; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		if (i < d->nr_vcpus && d->vcpu[i])
			vcpu_wake_console(d->vcpu[i]);
	}
}

/* After the drain took records out (the UART's interrupt, core/conin.c; no lock held):
 * wakes the waiters that have room now, going round the domains from the one after the
 * last woken, so that none always comes first. */
void dcon_drained(void)
{
	unsigned words = SLIVER_MAX_DOMS / 64, start = wake_from;
	for (unsigned k = 0; k <= words; k++) {
		unsigned w = (start / 64 + k) % words;
		uint64_t bits = __atomic_load_n(&waiting_doms[w], __ATOMIC_SEQ_CST);
		if (k == 0)
			bits &= ~0ull << (start % 64); /* from `start` on ... */
		else if (k == words)
			bits &= (start % 64) ? ~(~0ull << (start % 64)) : 0; /* ... round to it */
		for (; bits; bits &= bits - 1) {
			unsigned id = w * 64 + (unsigned)__builtin_ctzll(bits);
			struct domain *d = domains[id];
			if (!d) { /* (a domain's struct outlives it: not reached) */
				__atomic_fetch_and(&waiting_doms[w], ~(1ull << (id % 64)),
						   __ATOMIC_SEQ_CST);
				continue;
			}
			wake_dom(d, id);
			wake_from = (id + 1) % SLIVER_MAX_DOMS;
		}
	}
}

/* Called once a domain ends: its held and unfinished lines go out (its share is not
 * looked at: nothing of the domain follows them; a full ring drops them, counted), and so
 * do the drop notes its last lines were owed (they come with the next line that passes,
 * and an ended domain has no next line), as "[... bytes dropped, domain ended]". They skip
 * the rate limit: one short record per domain's end. */
void dcon_flush(struct domain *d)
{
	spin_lock(&d->con.lock);
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct dcon_line *l = d->vcpu[i] ? &d->vcpu[i]->con : NULL;
		if (!l || (!l->held && !l->len))
			continue;
		if (!put_locked(d, l, true)) {
			d->con.ring_dropped += l->len + 1;
			l->len = 0;
			l->held = false;
		}
	}
	char buf[2 * 80];
	size_t n = 0;
	if (d->con.dropped)
		n += drop_note(buf + n, d->id, "rate limit", d->con.dropped, ", domain ended");
	if (d->con.ring_dropped)
		n += drop_note(buf + n, d->id, "ring full", d->con.ring_dropped, ", domain ended");
	if (n && queue_record(d, buf, n)) {
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
	conin_set_drained(dcon_drained);
	if (!conin_start_output(cpu))
		printk("sliver: console: no IOAPIC route: the console stays synchronous\n");
}

/* COM1's state is the console's (struct dcon: the 16550 model and its line, under con.lock);
 * its ports are exit_io.c's. */
#define COM1_IRQ 4

/* A PC domain's IRQ 4 follows the UART's interrupt output (con.lock held: the level driven
 * last is the one the registers say, whichever pCPU changed them). */
void com1_irq(struct domain *d)
{
	struct dcon *c = &d->con;
	spin_assert_held(&c->lock); /* uart and uart_line are the dcon lock's (rank 20) */
	bool level = vuart_irq(&c->uart);
	if (!d->pc || level == c->uart_line)
		return;
	c->uart_line = level;
	pc_pic_set_irq(d, COM1_IRQ, level);
	pc_ioapic_set_irq(d, COM1_IRQ, level);
}

bool com1_receive(struct domain *d, uint8_t b)
{
	spin_lock(&d->con.lock);
	bool ok = vuart_rx(&d->con.uart, b);
	com1_irq(d);
	spin_unlock(&d->con.lock);
	return ok;
}
