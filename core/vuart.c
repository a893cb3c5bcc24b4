/* The emulated COM1's registers (core/vuart.h), after the National PC16550D datasheet:
 * - Transmit: a THR write sends the byte at once (the caller prints it), so LSR always says
 *   THRE | TEMT, and the THR-empty interrupt becomes pending after each THR write and when
 *   ETBEI goes 0 -> 1 (the transmitter is empty then); the IIR read that reports it, or
 *   clearing ETBEI, clears it ("Interrupt Identification Register", table IV).
 * - Receive: a 16-byte FIFO (vuart_rx, the hypervisor's ping source in core/ping.c). RBR pops
 *   the oldest byte; LSR DR says the FIFO holds one; a byte that finds it full is lost and sets
 *   OE (cleared by the LSR read). With FCR bit 0 clear (the 16450 mode) there is one receiver
 *   buffer register, a new byte overwrites an unread one (OE), and the trigger level is one
 *   byte; with it set IIR says so in bits 7:6 (a driver then takes it for a 16550A) and FCR
 *   bits 7:6 choose 1, 4, 8 or 14. Data below the trigger level is reported as the character
 *   timeout (IIR 0x0C): the datasheet's timeout is 4 character times without a byte moving,
 *   and no time passes on this line (as no time passes for a byte sent), so it is due at once.
 * - IIR priority (table IV): receiver line status (ELSI, OE) > received data (ERBFI: at the
 *   trigger level, or timeout) > THR empty (ETBEI) > modem status (never: MSR does not
 *   change). Each source clears as its own event says: RBR reads below the level, LSR read,
 *   IIR read or THR write, respectively.
 * - The divisor latch, LCR, MCR and SCR keep what was written; MSR reads DCD DSR CTS. */
#include "core/vuart.h"

static uint8_t trigger(const struct vuart *u)
{
	static const uint8_t levels[4] = {1, 4, 8, 14};
	return (u->fcr & VUART_FCR_ENABLE) ? levels[u->fcr >> 6] : 1;
}

uint8_t vuart_iir(const struct vuart *u)
{
	uint8_t fifos = (u->fcr & VUART_FCR_ENABLE) ? VUART_IIR_FIFOS : 0, id = VUART_IIR_NONE;
	if (!u->intr)
		id = VUART_IIR_NONE;
	else if ((u->ier & VUART_IER_ELSI) && u->oe)
		id = VUART_IIR_RLS;
	else if ((u->ier & VUART_IER_ERBFI) && u->rx_n)
		id = u->rx_n >= trigger(u) ? VUART_IIR_RDA : VUART_IIR_TIMEOUT;
	else if ((u->ier & VUART_IER_ETBEI) && u->thre)
		id = VUART_IIR_THRE;
	return fifos | id;
}

bool vuart_irq(const struct vuart *u)
{
	return !(vuart_iir(u) & VUART_IIR_NONE) && (u->mcr & VUART_MCR_OUT2);
}

static void rx_clear(struct vuart *u)
{
	u->rx_head = 0;
	u->rx_n = 0;
}

uint8_t vuart_in(struct vuart *u, unsigned reg)
{
	bool dlab = u->lcr & VUART_LCR_DLAB;
	uint8_t b, iir;
	switch (reg & 7) {
	case VUART_RBR:
		if (dlab)
			return u->dll;
		if (!u->rx_n)
			return 0;
		b = u->rx[u->rx_head];
		u->rx_head = (uint8_t)((u->rx_head + 1) % VUART_FIFO);
		u->rx_n--;
		return b;
	case VUART_IER:
		return dlab ? u->dlm : u->ier;
	case VUART_IIR:
		iir = vuart_iir(u);
		if ((iir & 0x0f) == VUART_IIR_THRE)
			u->thre = false; /* reported: no longer pending */
		return iir;
	case VUART_LCR:
		return u->lcr;
	case VUART_MCR:
		return u->mcr;
	case VUART_LSR:
		b = VUART_LSR_THRE | VUART_LSR_TEMT | (u->rx_n ? VUART_LSR_DR : 0) |
		    (u->oe ? VUART_LSR_OE : 0);
		u->oe = false;
		return b;
	case VUART_MSR:
		return 0xb0; /* DCD DSR CTS */
	default:
		return u->scr;
	}
}

bool vuart_out(struct vuart *u, unsigned reg, uint8_t val, uint8_t *tx)
{
	bool dlab = u->lcr & VUART_LCR_DLAB;
	switch (reg & 7) {
	case VUART_RBR:
		if (dlab) {
			u->dll = val;
			return false;
		}
		*tx = val;
		u->thre = true; /* sent at once: THR empty again */
		return true;
	case VUART_IER:
		if (dlab) {
			u->dlm = val;
			break;
		}
		if ((val & VUART_IER_ETBEI) && !(u->ier & VUART_IER_ETBEI))
			u->thre = true; /* enabled with THR empty: pending at once */
		u->ier = val & 0x0f;
		break;
	case VUART_FCR:
		/* Turning the FIFOs on or off clears them, as does the RCVR FIFO reset bit. */
		if (((val ^ u->fcr) & VUART_FCR_ENABLE) || (val & VUART_FCR_CLR_RX))
			rx_clear(u);
		u->fcr = val & 0xc1;
		break;
	case VUART_LCR:
		u->lcr = val;
		break;
	case VUART_MCR:
		u->mcr = val;
		break;
	case VUART_SCR:
		u->scr = val;
		break;
	default: /* LSR, MSR: read-only */
		break;
	}
	return false;
}

bool vuart_rx(struct vuart *u, uint8_t b)
{
	if (!(u->fcr & VUART_FCR_ENABLE) && u->rx_n) {
		u->rx[u->rx_head] = b; /* 16450 mode: the new byte overwrites the RBR's */
		u->oe = true;
		u->rx_overruns++;
		u->rx_bytes++;
		return false;
	}
	if (u->rx_n == VUART_FIFO) {
		u->oe = true;
		u->rx_overruns++;
		return false;
	}
	u->rx[(u->rx_head + u->rx_n) % VUART_FIFO] = b;
	u->rx_n++;
	u->rx_bytes++;
	return true;
}
