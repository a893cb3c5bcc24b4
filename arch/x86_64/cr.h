/* Control-register and EFER bits (Intel SDM Vol. 3A 2.5, AMD APM Vol. 2 3.1), and the
 * CPUID feature bits that say whether a guest may set one of them (SDM Vol. 2A CPUID,
 * APM Vol. 3 appendix E). Shared by both backends and core/. Not for the boot assembly
 * (boot/boot.h has its own, without C suffixes): a C file includes one or the other. */
#ifndef ARCH_X86_64_CR_H
#define ARCH_X86_64_CR_H
#include <stdbool.h>
#include <stdint.h>

#define CR0_PE (1ull << 0)
#define CR0_MP (1ull << 1)
#define CR0_EM (1ull << 2)
#define CR0_TS (1ull << 3)
#define CR0_ET (1ull << 4)
#define CR0_NE (1ull << 5)
#define CR0_WP (1ull << 16)
#define CR0_AM (1ull << 18)
#define CR0_NW (1ull << 29)
#define CR0_CD (1ull << 30)
#define CR0_PG (1ull << 31)

#define CR4_VME	       (1ull << 0)
#define CR4_PVI	       (1ull << 1)
#define CR4_TSD	       (1ull << 2)
#define CR4_DE	       (1ull << 3)
#define CR4_PSE	       (1ull << 4)
#define CR4_PAE	       (1ull << 5)
#define CR4_MCE	       (1ull << 6)
#define CR4_PGE	       (1ull << 7)
#define CR4_PCE	       (1ull << 8)
#define CR4_OSFXSR     (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CR4_VMXE       (1ull << 13)
#define CR4_FSGSBASE   (1ull << 16)
#define CR4_PCIDE      (1ull << 17)
#define CR4_OSXSAVE    (1ull << 18)
#define CR4_SMEP       (1ull << 20)
#define CR4_SMAP       (1ull << 21)

/* EFER (MSR_IA32_EFER; APM Vol. 2 3.1.7). SVME enables SVM (APM 15.4). */
#define EFER_SCE  (1ull << 0)
#define EFER_LME  (1ull << 8)
#define EFER_LMA  (1ull << 10)
#define EFER_NXE  (1ull << 11)
#define EFER_SVME (1ull << 12)

#define CPUID_80000001_NX (1u << 20) /* EDX */
#define CPUID_7_FSGSBASE  (1u << 0)  /* EBX */
#define CPUID_7_SMEP	  (1u << 7)
#define CPUID_7_SMAP	  (1u << 20)

/* CR0 bits a guest's MOV to CR0 keeps (the rest of 31:0 reads as written by hardware: 0). */
#define CR0_DEFINED                                                                                \
	(CR0_PE | CR0_MP | CR0_EM | CR0_TS | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_NW | CR0_CD | \
	 CR0_PG)

/* MOV to CR0 (also CLTS, LMSW): false for the #GP(0) cases of SDM Vol. 2 "MOV to/from
 * Control Registers" and Vol. 3A 2.5, 9.8.5 (APM Vol. 2 3.1.1 the same), given the guest's
 * current CR0, CR4, EFER and whether it runs 64-bit code. Both backends use it. */
static inline bool cr0_write_ok(uint64_t cr0, uint64_t cr4, uint64_t efer, bool in_64bit_code,
				uint64_t val)
{
	if (val >> 32)
		return false; /* reserved bits 63:32 */
	if ((val & CR0_PG) && !(val & CR0_PE))
		return false;
	if ((val & CR0_NW) && !(val & CR0_CD))
		return false;
	if ((val & CR0_PG) && !(cr0 & CR0_PG) && (efer & EFER_LME) && !(cr4 & CR4_PAE))
		return false; /* long mode needs PAE */
	if (!(val & CR0_PG) && (cr0 & CR0_PG) && (in_64bit_code || (cr4 & CR4_PCIDE)))
		return false; /* paging off only from compatibility mode, PCIDE clear */
	return true;
}

/* MOV to CR4: false for the #GP(0) cases (SDM Vol. 2 "MOV to/from Control Registers", Vol.
 * 3A 2.5, 4.10.1; APM Vol. 2 3.1.3): a bit outside `valid` (reserved, or a feature CPUID
 * hides), PAE cleared in long mode, PCIDE set outside long mode or with CR3[11:0] != 0. */
static inline bool cr4_write_ok(uint64_t valid, uint64_t cr4, uint64_t efer, uint64_t cr3,
				uint64_t val)
{
	if (val & ~valid)
		return false;
	if ((efer & EFER_LMA) && !(val & CR4_PAE))
		return false; /* leaving long mode by clearing PAE */
	if ((val & CR4_PCIDE) && !(cr4 & CR4_PCIDE) && (!(efer & EFER_LMA) || (cr3 & 0xfff)))
		return false;
	return true;
}

/* A present PAE PDPTE with a reserved bit set (SDM Vol. 3A 4.4.1, bits 2:1, 8:5, 63:52 at
 * MAXPHYADDR 52 and below): loading it is #GP. */
static inline bool pdpte_reserved(uint64_t pdpte)
{
	return (pdpte & 1) && (pdpte & 0xfff00000000001e6ull);
}

#endif
