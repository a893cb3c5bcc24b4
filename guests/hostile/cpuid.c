/* hostile, CPUID against what really works: hidden features whose MSRs #GP, shown ones
 * (MCE with zero banks, SEP, PAT, MTRR, leaf 7 bits with a CR4 switch) whose MSRs and CR4
 * bits do; and IA32_TSC/TSC_ADJUST/MISC_ENABLE, which move only this vCPU's TSC. */
#include "guests/hostile/hostile.h"
#include "guests/lib/hcinsn.h"
#include "lib/fmt.h"

static uint64_t rdtsc64(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* IA32_TSC and TSC_ADJUST move this vCPU's TSC only (a per-vCPU offset, SDM Vol. 3B
 * 17.17.3): the hypervisor's clock (HC_CLOCK, from the host TSC) does not jump, the
 * boot-info tsc_base follows, and TSC_ADJUST = 0 puts everything back. */
void try_tsc(const struct sliver_boot_info *bi)
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

/* CPUID shows a feature only when its MSRs, CR4 bits and instructions work. */
void try_cpuid_consistency(void)
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
