/* The virtual local APIC (vlapic.h, docs/lapic.md). Register layout and semantics: SDM
 * Vol. 3A chapter 10 (10.4 APIC_BASE, 10.5.1 LVT, 10.5.3 ESR, 10.5.4 timer, 10.5.4.1
 * TSC-deadline, 10.6 ICR, 10.8 IRR/ISR/TPR/PPR/EOI, 10.9 SVR, 10.12 x2APIC). The timer's
 * bus clock is 1 GHz (1 ns per count before the divider), as KVM's.
 *
 * This file: the APIC's state and its fixed interrupts (power-up and INIT reset, IRR, ISR,
 * TMR and PPR, acceptance and injection, what wakes the vCPU, the PICs' ExtINT through
 * LINT0). Beside it, each
 * with one job: vlapic_timer.c (the LVT timer), vlapic_ipi.c (IPIs, INIT-SIPI, NMIs and
 * the IOAPIC's messages), vlapic_regs.c (the registers, the xAPIC page and the MSRs);
 * vlapic_priv.h is what they share. */
#include "core/vlapic_priv.h"

/* Power-up / INIT state (10.4.7.1), APIC_BASE aside. */
void vl_reset_regs(struct vcpu *v)
{
	struct vlapic *l = L(v);
	for (unsigned w = 0; w < 4; w++) {
		__atomic_store_n(&l->irr[w], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&l->tmr[w], 0, __ATOMIC_RELEASE);
		l->isr[w] = 0;
	}
	l->svr = 0xff;
	l->ldr = 0;
	l->dfr = 0xffffffffu;
	l->esr = l->esr_pending = 0;
	l->icr_hi = 0;
	for (unsigned i = 0; i < VLAPIC_NR_LVT; i++)
		l->lvt[i] = LVT_MASKED;
	l->tmict = l->tdcr = 0;
	l->tsc_deadline = 0;
	l->t_running = false;
	l->t_next = 0;
	__atomic_store_n(&l->t_parked, false, __ATOMIC_RELEASE);
	vcpu_set_lapic_timer(v, 0);
	__atomic_store_n(&v->tpr, 0, __ATOMIC_RELAXED);
}

void vlapic_init(struct vcpu *v)
{
	struct vlapic *l = L(v);
	spin_init(&l->lock, &lock_vlapic, -1);
	l->apic_base = VLAPIC_BASE_GPA | BASE_EN | (v->id == 0 ? BASE_BSP : 0);
	for (unsigned w = 0; w < 4; w++)
		l->irr[w] = l->isr[w] = l->tmr[w] = 0;
	l->svr = 0xff;
	l->dfr = 0xffffffffu;
	for (unsigned i = 0; i < VLAPIC_NR_LVT; i++)
		l->lvt[i] = LVT_MASKED;
}

int vlapic_deliverable(const struct vcpu *v)
{
	int vec = highest(L(v)->irr);
	return vec >= 0 && ((uint32_t)vec & 0xf0) > (ppr(v) & 0xf0) ? vec : -1;
}

bool vlapic_has_irr(const struct vcpu *v, int vector)
{
	return in_irr(L(v), vector);
}

void vlapic_injected(struct vcpu *v, int vector)
{
	struct vlapic *l = L(v);
	__atomic_fetch_and(&l->irr[vector / 64], ~(1ull << (vector % 64)), __ATOMIC_ACQ_REL);
	l->isr[vector / 64] |= 1ull << (vector % 64);
}

bool vlapic_wake_pending(const struct vcpu *v)
{
	const struct vlapic *l = L(v);
	if (__atomic_load_n(&l->init_pending, __ATOMIC_ACQUIRE))
		return true;
	if (__atomic_load_n(&l->wait_sipi, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&l->sipi_pending, __ATOMIC_ACQUIRE);
	if (vlapic_deliverable(v) >= 0)
		return true;
	/* An NMI only when the guest can take it now: not while it handles one (until its
	 * IRET, which a halted guest cannot reach without an interrupt first). */
	return (__atomic_load_n(&l->nmi_pending, __ATOMIC_ACQUIRE) ||
		__atomic_load_n(&l->nmi_latched, __ATOMIC_ACQUIRE)) &&
	       !hv_nmi_masked(v->hv);
}

/* A fixed interrupt arrives at v (an IPI, its own LVT): dropped while the APIC is
 * software-disabled (10.4.7.2); vectors 0-15 are illegal (10.5.3). true when it was
 * accepted (the caller then wakes v). */
bool vl_accept(struct vcpu *v, uint32_t vector, bool level)
{
	struct vlapic *l = L(v);
	if (!sw_enabled(l))
		return false;
	if (vector < 16) {
		__atomic_fetch_or(&l->esr_pending, ESR_RECV_ILLEGAL, __ATOMIC_RELAXED);
		return false;
	}
	/* TMR (10.8.4): set for a level-triggered interrupt as it is accepted, cleared for an
	 * edge-triggered one; the EOI of a level one is sent on to the IOAPIC. */
	uint64_t bit = 1ull << (vector % 64);
	if (level)
		__atomic_fetch_or(&l->tmr[vector / 64], bit, __ATOMIC_SEQ_CST);
	else if (__atomic_load_n(&l->tmr[vector / 64], __ATOMIC_RELAXED) & bit)
		__atomic_fetch_and(&l->tmr[vector / 64], ~bit, __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&l->irr[vector / 64], bit, __ATOMIC_SEQ_CST);
	return true;
}

bool vlapic_extint_ok(const struct vcpu *v)
{
	const struct vlapic *l = L(v);
	uint32_t lint0 = l->lvt[LVT_LINT0];
	return !hw_enabled(l) || (!(lint0 & LVT_MASKED) && ((lint0 >> 8) & 7) == 7);
}

void vlapic_firmware(struct vcpu *v)
{
	struct vlapic *l = L(v);
	spin_lock(&l->lock);
	l->svr = 0x1ff | (l->svr & 0xff);
	l->lvt[LVT_LINT0] = 0x700; /* ExtINT: the PICs' INTR */
	l->lvt[LVT_LINT1] = 0x400; /* NMI */
	spin_unlock(&l->lock);
}
