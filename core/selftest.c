/* `selftest` on the command line: the platform checks. Memory map sane, every MADT CPU
 * online, and on every CPU in turn: one-shot deadlines of 100 us and 1 ms fire no earlier
 * than asked and within a bound measured in TSC ticks (selftest.slack_us, default 500),
 * and software timers fire in deadline order, a cancelled one never. Prints one
 * machine-readable line per check and powers off with the result. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer_hw.h"
#include "arch/x86_64/tsc.h"
#include "core/bootinfo.h"
#include "core/conin.h"
#include "core/main.h"
#include "core/mm.h"
#include "core/timer.h"
#include "drivers/acpi.h"
#include "drivers/console.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"

extern uint8_t __image_start[], __image_end[];

struct oneshot {
	volatile bool fired;
	uint64_t fired_tsc;
	unsigned irqs;
};

struct cpu_result {
	int64_t late_ticks[2]; /* for the 100 us and 1 ms deadlines */
	bool order_ok, cancel_ok;
};

static struct cpu_result results[MAX_CPUS];
static volatile unsigned ipi_seen[MAX_CPUS], nmi_seen[MAX_CPUS];
static volatile int turn = -1;
static unsigned failures;
static uint64_t slack_ticks;

static void check(bool ok, const char *what)
{
	if (!ok) {
		failures++;
		printk("selftest: FAIL %s\n", what);
	}
}

static void oneshot_fn(struct timer *t, void *arg)
{
	(void)t;
	struct oneshot *o = arg;
	o->fired_tsc = rdtsc();
	o->fired = true;
}

/* Returns how many TSC ticks after the deadline the callback ran. */
static int64_t measure_oneshot(uint64_t delay_ns)
{
	struct oneshot o = {0};
	struct timer t;
	timer_init(&t, oneshot_fn, &o);
	uint64_t deadline = now_ns() + delay_ns;
	timer_set(&t, deadline);
	while (!o.fired)
		cpu_idle_wait();
	return (int64_t)(o.fired_tsc - ns_to_tsc_deadline(deadline));
}

#define ORDER_N 6
static unsigned order_seen[ORDER_N], order_count;

static void order_fn(struct timer *t, void *arg)
{
	(void)t;
	order_seen[order_count++] = (unsigned)(uintptr_t)arg;
}

static void run_cpu_checks(unsigned cpu)
{
	struct cpu_result *r = &results[cpu];
	r->late_ticks[0] = measure_oneshot(100000);
	r->late_ticks[1] = measure_oneshot(1000000);

	/* Deadlines set out of order; timer 5 is cancelled before its time. */
	static const unsigned offsets_us[ORDER_N] = {300, 100, 500, 200, 400, 250};
	struct timer t[ORDER_N];
	order_count = 0;
	uint64_t base = now_ns();
	for (unsigned i = 0; i < ORDER_N; i++) {
		timer_init(&t[i], order_fn, (void *)(uintptr_t)offsets_us[i]);
		timer_set(&t[i], base + offsets_us[i] * 1000ull);
	}
	timer_cancel(&t[5]);
	while (order_count < ORDER_N - 1)
		cpu_idle_wait();
	uint64_t wait_end = now_ns() + 300000; /* give the cancelled one a chance to misfire */
	while (now_ns() < wait_end)
		cpu_relax();
	timer_run_expired();
	r->order_ok = true;
	for (unsigned i = 1; i < order_count; i++)
		r->order_ok &= order_seen[i - 1] < order_seen[i];
	r->cancel_ok = order_count == ORDER_N - 1;
}

static void ipi_handler(struct irq_frame *f)
{
	(void)f;
	__atomic_fetch_add(&ipi_seen[this_cpu()->id], 1, __ATOMIC_RELAXED);
}

static void nmi_handler(struct irq_frame *f)
{
	(void)f;
	__atomic_fetch_add(&nmi_seen[this_cpu()->id], 1, __ATOMIC_RELAXED);
}

/* A fixed-vector IPI and an NMI to every AP (each sits in its idle wait by now). */
static void check_ipis(unsigned n)
{
	irq_register(VEC_CALL, ipi_handler);
	irq_register(2, nmi_handler);
	for (unsigned cpu = 1; cpu < n; cpu++) {
		smp_send_ipi(cpu, VEC_CALL);
		smp_send_nmi(cpu);
		uint64_t give_up = now_ns() + 100000000ull;
		while ((!ipi_seen[cpu] || !nmi_seen[cpu]) && now_ns() < give_up)
			cpu_relax();
		printk("selftest: cpu%u ipi fixed=%s nmi=%s\n", cpu,
		       ipi_seen[cpu] == 1 ? "ok" : "FAIL", nmi_seen[cpu] == 1 ? "ok" : "FAIL");
		check(ipi_seen[cpu] == 1 && nmi_seen[cpu] == 1, "IPI delivery");
	}
	irq_register(2, NULL);
}

noreturn void selftest_ap(void)
{
	unsigned cpu = this_cpu()->id;
	while (turn != (int)cpu)
		cpu_relax();
	run_cpu_checks(cpu);
	__atomic_store_n(&turn, -1, __ATOMIC_RELEASE);
	for (;;)
		cpu_idle_wait();
}

static void check_memory(void)
{
	const struct memmap *m = &boot_info.mem;
	bool sorted = m->n > 0, aligned = true, kernel_free = false;
	for (unsigned i = 0; i < m->n; i++) {
		aligned &= !(m->r[i].start % PAGE_SIZE) && !(m->r[i].end % PAGE_SIZE);
		sorted &= m->r[i].start < m->r[i].end && (!i || m->r[i - 1].end < m->r[i].start);
		kernel_free |= m->r[i].start < (uint64_t)__image_end &&
			       m->r[i].end > (uint64_t)__image_start;
	}
	uint64_t f = frame_alloc();
	bool alloc_ok =
		f && (f >= (uint64_t)__image_end || f + PAGE_SIZE <= (uint64_t)__image_start);
	size_t before = mm_free_frames();
	if (f)
		frame_free(f);
	alloc_ok &= mm_free_frames() == before + 1;
	printk("selftest: mem ranges=%u usable_mib=%lu free_frames=%lu sorted=%d aligned=%d "
	       "kernel_reserved=%d alloc=%d\n",
	       m->n, memmap_total(m) >> 20, mm_free_frames(), sorted, aligned, !kernel_free,
	       alloc_ok);
	check(sorted && aligned && !kernel_free && alloc_ok, "memory map");
	check(memmap_total(m) >= (16ull << 20), "at least 16 MiB usable");
}

static void report_cpu(unsigned cpu)
{
	const struct cpu_result *r = &results[cpu];
	static const char *const names[2] = {"100us", "1ms"};
	for (int i = 0; i < 2; i++) {
		int64_t late = r->late_ticks[i];
		bool ok = late >= 0 && (uint64_t)late <= slack_ticks;
		printk("selftest: cpu%u oneshot_%s late_ticks=%ld late_ns=%lu bound_ticks=%lu %s\n",
		       cpu, names[i], late, late >= 0 ? tsc_to_ns((uint64_t)late) : 0, slack_ticks,
		       ok ? "ok" : "FAIL");
		check(ok, "one-shot deadline");
	}
	printk("selftest: cpu%u timers order=%s cancel=%s\n", cpu, r->order_ok ? "ok" : "FAIL",
	       r->cancel_ok ? "ok" : "FAIL");
	check(r->order_ok && r->cancel_ok, "software timer order");
}

static void key_test(void)
{
	printk("selftest: debug key ran\n");
}

/* selftest.input: bytes typed on the console (tools/sliver-run --input feeds them under
 * QEMU) reach the input ring through the UART interrupt, up to a '.'. Bytes that arrive
 * before the UART is initialised are lost (its FIFOs are reset), so the feeder pads. */
static void check_input(void)
{
	if (!cmdline_has(boot_info.cmdline, "selftest.input"))
		return;
	char buf[64] = {0};
	size_t got = 0;
	struct oneshot o = {0};
	struct timer t;
	timer_init(&t, oneshot_fn, &o); /* bounds the wait: 2 s */
	timer_set(&t, now_ns() + 2000000000ull);
	while (!(got && buf[got - 1] == '.') && got < sizeof(buf) && !o.fired) {
		size_t n = conin_read(buf + got, sizeof(buf) - got);
		got += n;
		if (!n)
			cpu_idle_wait();
	}
	timer_cancel(&t);
	char shown[4 * sizeof(buf) + 1];
	size_t k = 0;
	for (size_t i = 0; i < got; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c >= ' ' && c < 127 && c != '\\')
			shown[k++] = (char)c;
		else
			k += (size_t)fmt_snprintf(shown + k, 5, "\\x%02x", c);
	}
	shown[k] = 0;
	printk("selftest: input \"%s\"\n", shown);
	check(got && buf[got - 1] == '.', "console input");
}

noreturn void selftest_bsp(void)
{
	if (cmdline_has(boot_info.cmdline, "selftest.crash")) {
		printk("selftest: faulting on purpose\n");
		*(volatile uint64_t *)0x100000000000ull = 1; /* not mapped */
	}
	/* Console input starts here, after the selftest's own debug key exists. */
	conin_register_key('t', "selftest: print a line", key_test);
	conin_init();
	/* selftest.console_async: the rest goes through the console's rings and the UART's
	 * THR-empty interrupt on this CPU (issue 9; QEMU's 16550 as well as Bochs'). */
	if (cmdline_has(boot_info.cmdline, "selftest.console_async") && conin_start_output(0))
		printk("sliver: console: asynchronous, drained by cpu0\n");
	uint64_t slack_us = 500;
	cmdline_get_u64(boot_info.cmdline, "selftest.slack_us", &slack_us);
	slack_ticks = ns_to_tsc(slack_us * 1000);
	printk("selftest: tsc_hz=%lu timer=%s\n", tsc_hz,
	       timer_hw_tsc_deadline() ? "tsc-deadline" : "lapic-oneshot");
	check_memory();
	unsigned n = cpu_count();
	printk("selftest: cpus online=%u madt=%u\n", n, acpi.nr_cpus);
	check(n == acpi.nr_cpus, "every MADT CPU online");

	run_cpu_checks(0);
	report_cpu(0);
	for (unsigned cpu = 1; cpu < n; cpu++) {
		__atomic_store_n(&turn, (int)cpu, __ATOMIC_RELEASE);
		uint64_t give_up = now_ns() + 2000000000ull;
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) == (int)cpu && now_ns() < give_up)
			cpu_relax();
		if (turn == (int)cpu) {
			check(false, "AP did not finish its checks");
			continue;
		}
		report_cpu(cpu);
	}
	check_ipis(n);
	check_input();
	printk("selftest: %s (%u failure(s))\n", failures ? "FAIL" : "PASS", failures);
	if (!failures && cmdline_has(boot_info.cmdline, "selftest.reboot"))
		hv_reboot(); /* the reset path: e2e-reset-qemu */
	hv_exit(failures ? EXIT_FAIL : EXIT_PASS);
}
