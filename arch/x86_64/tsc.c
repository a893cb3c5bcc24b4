/* TSC calibration (design.md "Time and timers"): measured against the PIT (three 20 ms
 * windows, the shortest kept: an SMI or a descheduled emulator only stretches a window)
 * and against the ACPI PM timer when the FADT names one (read at both ends of the window,
 * so a late exit from the loop is counted on both clocks); CPUID 0x15/0x16 are used when
 * they agree with the measurement within 1% (they state the rate exactly; an emulator's
 * values can be anything: Bochs' are, docs emulators.md). One boot line gives the source
 * and how far the others are from it; another warns when the TSC is not invariant. */
#include "arch/x86_64/tsc.h"
#include "drivers/acpi.h"
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

static uint64_t pit_hz(void)
{
	const uint16_t ticks = PIT_HZ / 50;
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		uint64_t d = measure(ticks);
		if (d < best)
			best = d;
	}
	return best * PIT_HZ / ticks;
}

/* TSC rate against the PM timer over about 20 ms (71590 ticks), or 0 without one (or when
 * it does not count: a FADT naming a timer the chipset lacks). */
static uint64_t pm_timer_hz(void)
{
	uint32_t a, b;
	unsigned bits;
	if (!acpi_pm_timer(&a, &bits))
		return 0;
	uint32_t mask = bits == 32 ? 0xffffffffu : 0xffffffu, want = ACPI_PM_TIMER_HZ / 50;
	uint64_t t0 = rdtsc(), t1;
	uint32_t elapsed = 0;
	do {
		acpi_pm_timer(&b, &bits);
		t1 = rdtsc();
		elapsed = (b - a) & mask;
	} while (elapsed < want && t1 - t0 < (1ull << 36));
	if (elapsed < want)
		return 0;
	return (t1 - t0) * ACPI_PM_TIMER_HZ / elapsed;
}

/* CPUID 0x15: TSC = crystal * EBX / EAX; without the crystal's rate (ECX 0), 0x16's base
 * frequency in MHz (equal to the TSC's on the CPUs that have both). */
static uint64_t cpuid_tsc_hz(const char **leaf)
{
	uint32_t max = cpuid(0, 0).eax;
	if (max >= 0x15) {
		struct cpuid_regs r = cpuid(0x15, 0);
		if (r.eax && r.ebx && r.ecx) {
			*leaf = "CPUID.15h";
			return (uint64_t)r.ecx * r.ebx / r.eax;
		}
	}
	if (max >= 0x16) {
		uint32_t mhz = cpuid(0x16, 0).eax & 0xffff;
		if (mhz) {
			*leaf = "CPUID.16h";
			return mhz * 1000000ull;
		}
	}
	return 0;
}

/* (a - b) / b in hundredths of a percent, signed. */
static long off_bp(uint64_t a, uint64_t b)
{
	if (!b)
		return 0;
	if (a / 64 > b)
		return 640000; /* (far off: do not multiply into an overflow) */
	return (long)((int64_t)(a - b) * 10000 / (int64_t)b);
}

static void print_off(const char *name, uint64_t hz, uint64_t ref)
{
	long bp = off_bp(hz, ref);
	unsigned long abs = (unsigned long)(bp < 0 ? -bp : bp);
	printk(", %s %lu.%03lu (%c%lu.%02lu%%)", name, hz / 1000000, hz / 1000 % 1000,
	       bp < 0 ? '-' : '+', abs / 100, abs % 100);
}

void tsc_calibrate(void)
{
	uint64_t pit = pit_hz(), pm = pm_timer_hz();
	const char *leaf = NULL;
	uint64_t cpu = cpuid_tsc_hz(&leaf);
	/* The measured rate: the PIT's, unless the PM timer disagrees by more than 0.1% (a
	 * stretched PIT window: the PM timer is read at both ends, so it is not fooled). */
	uint64_t measured = pit;
	const char *src = "PIT";
	long pit_pm = off_bp(pit, pm);
	bool from_pm = pm && (pit_pm > 10 || pit_pm < -10);
	if (from_pm) {
		measured = pm;
		src = "PM timer";
	}
	tsc_hz = measured;
	long cpu_off = off_bp(cpu, measured);
	bool cpu_ok = cpu && cpu_off <= 100 && cpu_off >= -100;
	if (cpu_ok) {
		tsc_hz = cpu;
		src = leaf;
	}
	tsc_ns_conv = clockconv_init(tsc_hz, 1000000000ull);
	ns_tsc_conv = clockconv_init(1000000000ull, tsc_hz);
	tsc_at_boot = rdtsc();
	printk("tsc: %lu.%03lu MHz from %s", tsc_hz / 1000000, tsc_hz / 1000 % 1000, src);
	if (cpu && !cpu_ok)
		printk(", %s says %lu: ignored", leaf, cpu / 1000000);
	if (cpu_ok || from_pm)
		print_off("PIT", pit, tsc_hz);
	if (pm && !from_pm)
		print_off("PM timer", pm, tsc_hz);
	if (!pm)
		printk(", no PM timer");
	/* Invariant TSC: CPUID 0x80000007:EDX[8] (SDM Vol. 3B 18.17.1). Said on the same line:
	 * it must stay short enough for an 80-column EGA console. */
	bool invariant =
		cpuid(0x80000000u, 0).eax >= 0x80000007u && (cpuid(0x80000007u, 0).edx & (1u << 8));
	printk("%s\n", invariant ? "" : "; warning: not invariant");
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + ns_to_tsc(us * 1000);
	while (rdtsc() < end)
		cpu_relax();
}
