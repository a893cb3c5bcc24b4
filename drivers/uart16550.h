/* 16550 UART, polled, on any port: legacy I/O ports, a PCI card's I/O or MMIO BAR, or an
 * MMIO address with 32-bit registers (as ACPI's SPCR describes them). Every register access
 * goes through uart_reg_read/uart_reg_write, which know where register i lives. */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H
#include <stdbool.h>
#include <stdint.h>

#define COM1_PORT	  0x3f8
#define UART_CLOCK_HZ	  1843200 /* the PC's 1.8432 MHz crystal: divisor = 115200 / baud */
#define UART_DEFAULT_BAUD 115200
#define UART_LCR_8N1	  0x03
#define UART_MMIO_SPAN(u) (8u << (u)->reg_shift)

enum uart_space { UART_SPACE_IO, UART_SPACE_MMIO };

struct uart {
	enum uart_space space;
	uint64_t base;	   /* I/O port or physical address (identity-mapped, below 4 GiB) */
	uint8_t reg_shift; /* register i is at base + (i << reg_shift) */
	uint8_t reg_width; /* MMIO access width in bytes: 1, 2 or 4 (the register is the low byte)
			    */
	uint32_t baud;	   /* 0: keep the divisor the firmware programmed */
	uint8_t lcr;	   /* line control: data bits, parity, stop bits (UART_LCR_8N1) */
};

/* The console's port: COM1 at boot, then what drivers/conport.c selects. */
extern struct uart console_uart;

uint8_t uart_reg_read(const struct uart *u, unsigned reg);
void uart_reg_write(const struct uart *u, unsigned reg, uint8_t v);
/* True when a 16550 answers at u: LSR is not all ones (an absent ISA port) and the scratch
 * register keeps two complementary patterns. Leaves the scratch register as it found it. */
bool uart_probe(const struct uart *u);
void uart_init(const struct uart *u);
void uart_putc(const struct uart *u, char c);
/* Returns -1 when no byte is waiting. */
int uart_getc(const struct uart *u);
/* Raises the UART's IRQ line when a byte arrives (IER bit 0, and OUT2, which gates the
 * line on PC-compatible UARTs). */
void uart_enable_rx_irq(const struct uart *u);
/* Waits until the transmitter is empty, so nothing is lost at power-off. */
void uart_drain(const struct uart *u);

/* For the interrupt-driven console: the transmit FIFO (16 bytes, FCR set by uart_init)
 * is empty; a byte written without looking at LSR (the caller knows there is room); THRE
 * interrupts on (IER bit 1, OUT2); the IIR (reading it clears a THRE interrupt). */
bool uart_tx_empty(const struct uart *u);
void uart_put_nowait(const struct uart *u, char c);
void uart_enable_tx_irq(const struct uart *u);
uint8_t uart_irq_id(const struct uart *u);

#endif
