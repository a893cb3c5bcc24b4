/* A domain's emulated COM1, the registers only (pure: no locks, no devices; core/vuart.c,
 * host-tested by test/unit/test_vuart.c). core/exit_io.c drives it under the domain's con.lock
 * and does what it returns: a transmitted byte to the console, the interrupt line to IRQ 4.
 * National PC16550D datasheet names: RBR/THR, IER (ERBFI, ETBEI, ELSI, EDSSI), IIR, FCR, LCR,
 * MCR, LSR (DR, OE, THRE, TEMT), MSR, SCR, DLL/DLM. */
#ifndef CORE_VUART_H
#define CORE_VUART_H
#include <stdbool.h>
#include <stdint.h>

#define VUART_FIFO 16 /* the 16550's receiver FIFO */

enum {
	VUART_RBR = 0,
	VUART_IER = 1,
	VUART_IIR = 2,
	VUART_LCR = 3,
	VUART_MCR = 4,
	VUART_LSR = 5,
	VUART_MSR = 6,
	VUART_SCR = 7,
	VUART_FCR = 2 /* the write side of IIR's address */
};

#define VUART_IER_ERBFI	 0x01 /* received data available */
#define VUART_IER_ETBEI	 0x02 /* transmitter holding register empty */
#define VUART_IER_ELSI	 0x04 /* receiver line status */
#define VUART_LCR_DLAB	 0x80
#define VUART_MCR_OUT2	 0x08 /* gates the interrupt output to the bus on a PC */
#define VUART_LSR_DR	 0x01
#define VUART_LSR_OE	 0x02
#define VUART_LSR_THRE	 0x20
#define VUART_LSR_TEMT	 0x40
#define VUART_FCR_ENABLE 0x01
#define VUART_FCR_CLR_RX 0x02
/* IIR values (bits 3:0), highest priority first; bits 7:6 are set while the FIFOs are on. */
#define VUART_IIR_NONE	  0x01
#define VUART_IIR_RLS	  0x06 /* receiver line status: an overrun */
#define VUART_IIR_RDA	  0x04 /* received data at the trigger level */
#define VUART_IIR_TIMEOUT 0x0c /* character timeout: data below the trigger level */
#define VUART_IIR_THRE	  0x02
#define VUART_IIR_FIFOS	  0xc0

struct vuart {
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	bool intr;	       /* interrupts are modelled (a PC domain); else IIR reads "none" */
	bool thre;	       /* the THR-empty interrupt is pending */
	bool oe;	       /* LSR OE: a byte arrived with the FIFO full (until LSR is read) */
	uint8_t rx_head, rx_n; /* the receiver FIFO: rx[rx_head], rx_n bytes */
	uint8_t rx[VUART_FIFO];
	uint64_t rx_bytes, rx_overruns; /* counters: bytes received, bytes lost to a full FIFO */
};

/* A register read (reg 0-7) with its side effects: RBR pops, IIR reporting THRE clears it,
 * LSR clears OE. */
uint8_t vuart_in(struct vuart *u, unsigned reg);
/* A register write: true when it was a THR write (*tx: the byte, sent at once). */
bool vuart_out(struct vuart *u, unsigned reg, uint8_t val, uint8_t *tx);
/* A byte arrives on the receive line: false on an overrun (LSR OE): the FIFO was full and the
 * byte is lost, or, FIFOs off, it overwrote an unread one. */
bool vuart_rx(struct vuart *u, uint8_t b);
/* The interrupt output as a PC's bus sees it (an interrupt is pending and OUT2 is set). */
bool vuart_irq(const struct vuart *u);
/* The IIR value now, without its side effects. */
uint8_t vuart_iir(const struct vuart *u);

#endif
