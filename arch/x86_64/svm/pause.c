/* PAUSE-loop detection through the PAUSE filter (APM Vol. 2 15.14.4; issue 14, hv.h
 * `struct hv_pause_loop`): with the PAUSE intercept set, the CPU counts PAUSEs down from
 * PAUSE_FILTER_COUNT and exits only when the count reaches zero; with the filter threshold
 * (CPUID 8000_000A EDX[12]) a gap of more than PAUSE_FILTER_THRESHOLD cycles between two
 * PAUSEs reloads the count (a new loop). The count is the window, in PAUSEs, per vCPU:
 * grown at each exit and shrunk when the vCPU comes back to a pCPU, as vmx/ does with
 * PLE_Window and KVM's svm.c grow_ple_window/shrink_ple_window, bounded by the 16-bit
 * field. Asked for with hv_pause_loop.on only: otherwise PAUSE is not intercepted. */
#include "arch/x86_64/svm/svm.h"

#define COUNT_MAX 0xffffu /* PAUSE_FILTER_COUNT and _THRESHOLD are 16-bit (VMCB 0x3c/0x3e) */

static uint32_t clamp16(uint32_t v)
{
	return v > COUNT_MAX ? COUNT_MAX : v;
}

/* KVM's __grow_ple_window (arch/x86/kvm/x86.h): a modifier of 0 resets to the base
 * window, one below the base multiplies, a larger one adds; at most window_max and the
 * 16-bit count. */
uint32_t svm_ple_grow(const struct hv_pause_loop *p, uint32_t w)
{
	uint32_t base = clamp16(p->window), max = clamp16(p->window_max);
	if (max < base)
		max = base;
	uint64_t n;
	if (p->grow < 1)
		n = base;
	else if (p->grow < base)
		n = (uint64_t)w * p->grow;
	else
		n = (uint64_t)w + p->grow;
	return n > max ? max : (uint32_t)n;
}

/* KVM's __shrink_ple_window: divides or subtracts, never below the base window. */
uint32_t svm_ple_shrink(const struct hv_pause_loop *p, uint32_t w)
{
	uint32_t base = clamp16(p->window), n;
	if (p->shrink < 1)
		n = base;
	else if (p->shrink < base)
		n = w / p->shrink;
	else
		n = w > p->shrink ? w - p->shrink : 0;
	return n < base ? base : n;
}

static void set_window(struct svm_vcpu *s, uint32_t w)
{
	if (w == s->ple_window)
		return;
	s->ple_window = w;
	s->vmcb->pause_filter_count = (uint16_t)w;
	s->dirty |= CLEAN_I; /* the pause filter is cached with the intercepts (15.15.3) */
}

bool svm_pause_loop_supported(void)
{
	return svm_has(CPUID_8000000A_EDX_PAUSE_FILTER);
}

/* At vcpu_create: the PAUSE intercept and filter when core asked and the CPU has it. */
void svm_ple_setup(struct svm_vcpu *s)
{
	struct vmcb *vb = s->vmcb;
	s->ple_on = hv_pause_loop.on && svm_pause_loop_supported();
	if (!s->ple_on) {
		vb->intercept_misc1 &= ~INTERCEPT_PAUSE;
		vb->pause_filter_count = 0;
		vb->pause_filter_threshold = 0;
		return;
	}
	vb->intercept_misc1 |= INTERCEPT_PAUSE;
	s->ple_window = clamp16(hv_pause_loop.window);
	vb->pause_filter_count = (uint16_t)s->ple_window;
	/* Without the threshold every PAUSE counts, however far apart (15.14.4). */
	vb->pause_filter_threshold = svm_has(CPUID_8000000A_EDX_PAUSE_FILTER_THRESHOLD)
					     ? (uint16_t)clamp16(hv_pause_loop.gap)
					     : 0;
	s->dirty |= CLEAN_I;
}

/* A #VMEXIT PAUSE with the filter on: the loop is reported, its window grows. */
void svm_ple_exit(struct svm_vcpu *s)
{
	set_window(s, svm_ple_grow(&hv_pause_loop, s->ple_window));
}

/* The vCPU comes to a pCPU after it was put (descheduled: KVM's sched_in). */
void svm_ple_load(struct svm_vcpu *s)
{
	if (s->ple_on)
		set_window(s, svm_ple_shrink(&hv_pause_loop, s->ple_window));
}
