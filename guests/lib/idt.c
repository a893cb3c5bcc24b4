/* The guest IDT: 256 interrupt gates onto the stubs in isr.S, dispatched to handlers
 * registered with rt_irq_register. */
#include "guests/lib/rt.h"

struct idt_gate {
	uint16_t off_lo, sel;
	uint8_t zero, type;
	uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[256];
static rt_handler handlers[256];
extern const char rt_isr_table[];

static const char *const exc_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "?09", "#TS",
	"#NP", "#SS", "#GP", "#PF", "?15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

void rt_idt_init(void);
void rt_idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint32_t off = (uint32_t)(uintptr_t)(rt_isr_table + v * 16);
		idt[v] = (struct idt_gate){(uint16_t)off, 0x08, 0, 0x8e, (uint16_t)(off >> 16)};
	}
	struct __attribute__((packed)) {
		uint16_t limit;
		uint32_t base;
	} d = {sizeof idt - 1, (uint32_t)(uintptr_t)idt};
	__asm__ volatile("lidt %0" : : "m"(d));
}

void rt_irq_register(uint8_t vector, rt_handler h)
{
	handlers[vector] = h;
}

void rt_isr_dispatch(struct rt_frame *f);
void rt_isr_dispatch(struct rt_frame *f)
{
	uint8_t v = (uint8_t)f->vector;
	if (handlers[v]) {
		handlers[v](f);
		return;
	}
	if (v < 32) {
		rt_printf("guest: unhandled exception %s (vector %u) error=%x eip=%x eflags=%x\n",
			  exc_names[v] ? exc_names[v] : "?", v, f->error, f->eip, f->eflags);
		rt_exit(0x100 + v);
	}
	/* A stray interrupt without a handler: ignore it. */
}
