/* hostile: tries, one by one, each bad thing a guest could do and prints what it tried
 * and what it got: `hostile: <what>: got <result> [ok|BAD]`, where ok means the
 * hypervisor refused or contained it. Ends with `hostile: summary ok=<n> bad=<n>`, then
 * does the fatal act named by `fatal=` (oob_read, oob_write, mmio, triple; default none:
 * it shuts down with code 0 when nothing was BAD, else 1). A fatal act must crash only
 * this domain. `fatal=cr8hold` is not fatal to anyone: the domain ends in 64-bit mode with
 * TPR 15, IF=1 and a timer pending, spinning forever; the others must run on. */
#include "guests/hostile/hostile.h"
#include "lib/fmt.h"
#include "lib/string.h"

static unsigned n_ok, n_bad;
static bool terse; /* terse=1: print only BAD verdicts (the console is slow: 115200 baud) */
volatile int fault_vec = -1;
volatile uint32_t fault_skip;

static void catch_fault(struct rt_frame *f)
{
	if (!fault_skip) {
		rt_printf("hostile: unexpected fault vector %u at eip=%x\n", f->vector, f->eip);
		rt_exit(0x100 + (int)f->vector);
	}
	fault_vec = (int)f->vector;
	f->eip += fault_skip;
	fault_skip = 0;
}

void verdict(const char *what, const char *got, bool ok)
{
	if (!terse || !ok)
		rt_printf("hostile: %s: got %s %s\n", what, got, ok ? "ok" : "BAD");
	if (ok)
		n_ok++;
	else
		n_bad++;
}

void expect_err(const char *what, int32_t r, int32_t want)
{
	char got[24];
	fmt_snprintf(got, sizeof got, "%d", (int)r);
	verdict(what, got, r == -want);
}

static void fatal(const char *what, const struct sliver_boot_info *bi)
{
	if (strcmp(what, "none"))
		rt_printf("hostile: fatal %s now\n", what);
	if (!strcmp(what, "oob_read")) {
		volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)(bi->mem_bytes + 0x2000);
		rt_printf("hostile: read %x: BAD, still alive\n", *p);
	} else if (!strcmp(what, "oob_write")) {
		*(volatile uint32_t *)(uintptr_t)0x7ff00000u = 0xdeadbeef;
		rt_puts("hostile: write outside memory: BAD, still alive");
	} else if (!strcmp(what, "mmio")) {
		*(volatile uint32_t *)(uintptr_t)0xfee000b0u = 0; /* host LAPIC EOI */
		rt_puts("hostile: LAPIC write: BAD, still alive");
	} else if (!strcmp(what, "triple")) {
		struct __attribute__((packed)) {
			uint16_t l;
			uint32_t b;
		} none = {0, 0};
		__asm__ volatile("lidt %0; int3" : : "m"(none));
		rt_puts("hostile: triple fault: BAD, still alive");
	} else if (!strcmp(what, "cr8hold")) {
		try_long64(bi, true);
		rt_puts("hostile: cr8hold returned: BAD, still alive");
	} else {
		return;
	}
	rt_exit(1);
}

int main(const struct sliver_boot_info *bi)
{
	rt_printf("hostile: d%u start\n", bi->dom_id);
	char t[4] = "0";
	rt_arg("terse", t, sizeof t);
	terse = t[0] == '1';
	rt_irq_register(6, catch_fault);
	rt_irq_register(13, catch_fault);
	try_sane(bi);
	try_hypercalls(bi);
	try_events(bi);
	try_msrs();
	try_io();
	try_cpu();
	try_fpu(bi);
	try_debug_regs();
	try_debug_isolation(bi);
	try_arch_faults();
	try_random_writes(bi);
	try_insns();
	try_cpuid_consistency();
	try_tsc(bi);
	try_long64(bi, false);
	rt_printf("hostile: summary ok=%u bad=%u\n", n_ok, n_bad);
	char what[16] = "none";
	rt_arg("fatal", what, sizeof what);
	fatal(what, bi);
	return n_bad ? 1 : 0;
}
