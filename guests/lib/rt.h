/* The guest runtime: what every sliver test guest links (guests/lib).
 * A guest defines `int main(const struct sliver_boot_info *bi)`; vCPU 0 runs it after the
 * runtime has set up its GDT, IDT and clock, with interrupts enabled. Other vCPUs run
 * `rt_main_ap` (weak; the default blocks forever). Returning from main shuts the domain
 * down with the returned code. Vectors below RT_VEC_FIRST_FREE belong to the runtime. */
#ifndef GUESTS_LIB_RT_H
#define GUESTS_LIB_RT_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sliver/bootinfo.h"
#include "guests/lib/hc.h"

#define RT_STACK_SIZE	  (1u << 14)
#define RT_VEC_TIMER	  0x20 /* SLIVER_PORT_TIMER is bound here on vCPU 0 */
#define RT_VEC_FIRST_FREE 0x30

/* Saved by rt_isr_common: pushal order, then vector, error code and the CPU's frame. */
struct rt_frame {
	uint32_t edi, esi, ebp, esp0, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
};
typedef void (*rt_handler)(struct rt_frame *f);

int main(const struct sliver_boot_info *bi);
int rt_main_ap(const struct sliver_boot_info *bi);

extern const struct sliver_boot_info *rt_bi; /* vCPU 0's boot info */

/* Interrupts and exceptions. An exception without a handler prints the frame and shuts
 * the domain down with code 0x100 + vector. */
void rt_irq_register(uint8_t vector, rt_handler h);
static inline void rt_sti(void)
{
	__asm__ volatile("sti" ::: "memory");
}
static inline void rt_cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}
static inline uint32_t rt_save_flags(void)
{
	uint32_t f;
	__asm__ volatile("pushfl; popl %0" : "=r"(f) : : "memory");
	return f;
}

/* Waits for the next interrupt: `sti; hlt`, the x86 idiom (no lost wake-up: STI's shadow
 * covers the HLT, and the HLT exit wakes on a pending vector whatever IF is). The vCPU comes
 * back after the HLT with IF=1, so the vector that woke it goes in at that entry: blocking
 * with HC_BLOCK at IF=0 and then `sti; nop` took one more exit per wake (an interrupt window:
 * the guest ran `sti; nop` first; docs/guests.md). Returns with interrupts enabled. */
static inline void rt_wait_irq(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* Console (through HC_CONSOLE_WRITE; the hypervisor adds the "(d<id>) " prefix). */
int rt_vprintf(const char *fmt, va_list ap);
int rt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_puts(const char *s);
/* The same through the virtual hardware: a 16550 polled on COM1 (wait for LSR.THRE, write
 * THR), or the 0xE9 debug port. Both end up on the domain console. */
void rt_com1_puts(const char *s);
void rt_e9_puts(const char *s);
__attribute__((noreturn)) void rt_exit(int code);

/* Command line of this domain's module (boot info). */
bool rt_arg(const char *key, char *buf, size_t len);
bool rt_arg_u64(const char *key, uint64_t *out);

/* Clock: ns since hypervisor boot, read from the TSC without exits (boot-info scale). */
uint64_t rt_clock_ns(void);
void rt_spin_until(uint64_t ns);
void rt_spin_us(uint64_t us);
/* Sleeps (blocks the vCPU) until the clock reaches ns, through HC_SET_TIMER. vCPU 0 only.
 * Interrupts are enabled on return; other interrupts are taken while sleeping. */
void rt_sleep_until(uint64_t ns);
void rt_sleep_us(uint64_t us);

#endif
