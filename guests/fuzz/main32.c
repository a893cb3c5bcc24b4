/* The 32-bit fuzzer: the op loop (fuzz.c) on the guests/lib runtime, with its own handler
 * on every exception vector and on the timer vector. */
#include <stdarg.h>
#include "guests/fuzz/fuzz.h"
#include "guests/lib/hcinsn.h"
#include "guests/lib/rt.h"

volatile uint32_t fz_timer_fired;

static void on_trap(struct rt_frame *f)
{
	uintptr_t ip = f->eip;
	fz_trap(f->vector, &ip, f->error);
	f->eip = (uint32_t)ip;
}

static void on_timer(struct rt_frame *f)
{
	(void)f;
	hc_event_recv(SLIVER_PORT_TIMER);
	fz_timer_fired = 1;
}

int fz_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = rt_vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* 32-bit convention: EAX = number, EDI ESI EDX ECX EBX = arguments; EDX:EAX = result. */
int64_t fz_hc(uint64_t nr, const uint64_t a[5], bool *regs_ok)
{
	uint32_t eax = (uint32_t)nr, edi = (uint32_t)a[0], esi = (uint32_t)a[1];
	uint32_t edx = (uint32_t)a[2], ecx = (uint32_t)a[3], ebx = (uint32_t)a[4];
	__asm__ volatile(HC_INSN
			 : "+a"(eax), "+d"(edx), "+D"(edi), "+S"(esi), "+c"(ecx), "+b"(ebx)
			 : HC_FLAG
			 : "memory", "cc");
	*regs_ok = edi == (uint32_t)a[0] && esi == (uint32_t)a[1] && ecx == (uint32_t)a[3] &&
		   ebx == (uint32_t)a[4];
	return (int64_t)(((uint64_t)edx << 32) | eax);
}

uint64_t fz_clock_ns(void)
{
	return rt_clock_ns();
}

bool fz_arg(const char *key, char *buf, size_t len)
{
	return rt_arg(key, buf, len);
}

bool fz_arg_u64(const char *key, uint64_t *out)
{
	return rt_arg_u64(key, out);
}

void fz_exit(int code)
{
	rt_exit(code);
}

int main(const struct sliver_boot_info *bi)
{
	for (unsigned v = 0; v < 32; v++)
		rt_irq_register((uint8_t)v, on_trap);
	rt_irq_register(FZ_VEC_TIMER, on_timer);
	return fz_main(bi);
}
