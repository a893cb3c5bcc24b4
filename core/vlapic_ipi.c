/* The vLAPIC's messages between APICs (SDM Vol. 3A 10.6): IPIs sent through the ICR, the
 * IOAPIC's interrupt messages, the platform's INIT, NMIs, and what a vCPU does with INIT,
 * SIPI and NMIs before its next entry. Apart from the APIC's own state (core/vlapic.c)
 * and registers (core/vlapic_regs.c) so that each file has one job. */
#include "core/vlapic_priv.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "drivers/console.h"

bool vlapic_take_init(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (!__atomic_exchange_n(&l->init_pending, false, __ATOMIC_ACQ_REL))
		return false;
	/* INIT (10.4.7.3): the APIC's registers reset, APIC_BASE and ID kept; the vCPU waits
	 * for a SIPI. */
	spin_lock(&l->lock);
	vl_reset_regs(v);
	spin_unlock(&l->lock);
	__atomic_store_n(&l->nmi_pending, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&l->nmi_latched, 0, __ATOMIC_RELEASE);
	/* The BSP of a PC runs the firmware at the reset vector (SDM Vol. 3A 9.1.4: an INIT
	 * restarts the BSP there, as a reset does; the APs wait for a SIPI). */
	if ((l->apic_base & BASE_BSP) && v->dom->boot != PC_BOOT_SLIVER && v->dom->pc)
		return true;
	__atomic_store_n(&l->wait_sipi, true, __ATOMIC_RELEASE);
	return false;
}

bool vlapic_before_entry(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (__atomic_load_n(&l->wait_sipi, __ATOMIC_ACQUIRE)) {
		if (!__atomic_exchange_n(&l->sipi_pending, false, __ATOMIC_ACQ_REL))
			return false;
		__atomic_store_n(&l->wait_sipi, false, __ATOMIC_RELEASE);
		uint8_t vec = __atomic_load_n(&l->sipi_vector, __ATOMIC_ACQUIRE);
		if (!hv_vcpu_reset_real(v->hv, (uint16_t)(vec << 8), 0))
			printk("sliver: d%u v%u: SIPI: the backend cannot restart a vCPU\n",
			       v->dom->id, v->id);
	}
	if (__atomic_load_n(&l->t_parked, __ATOMIC_ACQUIRE))
		vl_timer_unpark(v);
	/* NMI delivery (docs/lapic.md): new NMIs join the latch (at most two, one while the
	 * guest handles an NMI); the latch is asked for at every entry, and the backend
	 * delivers one (with NMI blocking until the guest's IRET) when the guest can take it. */
	uint32_t n = __atomic_exchange_n(&l->nmi_pending, 0, __ATOMIC_ACQ_REL);
	if (n) {
		uint32_t cap = hv_nmi_masked(v->hv) ? 1 : 2, have = l->nmi_latched + n;
		__atomic_store_n(&l->nmi_latched, (uint8_t)(have < cap ? have : cap),
				 __ATOMIC_RELEASE);
	}
	if (__atomic_load_n(&l->nmi_latched, __ATOMIC_ACQUIRE))
		hv_request_nmi(v->hv);
	return true;
}

void vlapic_nmi_injected(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (l->nmi_latched)
		__atomic_store_n(&l->nmi_latched, (uint8_t)(l->nmi_latched - 1), __ATOMIC_RELEASE);
}

bool vlapic_waiting(const struct vcpu *v)
{
	return __atomic_load_n(&L(v)->wait_sipi, __ATOMIC_ACQUIRE);
}

/* ---- IPIs (10.6) ---- */

static bool dest_match(const struct vcpu *src, const struct vcpu *t, uint32_t lo, uint32_t hi)
{
	const struct vlapic *sl = L(src), *tl = L(t);
	unsigned sh = (lo >> 18) & 3;
	if (sh == 1)
		return t == src;
	if (sh == 2)
		return true;
	if (sh == 3)
		return t != src;
	bool logical = lo & (1u << 11);
	if (x2(sl)) {
		if (!logical)
			return hi == 0xffffffffu || hi == t->id;
		uint32_t ldr = x2_ldr(t->id);
		return hi == 0xffffffffu ||
		       ((hi >> 16) == (ldr >> 16) && (hi & ldr & 0xffff)); /* cluster */
	}
	uint32_t d = hi >> 24;
	if (!logical)
		return d == 0xff || d == t->id;
	if (d == 0xff)
		return true;
	if ((tl->dfr >> 28) == 0xf) /* flat model */
		return (tl->ldr >> 24) & d;
	return (d >> 4) == (tl->ldr >> 28) && (d & (tl->ldr >> 24) & 0xf); /* cluster */
}

/* An IPI reached t: wake it, or make it exit if it runs elsewhere. Not the sender: it is
 * handling its own exit on this pCPU and sees what is pending at its next entry, so a
 * self-IPI costs its exit and a bit, never a scheduler call (issue 30). */
static void ipi_notify(struct vcpu *src, struct vcpu *t)
{
	if (t != src)
		vcpu_notify(t, false);
}

void vl_send_ipi(struct vcpu *src, uint32_t lo, uint32_t hi)
{
	struct domain *d = src->dom;
	unsigned mode = (lo >> 8) & 7;
	uint32_t vector = lo & 0xff;
	if ((mode == 0 || mode == 1) && vector < 16) {
		__atomic_fetch_or(&L(src)->esr_pending, ESR_SEND_ILLEGAL, __ATOMIC_RELAXED);
		return;
	}
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct vcpu *t = d->vcpu[i];
		if (!t || !dest_match(src, t, lo, hi))
			continue;
		L(src)->ipis++;
		switch (mode) {
		case 0: /* fixed */
		case 1: /* lowest priority: every destination, as fixed */
			if (accept_fixed(t, vector))
				ipi_notify(src, t);
			break;
		case 4: /* NMI */
			__atomic_fetch_add(&L(t)->nmi_pending, 1, __ATOMIC_ACQ_REL);
			ipi_notify(src, t);
			break;
		case 5: /* INIT; level de-assert (level 0, trigger 1) does nothing (10.6.1) */
			if (!(lo & (1u << 14)) && (lo & (1u << 15)))
				break;
			__atomic_store_n(&L(t)->init_pending, true, __ATOMIC_RELEASE);
			ipi_notify(src, t);
			break;
		case 6: /* SIPI: only a vCPU waiting after INIT takes it */
			if (!__atomic_load_n(&L(t)->init_pending, __ATOMIC_ACQUIRE) &&
			    !__atomic_load_n(&L(t)->wait_sipi, __ATOMIC_ACQUIRE))
				break;
			__atomic_store_n(&L(t)->sipi_vector, (uint8_t)vector, __ATOMIC_RELEASE);
			__atomic_store_n(&L(t)->sipi_pending, true, __ATOMIC_RELEASE);
			ipi_notify(src, t);
			break;
		default: /* SMI, reserved: ignored */
			break;
		}
	}
}

/* ---- interrupt messages from the IOAPIC, platform INIT ---- */

bool vlapic_match_msg(const struct vcpu *t, uint32_t dest, bool logical)
{
	const struct vlapic *l = L(t);
	if (!hw_enabled(l))
		return false;
	if (!logical)
		return dest == 0xff || dest == t->id;
	if (dest == 0xff)
		return true;
	if (x2(l)) { /* an 8-bit logical destination names cluster 0 (as KVM's kvm_apic_mda) */
		uint32_t ldr = x2_ldr(t->id);
		return !(ldr >> 16) && (dest & ldr & 0xffff);
	}
	if ((l->dfr >> 28) == 0xf) /* flat model */
		return (l->ldr >> 24) & dest;
	return (dest >> 4) == (l->ldr >> 28) && (dest & (l->ldr >> 24) & 0xf); /* cluster */
}

bool vlapic_accept_msg(struct vcpu *t, uint8_t vector, bool level)
{
	return vl_accept(t, vector, level);
}

bool vlapic_nmi(struct vcpu *t)
{
	__atomic_fetch_add(&L(t)->nmi_pending, 1, __ATOMIC_ACQ_REL);
	return true;
}

void vlapic_init_signal(struct vcpu *t)
{
	__atomic_store_n(&L(t)->init_pending, true, __ATOMIC_RELEASE);
	vcpu_notify(t, false);
}
