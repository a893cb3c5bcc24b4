/* exitbench: the cost of one VM exit of each kind, from the guest's own clock (issue 12).
 * Command line: n=<N> (default 20000) exits of each kind, back to back:
 *   cpuid    CPUID leaf 0 (always intercepted),
 *   hc       HC_CLOCK (a hypercall that never yields or blocks),
 *   io       IN from port 0x1f0, which no device of a sliver domain claims (counted as
 *            io_other, read as all ones),
 *   yield    HC_YIELD alone on its pCPU: the scheduler's round trip (the yield, then a pick
 *            that finds nothing better and enters the same vCPU again),
 * and a loop of the same length without an exit (rdtsc: never intercepted) as the baseline.
 * Prints `exitbench: <kind> n=<N> ns_per_exit=<ns>.<tenths> tsc_per_exit=<cycles>
 * exits_per_s=<rate>` per kind and `exitbench: done`, then shuts the domain down with code 0.
 * The times are emulated time (Bochs ips, QEMU -icount): emulator costs, not hardware's. */
#include "guests/lib/hc.h"
#include "guests/lib/rt.h"

#define EXITBENCH_PORT 0x1f0

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void one_cpuid(void)
{
	uint32_t a = 0, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)::"memory");
}

static void one_hc(void)
{
	(void)hc_clock();
}

static void one_io(void)
{
	uint8_t v;
	__asm__ volatile("inb %w1, %0" : "=a"(v) : "Nd"(EXITBENCH_PORT) : "memory");
}

static void one_yield(void)
{
	(void)hc_yield();
}

static void one_none(void)
{
	(void)tsc();
}

static void bench(const char *kind, void (*op)(void), uint64_t n)
{
	op(); /* warm: the first exit of a kind may take a slower path */
	uint64_t t0 = rt_clock_ns(), c0 = tsc();
	for (uint64_t i = 0; i < n; i++)
		op();
	uint64_t c1 = tsc(), t1 = rt_clock_ns();
	uint64_t ns = t1 - t0, tenths = ns * 10 / n;
	rt_printf("exitbench: %s n=%llu ns_per_exit=%llu.%llu tsc_per_exit=%llu exits_per_s=%llu\n",
		  kind, (unsigned long long)n, (unsigned long long)(tenths / 10),
		  (unsigned long long)(tenths % 10), (unsigned long long)((c1 - c0) / n),
		  (unsigned long long)(ns ? n * 1000000000ull / ns : 0));
}

int main(const struct sliver_boot_info *bi)
{
	uint64_t n = 20000;
	rt_arg_u64("n", &n);
	if (!n)
		n = 1;
	rt_printf("exitbench: d%u start n=%llu port=0x%x\n", bi->dom_id, (unsigned long long)n,
		  EXITBENCH_PORT);
	bench("none", one_none, n);
	bench("cpuid", one_cpuid, n);
	bench("hc", one_hc, n);
	bench("io", one_io, n);
	bench("yield", one_yield, n);
	rt_printf("exitbench: done\n");
	return 0;
}
