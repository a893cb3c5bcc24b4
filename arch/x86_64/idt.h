/* The IDT: exceptions end the run with a full dump; other vectors go to handlers that
 * code registers with irq_register(). The hypervisor runs with interrupts disabled and
 * takes them only at known points (idle wait, the drain after a VM exit). */
#ifndef ARCH_X86_64_IDT_H
#define ARCH_X86_64_IDT_H
#include <stdint.h>

/* Vectors the hypervisor uses. */
#define VEC_TIMER      0xf0 /* LAPIC timer: one-shot or TSC-deadline */
#define VEC_RESCHEDULE 0xf1 /* IPI: pick again */
#define VEC_CALL       0xf2 /* IPI: run a queued function */
#define VEC_CONSOLE_RX 0xe0 /* UART receive, routed through the IOAPIC to CPU 0 */
#define VEC_SPURIOUS   0xff

struct irq_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

typedef void (*irq_handler_t)(struct irq_frame *f);

void idt_init(void);
void idt_load(void);
void irq_register(uint8_t vector, irq_handler_t fn);
void irq_dispatch(struct irq_frame *f);

#endif
