/* hostile, what must not reach the hardware: unknown and VMX MSRs, ports that would reset or
 * stop the machine, VMXON, the other vendor's hypercall instruction, CR4.VMXE, and the
 * instructions sliver turns into no-ops or #UD/#GP (WBINVD, INVD, RDTSCP, RDPMC,
 * MONITOR/MWAIT). */
#include "guests/hostile/hostile.h"
#include "guests/lib/hcinsn.h"
#include "lib/fmt.h"
#include "lib/string.h"

void try_msrs(void)
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

void try_io(void)
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

void try_cpu(void)
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

/* Instructions that must neither crash the domain nor reach the hardware. */
void try_insns(void)
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
