/* spinner: spins forever like `while True: pass`, counting iterations.
 * Command line: report_ms=<N> prints the iteration rate every N ms of guest clock
 * (`spin iters=<total> rate=<iters per second>/s`); 0 or absent prints nothing.
 * cli=1 spins with interrupts disabled: the hypervisor must still take the pCPU back at
 * the end of the slice (the VMX-preemption timer backstop; Bochs bug 1). */
#include "guests/lib/rt.h"

int main(const struct sliver_boot_info *bi)
{
	uint64_t report_ms = 0, cli = 0;
	rt_arg_u64("report_ms", &report_ms);
	rt_arg_u64("cli", &cli);
	rt_printf("spinner: d%u start report_ms=%llu%s\n", bi->dom_id,
		  (unsigned long long)report_ms, cli ? " cli" : "");
	if (cli)
		rt_cli();
	uint64_t iters = 0, last_iters = 0;
	uint64_t period = report_ms * 1000000ull;
	uint64_t last = rt_clock_ns(), next = last + period;
	for (;;) {
		iters++;
		if (period && (iters & 0x3ff) == 0) {
			uint64_t now = rt_clock_ns();
			if (now >= next) {
				uint64_t rate = (iters - last_iters) * 1000000000ull / (now - last);
				rt_printf("spin iters=%llu rate=%llu/s\n",
					  (unsigned long long)iters, (unsigned long long)rate);
				last = now;
				last_iters = iters;
				next += period;
				if (next < now)
					next = now + period;
			}
		}
	}
}
