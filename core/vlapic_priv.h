/* The virtual local APIC's inside, shared by its files (core/vlapic.c the state and fixed
 * interrupts, vlapic_timer.c the timer, vlapic_ipi.c IPIs, INIT-SIPI and NMIs, vlapic_regs.c
 * the register file, the xAPIC page and the MSRs): the architectural bits they all use, the
 * small helpers (static inline, as they were inlined in the one file before), and the few
 * functions one file calls in another. Nothing outside the vLAPIC includes it. */
#ifndef CORE_VLAPIC_PRIV_H
#define CORE_VLAPIC_PRIV_H
#include "core/vlapic.h"
#include "core/vmm.h"

#define BASE_BSP	 (1ull << 8)
#define BASE_EXTD	 (1ull << 10)
#define BASE_EN		 (1ull << 11)
#define SVR_ENABLE	 (1u << 8)
#define LVT_MASKED	 (1u << 16)
#define ESR_SEND_ILLEGAL (1u << 5)
#define ESR_RECV_ILLEGAL (1u << 6)
/* Index into lvt[]: CMCI, timer, thermal, perf, LINT0, LINT1, error. */
enum { LVT_CMCI, LVT_TIMER, LVT_THERMAL, LVT_PERF, LVT_LINT0, LVT_LINT1, LVT_ERROR };
enum { TM_ONESHOT, TM_PERIODIC, TM_DEADLINE };

static inline struct vlapic *L(const struct vcpu *v)
{
	return (struct vlapic *)&v->lapic;
}

static inline bool x2(const struct vlapic *l)
{
	return (l->apic_base & (BASE_EN | BASE_EXTD)) == (BASE_EN | BASE_EXTD);
}

static inline bool hw_enabled(const struct vlapic *l)
{
	return l->apic_base & BASE_EN;
}

static inline bool sw_enabled(const struct vlapic *l)
{
	return hw_enabled(l) && (l->svr & SVR_ENABLE);
}

static inline int highest(const uint64_t *bits)
{
	for (int w = 3; w >= 0; w--) {
		uint64_t b = __atomic_load_n(&bits[w], __ATOMIC_ACQUIRE);
		if (b)
			return w * 64 + 63 - __builtin_clzll(b);
	}
	return -1;
}

static inline uint32_t x2_ldr(unsigned id)
{
	return ((id >> 4) << 16) | (1u << (id & 15)); /* 10.12.10.2 */
}

static inline bool in_irr(const struct vlapic *l, int vector)
{
	return __atomic_load_n(&l->irr[vector / 64], __ATOMIC_ACQUIRE) & (1ull << (vector % 64));
}

/* PPR (10.8.3.1): the TPR, or the class of the highest vector in service if higher. */
static inline uint32_t ppr(const struct vcpu *v)
{
	uint32_t tpr = __atomic_load_n(&v->tpr, __ATOMIC_RELAXED);
	int isrv = highest(L(v)->isr);
	uint32_t cls = isrv < 0 ? 0 : (uint32_t)isrv & 0xf0;
	return (tpr & 0xf0) >= cls ? tpr : cls;
}

static inline unsigned timer_mode(const struct vlapic *l)
{
	unsigned m = (l->lvt[LVT_TIMER] >> 17) & 3;
	return m == 3 ? TM_ONESHOT : m; /* 11b is reserved */
}

/* Power-up / INIT state (10.4.7.1), APIC_BASE aside (vlapic.c). */
void vl_reset_regs(struct vcpu *v);
/* A fixed interrupt arrives at v: true when it was accepted (vlapic.c). */
bool vl_accept(struct vcpu *v, uint32_t vector, bool level);

static inline bool accept_fixed(struct vcpu *v, uint32_t vector)
{
	return vl_accept(v, vector, false);
}

/* The timer (vlapic_timer.c): (re)started from the registers (under the lock), its current
 * count TMCCT (under the lock), a parked timer at the vCPU's next entry, and an
 * IA32_TSC_DEADLINE write. */
void vl_timer_restart(struct vcpu *v);
uint32_t vl_tmcct(const struct vlapic *l);
void vl_timer_unpark(struct vcpu *v);
void vl_deadline_write(struct vcpu *v, uint64_t val);
/* An ICR write sends an IPI (vlapic_ipi.c). */
void vl_send_ipi(struct vcpu *src, uint32_t lo, uint32_t hi);
#endif
