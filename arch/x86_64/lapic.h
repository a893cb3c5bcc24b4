/* Local APIC, in x2APIC mode when the CPU offers it (MSR access), else xAPIC (MMIO). */
#ifndef ARCH_X86_64_LAPIC_H
#define ARCH_X86_64_LAPIC_H
#include <stdbool.h>
#include <stdint.h>

void lapic_init_this(void);
bool lapic_is_x2apic(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_nmi_all_but_self(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* Timer (SDM Vol. 3A 11.5.4): divide-by-1; one-shot counts down from `count` at the
 * LAPIC timer rate; TSC-deadline fires when the TSC reaches the value in
 * IA32_TSC_DEADLINE. Both raise `vector`. */
void lapic_timer_setup(uint8_t vector, bool tsc_deadline);
void lapic_timer_oneshot(uint32_t count);
uint32_t lapic_timer_current(void);
void lapic_timer_stop(void);

#endif
