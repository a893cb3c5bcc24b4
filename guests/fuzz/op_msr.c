/* fuzz, op classes `msr`, `kgs` and `msrinv`: RDMSR/WRMSR on the interesting MSRs and random
 * indices (#GP or success, nothing else; shadowed MSRs read back; EFER only SCE/NXE/LME),
 * KERNEL_GS_BASE kept per domain across yields, and the invalid values hardware refuses. */
#include "guests/fuzz/fuzz_ops.h"
#include "lib/fmt.h"
#include "sliver/hypercall.h"

static const uint32_t msr_list[] = {
	0x10,	    0x1b,	0x3a,	    0x3b,	 0x48,	     0x49,	 0x8b,
	0xc1,	    0xe7,	0xe8,	    0xfe,	 0x174,	     0x175,	 0x176,
	0x179,	    0x17a,	0x186,	    0x198,	 0x199,	     0x1a0,	 0x1d9,
	0x200,	    0x201,	0x20f,	    0x250,	 0x258,	     0x277,	 0x2ff,
	0x345,	    0x38d,	0x38f,	    0x390,	 0x480,	     0x481,	 0x48b,
	0x491,	    0x6e0,	0x802,	    0x808,	 0x80b,	     0x830,	 0x838,
	0x8ff,	    MSR_EFER,	MSR_STAR,   MSR_LSTAR,	 MSR_CSTAR,  MSR_FMASK,	 MSR_FSB,
	MSR_GSB,    MSR_KGS,	0xc0000103, 0xc0010000,	 0xc0010004, 0xc0010015, 0xc0010114,
	0xc0011022, 0x40000000, 0x4b564d00, 0xffffffffu,
};
/* Writes docs/hypercalls.md promises to refuse with #GP. */
static bool msr_must_gp_on_write(uint32_t m)
{
	return m == 0x3a || m == 0x1b || (m >= 0x480 && m <= 0x491);
}
static bool canonical(uint64_t v)
{
	return (uint64_t)((int64_t)(v << 16) >> 16) == v;
}
static uint64_t rand_canonical(void)
{
	uint64_t v = rnd() & 0x00007fffffffffffull;
	return chance(50) ? v : v | 0xffff800000000000ull;
}

void op_efer(void)
{
	static const uint64_t bits[] = {EFER_SCE,  EFER_LME,   EFER_LMA,   EFER_NXE,  1ull << 1,
					1ull << 9, 1ull << 12, 1ull << 15, 1ull << 63};
	uint64_t v = efer_base;
	for (unsigned i = 0, k = 1 + below(2); i < k; i++)
		v ^= bits[below(sizeof bits / sizeof bits[0])];
	bool ok = !(v & ~(EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE)) && !(LM && !(v & EFER_LME));
	int got = x_wrmsr(MSR_EFER, v);
	if (!expect(got, "wrmsr EFER", ok ? V_NONE : V_GP, ok ? V_NONE : V_GP))
		return;
	uint64_t rb = rdmsr_or_0(MSR_EFER);
	uint64_t want = ok ? ((v & ~EFER_LMA) | (efer_base & EFER_LMA)) : efer_base;
	if (rb != want)
		fail("EFER wrote %llx (%s), reads %llx, expected %llx", (unsigned long long)v,
		     ok ? "accepted" : "refused", (unsigned long long)rb, (unsigned long long)want);
	x_wrmsr(MSR_EFER, efer_base);
}

void op_msr(void)
{
	uint32_t m;
	switch (below(6)) {
	case 0:
	case 1:
		m = msr_list[below(sizeof msr_list / sizeof msr_list[0])];
		break;
	case 2:
		m = 0x800 + below(0x100);
		break;
	case 3:
		m = 0xc0010000u + below(0x10000);
		break;
	case 4:
		m = (chance(50) ? 0 : 0xc0000000u) + below(0x2000);
		break;
	default:
		m = (uint32_t)rnd();
	}
	if (m == MSR_EFER) {
		op_efer();
		return;
	}
	uint64_t old;
	int rd = x_rdmsr(m, &old);
	if (!expect(rd, "rdmsr", V_NONE, V_GP) || chance(40))
		return;
	/* IA32_TSC and TSC_ADJUST move this vCPU's TSC (a per-vCPU offset, checked by the
	 * hostile guest): a random value would break the fuzzer's own clock. */
	if (m == 0x10 || m == 0x3b)
		return;
	uint64_t v;
	switch (below(5)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = ~0ull;
		break;
	case 2:
		v = old ^ (1ull << below(64));
		break;
	case 3:
		v = rand_canonical();
		break;
	default:
		v = rnd();
	}
	bool gp_only = msr_must_gp_on_write(m), check_rb = false;
	switch (m) {
	case MSR_STAR:
		check_rb = true;
		break;
	case MSR_LSTAR:
	case MSR_CSTAR:
	case MSR_KGS:
		if (!canonical(v) && !enabled[C_MSRINV])
			v = rand_canonical();
		gp_only = !canonical(v);
		check_rb = true;
		if (m == MSR_KGS && !gp_only)
			v = ((uint64_t)bi->dom_id << 32) | (v & 0xffffffffu);
		break;
	case MSR_FMASK:
		if (!enabled[C_MSRINV])
			v = (uint32_t)v;
		gp_only = v >> 32;
		check_rb = true;
		break;
	case MSR_PAT:
		if (!enabled[C_MSRINV])
			v &= 0x0707070707070707ull & ~0x0202020202020202ull; /* types 0,1,4,5 */
		break;
	case 0x2ff: /* MTRRdefType: E, FE and a type only */
		if (!enabled[C_MSRINV])
			v = (v & 0xc00) | (chance(50) ? 6 : 0);
		break;
	}
	int wr = x_wrmsr(m, v);
	char what[64];
	fmt_snprintf(what, sizeof what, "wrmsr %x value %llx%s", m, (unsigned long long)v,
		     gp_only ? " (must be refused)" : "");
	expect(wr, what, gp_only ? V_GP : V_NONE, V_GP);
	if (wr == V_NONE) {
		uint64_t rb = 0;
		if (check_rb && (x_rdmsr(m, &rb) != V_NONE || rb != v))
			fail("msr %x wrote %llx, reads %llx", m, (unsigned long long)v,
			     (unsigned long long)rb);
		if (m == MSR_KGS)
			kgs_expect = v;
		if (m == MSR_PAT || m == MSR_FSB || m == MSR_GSB || (m >= 0x174 && m <= 0x176) ||
		    m == 0x2ff)
			x_wrmsr(m, rd == V_NONE ? old : 0);
	}
	check_efer();
}

/* KERNEL_GS_BASE is this vCPU's: it reads back what this domain wrote, after a yield that
 * lets other domains (other fuzzers writing their own) run on the pCPU. */
void op_kgs(void)
{
	uint64_t got = rdmsr_or_0(MSR_KGS);
	if (got != kgs_expect)
		fail("KERNEL_GS_BASE reads %llx, this domain wrote %llx", (unsigned long long)got,
		     (unsigned long long)kgs_expect);
	kgs_expect = ((uint64_t)bi->dom_id << 32) | (uint32_t)rnd();
	if (x_wrmsr(MSR_KGS, kgs_expect) != V_NONE)
		fail("wrmsr KERNEL_GS_BASE %llx refused", (unsigned long long)kgs_expect);
	if (chance(25))
		hc0(HC_YIELD, 0, 0);
	got = rdmsr_or_0(MSR_KGS);
	if (got != kgs_expect)
		fail("KERNEL_GS_BASE reads %llx after a yield, this domain wrote %llx",
		     (unsigned long long)got, (unsigned long long)kgs_expect);
}

void op_msrinv(void)
{
	static const uint32_t m[] = {MSR_LSTAR, MSR_CSTAR, MSR_KGS, MSR_FMASK, MSR_PAT, 0x2ff};
	unsigned i = below(6);
	uint64_t v = i < 3    ? (rnd() | 1ull << 50) & ~(1ull << 63)
		     : i == 3 ? rnd() | 1ull << 40
		     : i == 4 ? 0x0202020202020202ull
			      : 0x1000 | rnd();
	uint64_t old = rdmsr_or_0(m[i]);
	char what[64];
	fmt_snprintf(what, sizeof what, "wrmsr %x invalid value %llx", m[i], (unsigned long long)v);
	if (!expect(x_wrmsr(m[i], v), what, V_GP, V_GP))
		x_wrmsr(m[i], i == 2 ? kgs_expect : old);
}
