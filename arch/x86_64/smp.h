/* Bringing up the application processors (INIT-SIPI-SIPI, SDM Vol. 3A 9.4.4) and IPIs. */
#ifndef ARCH_X86_64_SMP_H
#define ARCH_X86_64_SMP_H
#include <stdint.h>

/* Starts CPUs 1..n-1, whose percpu[] entries the caller filled in (apic_id, stack,
 * ist_stack). Each runs ap_main(cpu) in long mode with its GDT, TSS, IDT and LAPIC set
 * up. Returns the number of CPUs online, counting the BSP. */
unsigned smp_boot_aps(unsigned n, void (*ap_main)(unsigned cpu));
void smp_send_ipi(unsigned cpu, uint8_t vector);
void smp_send_nmi(unsigned cpu);

#endif
