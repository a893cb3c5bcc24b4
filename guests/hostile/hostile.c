/* hostile: tries, one by one, each bad thing a guest could do and prints what it tried
 * and what it got: `hostile: <what>: got <result> [ok|BAD]`, where ok means the
 * hypervisor refused or contained it. Ends with `hostile: summary ok=<n> bad=<n>`, then
 * does the fatal act named by `fatal=` (oob_read, oob_write, mmio, triple; default none:
 * it shuts down with code 0 when nothing was BAD, else 1). A fatal act must crash only
 * this domain. `fatal=cr8hold` is not fatal to anyone: the domain ends in 64-bit mode with
 * TPR 15, IF=1 and a timer pending, spinning forever; the others must run on. */
#include "guests/hostile/long64.h"
#include "guests/lib/hcinsn.h"
#include "guests/lib/rt.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/dominfo.h"
#include "sliver/event.h"

static unsigned n_ok, n_bad;
static bool terse; /* terse=1: print only BAD verdicts (the console is slow: 115200 baud) */
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
	if (!terse || !ok)
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
	/* The last id of the table (no test scenario has that many domains) and one past it. */
	expect_err("event_send to domain 1023",
		   hc_event_send(SLIVER_MAX_DOMS - 1, SLIVER_PORT_USER), SLIVER_ESRCH);
	expect_err("event_send to domain 1024", hc_event_send(SLIVER_MAX_DOMS, SLIVER_PORT_USER),
		   SLIVER_ESRCH);
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
	/* The sender set: exactly our own bit, in whichever word it is (ids up to 1023). */
	unsigned bits = 0;
	for (unsigned i = 0; i < SLIVER_DOMSET_WORDS; i++)
		for (uint64_t w = in.senders[i]; w; w &= w - 1)
			bits++;
	bool mine = in.senders[bi->dom_id / 64] >> (bi->dom_id % 64) & 1;
	fmt_snprintf(got, sizeof got, "%d count=%u last=%u senders=%s", (int)n, in.count, in.last,
		     mine && bits == 1 ? "self" : "wrong");
	verdict("two events to self coalesce", got,
		n == (int32_t)sizeof in && in.count == 2 && in.last == bi->dom_id && mine &&
			bits == 1);
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
	/* Allowed by the peer's evt.allow=: it answers on our SLIVER_PORT_PONG (a reply).
	 * Waited for 2 s of clock, not a count of yields: among 100 domains the peer may not
	 * have run yet, and 1000 yields on a quiet pCPU took a few ms (e2e-manydoms-svm
	 * failed so, now and then, under QEMU TCG). */
	int32_t r = hc_event_send((uint32_t)peer, SLIVER_PORT_PING), from = -1;
	uint64_t until = rt_clock_ns() + 2000000000ull;
	while (r == 0 && from < 0 && rt_clock_ns() < until) {
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
	for (const char *s = "Shutdown"; *s; s++)
		outb(0x8900, (uint8_t)*s); /* Bochs shutdown port */
	outb(0x70, 0x8f);		   /* CMOS/NMI */
	verdict("outb reset/exit ports 64 cf9 8900 70", "still running", true);
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

	/* The other vendor's hypercall instruction (VMMCALL under VMX, VMCALL under SVM) is #UD
	 * by hardware, without an exit (docs/hypercalls.md). EAX = no hypercall, should it
	 * ever be taken for one. */
	fault_vec = -1;
	fault_skip = 3; /* 0f 01 d9: vmmcall; 0f 01 c1: vmcall */
	if (hc_vmmcall)
		__asm__ volatile(".byte 0x0f, 0x01, 0xc1" : : "a"(0xffffffffu) : "memory", "edx");
	else
		__asm__ volatile(".byte 0x0f, 0x01, 0xd9" : : "a"(0xffffffffu) : "memory", "edx");
	fault_skip = 0;
	verdict("other vendor's hypercall instruction", fault_vec == 6 ? "#UD" : "no #UD",
		fault_vec == 6);

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
static volatile uint32_t db_eip, db_dr6;

/* #DB: where and why (DR6, read through sliver's MOV DR exit). Stops what raised it: DR7
 * disarmed (an instruction breakpoint is a fault and would fire again) and TF cleared. */
static void on_db(struct rt_frame *f)
{
	uint32_t dr6;
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	db_hits++;
	db_eip = f->eip;
	db_dr6 = dr6;
	f->eflags &= ~(1u << 8);
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0u));
}

__attribute__((noinline)) static int bp_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Called by every hostile domain (all load at the same addresses): armed in the even ones. */
__attribute__((noinline)) static int bp_victim(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

static uint32_t rd_dr(unsigned n)
{
	uint32_t v = 0;
	switch (n) {
	case 0:
		__asm__ volatile("mov %%dr0, %0" : "=r"(v));
		break;
	case 1:
		__asm__ volatile("mov %%dr1, %0" : "=r"(v));
		break;
	case 2:
		__asm__ volatile("mov %%dr2, %0" : "=r"(v));
		break;
	case 3:
		__asm__ volatile("mov %%dr3, %0" : "=r"(v));
		break;
	case 7:
		__asm__ volatile("mov %%dr7, %0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}

/* Debug registers are the guest's own (docs/vmx.md, docs/svm.md "debug registers"): an
 * execute breakpoint on our code fires here, as a fault at the target with DR6.B0, and
 * single-stepping over CPUID (which sliver emulates) gives the trap after it with DR6.BS
 * (SDM Vol. 3B 18.3.1.4). QEMU TCG before 9.1 never arms the DR7 that VMRUN loads
 * (docs/svm.md, QEMU bugs): there the breakpoint may not fire, but DR7 still reads back. */
static bool bp_may_not_fire(void)
{
	/* guests/lib/cpu.h's on_qemu_tcg (its inb/outb clash with this file's). */
	uint32_t a = 0x40000001u, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b == 0x54474354u && c == 0x43544743u && d == 0x47435447u;
}

static void try_debug_regs(void)
{
	rt_irq_register(1, on_db);
	db_hits = 0;
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0u));
	__asm__ volatile("mov %0, %%dr0" : : "r"((uint32_t)(uintptr_t)bp_target));
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x401u)); /* L0, execute, 1 byte */
	uint32_t dr7 = rd_dr(7);
	bp_target(1);
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	char got[64];
	fmt_snprintf(got, sizeof got, "%d #DB at %s, DR6 %x, DR7 reads %x", db_hits,
		     db_eip == (uint32_t)(uintptr_t)bp_target ? "target" : "elsewhere", db_dr6,
		     dr7);
	verdict("DR0/DR7 execute breakpoint", got,
		dr7 == 0x401 && ((db_hits == 1 && db_eip == (uint32_t)(uintptr_t)bp_target &&
				  db_dr6 == 0xffff0ff1u) ||
				 (db_hits == 0 && bp_may_not_fire())));

	/* POPF sets TF: the trap comes after the next instruction, CPUID (an exit). */
	db_hits = 0;
	uint32_t after = 0;
	__asm__ volatile("pushf\n\t"
			 "orl $0x100, (%%esp)\n\t"
			 "popf\n\t"
			 "cpuid\n\t"
			 "1: movl $1b, %0"
			 : "=m"(after)
			 : "a"(0), "c"(0)
			 : "ebx", "edx", "memory");
	fmt_snprintf(got, sizeof got, "%d #DB %s, DR6 %x", db_hits,
		     db_eip == after ? "right after it" : "elsewhere", db_dr6);
	verdict("single-step over CPUID (emulated)", got,
		db_hits == 1 && db_eip == after && db_dr6 == 0xffff4ff0u);
}

/* Breakpoints stay in their domain: the even domains arm an execute breakpoint on
 * bp_victim (DR0) and tag DR1-DR3 with their id, the odd ones call bp_victim and tag
 * theirs, 40 times across yields (d2 and d3 share pCPU 0; the others are placed by the
 * scheduler). No #DB may reach an odd domain, every domain reads its own DR0-DR3 and DR7
 * back after each switch, and at the end an even domain's breakpoint still fires. */
static void try_debug_isolation(const struct sliver_boot_info *bi)
{
	bool armer = !(bi->dom_id & 1);
	uint32_t want[4] = {armer ? (uint32_t)(uintptr_t)bp_victim : 0x1000u * bi->dom_id,
			    0x11110000u | bi->dom_id, 0x22220000u | bi->dom_id,
			    0x33330000u | bi->dom_id};
	uint32_t want7 = armer ? 0x402u : 0x400u; /* G0: execute, 1 byte */
	__asm__ volatile("mov %0, %%dr0" : : "r"(want[0]));
	__asm__ volatile("mov %0, %%dr1" : : "r"(want[1]));
	__asm__ volatile("mov %0, %%dr2" : : "r"(want[2]));
	__asm__ volatile("mov %0, %%dr3" : : "r"(want[3]));
	__asm__ volatile("mov %0, %%dr7" : : "r"(want7));
	db_hits = 0;
	bool same = true;
	int x = 0;
	for (int i = 0; i < 40 && same && !db_hits; i++) {
		hc_yield();
		rt_spin_us(100);
		if (!armer)
			x = bp_victim(x);
		for (unsigned n = 0; n < 4; n++)
			same = same && rd_dr(n) == want[n];
		same = same && rd_dr(7) == want7;
	}
	int stray = db_hits;
	char got[64];
	if (armer) {
		bp_victim(0);
		fmt_snprintf(got, sizeof got, "%s, %d #DB at the end",
			     same ? "own DR0-3/DR7" : "DRs changed", db_hits - stray);
		verdict("breakpoint kept across 40 yields", got,
			same && !stray &&
				((db_hits == 1 && db_eip == (uint32_t)(uintptr_t)bp_victim) ||
				 (db_hits == 0 && bp_may_not_fire())));
	} else {
		fmt_snprintf(got, sizeof got, "%s, %d #DB", same ? "own DR0-3/DR7" : "DRs changed",
			     stray);
		verdict("other domains' breakpoints across 40 yields", got, same && !stray);
	}
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
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

/* Probes: run one instruction with the fault catcher armed for exactly its length (the
 * assembler measures it); the result is the vector it raised, or -1. */
#define PROBE_BEGIN "movl $2f-1f, %[skip]\n1: "
#define PROBE_END   "\n2:"
#define PROBE(insn, ...)                                                                           \
	({                                                                                         \
		fault_vec = -1;                                                                    \
		__asm__ volatile(PROBE_BEGIN insn PROBE_END : [skip] "=m"(fault_skip)__VA_ARGS__); \
		fault_skip = 0;                                                                    \
		fault_vec;                                                                         \
	})

static int wr_cr0(uint32_t v)
{
	return PROBE("mov %[v], %%cr0", : [v] "r"(v) : "memory");
}
static int wr_cr4(uint32_t v)
{
	return PROBE("mov %[v], %%cr4", : [v] "r"(v) : "memory");
}
static uint32_t rd_cr0(void)
{
	uint32_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}
static uint32_t rd_cr4(void)
{
	uint32_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}
static int wr_msr(uint32_t msr, uint64_t val)
{
	return PROBE("wrmsr",
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "memory");
}
static int rd_msr(uint32_t msr, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	fault_vec = -1;
	__asm__ volatile(PROBE_BEGIN "rdmsr" PROBE_END
			 : [skip] "=m"(fault_skip), "=a"(lo), "=d"(hi)
			 : "c"(msr)
			 : "memory");
	fault_skip = 0;
	*val = ((uint64_t)hi << 32) | lo;
	return fault_vec;
}
static struct {
	uint32_t a, b, c, d;
} cpuid_of(uint32_t leaf)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(0));
	return (__typeof__(cpuid_of(0))){a, b, c, d};
}

static const char *vec_name(int v)
{
	static char buf[8];
	if (v == -1)
		return "no fault";
	if (v == 6)
		return "#UD";
	if (v == 13)
		return "#GP";
	fmt_snprintf(buf, sizeof buf, "vec%d", v);
	return buf;
}

static void expect_vec(const char *what, int got, int want)
{
	verdict(what, vec_name(got), got == want);
}

/* CR0/CR4/EFER/DR/XCR writes hardware refuses: the architectural fault, the register
 * unchanged, the guest running on (docs/vmx.md, "Write checks"). */
static void try_arch_faults(void)
{
	static const struct {
		unsigned bit;
		const char *what;
	} cr4_bad[] = {
		{11, "set CR4.UMIP (hidden)"},
		{12, "set CR4.LA57 (hidden)"},
		{14, "set CR4.SMXE"},
		{17, "set CR4.PCIDE outside long mode"},
		{18, "set CR4.OSXSAVE (XSAVE hidden)"},
		{22, "set CR4.PKE (hidden)"},
		{25, "set CR4 bit 25 (reserved)"},
		{31, "set CR4 bit 31 (reserved)"},
	};
	uint32_t cr4 = rd_cr4(), cr0 = rd_cr0();
	for (unsigned i = 0; i < sizeof cr4_bad / sizeof cr4_bad[0]; i++) {
		int v = wr_cr4(cr4 | (1u << cr4_bad[i].bit));
		verdict(cr4_bad[i].what, vec_name(v), v == 13 && rd_cr4() == cr4);
	}
	int v = wr_cr0((cr0 | 0x80000000u) & ~1u);
	verdict("set CR0.PG with PE=0", vec_name(v), v == 13 && rd_cr0() == cr0);
	v = wr_cr0((cr0 | (1u << 29)) & ~(1u << 30));
	verdict("set CR0.NW without CD", vec_name(v), v == 13 && rd_cr0() == cr0);
	v = wr_cr0(cr0 | (1u << 10));
	char got[48];
	fmt_snprintf(got, sizeof got, "%s, reads %x", vec_name(v), rd_cr0());
	verdict("set CR0 bit 10 (reserved: ignored)", got, v == -1 && rd_cr0() == cr0);

	/* DR4/DR5: aliases of DR6/DR7 while CR4.DE = 0, #UD while it is 1 (SDM 17.2.2). */
	uint32_t dr6 = 0;
	__asm__ volatile("mov %0, %%dr4" : : "r"(0xffff0ff1u));
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	fmt_snprintf(got, sizeof got, "DR6 reads %x", dr6);
	verdict("mov DR4 with CR4.DE=0 (DR6 alias)", got, dr6 == 0xffff0ff1u);
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0u));
	wr_cr4(cr4 | (1u << 3));
	expect_vec("mov to DR4 with CR4.DE=1", PROBE("mov %[v], %%dr4", : [v] "r"(0u)), 6);
	uint32_t x = 0;
	expect_vec("mov from DR5 with CR4.DE=1", PROBE("mov %%dr5, %[x]", , [x] "=r"(x)), 6);
	wr_cr4(cr4);

	/* XSETBV: CR4.OSXSAVE can never be set here, so #UD (SDM Vol. 2 XSETBV). */
	expect_vec("xsetbv", PROBE("xsetbv", : "c"(0), "a"(1), "d"(0)), 6);
	/* EFER: reserved bits #GP; NXE only when CPUID shows NX. */
	uint64_t efer = 0;
	rd_msr(0xc0000080u, &efer);
	expect_vec("wrmsr EFER bit 1 (reserved)", wr_msr(0xc0000080u, efer | 2), 13);
	expect_vec("wrmsr EFER bit 9 (reserved)", wr_msr(0xc0000080u, efer | (1u << 9)), 13);
	expect_vec("wrmsr EFER bit 12 (SVME: reserved)", wr_msr(0xc0000080u, efer | (1u << 12)),
		   13);
	/* The SWAPGS/SYSCALL MSRs: per-vCPU, checked like WRMSR does (canonical addresses,
	 * SFMASK bits 63:32 reserved), read back without an exit. */
	expect_vec("wrmsr LSTAR non-canonical", wr_msr(0xc0000082u, 0x0000800000000000ull), 13);
	expect_vec("wrmsr SFMASK bit 32 (reserved)", wr_msr(0xc0000084u, 1ull << 32), 13);
	uint64_t kgs = 0;
	v = wr_msr(0xc0000102u, 0xffff8000deadb000ull);
	int w = rd_msr(0xc0000102u, &kgs);
	fmt_snprintf(got, sizeof got, "%s/%s %llx", vec_name(v), vec_name(w),
		     (unsigned long long)kgs);
	verdict("wrmsr/rdmsr KERNEL_GS_BASE", got,
		v == -1 && w == -1 && kgs == 0xffff8000deadb000ull);
	bool nx = cpuid_of(0x80000001u).d & (1u << 20);
	v = wr_msr(0xc0000080u, efer | (1u << 11));
	uint64_t e2 = 0;
	rd_msr(0xc0000080u, &e2);
	wr_msr(0xc0000080u, efer);
	fmt_snprintf(got, sizeof got, "NX %s, %s", nx ? "shown" : "hidden", vec_name(v));
	verdict("wrmsr EFER.NXE agrees with CPUID", got,
		nx ? v == -1 && (e2 & (1u << 11)) : v == 13);
}

/* Seeded random CR0/CR4/EFER writes: each is refused (#GP, register unchanged) exactly when
 * a bit lies outside what CPUID says the guest has, else it reads back as written. CR0
 * keeps PE=1, PG=0 (the guest runs on through every value). */
static uint32_t rng_state;
static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void try_random_writes(const struct sliver_boot_info *bi)
{
	uint64_t seed = 0x5eed0000u + bi->dom_id;
	rt_arg_u64("seed", &seed);
	rng_state = (uint32_t)seed | 1;
	uint32_t b7 = cpuid_of(7).b;
	uint32_t cr4_ok = 0x7ff & ~((1u << 11) | (1u << 12) | (1u << 14));
	cr4_ok |= (b7 & 1) ? 1u << 16 : 0;
	cr4_ok |= (b7 & (1u << 7)) ? 1u << 20 : 0;
	cr4_ok |= (b7 & (1u << 20)) ? 1u << 21 : 0;
	uint32_t cr4 = rd_cr4(), cr0 = rd_cr0();
	unsigned agree4 = 0, agree0 = 0, agree_efer = 0, n = 64;
	for (unsigned i = 0; i < n; i++) {
		/* Half the values stay inside the allowed set, half get one stray bit. */
		uint32_t val = (rng() & cr4_ok) | (1u << 9);
		if (i & 1)
			val |= 1u << (rng() % 32);
		int v = wr_cr4(val);
		uint32_t back = rd_cr4();
		wr_cr4(cr4);
		bool want_ok = !(val & ~cr4_ok);
		agree4 += want_ok ? v == -1 && back == val : v == 13 && back == cr4;
	}
	uint32_t cr0_defined = 0x6005003fu; /* PE MP EM TS ET NE WP AM NW CD (no PG) */
	for (unsigned i = 0; i < n; i++) {
		uint32_t val = (rng() & 0x7fffffffu) | 1u;
		int v = wr_cr0(val);
		uint32_t back = rd_cr0();
		wr_cr0(cr0);
		bool want_ok = !((val & (1u << 29)) && !(val & (1u << 30)));
		agree0 += want_ok ? v == -1 && back == ((val & cr0_defined) | 0x10u)
				  : v == 13 && back == cr0;
	}
	uint64_t efer = 0;
	rd_msr(0xc0000080u, &efer);
	uint32_t efer_ok = 0x101 | ((cpuid_of(0x80000001u).d & (1u << 20)) ? 0x800 : 0);
	for (unsigned i = 0; i < n; i++) {
		uint32_t val = rng() & (efer_ok | 0x400);
		if (i & 1)
			val |= 1u << (rng() % 32);
		int v = wr_msr(0xc0000080u, val);
		uint64_t back = 0;
		rd_msr(0xc0000080u, &back);
		wr_msr(0xc0000080u, efer);
		bool want_ok = !(val & ~(efer_ok | 0x400)); /* LMA: ignored */
		agree_efer +=
			want_ok ? v == -1 && back == (val & ~0x400u) : v == 13 && back == efer;
	}
	char what[64], got[32];
	fmt_snprintf(what, sizeof what, "random CR4/CR0/EFER writes (seed %llx)",
		     (unsigned long long)seed);
	fmt_snprintf(got, sizeof got, "%u/%u/%u of %u as CPUID says", agree4, agree0, agree_efer,
		     n);
	verdict(what, got, agree4 == n && agree0 == n && agree_efer == n);
}

/* Instructions that must neither crash the domain nor reach the hardware. */
static void try_insns(void)
{
	expect_vec("wbinvd (a no-op here)", PROBE("wbinvd", : : "memory"), -1);
	expect_vec("invd (a no-op here)", PROBE("invd", : : "memory"), -1);
	bool rdtscp = cpuid_of(0x80000001u).d & (1u << 27);
	verdict("cpuid RDTSCP hidden", rdtscp ? "shown" : "hidden", !rdtscp);
	uint32_t a, c, d;
	expect_vec("rdtscp", PROBE("rdtscp", , "=a"(a), "=c"(c), "=d"(d)), 6);
	verdict("cpuid.0xA no PMU", cpuid_of(0xa).a ? "PMU" : "none", cpuid_of(0xa).a == 0);
	expect_vec("rdpmc 0 (no counters)", PROBE("rdpmc", , "=a"(a), "=d"(d) : "c"(0)), 13);
	bool mon = cpuid_of(1).c & (1u << 3);
	verdict("cpuid MONITOR hidden", mon ? "shown" : "hidden", !mon);
	static uint32_t line;
	expect_vec("monitor", PROBE("monitor", : "a"(&line), "c"(0), "d"(0)), 6);
	expect_vec("mwait", PROBE("mwait", : "a"(0), "c"(0)), 6);
}

/* CPUID shows a feature only when its MSRs, CR4 bits and instructions work. */
static uint64_t rdtsc64(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* IA32_TSC and TSC_ADJUST move this vCPU's TSC only (a per-vCPU offset, SDM Vol. 3B
 * 17.17.3): the hypervisor's clock (HC_CLOCK, from the host TSC) does not jump, the
 * boot-info tsc_base follows, and TSC_ADJUST = 0 puts everything back. */
static void try_tsc(const struct sliver_boot_info *bi)
{
	const uint64_t jump = 1ull << 40; /* > 1000 s at any TSC rate below 1 THz */
	const volatile uint64_t *base = &bi->tsc_base;
	uint64_t base0 = *base, h0 = hc_clock(), t0 = rdtsc64();
	int w = wr_msr(0x10, t0 + jump);
	uint64_t t1 = rdtsc64(), adj = 0, h1 = hc_clock(), base1 = *base;
	int r = rd_msr(0x3b, &adj);
	char got[64];
	fmt_snprintf(got, sizeof got, "%s, moved %llx", vec_name(w), (unsigned long long)(t1 - t0));
	verdict("wrmsr IA32_TSC", got, w == -1 && t1 - t0 >= jump && t1 - t0 < jump + (1ull << 32));
	fmt_snprintf(got, sizeof got, "%s %llx", vec_name(r), (unsigned long long)adj);
	verdict("rdmsr IA32_TSC_ADJUST follows the IA32_TSC write", got,
		r == -1 && adj <= jump && jump - adj < (1ull << 32));
	fmt_snprintf(got, sizeof got, "%llu ns", (unsigned long long)(h1 - h0));
	verdict("HC_CLOCK (the host TSC) unmoved by a guest TSC write", got,
		h1 >= h0 && h1 - h0 < 1000000000ull);
	fmt_snprintf(got, sizeof got, "+%llx", (unsigned long long)(base1 - base0));
	verdict("boot-info tsc_base follows the TSC offset", got, base1 - base0 == adj);
	w = wr_msr(0x3b, 0);
	uint64_t t2 = rdtsc64(), h2 = hc_clock();
	r = rd_msr(0x3b, &adj);
	fmt_snprintf(got, sizeof got, "%s, adjust %llx", vec_name(w), (unsigned long long)adj);
	verdict("wrmsr IA32_TSC_ADJUST 0 puts the TSC back", got,
		w == -1 && r == -1 && adj == 0 && t2 < t1 && *base == base0);
	uint64_t c1 = rt_clock_ns(), c2;
	h2 = hc_clock();
	c2 = rt_clock_ns();
	fmt_snprintf(got, sizeof got, "%llu<=%llu<=%llu", (unsigned long long)c1,
		     (unsigned long long)h2, (unsigned long long)c2);
	verdict("HC_CLOCK within the TSC clock again", got, c1 <= h2 && h2 <= c2);
	uint64_t misc = 0;
	r = rd_msr(0x1a0, &misc);
	w = wr_msr(0x1a0, misc ^ 1);		   /* fast strings: the guest's */
	int w2 = wr_msr(0x1a0, misc ^ (1u << 11)); /* BTS unavailable: read-only */
	uint64_t misc2 = 0;
	rd_msr(0x1a0, &misc2);
	wr_msr(0x1a0, misc);
	fmt_snprintf(got, sizeof got, "%llx %s %s %llx", (unsigned long long)misc, vec_name(w),
		     vec_name(w2), (unsigned long long)misc2);
	verdict("IA32_MISC_ENABLE fast strings writable, BTS_UNAVAIL read-only", got,
		r == -1 && w == -1 && w2 == 13 && misc2 == (misc ^ 1));
}

static void try_cpuid_consistency(void)
{
	uint32_t c1 = cpuid_of(1).c, d1 = cpuid_of(1).d, b7 = cpuid_of(7).b;
	static const struct {
		uint32_t reg, bit, msr;
		const char *what;
	} hidden[] = {
		{0, 15, 0x345, "PDCM / IA32_PERF_CAPABILITIES"},
		{1, 9, 0x1b, "APIC / IA32_APIC_BASE"},
		{1, 21, 0x600, "DS / IA32_DS_AREA"},
		{1, 22, 0x19c, "ACPI / IA32_THERM_STATUS"},
		{0, 7, 0x199, "EST / IA32_PERF_CTL"},
		{0, 21, 0x802, "x2APIC / x2APIC ID"},
		{0, 24, 0x6e0, "TSC-deadline / IA32_TSC_DEADLINE"},
	};
	for (unsigned i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
		uint32_t reg = hidden[i].reg ? d1 : c1;
		bool shown = reg & (1u << hidden[i].bit);
		uint64_t val;
		int v = rd_msr(hidden[i].msr, &val);
		char what[64], got[32];
		fmt_snprintf(what, sizeof what, "cpuid %s", hidden[i].what);
		fmt_snprintf(got, sizeof got, "%s, %s", shown ? "shown" : "hidden", vec_name(v));
		verdict(what, got, !shown && v == 13);
	}
	/* MCE/MCA shown with zero banks (as KVM): MCG_CAP reads 0, MCG_STATUS 0, MC0_CTL #GP,
	 * CR4.MCE sets. */
	uint64_t mcg_cap = ~0ull, mcg_status = ~0ull, mc0;
	int vc = rd_msr(0x179, &mcg_cap), vs = rd_msr(0x17a, &mcg_status), vb = rd_msr(0x400, &mc0);
	int vm = wr_cr4(rd_cr4() | (1u << 6));
	bool mce_on = rd_cr4() & (1u << 6);
	wr_cr4(rd_cr4() & ~(1u << 6));
	char mgot[64];
	fmt_snprintf(mgot, sizeof mgot, "cap %llx status %llx, MC0_CTL %s, CR4.MCE %s",
		     (unsigned long long)mcg_cap, (unsigned long long)mcg_status, vec_name(vb),
		     mce_on ? "set" : "refused");
	verdict("cpuid MCE/MCA shown, zero banks", mgot,
		(d1 & (1u << 7)) && (d1 & (1u << 14)) && vc == -1 && vs == -1 && mcg_cap == 0 &&
			mcg_status == 0 && vb == 13 && vm == -1 && mce_on);
	verdict("cpuid PCID/XSAVE/OSXSAVE/AVX hidden", "bits",
		!(c1 & ((1u << 17) | (1u << 26) | (1u << 27) | (1u << 28))));
	/* Shown features whose MSRs must work: SEP, PAT, MTRR (no ranges). */
	uint64_t val = 0;
	int v = wr_msr(0x174, 0x08);
	int w = rd_msr(0x174, &val);
	verdict("cpuid SEP: SYSENTER_CS read back", vec_name(v),
		(d1 & (1u << 11)) && v == -1 && w == -1 && val == 8);
	uint64_t pat = 0;
	v = rd_msr(0x277, &pat);
	w = wr_msr(0x277, 0x0007010600070106ull);
	uint64_t pat2 = 0;
	rd_msr(0x277, &pat2);
	char got[48];
	fmt_snprintf(got, sizeof got, "%s/%s %llx", vec_name(v), vec_name(w),
		     (unsigned long long)pat2);
	verdict("cpuid PAT: IA32_PAT read/write", got,
		(d1 & (1u << 16)) && v == -1 && w == -1 && pat2 == 0x0007010600070106ull);
	expect_vec("wrmsr IA32_PAT type 2 (reserved)", wr_msr(0x277, 0x0007040600070402ull), 13);
	wr_msr(0x277, pat);
	uint64_t cap = 1;
	v = rd_msr(0xfe, &cap);
	fmt_snprintf(got, sizeof got, "%s cap=%llx", vec_name(v), (unsigned long long)cap);
	verdict("cpuid MTRR: MTRRCAP has no ranges", got, v == -1 && cap == 0);
	expect_vec("wrmsr MTRR_DEF_TYPE type 2 (reserved)", wr_msr(0x2ff, 0x802), 13);
	expect_vec("rdmsr MTRR_PHYSBASE0 (VCNT=0)", rd_msr(0x200, &val), 13);
	/* Leaf 7 bits with a CR4 switch: shown exactly when CR4 takes the bit. */
	static const struct {
		unsigned cpuid_bit, cr4_bit;
		const char *what;
	} pair[] = {{0, 16, "FSGSBASE"}, {7, 20, "SMEP"}, {20, 21, "SMAP"}};
	uint32_t cr4 = rd_cr4();
	for (unsigned i = 0; i < 3; i++) {
		bool shown = b7 & (1u << pair[i].cpuid_bit);
		v = wr_cr4(cr4 | (1u << pair[i].cr4_bit));
		wr_cr4(cr4);
		char what[48];
		fmt_snprintf(what, sizeof what, "cpuid %s agrees with CR4", pair[i].what);
		fmt_snprintf(got, sizeof got, "%s, %s", shown ? "shown" : "hidden", vec_name(v));
		verdict(what, got, shown ? v == -1 : v == 13);
	}
}

/* The 64-bit part (long64.S): MOV CR8 is a virtual TPR, SYSCALL/SYSRET use this vCPU's
 * STAR/LSTAR/SFMASK, SWAPGS this vCPU's KERNEL_GS_BASE across yields to other domains,
 * and leaving long mode the wrong way is #GP. */
static void try_long64(const struct sliver_boot_info *bi, bool hold)
{
	static struct l64_result r;
	memset(&r, 0, sizeof r);
	r.kgs_pattern = 0xffff800000000000ull | ((uint64_t)bi->dom_id << 24) | 0x5a5au;
	r.hold_cr8 = hold;
	hostile64(&r);
	char got[64];
	verdict("64-bit part ran to its end", r.done == 0x64 ? "yes" : "no", r.done == 0x64);
	fmt_snprintf(got, sizeof got, "%llu", (unsigned long long)r.cr8_read);
	verdict("mov $15 to CR8, read back", got, r.cr8_read == 15);
	fmt_snprintf(got, sizeof got, "%llu/%llu/%llu ticks", (unsigned long long)r.ticks_tpr15,
		     (unsigned long long)r.ticks_tpr2, (unsigned long long)r.ticks_tpr1);
	verdict("timer vector 0x20 with TPR 15/2/1", got,
		r.ticks_tpr15 == 0 && r.ticks_tpr2 == 0 && r.ticks_tpr1 == 1);
	expect_vec("mov $16 to CR8 (reserved bits)", (int)r.cr8_16_vec, 13);
	expect_vec("syscall with EFER.SCE=0", (int)r.sc_ud_vec, 6);
	fmt_snprintf(got, sizeof got, "%llx", (unsigned long long)r.lstar_read);
	verdict("wrmsr/rdmsr LSTAR", got, r.lstar_read == (uintptr_t)l64_syscall_entry);
	fmt_snprintf(got, sizeof got, "rcx %s, r11=%llx rflags=%llx cs=%llx",
		     r.sc_rcx == r.sc_want_rcx ? "right" : "wrong", (unsigned long long)r.sc_r11,
		     (unsigned long long)r.sc_rflags, (unsigned long long)r.sc_cs);
	verdict("syscall lands at LSTAR", got,
		r.sc_rcx == r.sc_want_rcx && (r.sc_r11 & 0x600) == 0x600 &&
			!(r.sc_rflags & 0x600) && r.sc_cs == 0x18);
	fmt_snprintf(got, sizeof got, "cs=%llx", (unsigned long long)r.ring3_cs);
	verdict("sysretq to ring 3", got, r.ring3_cs == 0x3b);
	fmt_snprintf(got, sizeof got, "%llu of %llu rounds wrong", (unsigned long long)r.kgs_bad,
		     (unsigned long long)r.kgs_rounds);
	verdict("swapgs sees own KERNEL_GS_BASE across yields", got,
		r.kgs_bad == 0 && r.kgs_rounds == 200);
	expect_vec("clear CR0.PG in 64-bit code", (int)r.pg_clear_vec, 13);
	expect_vec("clear EFER.LME with paging on", (int)r.lme_clear_vec, 13);
	expect_vec("clear CR4.PAE in long mode", (int)r.pae_clear_vec, 13);
	expect_vec("set CR4.PCIDE (PCID hidden)", (int)r.pcide_vec, 13);
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
