/* Small inline wrappers around x86-64 instructions, and the per-CPU data block. */
#ifndef ARCH_X86_64_CPU_H
#define ARCH_X86_64_CPU_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/msr.h" /* the MSR numbers rdmsr/wrmsr take */
#include "lib/lockorder.h"

#define MAX_CPUS 256

#define RFLAGS_IF (1ul << 9)

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* RDMSR/WRMSR that return false instead of faulting when the MSR does not exist
 * (msr_safe.S; the #GP handler resumes them through msr_safe_fixup). For probing only. */
bool rdmsr_safe(uint32_t msr, uint64_t *value);
bool wrmsr_safe(uint32_t msr, uint64_t value);

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

#define DEFINE_CR_ACCESSORS(n)                                                                     \
	static inline uint64_t read_cr##n(void)                                                    \
	{                                                                                          \
		uint64_t v;                                                                        \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}                                                                                          \
	static inline void write_cr##n(uint64_t v)                                                 \
	{                                                                                          \
		__asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory");                           \
	}
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(2)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; pop %0" : "=r"(f));
	return f;
}

/* Enables interrupts for exactly one instruction boundary, so pending ones are taken. */
static inline void irq_drain(void)
{
	__asm__ volatile("sti; nop; cli" ::: "memory");
}

/* Waits for an interrupt with interrupts enabled, then disables them again. */
static inline void cpu_idle_wait(void)
{
	__asm__ volatile("sti; hlt; cli" ::: "memory");
}

static inline bool cpu_has_feature_ecx1(unsigned bit)
{
	return cpuid(1, 0).ecx >> bit & 1;
}

/* QEMU's TCG (an emulator, not a hardware-assisted VMM): CPUID.1:ECX[31] (hypervisor
 * present) and the signature "TCGTCGTCGTCG" in leaf 0x40000000 EBX:ECX:EDX. */
static inline bool cpu_is_qemu_tcg(void)
{
	if (!cpu_has_feature_ecx1(31))
		return false;
	struct cpuid_regs r = cpuid(0x40000000, 0);
	/* "TCGT", "CGTC", "GTCG" as little-endian words */
	return r.ebx == 0x54474354 && r.ecx == 0x43544743 && r.edx == 0x47435447;
}

/* 64-bit TSS (SDM Vol. 3A 8.7). */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

#define GDT_KERNEL_CS 0x08
#define GDT_KERNEL_DS 0x10
#define GDT_TSS	      0x18
#define GDT_ENTRIES   5

#define IST_NMI	       1
#define IST_DF	       2
#define IST_MCE	       3
#define IST_STACK_SIZE 8192
#define CPU_STACK_SIZE 32768

/* Per-CPU data. GS.base points at it; `self` is its first field so this_cpu() is one load. */
struct percpu {
	struct percpu *self;
	unsigned id;	  /* dense index, 0 = BSP */
	uint32_t apic_id; /* from the MADT */
	volatile bool online;
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	struct tss64 tss __attribute__((aligned(16)));
	uint8_t *stack;	    /* CPU_STACK_SIZE bytes, the scheduler loop's stack */
	uint8_t *ist_stack; /* 3 * IST_STACK_SIZE */
	void *timers;	    /* core/timer.c's per-CPU queue */
	void *vmm;	    /* owned by the VMM (core/) */
	/* Host interrupts and NMIs handled on this CPU (irq_dispatch): core/vmm.c's same path
	 * compares it around an exit to know that none ran (a timer, a kick). */
	uint64_t irqs;
	struct lockorder_cpu locks; /* the spin locks it holds (spinlock.h, LOCK_CHECK) */
};

extern struct percpu percpu[MAX_CPUS];

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

unsigned cpu_count(void);
void cpu_init_this(struct percpu *p);

#endif
