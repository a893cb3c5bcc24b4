#include "drivers/uart16550.h"
#include "arch/x86_64/cpu.h"

enum { THR = 0, RBR = 0, DLL = 0, IER = 1, DLM = 1, FCR = 2, LCR = 3, MCR = 4, LSR = 5 };
#define LSR_DR	 0x01
#define LSR_THRE 0x20
#define LSR_TEMT 0x40

void uart_init(uint16_t port)
{
	outb(port + IER, 0x00);
	outb(port + LCR, 0x80); /* DLAB: set the divisor */
	outb(port + DLL, 1);	/* 115200 = 115200 / 1 */
	outb(port + DLM, 0);
	outb(port + LCR, 0x03); /* 8N1 */
	outb(port + FCR, 0x07); /* FIFOs on and cleared */
	outb(port + MCR, 0x03); /* DTR, RTS */
}

void uart_putc(uint16_t port, char c)
{
	while (!(inb(port + LSR) & LSR_THRE))
		cpu_relax();
	outb(port + THR, (uint8_t)c);
}

int uart_getc(uint16_t port)
{
	if (!(inb(port + LSR) & LSR_DR))
		return -1;
	return inb(port + RBR);
}

void uart_drain(uint16_t port)
{
	while ((inb(port + LSR) & (LSR_THRE | LSR_TEMT)) != (LSR_THRE | LSR_TEMT))
		cpu_relax();
}

void uart_enable_rx_irq(uint16_t port)
{
	outb(port + MCR, 0x0b); /* DTR, RTS, OUT2 */
	outb(port + IER, 0x01); /* received data available */
}

/* --- for the interrupt-driven console (drivers/console.c) --- */
#define IER_RDA	 0x01 /* received data available */
#define IER_THRE 0x02 /* transmitter holding register empty */
#define IIR	 2

bool uart_tx_empty(uint16_t port)
{
	return inb(port + LSR) & LSR_THRE;
}

void uart_put_nowait(uint16_t port, char c)
{
	outb(port + THR, (uint8_t)c);
}

void uart_enable_tx_irq(uint16_t port)
{
	/* An IER write that enables THRE while the FIFO is empty raises the interrupt at once
	 * (PC16550D datasheet, IIR priorities; Bochs and QEMU do so). */
	outb(port + MCR, 0x0b); /* DTR, RTS, OUT2: OUT2 gates the IRQ line */
	outb(port + IER, (uint8_t)(inb(port + IER) | IER_THRE));
}

uint8_t uart_irq_id(uint16_t port)
{
	return inb(port + IIR);
}
