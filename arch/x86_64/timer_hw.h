/* The one hardware timer hook under core/timer.c: a one-shot interrupt on VEC_TIMER at a
 * TSC deadline. TSC-deadline mode when CPUID.1:ECX[24] says so, else LAPIC one-shot with
 * a rate calibrated against the TSC (QEMU TCG has no TSC-deadline mode). */
#ifndef ARCH_X86_64_TIMER_HW_H
#define ARCH_X86_64_TIMER_HW_H
#include <stdbool.h>
#include <stdint.h>

/* Once, on the BSP after tsc_calibrate(). */
void timer_hw_calibrate(void);
/* On every CPU. */
void timer_hw_init_this(void);
bool timer_hw_tsc_deadline(void);
/* Arms the timer for deadline_tsc (past deadlines fire at once); replaces earlier arming. */
void timer_hw_arm(uint64_t deadline_tsc);
void timer_hw_disarm(void);

#endif
