/* The 64-bit fuzzer's runtime: IDT (64-bit gates onto entry64.S's stubs), console,
 * hypercalls with the 64-bit convention, the boot-info TSC clock, command line, exit. */
#include <stdarg.h>
#include "guests/fuzz/fuzz.h"
#include "guests/lib/hcinsn.h"
#include "guests/lib/mulshift.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/event.h"
#include "sliver/hypercall.h"

struct fz64_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct idt_gate64 {
	uint16_t off_lo, sel;
	uint8_t ist, type;
	uint16_t off_mid;
	uint32_t off_hi, zero;
} __attribute__((packed));

static struct idt_gate64 idt[256];
extern const char fz64_isr_table[];
static const struct sliver_boot_info *boot;
volatile uint32_t fz_timer_fired;

int64_t fz_hc(uint64_t nr, const uint64_t a[5], bool *regs_ok)
{
	uint64_t rax = nr, rdi = a[0], rsi = a[1], rdx = a[2];
	uint64_t rbx = 0x0b0b0b0b0b0b0b0bull, rcx = 0x0c0c0c0c0c0c0c0cull;
	/* R10/R8 carry arg3/arg4 (cppcheck misreads register variables) */
	// cppcheck-suppress constStatement
	register uint64_t r10 __asm__("r10") = a[3];
	// cppcheck-suppress constStatement
	register uint64_t r8 __asm__("r8") = a[4];
	register uint64_t r9 __asm__("r9") = 0x0909090909090909ull;
	__asm__ volatile(HC_INSN
			 : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+b"(rbx), "+c"(rcx),
			   "+r"(r10), "+r"(r8), "+r"(r9)
			 : HC_FLAG
			 : "memory", "cc");
	*regs_ok = rdi == a[0] && rsi == a[1] && r10 == a[3] && r8 == a[4] &&
		   rbx == 0x0b0b0b0b0b0b0b0bull && rcx == 0x0c0c0c0c0c0c0c0cull &&
		   r9 == 0x0909090909090909ull;
	return (int64_t)rax;
}

static int64_t hc2(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	bool ok;
	return fz_hc(nr, (uint64_t[5]){a0, a1, a2, 0, 0}, &ok);
}

void fz64_isr(struct fz64_frame *f);
void fz64_isr(struct fz64_frame *f)
{
	if (f->vector < 32) {
		uintptr_t ip = f->rip;
		fz_trap((unsigned)f->vector, &ip, f->error);
		f->rip = ip;
	} else if (f->vector == FZ_VEC_TIMER) {
		hc2(HC_EVENT_RECV, SLIVER_PORT_TIMER, 0, 0);
		fz_timer_fired = 1;
	}
	/* Other vectors: ports the op loop bound at random, or INT n: nothing to do. */
}

int fz_printf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 1)
		n = sizeof buf - 1;
	/* A short count: the console was full and the vCPU waited; write the rest. */
	for (int off = 0; off < n;) {
		int64_t r = (int64_t)hc2(HC_CONSOLE_WRITE, (uintptr_t)(buf + off),
					 (uint64_t)(n - off), 0);
		if (r < 0)
			break;
		off += (int)r;
	}
	return n;
}

uint64_t fz_clock_ns(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	uint64_t t = ((uint64_t)hi << 32) | lo;
	uint32_t shift = boot->tsc_shift > 63 ? 63 : boot->tsc_shift;
	return t > boot->tsc_base ? mul_u64_u32_shr(t - boot->tsc_base, boot->tsc_mul, shift) : 0;
}

bool fz_arg(const char *key, char *buf, size_t len)
{
	return cmdline_get(boot->cmdline, key, buf, len);
}

bool fz_arg_u64(const char *key, uint64_t *out)
{
	return cmdline_get_u64(boot->cmdline, key, out);
}

void fz_exit(int code)
{
	for (;;)
		hc2(HC_SHUTDOWN, (uint64_t)(uint32_t)code, 0, 0);
}

__attribute__((noreturn)) void fz64_start(const struct sliver_boot_info *bi);
void fz64_start(const struct sliver_boot_info *bi)
{
	boot = bi;
	if (bi->vcpu_id != 0)
		for (;;)
			hc2(HC_BLOCK, 0, 0, 0);
	for (unsigned v = 0; v < 256; v++) {
		uint64_t off = (uintptr_t)(fz64_isr_table + v * 16);
		idt[v] = (struct idt_gate64){
			(uint16_t)off,	       0x08, 0, 0x8e, (uint16_t)(off >> 16),
			(uint32_t)(off >> 32), 0};
	}
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} d = {sizeof idt - 1, (uintptr_t)idt};
	__asm__ volatile("lidt %0" : : "m"(d));
	hc2(HC_EVENT_BIND, SLIVER_PORT_TIMER, FZ_VEC_TIMER, 0);
	__asm__ volatile("sti" ::: "memory");
	fz_exit(fz_main(bi));
}
