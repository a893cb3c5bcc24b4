/* Instructions every guest uses the same way, as inline functions: port I/O, RDMSR/WRMSR,
 * RDTSC, CPUID. For 32-bit guest code (guests/lib, guests/pc, guests/lapic). */
#ifndef GUESTS_LIB_CPU_H
#define GUESTS_LIB_CPU_H
#include <stdint.h>
#include <stdbool.h>

static inline uint8_t inb(uint16_t p)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline uint32_t inl(uint16_t p)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p));
	return v;
}
static inline void outb(uint16_t p, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(p));
}
static inline void outw(uint16_t p, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(p));
}
static inline void outl(uint16_t p, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(p));
}
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t rdmsr(uint32_t m)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(m));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t m, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(m), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}
/* CPUID leaf (subleaf 0): all four registers. */
static inline void cpuid4(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

/* sliver runs on QEMU's emulator: CPUID 0x40000001 passes the host's hypervisor signature
 * (docs/hypercalls.md), "TCGTCGTCGTCG" there. Timing checks widen their bounds for it
 * (docs/svm.md, QEMU items 5-7: one vCPU stands still while the other runs). */
static inline bool on_qemu_tcg(void)
{
	uint32_t a, b, c, d;
	cpuid4(0x40000001u, &a, &b, &c, &d);
	return b == 0x54474354u && c == 0x43544743u && d == 0x47435447u;
}

#endif
