/* fuzz, op classes `cpuid`, `cache`, `invd`, `mwait`, `hlt`, `int`, `vmx`, `priv`, `xsave` and
 * `xsetbv`: instructions a guest may run but that must not reach the hardware as such, each
 * checked for the vector (or none) hardware gives, and CPUID for what it must hide. */
#include "guests/fuzz/fuzz_ops.h"
#include "lib/string.h"

void op_cpuid(void)
{
	uint32_t leaf, sub = chance(50) ? below(4) : (uint32_t)rnd();
	switch (below(5)) {
	case 0:
		leaf = below(0x20);
		break;
	case 1:
		leaf = 0x40000000u + below(0x20);
		break;
	case 2:
		leaf = 0x80000000u + below(0x20);
		break;
	case 3:
		leaf = chance(50) ? 1 : 0x40000000u;
		break;
	default:
		leaf = (uint32_t)rnd();
	}
	uint32_t r[4];
	x_cpuid(leaf, sub, r);
	if (leaf == 1) {
		uint32_t hidden = 1u << 3 | 1u << 5 | 1u << 6 | 1u << 21 | 1u << 24;
		if ((r[2] & hidden) || !(r[2] & (1u << 31)))
			fail("cpuid.1 ecx=%x: VMX/SMX/MONITOR/x2APIC/TSC-deadline shown or "
			     "hypervisor bit clear",
			     r[2]);
	}
	if (leaf == 0x40000000u && (r[0] < 0x40000000u || r[1] != 0x76696c53u ||
				    r[2] != 0x6c537265u || r[3] != 0x72657669u))
		fail("cpuid 0x40000000: %x %x %x %x, not SliverSliver", r[0], r[1], r[2], r[3]);
}

/* --- cache, MONITOR/MWAIT, HLT, INT n, VMX, privileged ---------------------------------------- */
void op_cache(void)
{
	if (chance(50))
		__asm__ volatile("wbinvd" ::: "memory");
	else
		__asm__ volatile("clflush (%0)" : : "r"(scratch + below(4096)) : "memory");
}

void op_invd(void)
{
	static const uint8_t invd[] = {0x0f, 0x08};
	expect(stub0(invd, 2), "invd", V_NONE, V_GP);
}

void op_mwait(void)
{
	static const uint8_t monitor[] = {0x0f, 0x01, 0xc8}, mwait[] = {0x0f, 0x01, 0xc9};
	int got = chance(50) ? stub0(monitor, 3) : stub0(mwait, 3);
	expect(got, "monitor/mwait", V_UD, V_NONE);
}

void op_hlt(void)
{
	uint64_t now = fz_clock_ns();
	uint64_t t = chance(20) ? now - below(1000) : now + below(300000);
	/* Armed with IF=0: a timer that fires at once must not be taken before the HLT. */
	__asm__ volatile("cli" ::: "memory");
	fz_timer_fired = 0;
	set_timer(t);
	if (chance(70)) /* HLT with IF=0 wakes on a pending interrupt, then STI takes it */
		__asm__ volatile("hlt; sti; nop" ::: "memory");
	else /* STI's shadow covers the HLT: the interrupt wakes it and is taken */
		__asm__ volatile("sti; hlt" ::: "memory");
}

void op_int(void)
{
	static const uint8_t errcode[] = {8, 10, 11, 12, 13, 14, 17, 21, 29, 30};
	unsigned form = below(8);
	if (form == 0) { /* INT3 */
		static const uint8_t b[] = {0xcc};
		expect(stub0(b, 1), "int3", 3, 3);
		return;
	}
	if (form == 1) { /* ICEBP */
		static const uint8_t b[] = {0xf1};
		int got = stub0(b, 1);
		/* QEMU 7.2's TCG is built without WANT_ICEBP: 0xF1 is #UD there (docs/svm.md QEMU
		 * item 5); on a CPU and in Bochs it is #DB (SDM Vol. 3A 17.3.1.2). */
		if (on_qemu_tcg && got == V_UD)
			emu_diff("icebp is #UD under QEMU TCG, #DB on a CPU",
				 "docs/svm.md QEMU item 5");
		else
			expect(got, "icebp", V_DB, V_DB);
		return;
	}
	unsigned v = below(256);
	for (unsigned i = 0; i < sizeof errcode; i++)
		if (v == errcode[i])
			v = 3; /* our stubs would pop an error code INT n does not push */
	uint8_t b[2] = {0xcd, (uint8_t)v};
	int got = stub0(b, 2);
	expect(got, "int n", v < 32 ? (int)v : V_NONE, v < 32 ? (int)v : V_NONE);
}

void op_vmx(void)
{
	static const struct {
		uint8_t b[6], n;
	} t[] = {
		{{0xf3, 0x0f, 0xc7, 0x30}, 4},	     /* vmxon (%rax) */
		{{0x0f, 0xc7, 0x30}, 3},	     /* vmptrld (%rax) */
		{{0x66, 0x0f, 0xc7, 0x30}, 4},	     /* vmclear (%rax) */
		{{0x0f, 0xc7, 0x38}, 3},	     /* vmptrst (%rax) */
		{{0x0f, 0x01, 0xc4}, 3},	     /* vmxoff */
		{{0x0f, 0x01, 0xc2}, 3},	     /* vmlaunch */
		{{0x0f, 0x01, 0xc3}, 3},	     /* vmresume */
		{{0x0f, 0x78, 0xc8}, 3},	     /* vmread %rcx, %rax */
		{{0x0f, 0x79, 0xc1}, 3},	     /* vmwrite %rcx, %rax */
		{{0x66, 0x0f, 0x38, 0x80, 0x08}, 5}, /* invept (%rax), %rcx */
		{{0x66, 0x0f, 0x38, 0x81, 0x08}, 5}, /* invvpid (%rax), %rcx */
		{{0x0f, 0x01, 0xd4}, 3},	     /* vmfunc */
		{{0x0f, 0x37}, 2},		     /* getsec */
	};
	unsigned i = below(sizeof t / sizeof t[0]);
	memset(scratch, 0, 16);
	ureg a = (uintptr_t)scratch, c = below(4) ? below(4) : (ureg)rnd();
	if (i == 4 || i == 5 || i == 6 || i == 11)
		a = below(4); /* vmfunc's leaf, anything for the rest */
	if (i == 7 || i == 8)
		a = (ureg)rnd();
	expect(x_stub(t[i].b, t[i].n, &a, &c), "vmx instruction", V_UD, V_UD);
}

void op_priv(void)
{
	ureg a = 0, c = (ureg)rnd();
	switch (below(5)) {
	case 0: {
		static const uint8_t rdpmc[] = {0x0f, 0x33};
		expect(x_stub(rdpmc, 2, &a, &c), "rdpmc", V_UD, V_GP);
		break;
	}
	case 1: {
		static const uint8_t rdtscp[] = {0x0f, 0x01, 0xf9};
		expect(x_stub(rdtscp, 3, &a, &c), "rdtscp", V_NONE, V_UD);
		break;
	}
	case 2: {
		struct __attribute__((packed)) {
			uint16_t limit;
			uintptr_t base;
		} g, i;
		__asm__ volatile("sgdt %0" : "=m"(g));
		__asm__ volatile("sidt %0" : "=m"(i));
		if (!g.limit || !i.limit)
			fail("sgdt/sidt read limits %x/%x", g.limit, i.limit);
		break;
	}
	case 3: {
		static const uint8_t invlpg[] = {0x0f, 0x01, 0x38}; /* invlpg (%rax) */
		a = chance(50) ? (ureg)rnd() : (uintptr_t)scratch;
		expect(x_stub(invlpg, 3, &a, &c), "invlpg", V_NONE, V_NONE);
		break;
	}
	default: {
		static const uint8_t rdrand[] = {0x0f, 0xc7, 0xf0}; /* rdrand %eax */
		expect(x_stub(rdrand, 3, &a, &c), "rdrand", V_NONE, V_UD);
	}
	}
}

/* XGETBV/XSETBV with CR4.OSXSAVE = 0 (XSAVE is hidden): #UD from the CPU, no exit. */
void op_xsave(void)
{
	static const uint8_t xgetbv[] = {0x0f, 0x01, 0xd0}, xsetbv[] = {0x0f, 0x01, 0xd1};
	ureg a = 1, c = below(2);
	if (cr4_base & (1ul << 18))
		return;
	expect(x_stub(chance(50) ? xgetbv : xsetbv, 3, &a, &c), "xgetbv/xsetbv", V_UD, V_UD);
}

/* With CR4.OSXSAVE set (if the hypervisor lets it be set while CPUID hides XSAVE), XSETBV
 * exits: today an unhandled exit that crashes the domain (issue 8). */
void op_xsetbv(void)
{
	static const uint8_t xsetbv[] = {0x0f, 0x01, 0xd1};
	if (x_wrcr4(cr4_base | 1ul << 18) != V_NONE)
		return;
	ureg a = chance(50) ? 1 : 3, c = 0;
	expect(x_stub(xsetbv, 3, &a, &c), "xsetbv with OSXSAVE", V_GP, V_UD);
	x_wrcr4(cr4_base);
}
