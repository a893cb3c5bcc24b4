/* hostile: tries, one by one, each bad thing a guest could do and prints what it tried
 * and what it got: `hostile: <what>: got <result> [ok|BAD]`, where ok means the
 * hypervisor refused or contained it. Ends with `hostile: summary ok=<n> bad=<n>`, then
 * does the fatal act named by `fatal=` (oob_read, oob_write, mmio, triple; default none:
 * it shuts down with code 0 when nothing was BAD, else 1). A fatal act must crash only
 * this domain. */
#include "guests/lib/rt.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/dominfo.h"
#include "sliver/event.h"

static unsigned n_ok, n_bad;
static volatile int fault_vec = -1;  /* vector of the last caught fault, -1 = none */
static volatile uint32_t fault_skip; /* bytes to skip over the faulting instruction */

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

static void verdict(const char *what, const char *got, bool ok)
{
	rt_printf("hostile: %s: got %s %s\n", what, got, ok ? "ok" : "BAD");
	if (ok)
		n_ok++;
	else
		n_bad++;
}

static void expect_err(const char *what, int32_t r, int32_t want)
{
	char got[24];
	fmt_snprintf(got, sizeof got, "%d", (int)r);
	verdict(what, got, r == -want);
}

/* Not attacks: what a well-behaved guest relies on, checked from the same guest first. */
static void try_sane(const struct sliver_boot_info *bi)
{
	char got[48];
	uint64_t c1 = rt_clock_ns(), h = hc_clock(), c2 = rt_clock_ns();
	fmt_snprintf(got, sizeof got, "%llu<=%llu<=%llu", (unsigned long long)c1,
		     (unsigned long long)h, (unsigned long long)c2);
	verdict("HC_CLOCK within the TSC clock", got, c1 <= h && h <= c2);
	int32_t y = hc_yield();
	fmt_snprintf(got, sizeof got, "%d", (int)y);
	verdict("yield", got, y == 0);
	struct sliver_dom_info in;
	int32_t n = hc3(HC_SELF_INFO, (uint32_t)(uintptr_t)&in, sizeof in, 0);
	fmt_snprintf(got, sizeof got, "%d d%u %s", (int)n, in.dom_id, in.name);
	verdict("self_info", got,
		n == (int32_t)sizeof in && in.dom_id == bi->dom_id && !strcmp(in.name, bi->name));
}

static void try_hypercalls(const struct sliver_boot_info *bi)
{
	uint32_t mem = (uint32_t)bi->mem_bytes;
	static char msg[] = "x";
	expect_err("console_write ptr past memory", hc3(HC_CONSOLE_WRITE, mem + 0x1000, 4, 0),
		   SLIVER_EFAULT);
	expect_err("console_write straddling end", hc3(HC_CONSOLE_WRITE, mem - 4, 64, 0),
		   SLIVER_EFAULT);
	expect_err("console_write wrapping ptr+len", hc3(HC_CONSOLE_WRITE, 0xfffffff0u, 0x20, 0),
		   SLIVER_EFAULT);
	expect_err("console_write huge len",
		   hc3(HC_CONSOLE_WRITE, (uint32_t)(uintptr_t)msg, 0x7fffffff, 0), SLIVER_E2BIG);
	expect_err("self_info into APIC page", hc3(HC_SELF_INFO, 0xfee00000u, 64, 0),
		   SLIVER_EFAULT);
	expect_err("event_send to domain 31", hc_event_send(31, SLIVER_PORT_USER), SLIVER_ESRCH);
	expect_err("event_send to port 999", hc_event_send(bi->dom_id, 999), SLIVER_EINVAL);
	expect_err("event_bind vector 13", hc_event_bind(SLIVER_PORT_USER, 13, 0), SLIVER_EINVAL);
	expect_err("event_bind vcpu 7", hc_event_bind(SLIVER_PORT_USER, 0x40, 7), SLIVER_EINVAL);
	expect_err("set_timer in 1000 years", hc_set_timer(~0ull), 0);
	hc_set_timer(0);
	expect_err("hypercall 1000", hc3(1000, 1, 2, 3), SLIVER_ENOSYS);
	expect_err("hypercall 0xffffffff", hc3(0xffffffffu, 0, 0, 0), SLIVER_ENOSYS);
	for (uint32_t nr = HC_PRIV_FIRST; nr < HC_PRIV_END; nr++) {
		char what[40];
		fmt_snprintf(what, sizeof what, "privileged hypercall %u", nr);
		expect_err(what, hc5(nr, 1, 0x2000, 64, 0, 0), SLIVER_EPERM);
	}
}

/* Event ports: coalesced events keep their count and sender; another domain's port needs
 * its permission (peer=<id>: a domain whose evt.allow= lets us raise its SLIVER_PORT_PING
 * only, and answers pings, as the echo guest does). */
static void try_events(const struct sliver_boot_info *bi)
{
	char got[64];
	const uint32_t port = SLIVER_PORT_USER + 1;
	hc_event_send(bi->dom_id, port);
	hc_event_send(bi->dom_id, port);
	struct sliver_event_info in = {0};
	int32_t n = hc3(HC_EVENT_INFO, port, (uint32_t)(uintptr_t)&in, sizeof in);
	fmt_snprintf(got, sizeof got, "%d count=%u last=%u senders=%llx", (int)n, in.count, in.last,
		     (unsigned long long)in.senders);
	verdict("two events to self coalesce", got,
		n == (int32_t)sizeof in && in.count == 2 && in.last == bi->dom_id &&
			in.senders == 1ull << bi->dom_id);
	expect_err("event_info on a cleared port",
		   hc3(HC_EVENT_INFO, port, (uint32_t)(uintptr_t)&in, sizeof in), SLIVER_EAGAIN);
	uint64_t peer;
	if (!rt_arg_u64("peer", &peer))
		return;
	expect_err("signal a port of another domain without permission",
		   hc_event_send((uint32_t)peer, SLIVER_PORT_USER), SLIVER_EPERM);
	expect_err("signal the timer port of another domain",
		   hc_event_send((uint32_t)peer, SLIVER_PORT_TIMER), SLIVER_EPERM);
	expect_err("allow domain 0 on own port", hc3(HC_EVENT_ALLOW, port, 0, 1), SLIVER_EINVAL);
	expect_err("allow every domain on own port, then take it back",
		   hc3(HC_EVENT_ALLOW, port, SLIVER_DOMID_ANY, 1) | hc3(HC_EVENT_ALLOW, port, 7, 0),
		   0);
	/* Allowed by the peer's evt.allow=: it answers on our SLIVER_PORT_PONG (a reply). */
	int32_t r = hc_event_send((uint32_t)peer, SLIVER_PORT_PING), from = -1;
	for (unsigned i = 0; r == 0 && i < 1000 && from < 0; i++) {
		from = hc_event_recv(SLIVER_PORT_PONG);
		if (from < 0)
			hc_yield();
	}
	fmt_snprintf(got, sizeof got, "send %d, reply from %d", (int)r, (int)from);
	verdict("signal a port the other domain allowed, get its reply", got,
		r == 0 && from == (int32_t)peer);
}

static void try_msrs(void)
{
	static const struct {
		uint32_t msr;
		bool write;
		const char *what;
	} t[] = {
		{0xc0de, false, "rdmsr 0xc0de (unknown)"},
		{0x3a, true, "wrmsr IA32_FEATURE_CONTROL"},
		{0x10, true, "wrmsr IA32_TSC"},
		{0x3b, true, "wrmsr IA32_TSC_ADJUST"},
		{0x1b, true, "wrmsr IA32_APIC_BASE"},
		{0x480, false, "rdmsr IA32_VMX_BASIC"},
		{0x1d9, true, "wrmsr IA32_DEBUGCTL"},
	};
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
		fault_vec = -1;
		fault_skip = 2;
		uint32_t lo = 0, hi = 0;
		if (t[i].write)
			__asm__ volatile("wrmsr" : : "c"(t[i].msr), "a"(0x1234), "d"(0) : "memory");
		else
			__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(t[i].msr) : "memory");
		fault_skip = 0;
		verdict(t[i].what, fault_vec == 13 ? "#GP" : "no fault", fault_vec == 13);
	}
}

static uint32_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static void try_io(void)
{
	static const uint16_t ports[] = {0x60, 0x70, 0x71, 0x1234, 0xcf8, 0x20, 0xa1};
	for (unsigned i = 0; i < sizeof ports / sizeof ports[0]; i++) {
		char what[32], got[16];
		uint32_t v = inb(ports[i]);
		fmt_snprintf(what, sizeof what, "inb port %x", ports[i]);
		fmt_snprintf(got, sizeof got, "%x", v);
		verdict(what, got, v == 0xff);
	}
	uint32_t v32;
	__asm__ volatile("inl %1, %0" : "=a"(v32) : "Nd"((uint16_t)0xcfc));
	char got[16];
	fmt_snprintf(got, sizeof got, "%x", v32);
	verdict("inl port cfc", got, v32 == 0xffffffffu);
	/* Writes that would reset or stop the machine if they reached real ports. */
	outb(0x64, 0xfe);  /* keyboard-controller reset */
	outb(0xcf9, 0x06); /* PCI reset */
	outb(0xf4, 0x01);  /* QEMU isa-debug-exit */
	for (const char *s = "Shutdown"; *s; s++)
		outb(0x8900, (uint8_t)*s); /* Bochs shutdown port */
	outb(0x70, 0x8f);		   /* CMOS/NMI */
	verdict("outb reset/exit ports 64 cf9 f4 8900 70", "still running", true);
}

static void try_cpu(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	verdict("cpuid.1 VMX bit", (c & (1u << 5)) ? "set" : "clear", !(c & (1u << 5)));
	verdict("cpuid.1 hypervisor bit", (c & (1u << 31)) ? "set" : "clear", c & (1u << 31));
	char sig[13];
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x40000000), "c"(0));
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	verdict("cpuid 0x40000000 signature", sig, memcmp(sig, "SliverSliver", 12) == 0);

	static uint64_t region;
	fault_vec = -1;
	fault_skip = 4; /* f3 0f c7 30: vmxon (%eax) */
	__asm__ volatile(".byte 0xf3, 0x0f, 0xc7, 0x30" : : "a"(&region) : "memory");
	fault_skip = 0;
	verdict("vmxon", fault_vec == 6 ? "#UD" : "no #UD", fault_vec == 6);

	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	fault_vec = -1;
	fault_skip = 3; /* 0f 22 e0: mov %eax, %cr4 */
	__asm__ volatile(".byte 0x0f, 0x22, 0xe0" : : "a"(cr4 | (1u << 13)) : "memory");
	fault_skip = 0;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	verdict("set CR4.VMXE", fault_vec == 13 ? "#GP" : "no fault",
		fault_vec == 13 && !(cr4 & (1u << 13)));
}

static volatile int db_hits;

static void on_db(struct rt_frame *f)
{
	(void)f;
	db_hits++;
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u)); /* or it fires again */
}

__attribute__((noinline)) static int bp_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Debug registers stay virtual: an execute breakpoint on our own code (which would also
 * work on any hypervisor address) must not fire, and DR7 reads back what we wrote. */
static void try_debug_regs(void)
{
	rt_irq_register(1, on_db);
	uint32_t dr7 = 0;
	__asm__ volatile("mov %0, %%dr0" : : "r"((uint32_t)(uintptr_t)bp_target));
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x401u)); /* L0, execute, 1 byte */
	bp_target(1);
	__asm__ volatile("mov %%dr7, %0" : "=r"(dr7));
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	char got[40];
	fmt_snprintf(got, sizeof got, "%s, DR7 reads %x", db_hits ? "#DB" : "no #DB", dr7);
	verdict("DR0/DR7 execute breakpoint", got, !db_hits && dr7 == 0x401);
}

/* SSE registers are per vCPU: a pattern in xmm3 must survive being switched out while
 * other domains (the other hostile guests do the same) run on the pCPU. */
static void try_fpu(const struct sliver_boot_info *bi)
{
	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4 | (1u << 9)) : "memory"); /* OSFXSR */
	uint32_t pat[4] = {bi->dom_id * 0x01010101u, 0x5a5a0000u | bi->dom_id, ~bi->dom_id,
			   0x12345678u};
	uint32_t got[4];
	__asm__ volatile("movdqu %0, %%xmm3" : : "m"(pat));
	bool same = true;
	for (int i = 0; i < 40 && same; i++) {
		hc_yield();
		rt_spin_us(100);
		__asm__ volatile("movdqu %%xmm3, %0" : "=m"(got));
		same = !memcmp(got, pat, sizeof pat);
	}
	verdict("xmm3 kept across 40 yields", same ? "same" : "changed", same);
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
	} else {
		return;
	}
	rt_exit(1);
}

int main(const struct sliver_boot_info *bi)
{
	rt_printf("hostile: d%u start\n", bi->dom_id);
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
	rt_printf("hostile: summary ok=%u bad=%u\n", n_ok, n_bad);
	char what[16] = "none";
	rt_arg("fatal", what, sizeof what);
	fatal(what, bi);
	return n_bad ? 1 : 0;
}
