/* drivers/console.c's drain on the host (issue 26): the real code (HOST_TEST replaces only
 * the pCPU id and the port 0xE9 probe) over a model of a 16550 whose 16-byte transmit FIFO
 * shifts one byte per tick and raises THR-empty on each transition to empty, as the
 * hardware does. The test drops THR-empty interrupts and shows the drain stalls for good
 * without the watchdog (console_watchdog) and resumes with it, every line whole and in
 * order; then seeded runs drop interrupts at random (CONDRAIN_SEEDS, default 200). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86_64/spinlock.h"
#include "drivers/console.h"
#include "drivers/fb.h"
#include "drivers/uart16550.h"

extern unsigned console_test_cpu;

/* --- the model UART and the rest of the console's world --- */
struct uart console_uart;
bool conport_uart_on = true;
static char fifo[16], wire[1 << 16];
static unsigned fifo_n, wire_n;
static bool thre_pending; /* an interrupt the model raised and the test has not delivered */

/* The lock checker is off here (one thread; console.c's lock still counts as a lock). */
bool lock_check_on;
void spin_lock_bug(const spinlock_t *l, const struct lockorder_bad *bad)
{
	(void)l, (void)bad;
	abort();
}

void uart_init(const struct uart *u)
{
	(void)u;
}
bool uart_tx_empty(const struct uart *u)
{
	(void)u;
	return fifo_n == 0;
}
void uart_put_nowait(const struct uart *u, char c)
{
	(void)u;
	assert_true(fifo_n < sizeof fifo); /* the drain never overfills the FIFO */
	fifo[fifo_n++] = c;
}
void uart_putc(const struct uart *u, char c)
{
	(void)u;
	wire[wire_n++] = c; /* polled: straight to the wire */
}
void uart_enable_tx_irq(const struct uart *u)
{
	(void)u;
	thre_pending = fifo_n == 0; /* the IER write raises THRE when the FIFO is empty */
}
void uart_drain(const struct uart *u)
{
	(void)u;
}
int uart_getc(const struct uart *u)
{
	(void)u;
	return -1;
}
uint8_t uart_irq_id(const struct uart *u)
{
	(void)u;
	return 1;
}
void uart_enable_rx_irq(const struct uart *u)
{
	(void)u;
}
void fb_write(const char *s, size_t n)
{
	(void)s, (void)n;
}

/* One byte-time: the transmitter shifts a byte out; on the transition to empty THR-empty
 * is raised. */
static void tick(void)
{
	if (!fifo_n)
		return;
	wire[wire_n++] = fifo[0];
	memmove(fifo, fifo + 1, --fifo_n);
	if (!fifo_n)
		thre_pending = true;
}

static unsigned dropped;

/* Delivers the pending THR-empty interrupt, or loses it when `drop` says so. */
static void deliver(bool drop)
{
	if (!thre_pending)
		return;
	thre_pending = false;
	if (drop) {
		dropped++;
		return;
	}
	console_tx_irq();
}

static void no_kick(void)
{
	fail_msg("the drain pCPU never kicks itself");
}

static void start(void)
{
	static bool inited;
	memset(wire, 0, sizeof wire);
	fifo_n = wire_n = 0;
	thre_pending = false;
	dropped = 0;
	console_test_cpu = 0;
	if (!inited) {
		console_init();
		console_start_async(0, no_kick); /* the test runs on the drain pCPU */
		inited = true;
	}
}

/* The expected wire: each line with \r before its \n. */
static size_t expect(char *out, unsigned first, unsigned n)
{
	size_t len = 0;
	for (unsigned i = first; i < first + n; i++)
		len += (size_t)sprintf(out + len, "line %u of the drain test\r\n", i);
	return len;
}

/* Ticks until the wire holds `want` bytes or nothing moves for 50 ticks; the watchdog (when
 * on) looks every 20 ticks, as CONSOLE_WATCHDOG_MS is many byte-times. */
static void run(size_t want, uint64_t seed, unsigned drop_per_1000, bool watchdog)
{
	unsigned idle = 0, t = 0;
	while (wire_n < want && idle < 200) {
		unsigned before = wire_n;
		tick();
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		deliver((seed >> 33) % 1000 < drop_per_1000);
		if (watchdog && ++t % 20 == 0)
			console_watchdog();
		idle = wire_n == before ? idle + 1 : 0;
	}
}

static unsigned next_line;

static void test_lost_interrupt_stalls_then_watchdog_resumes(void **state)
{
	(void)state;
	start();
	char want[4096];
	size_t n = expect(want, next_line, 10);
	for (unsigned i = 0; i < 10; i++)
		printk("line %u of the drain test\n", next_line + i);
	next_line += 10;
	/* The first THR-empty is lost: without the watchdog the drain stops for good. */
	tick();
	for (unsigned i = 0; i < 15; i++)
		tick();
	assert_true(thre_pending);
	deliver(true);
	run(n, 1, 0, false);
	assert_int_equal(dropped, 1);
	assert_int_equal(wire_n, 16); /* one FIFO's worth, then nothing */
	struct console_stats st;
	console_get_stats(&st);
	uint64_t kicks = st.watchdog_kicks;
	/* The watchdog's first look records the state, the second sees no progress. */
	run(n, 1, 0, true);
	assert_int_equal(wire_n, n);
	assert_memory_equal(wire, want, n);
	console_get_stats(&st);
	assert_int_equal(st.watchdog_kicks, kicks + 1);
	assert_int_equal(st.queued_bytes, 0);
}

static void test_watchdog_leaves_a_working_drain_alone(void **state)
{
	(void)state;
	start();
	struct console_stats st;
	console_get_stats(&st);
	uint64_t kicks = st.watchdog_kicks;
	char want[8192];
	size_t n = expect(want, next_line, 50);
	for (unsigned i = 0; i < 50; i++)
		printk("line %u of the drain test\n", next_line + i);
	next_line += 50;
	run(n, 2, 0, true);
	assert_memory_equal(wire, want, n);
	console_get_stats(&st);
	assert_int_equal(st.watchdog_kicks, kicks);
}

static void test_random_drops(void **state)
{
	(void)state;
	const char *e = getenv("CONDRAIN_SEEDS");
	unsigned seeds = e ? (unsigned)atoi(e) : 200, total = 0;
	for (uint64_t seed = 1; seed <= seeds; seed++) {
		start();
		static char want[1 << 15];
		unsigned lines = 1 + (unsigned)(seed % 40);
		size_t n = expect(want, next_line, lines);
		for (unsigned i = 0; i < lines; i++)
			printk("line %u of the drain test\n", next_line + i);
		next_line += lines;
		run(n, seed, 100 + (unsigned)(seed % 400), true); /* 10-50% of THR-empty lost */
		if (wire_n != n || memcmp(wire, want, n))
			fail_msg("seed %llu: %u of %zu bytes on the wire", (unsigned long long)seed,
				 wire_n, n);
		total += dropped;
	}
	printf("condrain: %u seeds, %u THR-empty interrupts dropped, every line whole and in "
	       "order\n",
	       seeds, total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_interrupt_stalls_then_watchdog_resumes),
		cmocka_unit_test(test_watchdog_leaves_a_working_drain_alone),
		cmocka_unit_test(test_random_drops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
