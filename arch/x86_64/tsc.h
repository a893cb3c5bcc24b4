/* The TSC is the hypervisor's clock. tsc_calibrate() measures its rate against the PIT and
 * the ACPI PM timer (the PM timer's when they disagree by more than 0.1%); CPUID 0x15/0x16
 * are used only when they agree with the measurement within 1%; one boot line names the
 * source and the others' distance from it. Conversions use multiply/shift
 * (lib/clockconv.h). */
#ifndef ARCH_X86_64_TSC_H
#define ARCH_X86_64_TSC_H
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "lib/clockconv.h"

extern uint64_t tsc_hz;
extern uint64_t tsc_at_boot;
extern struct clockconv tsc_ns_conv, ns_tsc_conv;

void tsc_calibrate(void);
void tsc_delay_us(uint64_t us);

static inline uint64_t tsc_to_ns(uint64_t ticks)
{
	return clockconv_apply(tsc_ns_conv, ticks);
}

static inline uint64_t ns_to_tsc(uint64_t ns)
{
	return clockconv_apply(ns_tsc_conv, ns);
}

/* Nanoseconds since tsc_calibrate(). */
static inline uint64_t now_ns(void)
{
	return tsc_to_ns(rdtsc() - tsc_at_boot);
}

/* The TSC value at which now_ns() reaches ns. */
static inline uint64_t ns_to_tsc_deadline(uint64_t ns)
{
	return tsc_at_boot + ns_to_tsc(ns);
}

#endif
