#include "arch/x86_64/idt.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/panic.h"

struct idt_entry {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, reserved;
} __attribute__((packed));

static struct idt_entry idt[256] __attribute__((aligned(16)));
static irq_handler_t handlers[256];
extern const uint64_t isr_stubs[256];

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t a = isr_stubs[v];
		idt[v] = (struct idt_entry){
			.off0 = (uint16_t)a,
			.sel = GDT_KERNEL_CS,
			.ist = v == 2	 ? IST_NMI
			       : v == 8	 ? IST_DF
			       : v == 18 ? IST_MCE
					 : 0,
			.type = 0x8e, /* present, DPL 0, 64-bit interrupt gate */
			.off1 = (uint16_t)(a >> 16),
			.off2 = (uint32_t)(a >> 32),
		};
	}
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr = {sizeof(idt) - 1, (uint64_t)idt};
	__asm__ volatile("lidt %0" ::"m"(idtr));
}

void irq_register(uint8_t vector, irq_handler_t fn)
{
	handlers[vector] = fn;
}

extern const uint8_t msr_safe_rdmsr[], msr_safe_wrmsr[], msr_safe_fault[];

/* A #GP on the RDMSR/WRMSR of rdmsr_safe/wrmsr_safe: resume at their fault path. */
static bool msr_safe_fixup(struct irq_frame *f)
{
	if (f->rip != (uint64_t)msr_safe_rdmsr && f->rip != (uint64_t)msr_safe_wrmsr)
		return false;
	f->rip = (uint64_t)msr_safe_fault;
	return true;
}

void irq_dispatch(struct irq_frame *f)
{
	if (f->vector == 13 && msr_safe_fixup(f))
		return;
	if (f->vector == 2) {
		if (panic_in_progress())
			panic_park_this_cpu();
		if (handlers[2]) {
			__atomic_fetch_add(&this_cpu()->irqs, 1, __ATOMIC_RELAXED);
			handlers[2](f);
			return;
		}
	}
	if (f->vector < 32)
		panic_exception(f);
	/* LAPIC spurious, and the remapped, masked 8259s' spurious IRQ 7/15: no EOI. */
	if (f->vector == VEC_SPURIOUS || f->vector == 0x27 || f->vector == 0x2f)
		return;
	if (!handlers[f->vector])
		panic_exception(f);
	/* One add (an NMI cannot split it): counted before the handler, whatever it does. */
	__atomic_fetch_add(&this_cpu()->irqs, 1, __ATOMIC_RELAXED);
	handlers[f->vector](f);
	lapic_eoi();
}
