/* 16550 UART, polled: 115200 8N1. */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H
#include <stdbool.h>
#include <stdint.h>

#define COM1_PORT 0x3f8

void uart_init(uint16_t port);
void uart_putc(uint16_t port, char c);
/* Returns -1 when no byte is waiting. */
int uart_getc(uint16_t port);
/* Raises the UART's IRQ line when a byte arrives (IER bit 0, and OUT2, which gates the
 * line on PC-compatible UARTs). */
void uart_enable_rx_irq(uint16_t port);
/* Waits until the transmitter is empty, so nothing is lost at power-off. */
void uart_drain(uint16_t port);

/* For the interrupt-driven console: the transmit FIFO (16 bytes, FCR set by uart_init)
 * is empty; a byte written without looking at LSR (the caller knows there is room); THRE
 * interrupts on (IER bit 1, OUT2); the IIR (reading it clears a THRE interrupt). */
bool uart_tx_empty(uint16_t port);
void uart_put_nowait(uint16_t port, char c);
void uart_enable_tx_irq(uint16_t port);
uint8_t uart_irq_id(uint16_t port);

#endif
