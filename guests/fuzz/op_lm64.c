/* fuzz, op classes `cr8`, `swapgs` and `syscall` (64-bit only; empty in fuzz.elf): MOV CR8 as
 * the vCPU's own TPR, SWAPGS and SYSCALL through this domain's GS bases and STAR/LSTAR/FMASK,
 * each across a yield to other domains. */
#include "guests/fuzz/fuzz_ops.h"
#include "sliver/hypercall.h"

#ifdef __x86_64__
void op_cr8(void)
{
	ureg v = below(16);
	expect(x_wrcr8(v), "mov cr8", V_NONE, V_NONE);
	if (rdcr8() != v)
		fail("cr8 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rdcr8());
	hc0(HC_YIELD, 0, 0);
	x_wrcr8(0);
}

/* SWAPGS exchanges GS_BASE with KERNEL_GS_BASE without an exit: both must be this domain's,
 * also after a yield. Two 64-bit fuzzers on one pCPU see each other's values if not. */
void op_swapgs(void)
{
	uint64_t p = ((uint64_t)bi->dom_id << 32) | (uint32_t)rnd();
	uint64_t q = ((uint64_t)bi->dom_id << 36) | (uint32_t)rnd();
	x_wrmsr(MSR_GSB, q);
	x_wrmsr(MSR_KGS, p);
	__asm__ volatile("swapgs" ::: "memory");
	if (chance(50))
		hc0(HC_YIELD, 0, 0);
	uint64_t g = rdmsr_or_0(MSR_GSB), k = rdmsr_or_0(MSR_KGS);
	__asm__ volatile("swapgs" ::: "memory");
	if (g != p || k != q)
		fail("after swapgs GS_BASE=%llx KERNEL_GS_BASE=%llx, expected %llx %llx",
		     (unsigned long long)g, (unsigned long long)k, (unsigned long long)p,
		     (unsigned long long)q);
	g = rdmsr_or_0(MSR_GSB), k = rdmsr_or_0(MSR_KGS);
	if (g != q || k != p)
		fail("after swapgs twice GS_BASE=%llx KERNEL_GS_BASE=%llx, expected %llx %llx",
		     (unsigned long long)g, (unsigned long long)k, (unsigned long long)q,
		     (unsigned long long)p);
	x_wrmsr(MSR_GSB, 0);
	kgs_expect = p;
}

extern char fz_syscall_entry[];
volatile uint32_t fz_syscall_hits;
__asm__(".text\n.global fz_syscall_entry\nfz_syscall_entry:\n\t"
	"incl fz_syscall_hits(%rip)\n\tpushq %r11\n\tpopfq\n\tjmp *%rcx\n");

/* SYSCALL with STAR/LSTAR/FMASK set: lands on LSTAR with CS from STAR (our 64-bit code
 * selector 0x08), and we jump back by hand (no SYSRET: we stay at CPL 0). */
void op_syscall(void)
{
	uint32_t before = fz_syscall_hits;
	x_wrmsr(MSR_STAR, (uint64_t)0x08 << 32);
	x_wrmsr(MSR_LSTAR, (uintptr_t)fz_syscall_entry);
	x_wrmsr(MSR_FMASK, 0x200);
	x_wrmsr(MSR_EFER, efer_base | EFER_SCE);
	if (chance(50))
		hc0(HC_YIELD, 0, 0);
	fz_vec = V_NONE;
	__asm__ volatile(ARM "syscall" DISARM : : : ARM_CLOB "rcx", "memory", "cc");
	x_wrmsr(MSR_EFER, efer_base);
	if (expect(fz_vec, "syscall", V_NONE, V_NONE) && fz_syscall_hits != before + 1)
		fail("syscall did not arrive at LSTAR");
	uint16_t cs;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	if (cs != 0x08)
		fail("after syscall CS=%x", cs);
}
#else
void op_cr8(void)
{
}
void op_swapgs(void)
{
}
void op_syscall(void)
{
}
#endif
