/* fuzz, op classes `cr`, `crinv` and `dr`: MOV to CR0/CR3/CR4 (bits a guest may flip, writes
 * hardware refuses), CR2, CLTS, LMSW and EFER; the CR4 bits CPUID hides; MOV to and from
 * DR0-DR7. Accepted values read back, refused ones #GP and leave the register unchanged. */
#include "guests/fuzz/fuzz_ops.h"
#include "lib/fmt.h"

#define CR0_PE (1ul << 0)
#define CR0_MP (1ul << 1)
#define CR0_TS (1ul << 3)
#define CR0_ET (1ul << 4)
#define CR0_NE (1ul << 5)
#define CR0_WP (1ul << 16)
#define CR0_AM (1ul << 18)
#define CR0_NW (1ul << 29)
#define CR0_CD (1ul << 30)
#define CR0_PG (1ul << 31)

/* CR4 bits this CPU (as CPUID shows it to us) has, and so must accept. */
static ureg cr4_known(void)
{
	ureg k = 0;
	if (cpuid1_edx & (1u << 1))
		k |= 1ul << 0 | 1ul << 1; /* VME, PVI */
	if (cpuid1_edx & (1u << 4))
		k |= 1ul << 2; /* TSD */
	if (cpuid1_edx & (1u << 3))
		k |= 1ul << 4; /* PSE */
	if (cpuid1_edx & (1u << 7))
		k |= 1ul << 6; /* MCE */
	if (cpuid1_edx & (1u << 13))
		k |= 1ul << 7; /* PGE */
	k |= 1ul << 8;	       /* PCE */
	if (cpuid1_edx & (1u << 24))
		k |= 1ul << 9; /* OSFXSR */
	if (cpuid1_edx & (1u << 25))
		k |= 1ul << 10; /* OSXMMEXCPT */
	if (cpuid7_ebx & (1u << 0))
		k |= 1ul << 16; /* FSGSBASE */
	if (cpuid7_ebx & (1u << 7))
		k |= 1ul << 20; /* SMEP */
	if (cpuid7_ebx & (1u << 20))
		k |= 1ul << 21; /* SMAP */
	return k;
}

static void cr_write_expect(int cr, ureg v, bool ok, const char *what)
{
	int got = cr == 0 ? x_wrcr0(v) : x_wrcr4(v);
	ureg base = cr == 0 ? cr0_base : cr4_base;
	char w[80];
	fmt_snprintf(w, sizeof w, "%s: cr%d value %lx", what, cr, (unsigned long)v);
	if (expect(got, w, ok ? V_NONE : V_GP, ok ? V_NONE : V_GP)) {
		ureg rb = cr == 0 ? rdcr0() : rdcr4();
		ureg want = !ok ? base : cr == 0 ? v | CR0_ET : v;
		if (rb != want)
			fail("%s: cr%d wrote %lx, reads %lx, expected %lx", what, cr,
			     (unsigned long)v, (unsigned long)rb, (unsigned long)want);
	}
	if (cr == 0)
		x_wrcr0(cr0_base);
	else
		x_wrcr4(cr4_base);
}

void op_cr(void)
{
	switch (below(9)) {
	case 0: { /* CR0 bits any guest may flip */
		static const ureg flip[] = {CR0_MP, CR0_TS, CR0_NE, CR0_WP, CR0_AM, CR0_CD};
		ureg v = cr0_base;
		for (unsigned i = 0, k = 1 + below(3); i < k; i++)
			v ^= flip[below(6)];
		cr_write_expect(0, v, true, "mov cr0 (allowed bits)");
		break;
	}
	case 1: { /* CR0 writes hardware refuses */
		ureg v;
		switch (below(LM ? 3 : 2)) {
		case 0:
			v = (cr0_base & ~CR0_PE) | CR0_PG;
			break;
		case 1:
			v = (cr0_base | CR0_NW) & ~CR0_CD;
			break;
		default:
			v = cr0_base | (ureg)(rnd() | 1) << (LM ? 32 : 0);
		}
		cr_write_expect(0, v, false, "mov cr0 (refused)");
		break;
	}
	case 2: { /* CR4 bits CPUID says exist */
		ureg known = cr4_known(), v = cr4_base ^ ((ureg)rnd() & known);
		cr_write_expect(4, v, true, "mov cr4 (known bits)");
		break;
	}
	case 3: { /* CR4 writes hardware refuses: VMXE, reserved, PAE off in long mode */
		ureg v;
		switch (below(LM ? 4 : 2)) {
		case 0:
			v = cr4_base | 1ul << 13;
			break;
		case 1:
			v = cr4_base | 1ul << (26 + below(6));
			break;
		case 2:
			v = cr4_base & ~(1ul << 5);
			break;
		default:
			v = cr4_base | (ureg)(rnd() | 1) << (LM ? 32 : 0);
		}
		cr_write_expect(4, v, false, "mov cr4 (refused)");
		break;
	}
	case 4: { /* CR3: paging off in 32-bit mode (anything goes), the same tables in 64 */
		ureg old = rdcr3();
		ureg v = LM ? old : (ureg)rnd();
		expect(x_wrcr3(v), "mov cr3", V_NONE, V_NONE);
		if (rdcr3() != v)
			fail("cr3 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rdcr3());
		x_wrcr3(old);
		if (LM) /* bits above MAXPHYADDR */
			expect(x_wrcr3(old | (ureg)1 << (52 + below(11))), "mov cr3 reserved bits",
			       V_GP, V_GP);
		break;
	}
	case 5: /* CLTS */
		x_wrcr0(cr0_base | CR0_TS);
		__asm__ volatile("clts" ::: "memory");
		if (rdcr0() != ((cr0_base | CR0_ET) & ~CR0_TS))
			fail("clts: cr0 reads %lx", (unsigned long)rdcr0());
		x_wrcr0(cr0_base);
		break;
	case 6: { /* LMSW: PE, MP, EM, TS; cannot clear PE */
		uint16_t w = (uint16_t)((rnd() & 0xe) | (chance(50) ? 1 : 0));
		__asm__ volatile("lmsw %0" : : "r"(w) : "memory");
		ureg want = (cr0_base & ~0xful) | (w & 0xf) | CR0_PE;
		if (rdcr0() != want)
			fail("lmsw %x: cr0 reads %lx, expected %lx", w, (unsigned long)rdcr0(),
			     (unsigned long)want);
		x_wrcr0(cr0_base);
		break;
	}
	case 7:
		op_efer();
		break;
	default: { /* MOV from CR2 and back (CR2 is the vCPU's) */
		ureg v = (ureg)rnd(), rb;
		__asm__ volatile("mov %1, %%cr2; mov %%cr2, %0" : "=r"(rb) : "r"(v));
		if (rb != v)
			fail("cr2 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rb);
	}
	}
	check_efer();
}

/* Writes issue 8 found accepted where hardware gives #GP/#UD (fixed on another branch). */
void op_crinv(void)
{
	uint32_t r[4];
	x_cpuid(1, 0, r);
	switch (below(4)) {
	case 0: { /* CR4 bits CPUID hides: PCIDE, OSXSAVE, UMIP, PKE, CET, LA57 */
		static const unsigned hidden[] = {17, 18, 11, 22, 23, 12};
		unsigned b = hidden[below(6)];
		bool has = (b == 17 && (r[2] & (1u << 17))) || (b == 18 && (r[2] & (1u << 26)));
		cr_write_expect(4, cr4_base | 1ul << b, has && !(b == 17 && !LM),
				"mov cr4 (hidden bit)");
		break;
	}
	case 1: /* DR4 with CR4.DE = 1 is #UD */
		if (x_wrcr4(cr4_base | 1ul << 3) == V_NONE) {
			ureg v = 0;
			expect(x_dr(4, chance(50), &v), "mov dr4 with CR4.DE", V_UD, V_UD);
			x_wrcr4(cr4_base);
		}
		break;
	case 2: /* 64-bit: PG off in 64-bit code is #GP */
		if (LM)
			cr_write_expect(0, cr0_base & ~CR0_PG, false,
					"mov cr0 PG=0 in 64-bit mode");
		break;
	default: /* non-canonical DR0 is fine; DR7 upper bits #GP already in op_dr */
		break;
	}
}

/* --- debug registers ------------------------------------------------------------------------- */
void op_dr(void)
{
	unsigned n = below(8);
	ureg v, rb = 0;
	if (n < 4) {
		v = (ureg)rnd();
	} else if (n == 4 || n == 6) {
		v = (ureg)(uint32_t)rnd();
		if (LM && chance(20))
			v |= (ureg)1 << (32 + below(32));
	} else {
		v = ((ureg)(uint32_t)rnd() & 0xffff0300u) | 0x400; /* no enables, no GD */
		if (LM && chance(20))
			v |= (ureg)1 << (32 + below(32));
	}
	ureg w = v;
	bool high = LM && n >= 4 && (v >> 31 >> 1);
	int got = x_dr(n, true, &w);
	if (!expect(got, "mov to dr", high ? V_GP : V_NONE, high ? V_GP : V_NONE) || high)
		goto out;
	if (n == 6 || n == 4)
		goto out; /* DR6 has fixed bits the hypervisor may model */
	got = x_dr(n, false, &rb);
	expect(got, "mov from dr", V_NONE, V_NONE);
	if (rb != v)
		fail("dr%u wrote %lx, reads %lx", n, (unsigned long)v, (unsigned long)rb);
	if (n == 5) { /* alias of DR7 while CR4.DE = 0 */
		x_dr(7, false, &rb);
		if (rb != v)
			fail("dr5 wrote %lx, dr7 reads %lx", (unsigned long)v, (unsigned long)rb);
	}
out:;
	ureg d7 = 0x400;
	x_dr(7, true, &d7);
}
