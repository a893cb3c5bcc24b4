/* fuzz: the single instructions an op runs under a recovery point (RDMSR/WRMSR, MOV to and
 * from CR0/CR3/CR4/CR8 and DR0-DR7, CPUID, a stub of raw bytes), each returning the vector it
 * raised (V_NONE: none), and the checks that CR0/CR4/EFER still read their values from the
 * start after every op. */
#include "guests/fuzz/fuzz_ops.h"
#include "lib/string.h"

static uint8_t stub[32] __attribute__((aligned(16))); /* x_stub's bytes are assembled here */

int x_rdmsr(uint32_t idx, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	fz_vec = V_NONE;
	__asm__ volatile(ARM "rdmsr" DISARM : "=a"(lo), "=d"(hi) : "c"(idx) : ARM_CLOB "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return fz_vec;
}
int x_wrmsr(uint32_t idx, uint64_t val)
{
	fz_vec = V_NONE;
	__asm__ volatile(ARM "wrmsr" DISARM
			 :
			 : "c"(idx), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : ARM_CLOB "memory");
	return fz_vec;
}
uint64_t rdmsr_or_0(uint32_t idx)
{
	uint64_t v;
	return x_rdmsr(idx, &v) == V_NONE ? v : 0;
}

#define X_WRCR(n)                                                                                  \
	int x_wrcr##n(ureg v)                                                                      \
	{                                                                                          \
		fz_vec = V_NONE;                                                                   \
		__asm__ volatile(ARM "mov %0, %%cr" #n DISARM : : "r"(v) : ARM_CLOB "memory");     \
		return fz_vec;                                                                     \
	}                                                                                          \
	ureg rdcr##n(void)                                                                         \
	{                                                                                          \
		ureg v;                                                                            \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}
X_WRCR(0)
X_WRCR(3)
X_WRCR(4)
#ifdef __x86_64__
X_WRCR(8)
#endif

/* MOV to/from DRn, encoded by hand (0f 23 / 0f 21, ModRM 11 n 000 = RAX) so DR4/DR5 work. */
#define DR_CASE(n)                                                                                 \
	case n:                                                                                    \
		if (write)                                                                         \
			__asm__ volatile(ARM ".byte 0x0f, 0x23, 0xc0 + " #n " * 8" DISARM          \
					 : "+a"(*v)                                                \
					 :                                                         \
					 : ARM_CLOB "memory");                                     \
		else                                                                               \
			__asm__ volatile(ARM ".byte 0x0f, 0x21, 0xc0 + " #n " * 8" DISARM          \
					 : "+a"(*v)                                                \
					 :                                                         \
					 : ARM_CLOB "memory");                                     \
		break;
int x_dr(unsigned n, bool write, ureg *v)
{
	fz_vec = V_NONE;
	switch (n) {
		DR_CASE(0)
		DR_CASE(1)
		DR_CASE(2)
		DR_CASE(3)
		DR_CASE(4)
		DR_CASE(5)
		DR_CASE(6)
		DR_CASE(7)
	}
	return fz_vec;
}

void x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

/* Runs the bytes b[0..n) from the stub page, with RAX = a and RCX = c on entry (returned
 * through them); the recovery point is the RET after them. */
int x_stub(const uint8_t *b, unsigned n, ureg *a, ureg *c)
{
	memcpy(stub, b, n);
	stub[n] = 0xc3; /* ret */
	fz_vec = V_NONE;
	fz_resume = (uintptr_t)(stub + n);
	ureg ra = *a, rc = *c;
	__asm__ volatile("call *%2" : "+a"(ra), "+c"(rc) : "r"(stub) : DX_CLOB, "memory", "cc");
	fz_resume = 0;
	*a = ra, *c = rc;
	return fz_vec;
}
int stub0(const uint8_t *b, unsigned n)
{
	ureg a = (uintptr_t)scratch, c = 0;
	return x_stub(b, n, &a, &c);
}

/* --- state that must not change behind our back ------------------------------------------ */
void check_base(void)
{
	ureg c0 = rdcr0(), c4 = rdcr4();
	if (c0 != cr0_base || c4 != cr4_base) {
		fail("CR0/CR4 read %lx/%lx after the op, expected %lx/%lx", (unsigned long)c0,
		     (unsigned long)c4, (unsigned long)cr0_base, (unsigned long)cr4_base);
		x_wrcr0(cr0_base);
		x_wrcr4(cr4_base);
	}
}
void check_efer(void)
{
	uint64_t e = rdmsr_or_0(0xc0000080u);
	if (e != efer_base) {
		fail("EFER read %llx after the op, expected %llx", (unsigned long long)e,
		     (unsigned long long)efer_base);
		x_wrmsr(0xc0000080u, efer_base);
	}
}
