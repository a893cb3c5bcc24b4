/* hostile: the probes the check files share: one instruction (MOV to CR0/CR4, WRMSR, RDMSR)
 * run with the fault catcher armed for exactly its length, returning the vector it raised
 * (-1: none); CPUID; and the verdict on a vector. */
#include "guests/hostile/hostile.h"
#include "lib/fmt.h"

int wr_cr0(uint32_t v)
{
	return PROBE("mov %[v], %%cr0", : [v] "r"(v) : "memory");
}
int wr_cr4(uint32_t v)
{
	return PROBE("mov %[v], %%cr4", : [v] "r"(v) : "memory");
}
uint32_t rd_cr0(void)
{
	uint32_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}
uint32_t rd_cr4(void)
{
	uint32_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}
int wr_msr(uint32_t msr, uint64_t val)
{
	return PROBE("wrmsr",
		     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
		     : "memory");
}
int rd_msr(uint32_t msr, uint64_t *val)
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
struct cpuid_regs cpuid_of(uint32_t leaf)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(0));
	return (struct cpuid_regs){a, b, c, d};
}

const char *vec_name(int v)
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

void expect_vec(const char *what, int got, int want)
{
	verdict(what, vec_name(got), got == want);
}
