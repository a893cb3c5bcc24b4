/* 8254 PIT channel 2 as a one-shot stopwatch for calibrating the TSC (it runs at a fixed
 * 1.193182 MHz on QEMU, Bochs and real hardware). */
#ifndef DRIVERS_PIT_H
#define DRIVERS_PIT_H
#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ 1193182u

void pit_oneshot_start(uint16_t ticks);
bool pit_oneshot_done(void);

#endif
