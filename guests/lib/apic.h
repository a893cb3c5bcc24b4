/* The local APIC as a PC guest sees it (SDM Vol. 3A 10.4-10.6, docs/lapic.md): register
 * offsets in the xAPIC page at APIC_MMIO (x2APIC MSR = 0x800 + offset / 16), the ICR and
 * LVT-timer bits, and the page's 32-bit accessors. Shared by guests/lapic and guests/pc. */
#ifndef GUESTS_LIB_APIC_H
#define GUESTS_LIB_APIC_H
#include <stdint.h>

#define APIC_MMIO     0xfee00000u
#define R_ID	      0x20
#define R_VER	      0x30
#define R_TPR	      0x80
#define R_PPR	      0xa0
#define R_EOI	      0xb0
#define R_SVR	      0xf0
#define R_ISR	      0x100
#define R_IRR	      0x200
#define R_ESR	      0x280
#define R_ICR_LO      0x300
#define R_ICR_HI      0x310
#define R_LVT_TIMER   0x320
#define R_TMICT	      0x380
#define R_TMCCT	      0x390
#define R_TDCR	      0x3e0
#define MSR_APIC_BASE 0x1b
#define MSR_TSC_DL    0x6e0
#define ICR_SELF      (1u << 18)
#define ICR_ALL_BUT   (3u << 18)
#define ICR_NMI	      (4u << 8)
#define ICR_INIT      (0x5u << 8 | 1u << 14) /* INIT, level assert */
#define ICR_SIPI      (0x6u << 8 | 1u << 14) /* start-up; | vector (page number) */
#define LVT_MASKED    (1u << 16)
#define LVT_PERIODIC  (1u << 17)
#define LVT_TSC_DL    (2u << 17)
#define TDCR_DIV1     0xbu
#define TDCR_DIV2     0x0u

/* xAPIC page accessors: one 32-bit MOV each (the form the virtual LAPIC decodes). */
static inline uint32_t apic_mmio_rd(unsigned off)
{
	return *(volatile uint32_t *)(uintptr_t)(APIC_MMIO + off);
}
static inline void apic_mmio_wr(unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)(APIC_MMIO + off) = v;
}
/* A fixed/INIT/SIPI IPI through the page: destination APIC ID first, then the low word. */
static inline void apic_mmio_ipi(uint32_t dest, uint32_t lo)
{
	apic_mmio_wr(R_ICR_HI, dest << 24);
	apic_mmio_wr(R_ICR_LO, lo);
}

#endif
