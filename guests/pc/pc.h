/* guests/pc: port I/O, MSR and CPUID helpers and the shared check/print functions, so that
 * more checks (the virtual LAPIC's) can live in files of their own. */
#ifndef GUESTS_PC_PC_H
#define GUESTS_PC_PC_H
#include <stdbool.h>
#include <stdint.h>

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
static inline void cpuid(uint32_t leaf, uint32_t *ecx, uint32_t *edx)
{
	uint32_t a = leaf, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	*ecx = c, *edx = d;
}
static inline uint32_t cpuid_eax(uint32_t leaf)
{
	uint32_t a = leaf, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return a;
}

void pc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints `pc: <what>: <got> ok|BAD` and counts a failure. */
void pc_check(const char *what, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* lm.S: long mode, its own checks, then OUT status to 0xf4. */
__attribute__((noreturn)) void pc_lm_exit(uint32_t status);

#endif
