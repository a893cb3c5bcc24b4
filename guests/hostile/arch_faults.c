/* hostile, writes hardware refuses: CR0/CR4/EFER/DR4-5/XSETBV/MSR values that must give the
 * architectural fault with the register unchanged, and seeded random CR0/CR4/EFER writes
 * refused exactly when CPUID says the bit is not there. */
#include "guests/hostile/hostile.h"
#include "lib/fmt.h"

/* CR0/CR4/EFER/DR/XCR writes hardware refuses: the architectural fault, the register
 * unchanged, the guest running on (docs/vmx.md, "Write checks"). */
void try_arch_faults(void)
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
	/* DR7's reserved bits 11 (RTM, which CPUID hides), 12, 14, 15 read 0, bit 10 reads 1. */
	uint32_t dr7 = 0;
	__asm__ volatile("mov %0, %%dr7" : : "r"(0xd800u));
	__asm__ volatile("mov %%dr7, %0" : "=r"(dr7));
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	fmt_snprintf(got, sizeof got, "DR7 reads %x", dr7);
	verdict("mov DR7 bits 11, 12, 14, 15 (reserved)", got, dr7 == 0x400u);
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

void try_random_writes(const struct sliver_boot_info *bi)
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
