#include "drivers/uart16550.h"
#include "arch/x86_64/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5, SCR = 7 };
#define LSR_DR	 0x01
#define LSR_THRE 0x20
#define LSR_TEMT 0x40
#define LCR_DLAB 0x80

struct uart console_uart = {
	.space = UART_SPACE_IO,
	.base = COM1_PORT,
	.reg_width = 1,
	.baud = UART_DEFAULT_BAUD,
	.lcr = UART_LCR_8N1,
};

uint8_t uart_reg_read(const struct uart *u, unsigned reg)
{
	uint64_t off = (uint64_t)reg << u->reg_shift;
	if (u->space == UART_SPACE_IO)
		return inb((uint16_t)(u->base + off));
	volatile void *p = (volatile void *)(u->base + off);
	switch (u->reg_width) {
	case 4:
		return (uint8_t) * (volatile uint32_t *)p;
	case 2:
		return (uint8_t) * (volatile uint16_t *)p;
	default:
		return *(volatile uint8_t *)p;
	}
}

void uart_reg_write(const struct uart *u, unsigned reg, uint8_t v)
{
	uint64_t off = (uint64_t)reg << u->reg_shift;
	if (u->space == UART_SPACE_IO) {
		outb((uint16_t)(u->base + off), v);
		return;
	}
	volatile void *p = (volatile void *)(u->base + off);
	switch (u->reg_width) {
	case 4:
		*(volatile uint32_t *)p = v;
		break;
	case 2:
		*(volatile uint16_t *)p = v;
		break;
	default:
		*(volatile uint8_t *)p = v;
		break;
	}
}

bool uart_probe(const struct uart *u)
{
	if (uart_reg_read(u, LSR) == 0xff)
		return false;
	uint8_t saved = uart_reg_read(u, SCR);
	uart_reg_write(u, SCR, 0x55);
	bool ok = uart_reg_read(u, SCR) == 0x55;
	uart_reg_write(u, SCR, 0xaa);
	ok = ok && uart_reg_read(u, SCR) == 0xaa;
	uart_reg_write(u, SCR, saved);
	return ok;
}

void uart_init(const struct uart *u)
{
	uart_reg_write(u, IER, 0x00);
	if (u->baud) {
		uint32_t div = UART_CLOCK_HZ / 16 / u->baud;
		if (!div)
			div = 1;
		uart_reg_write(u, LCR, LCR_DLAB);
		uart_reg_write(u, DLL, (uint8_t)div);
		uart_reg_write(u, DLM, (uint8_t)(div >> 8));
	}
	uart_reg_write(u, LCR, u->lcr & ~LCR_DLAB);
	uart_reg_write(u, FCR, 0x07); /* FIFOs on and cleared */
	uart_reg_write(u, MCR, 0x03); /* DTR, RTS */
}

void uart_putc(const struct uart *u, char c)
{
	while (!(uart_reg_read(u, LSR) & LSR_THRE))
		cpu_relax();
	uart_reg_write(u, THR, (uint8_t)c);
}

int uart_getc(const struct uart *u)
{
	if (!(uart_reg_read(u, LSR) & LSR_DR))
		return -1;
	return uart_reg_read(u, RBR);
}

void uart_drain(const struct uart *u)
{
	while ((uart_reg_read(u, LSR) & (LSR_THRE | LSR_TEMT)) != (LSR_THRE | LSR_TEMT))
		cpu_relax();
}

void uart_enable_rx_irq(const struct uart *u)
{
	uart_reg_write(u, MCR, 0x0b); /* DTR, RTS, OUT2 */
	uart_reg_write(u, IER, 0x01); /* received data available */
}

/* --- for the interrupt-driven console (drivers/console.c) --- */
#define IER_RDA	 0x01 /* received data available */
#define IER_THRE 0x02 /* transmitter holding register empty */
#define IIR	 2

bool uart_tx_empty(const struct uart *u)
{
	return uart_reg_read(u, LSR) & LSR_THRE;
}

void uart_put_nowait(const struct uart *u, char c)
{
	uart_reg_write(u, THR, (uint8_t)c);
}

void uart_enable_tx_irq(const struct uart *u)
{
	/* An IER write that enables THRE while the FIFO is empty raises the interrupt at once
	 * (PC16550D datasheet, IIR priorities; Bochs and QEMU do so). */
	uart_reg_write(u, MCR, 0x0b); /* DTR, RTS, OUT2: OUT2 gates the IRQ line */
	uart_reg_write(u, IER, (uint8_t)(uart_reg_read(u, IER) | IER_THRE));
}

uint8_t uart_irq_id(const struct uart *u)
{
	return uart_reg_read(u, IIR);
}
