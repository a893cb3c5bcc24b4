/* core/vuart.c, the emulated COM1's registers: the receive FIFO and its interrupt (the
 * hypervisor's UART ping, core/ping.c), IIR's priorities (PC16550D table IV), the FIFO bits a
 * driver probes, the divisor latch; then a generated run of register accesses and received
 * bytes against a plain queue (seed: VUART_SEED=<n> replays one; the default runs 1..200). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/vuart.h"

static struct vuart pc_uart(void)
{
	return (struct vuart){.intr = true, .mcr = VUART_MCR_OUT2};
}

static uint8_t rd(struct vuart *u, unsigned reg)
{
	return vuart_in(u, reg);
}

static void wr(struct vuart *u, unsigned reg, uint8_t val)
{
	uint8_t tx;
	assert_false(vuart_out(u, reg, val, &tx));
}

static void test_fifo_probe(void **state)
{
	(void)state;
	struct vuart u = pc_uart();
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE); /* a 16450 until FCR says */
	wr(&u, VUART_FCR, VUART_FCR_ENABLE);
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_FIFOS | VUART_IIR_NONE);
	wr(&u, VUART_FCR, 0);
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE);
	/* FCR's address is written whatever DLAB says (no EFR behind LCR 0xBF) */
	wr(&u, VUART_LCR, 0xbf);
	wr(&u, VUART_FCR, VUART_FCR_ENABLE);
	assert_int_equal(rd(&u, VUART_IIR) & VUART_IIR_FIFOS, VUART_IIR_FIFOS);
}

static void test_rx_16450(void **state)
{
	(void)state;
	struct vuart u = pc_uart();
	assert_true(vuart_rx(&u, 'a'));
	assert_int_equal(rd(&u, VUART_LSR), VUART_LSR_THRE | VUART_LSR_TEMT | VUART_LSR_DR);
	assert_int_equal(vuart_iir(&u), VUART_IIR_NONE); /* ERBFI off */
	assert_false(vuart_irq(&u));
	wr(&u, VUART_IER, VUART_IER_ERBFI);
	assert_int_equal(vuart_iir(&u), VUART_IIR_RDA);
	assert_true(vuart_irq(&u));
	u.mcr = 0;
	assert_false(vuart_irq(&u)); /* OUT2 gates the line */
	u.mcr = VUART_MCR_OUT2;
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_RDA); /* reading IIR does not clear it */
	assert_int_equal(rd(&u, VUART_RBR), 'a');
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE);
	assert_false(vuart_irq(&u));
	assert_int_equal(rd(&u, VUART_LSR) & VUART_LSR_DR, 0);
	assert_int_equal(rd(&u, VUART_RBR), 0); /* empty */
	/* one receiver buffer register: a second byte overwrites the first, OE until LSR */
	assert_true(vuart_rx(&u, 'b'));
	assert_false(vuart_rx(&u, 'c'));
	assert_int_equal(rd(&u, VUART_LSR) & (VUART_LSR_OE | VUART_LSR_DR),
			 VUART_LSR_OE | VUART_LSR_DR);
	assert_int_equal(rd(&u, VUART_LSR) & VUART_LSR_OE, 0);
	assert_int_equal(rd(&u, VUART_RBR), 'c');
	assert_int_equal(u.rx_overruns, 1);
	assert_int_equal(u.rx_bytes, 3);
}

static void test_priority(void **state)
{
	(void)state;
	struct vuart u = pc_uart();
	uint8_t tx = 0;
	wr(&u, VUART_IER, VUART_IER_ERBFI | VUART_IER_ETBEI | VUART_IER_ELSI);
	assert_int_equal(vuart_iir(&u), VUART_IIR_THRE); /* ETBEI 0 -> 1, THR empty */
	assert_true(vuart_out(&u, VUART_RBR, 'x', &tx));
	assert_int_equal(tx, 'x');
	assert_true(vuart_rx(&u, 'y'));
	/* received data before THR empty; the IIR read that reports it leaves THRE pending */
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_RDA);
	assert_int_equal(rd(&u, VUART_RBR), 'y');
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_THRE);
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE); /* that read cleared it */
	/* an overrun (line status) before everything, until LSR is read */
	assert_true(vuart_rx(&u, '1'));
	assert_false(vuart_rx(&u, '2'));
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_RLS);
	(void)rd(&u, VUART_LSR);
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_RDA);
	/* clearing ETBEI clears a pending THRE; MSR does not change */
	assert_true(vuart_out(&u, VUART_RBR, 'z', &tx));
	wr(&u, VUART_IER, VUART_IER_ERBFI);
	(void)rd(&u, VUART_RBR);
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE);
	assert_int_equal(rd(&u, VUART_MSR), 0xb0);
}

static void test_fifo_trigger(void **state)
{
	(void)state;
	struct vuart u = pc_uart();
	wr(&u, VUART_IER, VUART_IER_ERBFI | VUART_IER_ELSI);
	wr(&u, VUART_FCR, VUART_FCR_ENABLE | 0x80); /* trigger level 8, as Linux sets it */
	for (unsigned i = 0; i < 7; i++)
		assert_true(vuart_rx(&u, (uint8_t)('A' + i)));
	assert_int_equal(vuart_iir(&u), VUART_IIR_FIFOS | VUART_IIR_TIMEOUT);
	assert_true(vuart_irq(&u)); /* the character timeout: at once, no time passes */
	assert_true(vuart_rx(&u, 'H'));
	assert_int_equal(vuart_iir(&u), VUART_IIR_FIFOS | VUART_IIR_RDA);
	for (unsigned i = 8; i < VUART_FIFO; i++)
		assert_true(vuart_rx(&u, (uint8_t)('A' + i)));
	assert_false(vuart_rx(&u, '!')); /* full: lost */
	assert_int_equal(vuart_iir(&u), VUART_IIR_FIFOS | VUART_IIR_RLS);
	(void)rd(&u, VUART_LSR);
	for (unsigned i = 0; i < VUART_FIFO; i++)
		assert_int_equal(rd(&u, VUART_RBR), 'A' + i);
	assert_int_equal(vuart_iir(&u), VUART_IIR_FIFOS | VUART_IIR_NONE);
	/* the RCVR FIFO reset bit empties it, and so does turning the FIFOs off */
	assert_true(vuart_rx(&u, 'q'));
	wr(&u, VUART_FCR, VUART_FCR_ENABLE | VUART_FCR_CLR_RX);
	assert_int_equal(rd(&u, VUART_LSR) & VUART_LSR_DR, 0);
	assert_true(vuart_rx(&u, 'q'));
	wr(&u, VUART_FCR, 0);
	assert_int_equal(rd(&u, VUART_LSR) & VUART_LSR_DR, 0);
}

static void test_dlab_and_no_intr(void **state)
{
	(void)state;
	struct vuart u = {0}; /* a sliver-ABI domain: no interrupt model */
	uint8_t tx = 0;
	wr(&u, VUART_LCR, VUART_LCR_DLAB);
	wr(&u, VUART_RBR, 0x0c);
	wr(&u, VUART_IER, 0x01);
	assert_int_equal(rd(&u, VUART_RBR), 0x0c);
	assert_int_equal(rd(&u, VUART_IER), 0x01);
	wr(&u, VUART_LCR, 0x03);
	assert_int_equal(rd(&u, VUART_IER), 0);
	wr(&u, VUART_IER, 0xff);
	assert_int_equal(rd(&u, VUART_IER), 0x0f);
	assert_true(vuart_out(&u, VUART_RBR, 'k', &tx));
	assert_true(vuart_rx(&u, 'r'));
	assert_int_equal(rd(&u, VUART_IIR), VUART_IIR_NONE);
	assert_int_equal(rd(&u, VUART_LSR) & VUART_LSR_DR, VUART_LSR_DR); /* polled input works */
	assert_int_equal(rd(&u, VUART_RBR), 'r');
	wr(&u, VUART_SCR, 0x5a);
	assert_int_equal(rd(&u, VUART_SCR), 0x5a);
}

static uint64_t rng;
static unsigned next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Random accesses; a plain queue says what RBR must return. FIFOs stay on or off for a
 * whole run (a toggle empties both). */
static void gen_run(uint64_t seed)
{
	rng = seed * 2654435761u + 1;
	struct vuart u = pc_uart();
	bool fifo = seed & 1;
	unsigned cap = fifo ? VUART_FIFO : 1;
	uint8_t q[VUART_FIFO], head = 0, n = 0, b = 0;
	wr(&u, VUART_FCR, fifo ? (uint8_t)(VUART_FCR_ENABLE | (next(4) << 6)) : 0);
	for (unsigned step = 0; step < 2000; step++) {
		unsigned op = next(6);
		if (op <= 1) {
			bool ok = vuart_rx(&u, b);
			if (n < cap) {
				assert_true(ok);
				q[(head + n++) % VUART_FIFO] = b;
			} else {
				assert_false(ok);
				if (!fifo)
					q[head] = b;
			}
			b++;
		} else if (op == 2) {
			uint8_t got = rd(&u, VUART_RBR);
			if (n) {
				if (got != q[head])
					fail_msg("seed %lu step %u: RBR %u, want %u",
						 (unsigned long)seed, step, got, q[head]);
				head = (uint8_t)((head + 1) % VUART_FIFO), n--;
			}
		} else if (op == 3) {
			wr(&u, VUART_IER, (uint8_t)next(16));
		} else if (op == 4) {
			assert_int_equal(!!(rd(&u, VUART_LSR) & VUART_LSR_DR), n > 0);
		} else {
			(void)rd(&u, VUART_IIR);
		}
		uint8_t iir = vuart_iir(&u);
		assert_int_equal(iir & VUART_IIR_FIFOS, fifo ? VUART_IIR_FIFOS : 0);
		assert_int_equal(vuart_irq(&u), !(iir & VUART_IIR_NONE));
		if ((u.ier & VUART_IER_ERBFI) && n && !((u.ier & VUART_IER_ELSI) && u.oe))
			assert_true((iir & 0x0f) == VUART_IIR_RDA ||
				    (iir & 0x0f) == VUART_IIR_TIMEOUT);
	}
}

static void test_generated(void **state)
{
	(void)state;
	const char *s = getenv("VUART_SEED");
	if (s) {
		gen_run(strtoull(s, NULL, 0));
		return;
	}
	for (uint64_t seed = 1; seed <= 200; seed++)
		gen_run(seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_probe),	 cmocka_unit_test(test_rx_16450),
		cmocka_unit_test(test_priority),	 cmocka_unit_test(test_fifo_trigger),
		cmocka_unit_test(test_dlab_and_no_intr), cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
