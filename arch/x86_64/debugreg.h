/* Debug registers and the RFLAGS bits of debugging (SDM Vol. 3B 18.2, 18.3.1.4; Vol. 3A
 * 2.3 for RF), and the MOV DR wrappers the backends use to give each vCPU its DR0-DR3
 * (and, under VMX, DR6) in hardware while it is loaded on a pCPU. The host never arms
 * DR7: VM exit sets it to 0x400 (SDM Vol. 3C 28.3.1) and #VMEXIT restores the host's
 * (APM Vol. 2 15.5.1), so a guest's addresses in DR0-DR3 never fire in the hypervisor. */
#ifndef ARCH_X86_64_DEBUGREG_H
#define ARCH_X86_64_DEBUGREG_H
#include <stdint.h>

#define RFLAGS_TF (1ul << 8)  /* single-step: #DB (DR6.BS) after each instruction */
#define RFLAGS_RF (1ul << 16) /* resume: suppresses instruction breakpoints once */

#define DR6_B0_B3 0xfull       /* which of DR0-DR3 matched */
#define DR6_BD	  (1ull << 13) /* general detect (DR7.GD) */
#define DR6_BS	  (1ull << 14) /* single step */
/* The bits software may change (B0-B3, BD, BS, BT); the others read as 1 here (no RTM,
 * no bus-lock detection: bits 16 and 11 are 1) or 0 (bit 12), as KVM's DR6_VOLATILE. */
#define DR6_VOLATILE 0xe00full
#define DR6_FIXED_1  0xffff0ff0ull
#define DR6_RESET    DR6_FIXED_1
#define DR7_GD	     (1ull << 13)
/* DR7 bits software may set (L0-G3, LE, GE, GD, R/W and LEN fields); bit 10 reads 1, bits
 * 11, 12, 14, 15 read 0 (11 is RTM's, and CPUID hides RTM: KVM keeps it only for an RTM
 * guest). */
#define DR7_VOLATILE 0xffff23ffull
#define DR7_FIXED_1  0x400ull
#define DR7_RESET    DR7_FIXED_1

static inline uint64_t read_dr6(void)
{
	uint64_t v;
	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

static inline void write_dr6(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}

/* DR0-DR3 from dr[0..3]. */
static inline void write_dr0_3(const uint64_t *dr)
{
	__asm__ volatile("mov %0, %%dr0" : : "r"(dr[0]));
	__asm__ volatile("mov %0, %%dr1" : : "r"(dr[1]));
	__asm__ volatile("mov %0, %%dr2" : : "r"(dr[2]));
	__asm__ volatile("mov %0, %%dr3" : : "r"(dr[3]));
}

/* One of DR0-DR3. */
static inline void write_dr_n(unsigned n, uint64_t v)
{
	switch (n) {
	case 0:
		__asm__ volatile("mov %0, %%dr0" : : "r"(v));
		break;
	case 1:
		__asm__ volatile("mov %0, %%dr1" : : "r"(v));
		break;
	case 2:
		__asm__ volatile("mov %0, %%dr2" : : "r"(v));
		break;
	case 3:
		__asm__ volatile("mov %0, %%dr3" : : "r"(v));
		break;
	default:
		break;
	}
}

#endif
