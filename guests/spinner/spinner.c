/* spinner: spins forever like `while True: pass`, counting iterations.
 * Command line: report_ms=<N> prints the iteration rate every N ms of guest clock
 * (`spin iters=<total> rate=<iters per second>/s`); 0 or absent prints nothing.
 * cli=1 spins with interrupts disabled: the hypervisor must still take the pCPU back at
 * the end of the slice (the VMX-preemption timer backstop; Bochs bug 1).
 * burst=<bytes> burst_ms=<ms>: once, burst_ms after start, writes that many bytes of
 * numbered 64-byte lines (`burst <seq> <filler>`) back to back, HC_CONSOLE_MAX bytes per
 * call, then prints `burst: done lines=<n>` (a console-ring test: tools/console-burst-check).
 * burst_com1=1: the burst goes through the emulated COM1 instead, a line at a time, polling
 * LSR.THRE before each byte as a PC guest does (the console's backpressure, issue 27).
 * end_ms=<N>: shuts the domain down (code 0) after N ms of guest clock.
 * With vcpus=N every other vCPU spins too (silently): a domain of N hogs. */
#include "guests/lib/rt.h"
#include "lib/string.h"

#define BURST_LINE 64

static void burst(uint64_t bytes, bool com1)
{
	static char buf[HC_CONSOLE_MAX];
	uint32_t lines = (uint32_t)(bytes / BURST_LINE), seq = 0;
	while (seq < lines) {
		uint32_t n = 0;
		for (; seq < lines && n + BURST_LINE <= sizeof buf; seq++, n += BURST_LINE) {
			char *l = buf + n;
			memcpy(l, "burst ", 6);
			for (int d = 0, v = (int)seq; d < 5; d++, v /= 10)
				l[10 - d] = (char)('0' + v % 10);
			l[11] = ' ';
			for (int k = 12; k < BURST_LINE - 1; k++)
				l[k] = (char)('a' + (seq + (uint32_t)k) % 26);
			l[BURST_LINE - 1] = '\n';
		}
		if (com1) {
			for (uint32_t k = 0; k < n; k += BURST_LINE) {
				char line[BURST_LINE + 1];
				memcpy(line, buf + k, BURST_LINE);
				line[BURST_LINE] = 0;
				rt_com1_puts(line);
			}
		} else {
			hc_console_write(buf, n);
		}
	}
	rt_printf("burst: done lines=%u\n", lines);
}

/* Interrupts on, as on vCPU 0: under Bochs a guest that keeps IF=0 takes no exit for the
 * host's interrupts (docs/vmx.md, Bochs bug 1), so a wake's kick to its pCPU would wait for
 * the preemption-timer backstop (e2e-smp4: pings 0.2-0.4 ms late on such pCPUs). */
int rt_main_ap(const struct sliver_boot_info *bi)
{
	(void)bi;
	rt_sti();
	for (;;)
		__asm__ volatile("" ::: "memory");
}

int main(const struct sliver_boot_info *bi)
{
	uint64_t report_ms = 0, cli = 0, burst_bytes = 0, burst_ms = 0, end_ms = 0, com1 = 0;
	rt_arg_u64("report_ms", &report_ms);
	rt_arg_u64("cli", &cli);
	rt_arg_u64("burst", &burst_bytes);
	rt_arg_u64("burst_ms", &burst_ms);
	rt_arg_u64("burst_com1", &com1);
	rt_arg_u64("end_ms", &end_ms);
	rt_printf("spinner: d%u start report_ms=%llu%s\n", bi->dom_id,
		  (unsigned long long)report_ms, cli ? " cli" : "");
	if (cli)
		rt_cli();
	uint64_t iters = 0, last_iters = 0;
	uint64_t period = report_ms * 1000000ull;
	uint64_t last = rt_clock_ns(), next = last + period;
	uint64_t burst_at = last + burst_ms * 1000000ull, end_at = last + end_ms * 1000000ull;
	for (;;) {
		iters++;
		if (burst_bytes && (iters & 0x3ff) == 0 && rt_clock_ns() >= burst_at) {
			burst(burst_bytes, com1 != 0);
			burst_bytes = 0;
		}
		if (end_ms && (iters & 0x3ff) == 0 && rt_clock_ns() >= end_at)
			hc_shutdown(0);
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
