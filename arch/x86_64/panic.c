#include "arch/x86_64/panic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/memory.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/tsc.h"
#include "drivers/console.h"
#include "lib/fmt.h"

static volatile int panicking;

static const char *const exception_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved 15",
	"#MF x87 error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD error",
	"#VE virtualization",
	"#CP control protection",
};

bool panic_in_progress(void)
{
	return panicking;
}

noreturn void panic_park_this_cpu(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static unsigned this_cpu_id_safe(void)
{
	/* GS may not be set up yet when the earliest boot code faults. */
	return rdmsr(MSR_GS_BASE) ? this_cpu()->id : 0;
}

/* Only the first CPU to panic reports; the others park. */
bool lock_check_on; /* spinlock.h: set once the BSP has its per-CPU data */

static void panic_begin(void)
{
	irq_disable();
	lock_check_on = false; /* the dump takes whatever locks it needs */
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_SEQ_CST))
		panic_park_this_cpu();
	lapic_send_nmi_all_but_self();
	/* The lines queued before the panic go out first (at most 2 s), then the dump,
	 * synchronously. */
	console_break_lock(rdtsc() + (tsc_hz ? tsc_hz * 2 : 1ull << 32));
}

static void dump_frame(const struct irq_frame *f)
{
	printk("RIP %016lx RFLAGS %016lx CS %04lx SS %04lx\n", f->rip, f->rflags, f->cs, f->ss);
	printk("RAX %016lx RBX %016lx RCX %016lx RDX %016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	printk("RSI %016lx RDI %016lx RBP %016lx RSP %016lx\n", f->rsi, f->rdi, f->rbp, f->rsp);
	printk("R8  %016lx R9  %016lx R10 %016lx R11 %016lx\n", f->r8, f->r9, f->r10, f->r11);
	printk("R12 %016lx R13 %016lx R14 %016lx R15 %016lx\n", f->r12, f->r13, f->r14, f->r15);
	printk("CR0 %016lx CR2 %016lx CR3 %016lx CR4 %016lx\n", read_cr0(), read_cr2(), read_cr3(),
	       read_cr4());
}

/* Frame-pointer walk; every frame is checked to lie in identity-mapped memory. */
static void backtrace(uint64_t rbp)
{
	printk("backtrace:");
	for (int depth = 0; depth < 16 && rbp && !(rbp & 7) && rbp < ident_map_top(); depth++) {
		uint64_t *frame = (uint64_t *)rbp;
		if (!frame[1])
			break;
		printk(" %lx", frame[1]);
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
	printk("\n");
}

noreturn void panic_exception(struct irq_frame *f)
{
	panic_begin();
	const char *name = f->vector < 32 && exception_names[f->vector] ? exception_names[f->vector]
									: "unexpected interrupt";
	printk("\nsliver: PANIC on cpu%u: %s (vector %lu) error %lx at RIP %lx\n",
	       this_cpu_id_safe(), name, f->vector, f->error, f->rip);
	dump_frame(f);
	backtrace(f->rbp);
	hv_exit(EXIT_PANIC);
}

noreturn void panic(const char *fmt, ...)
{
	struct irq_frame f = {0};
	__asm__ volatile("mov %%rbx, %0; mov %%rbp, %1; mov %%rsp, %2; mov %%r12, %3; "
			 "mov %%r13, %4; mov %%r14, %5; mov %%r15, %6"
			 : "=m"(f.rbx), "=m"(f.rbp), "=m"(f.rsp), "=m"(f.r12), "=m"(f.r13),
			   "=m"(f.r14), "=m"(f.r15));
	f.rip = (uint64_t)__builtin_return_address(0);
	f.rflags = read_rflags();
	panic_begin();
	printk("\nsliver: PANIC on cpu%u: ", this_cpu_id_safe());
	va_list ap;
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	dump_frame(&f);
	backtrace(f.rbp);
	hv_exit(EXIT_PANIC);
}

/* spinlock.h: a lock taken against its rank, released or asserted without being held. */
noreturn void spin_lock_bug(const spinlock_t *l, const struct lockorder_bad *b)
{
	lock_check_on = false;
	char want[24] = "", held[24] = "";
	if (b->want_idx >= 0)
		fmt_snprintf(want, sizeof want, "[%d]", b->want_idx);
	if (b->held_idx >= 0)
		fmt_snprintf(held, sizeof held, "[%d]", b->held_idx);
	if (b->held)
		panic("lock order: %s: %s%s (rank %u) while holding %s%s (rank %u)", b->why,
		      l->cls->name, want, l->cls->rank, b->held->name, held, b->held->rank);
	panic("lock: %s: %s%s (rank %u)", b->why, l->cls->name, want, l->cls->rank);
}
