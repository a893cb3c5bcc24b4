/* Hypervisor bugs end here: a clear message, the registers, a backtrace; every other CPU
 * is stopped with an NMI and the run ends with EXIT_PANIC. Guest faults never come here. */
#ifndef ARCH_X86_64_PANIC_H
#define ARCH_X86_64_PANIC_H
#include <stdbool.h>
#include <stdnoreturn.h>

struct irq_frame;

noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void panic_exception(struct irq_frame *f);
bool panic_in_progress(void);
noreturn void panic_park_this_cpu(void);

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (cond)                                                                          \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond);                      \
	} while (0)

#endif
