/* Per-CPU GDT and TSS. Each CPU gets its own TSS (its own IST stacks for NMI, #DF and
 * #MC), which is also what VMX host state needs (a real 64-bit TSS in TR). */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"

struct percpu percpu[MAX_CPUS];

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static void tss_descriptor(uint64_t *slot, const struct tss64 *tss)
{
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;
	/* SDM Vol. 3A 8.2.3: type 9 (available 64-bit TSS), present, 16-byte descriptor. */
	slot[0] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ul << 40 |
		  ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	slot[1] = base >> 32;
}

void cpu_init_this(struct percpu *p)
{
	p->self = p;
	p->gdt[0] = 0;
	p->gdt[1] = 0x00af9a000000ffff; /* kernel code, 64-bit */
	p->gdt[2] = 0x00cf92000000ffff; /* kernel data */
	tss_descriptor(&p->gdt[3], &p->tss);
	for (unsigned i = 0; i < 3; i++)
		p->tss.ist[i] = (uint64_t)(p->ist_stack + (i + 1) * IST_STACK_SIZE);
	p->tss.iomap_base = sizeof(p->tss);

	struct desc_ptr gdtr = {sizeof(p->gdt) - 1, (uint64_t)p->gdt};
	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "mov %2, %%ds\n\t"
			 "mov %2, %%es\n\t"
			 "mov %2, %%ss\n\t"
			 "ltr %w3"
			 :
			 : "m"(gdtr), "i"(GDT_KERNEL_CS), "r"(GDT_KERNEL_DS), "r"(GDT_TSS)
			 : "rax", "memory");
	__asm__ volatile("mov %0, %%fs; mov %0, %%gs" ::"r"(0));
	wrmsr(MSR_GS_BASE, (uint64_t)p);
	idt_load();
}
