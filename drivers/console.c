/* The hypervisor console (docs/console.md). Until console_start_async() it writes
 * synchronously, polling the UART, whole writes under one lock (boot lines). After it,
 * nothing waits for the UART except the sync paths (panic, debug keys, power-off):
 * - printk assembles lines per pCPU and queues each whole line in a lock-free ring
 *   (lib/conring); guest lines (core/dcon.c) come whole through console_put_line.
 * - Two rings: the priority ring (the hypervisor's own lines and the service domain's,
 *   with a reserve only the hypervisor may use) is drained before the guest ring, one
 *   whole line at a time, so lines never interleave on the wire.
 * - The drain feeds the UART's 16-byte FIFO from its THR-empty interrupt
 *   (console_tx_irq). A producer that finds the transmitter idle kicks it: it fills the
 *   FIFO itself under a try-lock (at most 16 bytes, never waiting), since the 16550
 *   raises THRE only on the transition to empty. */
#include "drivers/console.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/spinlock.h"
#include "drivers/conport.h"
#include "drivers/fb.h"
#include "drivers/uart16550.h"
#include "lib/conring.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define BOCHS_E9_PORT 0xe9
#define UART_FIFO     16 /* bytes the 16550's transmit FIFO takes when THRE is set */
#define PRIO_SIZE     (16 * 1024)
#define GUEST_SIZE    (32 * 1024)
#define HV_RESERVE    (4 * 1024) /* of the priority ring: the hypervisor's lines only */
#define LINE_MAX      512

enum { PRIO, GUEST, NRINGS };

static spinlock_t lock = SPINLOCK_INIT(lock_console); /* synchronous writes */
static bool lock_broken, mirror_e9;
static volatile bool async;
static volatile int sync_cpu = -1; /* writes synchronously while it holds the drain */

static _Alignas(CONRING_ALIGN) uint8_t prio_mem[PRIO_SIZE];
static _Alignas(CONRING_ALIGN) uint8_t guest_mem[GUEST_SIZE];
static struct conring rings[NRINGS];

/* printk's line assembly, per pCPU (the hypervisor runs with interrupts off, so a pCPU
 * never prints from two contexts at once). */
static struct {
	char buf[LINE_MAX];
	uint32_t len;
} lines[MAX_CPUS];
static uint64_t hv_dropped; /* bytes of the hypervisor's lines the full ring refused */

/* The drain: one owner at a time (try-lock `drain_busy`); `want` asks the owner to look
 * again after it lets go, so a kick that finds it busy is never lost. The current record
 * stays in its ring until its last byte went out. */
static uint32_t drain_busy, want;
static bool tx_active; /* bytes are in the FIFO: a THRE interrupt will come */
static const char *cur;
static uint32_t cur_len, cur_off;
static int cur_ring = -1;
static uint32_t cur_tag;
static bool cr_sent;
static void (*consumed_hook)(unsigned tag, uint32_t len);
static uint64_t take_below[NRINGS] = {UINT64_MAX, UINT64_MAX};
static struct console_stats stats;
static int drain_cpu = -1;
static void (*remote_kick)(void);
static uint32_t kick_sent;
/* The watchdog's previous look (console_watchdog). */
static uint64_t wd_irqs, wd_bytes;

#ifdef HOST_TEST
unsigned console_test_cpu; /* test/unit/test_condrain.c: the pCPU it pretends to run on */
static unsigned cpu_id(void)
{
	return console_test_cpu;
}
#else
static unsigned cpu_id(void)
{
	return this_cpu()->id;
}
#endif

void console_init(void)
{
	uart_init(&console_uart); /* COM1 until conport_select() reads the command line */
#ifndef HOST_TEST
	/* Bochs' port_e9_hack reads back 0xE9; absent ports read 0xFF. */
	mirror_e9 = inb(BOCHS_E9_PORT) == BOCHS_E9_PORT;
#endif
	conring_init(&rings[PRIO], prio_mem, sizeof(prio_mem));
	conring_init(&rings[GUEST], guest_mem, sizeof(guest_mem));
}

bool console_is_bochs(void)
{
	return mirror_e9;
}

/* The wires besides the UART: Bochs' port 0xE9 and the framebuffer (a no-op unless
 * conport_select() chose it). */
static void emit_mirrors(char c)
{
	if (mirror_e9 && c != '\r')
		outb(BOCHS_E9_PORT, (uint8_t)c);
	fb_write(&c, 1);
}

static void emit_polled(char c)
{
	if (conport_uart_on)
		uart_putc(&console_uart, c);
	emit_mirrors(c);
}

static void write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			emit_polled('\r');
		emit_polled(s[i]);
	}
}

static void write_sync(const char *s, size_t n)
{
	if (lock_broken || sync_cpu >= 0) {
		write_raw(s, n);
		return;
	}
	spin_lock(&lock);
	write_raw(s, n);
	spin_unlock(&lock);
}

/* --- the drain (its owner only) --- */

/* The next byte for the wire ('\r' added before '\n'), or -1 when nothing is queued. */
static int next_byte(void)
{
	if (cur_ring < 0) {
		for (int r = 0; r < NRINGS && cur_ring < 0; r++) {
			uint32_t tag;
			uint64_t pos;
			cur = conring_peek(&rings[r], &cur_len, &tag, &pos);
			if (cur && pos < take_below[r]) {
				cur_ring = r;
				cur_off = 0;
				cur_tag = tag;
			}
		}
		if (cur_ring < 0)
			return -1;
	}
	char c = cur[cur_off];
	if (c == '\n' && !cr_sent) {
		cr_sent = true;
		return '\r';
	}
	cr_sent = false;
	if (++cur_off == cur_len) {
		conring_consume(&rings[cur_ring]);
		cur_ring = -1;
		if (consumed_hook && cur_tag)
			consumed_hook(cur_tag, cur_len);
	}
	return (unsigned char)c;
}

static unsigned fill_fifo(void)
{
	unsigned n = 0;
	int c;
	while (n < UART_FIFO && (c = next_byte()) >= 0) {
		uart_put_nowait(&console_uart, (char)c);
		emit_mirrors((char)c);
		n++;
	}
	stats.wire_bytes += n;
	return n;
}

static void drain_locked(void)
{
	if (!uart_tx_empty(&console_uart)) {
		__atomic_store_n(&tx_active, true, __ATOMIC_SEQ_CST); /* its THRE will come */
		return;
	}
	__atomic_store_n(&tx_active, fill_fifo() > 0, __ATOMIC_SEQ_CST);
}

static bool drain_trylock(void)
{
	return !__atomic_exchange_n(&drain_busy, 1, __ATOMIC_SEQ_CST);
}

static void drain(void)
{
	for (unsigned tries = 0; tries < 8; tries++) {
		if (!drain_trylock())
			return; /* the owner sees `want` when it lets go */
		__atomic_store_n(&want, 0, __ATOMIC_SEQ_CST);
		drain_locked();
		__atomic_store_n(&drain_busy, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&want, __ATOMIC_SEQ_CST))
			return;
	}
}

/* After a commit: on the drain pCPU, fill the idle FIFO at once; elsewhere, ask the drain
 * pCPU with one interrupt (at most one outstanding), so a latency domain's pCPU spends no
 * time on port I/O. */
static void kick(void)
{
	__atomic_store_n(&want, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tx_active, __ATOMIC_SEQ_CST))
		return; /* a THRE interrupt will come */
	if (remote_kick && (int)cpu_id() != drain_cpu) {
		if (!__atomic_exchange_n(&kick_sent, 1, __ATOMIC_SEQ_CST))
			remote_kick();
		return;
	}
	drain();
}

void console_kicked(void)
{
	__atomic_store_n(&kick_sent, 0, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&tx_active, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&want, 1, __ATOMIC_SEQ_CST);
		drain();
	}
}

void console_tx_irq(void)
{
	stats.tx_irqs++;
	__atomic_store_n(&want, 1, __ATOMIC_SEQ_CST);
	drain();
}

/* A lost THR-empty interrupt (a UART or an interrupt path that drops one) leaves
 * tx_active set with the transmitter empty, and nothing would feed it again until
 * power-off's drain. Called on the drain pCPU CONSOLE_WATCHDOG_MS after its last UART
 * interrupt and every period while output is in flight (core/conin.c): when, since its
 * previous look, no
 * THR-empty interrupt came and no byte went out, yet bytes were in flight and the
 * transmitter is empty now, the interrupt was lost: it re-kicks the drain. */
bool console_watchdog(void)
{
	if (!async || lock_broken || sync_cpu >= 0)
		return false;
	bool stalled = __atomic_load_n(&tx_active, __ATOMIC_SEQ_CST) && stats.tx_irqs == wd_irqs &&
		       stats.wire_bytes == wd_bytes && uart_tx_empty(&console_uart);
	if (stalled) {
		stats.watchdog_kicks++;
		__atomic_store_n(&tx_active, false, __ATOMIC_SEQ_CST);
		__atomic_store_n(&want, 1, __ATOMIC_SEQ_CST);
		drain();
	}
	wd_irqs = stats.tx_irqs;
	wd_bytes = stats.wire_bytes;
	return __atomic_load_n(&tx_active, __ATOMIC_SEQ_CST);
}

/* --- producers --- */

static bool put_record(int r, unsigned tag, uint32_t limit, const char *note, size_t note_len,
		       const char *s, size_t n)
{
	uint64_t pos;
	char *p = conring_reserve(&rings[r], (uint32_t)(note_len + n), tag, limit, &pos);
	if (!p)
		return false;
	memcpy(p, note, note_len);
	memcpy(p + note_len, s, n);
	conring_commit(&rings[r], pos);
	kick();
	return true;
}

void console_set_consumed_hook(void (*fn)(unsigned tag, uint32_t len))
{
	consumed_hook = fn;
}

uint32_t console_ring_limit(bool priority)
{
	return priority ? PRIO_SIZE - HV_RESERVE : GUEST_SIZE;
}

uint32_t console_room(bool priority)
{
	uint64_t used = conring_used(&rings[priority ? PRIO : GUEST]);
	uint32_t limit = console_ring_limit(priority);
	return used >= limit ? 0 : limit - (uint32_t)used;
}

bool console_put_line(unsigned dom, bool priority, const char *s, size_t n)
{
	if (!async || sync_cpu == (int)cpu_id() || lock_broken) {
		write_sync(s, n);
		return true;
	}
	bool ok = priority ? put_record(PRIO, dom, PRIO_SIZE - HV_RESERVE, "", 0, s, n)
			   : put_record(GUEST, dom, GUEST_SIZE, "", 0, s, n);
	if (!ok)
		__atomic_fetch_add(&stats.dropped_bytes, n, __ATOMIC_RELAXED);
	return ok;
}

/* One of the hypervisor's lines; after a refusal, the next one that fits says so. */
static void hv_line(const char *s, size_t n)
{
	char note[64] = "";
	size_t nl = 0;
	uint64_t lost = __atomic_load_n(&hv_dropped, __ATOMIC_RELAXED);
	if (lost)
		nl = (size_t)fmt_snprintf(note, sizeof(note),
					  "[console ring full: %lu bytes dropped]\n",
					  (unsigned long)lost);
	if (put_record(PRIO, 0, PRIO_SIZE, note, nl, s, n)) {
		if (lost)
			__atomic_fetch_sub(&hv_dropped, lost, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&hv_dropped, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stats.dropped_bytes, n, __ATOMIC_RELAXED);
	}
}

void console_write(const char *s, size_t n)
{
	if (!async || lock_broken) {
		write_sync(s, n);
		return;
	}
	unsigned me = cpu_id();
	if (sync_cpu == (int)me) {
		write_raw(s, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		lines[me].buf[lines[me].len++] = s[i];
		if (s[i] == '\n' || lines[me].len == LINE_MAX) {
			hv_line(lines[me].buf, lines[me].len);
			lines[me].len = 0;
		}
	}
}

void vprintk(const char *fmt, va_list ap)
{
	char buf[LINE_MAX];
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

/* --- going asynchronous, and the synchronous paths --- */

void console_start_async(unsigned cpu, void (*kick_cpu)(void))
{
	drain_cpu = (int)cpu;
	remote_kick = kick_cpu;
	__atomic_store_n(&async, true, __ATOMIC_SEQ_CST);
	uart_enable_tx_irq(&console_uart);
	kick();
}

bool console_is_async(void)
{
	return async;
}

/* Takes the drain; false after `spins` tries (its owner may be stopped for good). */
static bool drain_take(uint64_t spins)
{
	while (!drain_trylock())
		if (!spins--)
			return false;
		else
			cpu_relax();
	return true;
}

/* Writes queued lines, polling, until the rings are empty below the positions they had
 * when called, or the TSC passes deadline. The drain must be ours. */
static void flush_polled(uint64_t deadline_tsc)
{
	for (int r = 0; r < NRINGS; r++)
		take_below[r] = conring_head(&rings[r]);
	while (rdtsc() < deadline_tsc) {
		if (!uart_tx_empty(&console_uart)) {
			cpu_relax();
			continue;
		}
		if (fill_fifo())
			continue;
		/* Nothing to take: done, unless a line below the mark is still being written. */
		bool pending = false;
		for (int r = 0; r < NRINGS; r++)
			pending |=
				__atomic_load_n(&rings[r].tail, __ATOMIC_ACQUIRE) < take_below[r];
		if (!pending)
			break;
		cpu_relax();
	}
	for (int r = 0; r < NRINGS; r++)
		take_below[r] = UINT64_MAX;
}

/* Finishes the line on the wire, so that what is written next starts a line. */
static void finish_line(void)
{
	while (cur_ring >= 0) {
		int c = next_byte();
		if (c >= 0)
			emit_polled((char)c);
	}
}

void console_sync_begin(void)
{
	if (!async || lock_broken || !drain_take(1u << 24))
		return; /* (not taken: the output is queued like any other) */
	finish_line();
	sync_cpu = (int)cpu_id();
}

void console_sync_end(void)
{
	if (!async || lock_broken || sync_cpu != (int)cpu_id())
		return;
	sync_cpu = -1;
	__atomic_store_n(&want, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&tx_active, false, __ATOMIC_SEQ_CST);
	drain_locked();
	__atomic_store_n(&drain_busy, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&want, __ATOMIC_SEQ_CST))
		drain();
}

void console_break_lock(uint64_t deadline_tsc)
{
	if (async && !lock_broken) {
		drain_take(1u << 20); /* taken or broken: the other pCPUs are being stopped */
		finish_line();
		flush_polled(deadline_tsc);
		sync_cpu = (int)cpu_id();
	}
	lock_broken = true;
}

void console_drain(uint64_t deadline_tsc)
{
	static bool flushed;
	if (async && !lock_broken && !flushed) {
		unsigned me = cpu_id();
		if (sync_cpu != (int)me)
			drain_take(1u << 20);
		/* This pCPU's unfinished line goes out too. */
		if (lines[me].len) {
			hv_line(lines[me].buf, lines[me].len);
			lines[me].len = 0;
		}
		finish_line();
		flush_polled(deadline_tsc);
		flushed = true;
		sync_cpu = (int)me;
		printk("sliver: console: wire_bytes=%lu thre_irqs=%lu dropped_bytes=%lu "
		       "watchdog_kicks=%lu\n",
		       (unsigned long)stats.wire_bytes, (unsigned long)stats.tx_irqs,
		       (unsigned long)stats.dropped_bytes, (unsigned long)stats.watchdog_kicks);
		/* From here on this pCPU writes synchronously and keeps the drain: the others'
		 * lines stay queued, so none is cut into the last ones. */
		sync_cpu = (int)me;
	}
	if (conport_uart_on)
		uart_drain(&console_uart);
}

void console_get_stats(struct console_stats *s)
{
	*s = stats;
	s->queued_bytes = conring_used(&rings[PRIO]) + conring_used(&rings[GUEST]);
}

int console_getc(void)
{
	return conport_uart_on ? uart_getc(&console_uart) : -1;
}

uint8_t console_irq_id(void)
{
	return conport_uart_on ? uart_irq_id(&console_uart) : 1; /* bit 0: none pending */
}

void console_enable_rx_irq(void)
{
	if (conport_uart_on)
		uart_enable_rx_irq(&console_uart);
}
