#include "arch/x86_64/tsc.h"
#include "drivers/console.h"
#include "drivers/pit.h"

uint64_t tsc_hz;
uint64_t tsc_at_boot;
struct clockconv tsc_ns_conv, ns_tsc_conv;

/* TSC ticks over `pit_ticks` of the PIT. */
static uint64_t measure(uint16_t pit_ticks)
{
	pit_oneshot_start(pit_ticks);
	uint64_t t0 = rdtsc();
	while (!pit_oneshot_done())
		cpu_relax();
	return rdtsc() - t0;
}

static uint64_t cpuid_tsc_hz(void)
{
	if (cpuid(0, 0).eax < 0x15)
		return 0;
	struct cpuid_regs r = cpuid(0x15, 0);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint64_t)r.ecx * r.ebx / r.eax;
}

void tsc_calibrate(void)
{
	/* 20 ms windows; the smallest of three rejects a window stretched by an SMI or by
	 * the emulator descheduling us. */
	const uint16_t ticks = PIT_HZ / 50;
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		uint64_t d = measure(ticks);
		if (d < best)
			best = d;
	}
	tsc_hz = best * PIT_HZ / ticks;
	uint64_t cpuid_hz = cpuid_tsc_hz();
	const char *src = "PIT";
	if (cpuid_hz &&
	    cpuid_hz / 100 > (cpuid_hz > tsc_hz ? cpuid_hz - tsc_hz : tsc_hz - cpuid_hz)) {
		tsc_hz = cpuid_hz;
		src = "CPUID.15h";
	}
	tsc_ns_conv = clockconv_init(tsc_hz, 1000000000ull);
	ns_tsc_conv = clockconv_init(1000000000ull, tsc_hz);
	tsc_at_boot = rdtsc();
	printk("tsc: %lu.%03lu MHz (from %s)\n", tsc_hz / 1000000, tsc_hz / 1000 % 1000, src);
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + ns_to_tsc(us * 1000);
	while (rdtsc() < end)
		cpu_relax();
}
