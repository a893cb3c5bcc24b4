/* The virtual local APIC (vlapic.h, docs/lapic.md). Register layout and semantics: SDM
 * Vol. 3A chapter 10 (10.4 APIC_BASE, 10.5.1 LVT, 10.5.3 ESR, 10.5.4 timer, 10.5.4.1
 * TSC-deadline, 10.6 ICR, 10.8 IRR/ISR/TPR/PPR/EOI, 10.9 SVR, 10.12 x2APIC). The timer's
 * bus clock is 1 GHz (1 ns per count before the divider), as KVM's. */
#include "core/vlapic.h"
#include "arch/x86_64/cr.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/tsc.h"
#include "core/insn_fetch.h"
#include "core/insn_mov.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/fmt.h"

#define BASE_BSP	 (1ull << 8)
#define BASE_EXTD	 (1ull << 10)
#define BASE_EN		 (1ull << 11)
#define SVR_ENABLE	 (1u << 8)
#define LVT_MASKED	 (1u << 16)
#define APIC_VER	 0x00060014u /* version 0x14, max LVT entry 6 (7 LVTs with CMCI) */
#define ESR_SEND_ILLEGAL (1u << 5)
#define ESR_RECV_ILLEGAL (1u << 6)
/* The shortest period of the periodic mode, KVM's min_timer_period_us default (200 us, 5 kHz:
 * five times the fastest tick a PC OS asks for, HZ=1000). A guest asking for a 1 ns period
 * would otherwise take an exit per interrupt at the emulator's pace and, descheduled, fire
 * on its neighbours' time (issue 30). One-shot and TSC-deadline need no floor: each
 * interrupt follows a guest write (an exit of its own), and one armed while the vCPU is
 * descheduled fires once. */
#define PERIODIC_MIN_NS 200000ull

/* Register offsets (xAPIC page; x2APIC MSR = 0x800 + off / 16). */
enum {
	R_ID = 0x20,
	R_VER = 0x30,
	R_TPR = 0x80,
	R_APR = 0x90,
	R_PPR = 0xa0,
	R_EOI = 0xb0,
	R_RRD = 0xc0,
	R_LDR = 0xd0,
	R_DFR = 0xe0,
	R_SVR = 0xf0,
	R_ISR = 0x100,
	R_TMR = 0x180,
	R_IRR = 0x200,
	R_ESR = 0x280,
	R_LVT_CMCI = 0x2f0,
	R_ICR_LO = 0x300,
	R_ICR_HI = 0x310,
	R_LVT_TIMER = 0x320,
	R_LVT_ERROR = 0x370,
	R_TMICT = 0x380,
	R_TMCCT = 0x390,
	R_TDCR = 0x3e0,
	R_SELF_IPI = 0x3f0,
};
/* Index into lvt[]: CMCI, timer, thermal, perf, LINT0, LINT1, error. */
enum { LVT_CMCI, LVT_TIMER, LVT_THERMAL, LVT_PERF, LVT_LINT0, LVT_LINT1, LVT_ERROR };
/* Writable bits of each LVT (10.5.1): vector, delivery mode, polarity, trigger, mask;
 * the timer has its mode (bits 18:17) and no delivery mode. */
static const uint32_t lvt_bits[VLAPIC_NR_LVT] = {0x107ff, 0x700ff, 0x107ff, 0x107ff,
						 0x1a7ff, 0x1a7ff, 0x100ff};
enum { TM_ONESHOT, TM_PERIODIC, TM_DEADLINE };

static struct vlapic *L(const struct vcpu *v)
{
	return (struct vlapic *)&v->lapic;
}

static bool x2(const struct vlapic *l)
{
	return (l->apic_base & (BASE_EN | BASE_EXTD)) == (BASE_EN | BASE_EXTD);
}

static bool hw_enabled(const struct vlapic *l)
{
	return l->apic_base & BASE_EN;
}

static bool sw_enabled(const struct vlapic *l)
{
	return hw_enabled(l) && (l->svr & SVR_ENABLE);
}

static int highest(const uint64_t *bits)
{
	for (int w = 3; w >= 0; w--) {
		uint64_t b = __atomic_load_n(&bits[w], __ATOMIC_ACQUIRE);
		if (b)
			return w * 64 + 63 - __builtin_clzll(b);
	}
	return -1;
}

static uint32_t x2_ldr(unsigned id)
{
	return ((id >> 4) << 16) | (1u << (id & 15)); /* 10.12.10.2 */
}

/* Power-up / INIT state (10.4.7.1), APIC_BASE aside. */
static void reset_regs(struct vcpu *v)
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

/* PPR (10.8.3.1): the TPR, or the class of the highest vector in service if higher. */
static uint32_t ppr(const struct vcpu *v)
{
	uint32_t tpr = __atomic_load_n(&v->tpr, __ATOMIC_RELAXED);
	int isrv = highest(L(v)->isr);
	uint32_t cls = isrv < 0 ? 0 : (uint32_t)isrv & 0xf0;
	return (tpr & 0xf0) >= cls ? tpr : cls;
}

int vlapic_deliverable(const struct vcpu *v)
{
	int vec = highest(L(v)->irr);
	return vec >= 0 && ((uint32_t)vec & 0xf0) > (ppr(v) & 0xf0) ? vec : -1;
}

bool vlapic_has_irr(const struct vcpu *v, int vector)
{
	return __atomic_load_n(&L(v)->irr[vector / 64], __ATOMIC_ACQUIRE) & (1ull << (vector % 64));
}

void vlapic_injected(struct vcpu *v, int vector)
{
	struct vlapic *l = L(v);
	__atomic_fetch_and(&l->irr[vector / 64], ~(1ull << (vector % 64)), __ATOMIC_ACQ_REL);
	l->isr[vector / 64] |= 1ull << (vector % 64);
}

static void reset_regs(struct vcpu *v);
static void timer_unpark(struct vcpu *v);

bool vlapic_before_entry(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (__atomic_exchange_n(&l->init_pending, false, __ATOMIC_ACQ_REL)) {
		/* INIT (10.4.7.3): the APIC's registers reset, APIC_BASE and ID kept; the vCPU
		 * waits for a SIPI. */
		spin_lock(&l->lock);
		reset_regs(v);
		spin_unlock(&l->lock);
		__atomic_store_n(&l->nmi_pending, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&l->nmi_latched, 0, __ATOMIC_RELEASE);
		/* The BSP of a PC runs the firmware at the reset vector (SDM Vol. 3A 9.1.4: an
		 * INIT restarts the BSP there, as a reset does; the APs wait for a SIPI). */
		if ((l->apic_base & BASE_BSP) && v->dom->boot != PC_BOOT_SLIVER && v->dom->pc)
			pc_fw_boot(v);
		else
			__atomic_store_n(&l->wait_sipi, true, __ATOMIC_RELEASE);
	}
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
		timer_unpark(v);
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
static bool accept(struct vcpu *v, uint32_t vector, bool level)
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

static bool accept_fixed(struct vcpu *v, uint32_t vector)
{
	return accept(v, vector, false);
}

/* ---- the timer (10.5.4) ---- */

static unsigned timer_mode(const struct vlapic *l)
{
	unsigned m = (l->lvt[LVT_TIMER] >> 17) & 3;
	return m == 3 ? TM_ONESHOT : m; /* 11b is reserved */
}

static uint64_t divisor(uint32_t tdcr)
{
	unsigned x = (tdcr & 3) | ((tdcr >> 1) & 4);
	return x == 7 ? 1 : 2ull << x;
}

static void timer_arm(struct vcpu *v, uint64_t at)
{
	__atomic_store_n(&L(v)->t_next, at, __ATOMIC_RELEASE);
	L(v)->t_parked = false;
	vcpu_set_lapic_timer(v, at);
}

/* (Re)starts the timer from the registers: a TMICT, TDCR, LVT-timer-mode or TSC_DEADLINE
 * write. Under the lock. */
static void timer_restart(struct vcpu *v)
{
	struct vlapic *l = L(v);
	l->t_running = false;
	if (timer_mode(l) == TM_DEADLINE) {
		/* The deadline is in the guest's TSC (host TSC + v->tsc_offset, moved by
		 * IA32_TSC/TSC_ADJUST writes: SDM 10.5.4.1 compares it with the TSC the guest
		 * reads); the timer runs on the host's. */
		uint64_t at = 0, host = l->tsc_deadline - v->tsc_offset;
		if (l->tsc_deadline)
			at = host > tsc_at_boot ? tsc_to_ns(host - tsc_at_boot) : 0;
		timer_arm(v, l->tsc_deadline ? (at ? at : 1) : 0);
		return;
	}
	if (!l->tmict) {
		timer_arm(v, 0);
		return;
	}
	l->t_start = now_ns();
	l->t_period = (uint64_t)l->tmict * divisor(l->tdcr);
	l->t_running = true;
	uint64_t p = l->t_period;
	if (timer_mode(l) == TM_PERIODIC && p < PERIODIC_MIN_NS)
		p = PERIODIC_MIN_NS;
	timer_arm(v, l->t_start + p);
}

static uint32_t tmcct(const struct vlapic *l)
{
	if (!l->t_running || timer_mode(l) == TM_DEADLINE || !l->t_period)
		return 0;
	uint64_t el = now_ns() - l->t_start;
	uint64_t left;
	if (timer_mode(l) == TM_PERIODIC)
		left = l->t_period - el % l->t_period;
	else
		left = el >= l->t_period ? 0 : l->t_period - el;
	return (uint32_t)(left / divisor(l->tdcr));
}

/* An LVT fires (timer, error): fixed delivery of its vector unless masked. Under the
 * lock; true when v must be woken. */
static bool lvt_fire(struct vcpu *v, unsigned lvt)
{
	uint32_t e = L(v)->lvt[lvt];
	return !(e & LVT_MASKED) && accept_fixed(v, e & 0xff);
}

void vlapic_tsc_moved(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic)
		return;
	spin_lock(&l->lock);
	if (timer_mode(l) == TM_DEADLINE && l->tsc_deadline && l->t_next)
		timer_restart(v);
	spin_unlock(&l->lock);
}

/* The timer reached t_next: its LVT fires. Under the lock; true when v must be woken. */
static bool timer_fire(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (timer_mode(l) == TM_PERIODIC && l->t_running) {
		uint64_t p = l->t_period < PERIODIC_MIN_NS ? PERIODIC_MIN_NS : l->t_period;
		uint64_t next = l->t_next + p, now = now_ns();
		if (next <= now) /* missed periods are coalesced into this one */
			next = now + p - (now - l->t_next) % p;
		l->t_start = next - p; /* TMCCT counts this period down */
		timer_arm(v, next);
	} else {
		l->t_running = false;
		__atomic_store_n(&l->t_next, 0, __ATOMIC_RELEASE);
		if (timer_mode(l) == TM_DEADLINE)
			l->tsc_deadline = 0;
	}
	/* The last interrupt not taken yet (its vector held back, IF=0): this one merges into
	 * its IRR bit, and nothing new wakes v (a vCPU halted with the vector masked is not
	 * woken every period, issue 30). */
	bool merged = vlapic_has_irr(v, (int)(l->lvt[LVT_TIMER] & 0xff));
	bool wake = lvt_fire(v, LVT_TIMER);
	if (wake)
		l->timer_irqs++;
	return wake && !merged;
}

void vlapic_timer_expired(struct vcpu *v, uint64_t gen)
{
	struct vlapic *l = L(v);
	bool wake = false;
	spin_lock(&l->lock);
	if (gen == __atomic_load_n(&v->lapic_timer_gen, __ATOMIC_ACQUIRE) && l->t_next &&
	    !l->t_parked)
		wake = timer_fire(v);
	spin_unlock(&l->lock);
	if (wake)
		vcpu_notify(v, true);
}

void vlapic_park(struct vcpu *v)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic || !__atomic_load_n(&l->t_next, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&l->lock);
	if (l->t_next && !l->t_parked) {
		l->t_parked = true;
		vcpu_set_lapic_timer(v, 0);
	}
	spin_unlock(&l->lock);
}

/* Before an entry: a timer parked while v waited fires now if it is due (its interrupt is
 * pending before v's first instruction, as it would have been), else is armed again here. */
static void timer_unpark(struct vcpu *v)
{
	struct vlapic *l = L(v);
	spin_lock(&l->lock);
	if (l->t_parked) {
		l->t_parked = false;
		if (l->t_next && l->t_next <= now_ns())
			timer_fire(v); /* v is about to enter: nothing to wake */
		else if (l->t_next)
			vcpu_set_lapic_timer(v, l->t_next);
	}
	spin_unlock(&l->lock);
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

static void send_ipi(struct vcpu *src, uint32_t lo, uint32_t hi)
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
	return accept(t, vector, level);
}

bool vlapic_nmi(struct vcpu *t)
{
	__atomic_fetch_add(&L(t)->nmi_pending, 1, __ATOMIC_ACQ_REL);
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

void vlapic_init_signal(struct vcpu *t)
{
	__atomic_store_n(&L(t)->init_pending, true, __ATOMIC_RELEASE);
	vcpu_notify(t, false);
}

/* ---- registers ---- */

static uint32_t bits32(const uint64_t *bits, unsigned idx)
{
	return (uint32_t)(__atomic_load_n(&bits[idx / 2], __ATOMIC_ACQUIRE) >> (32 * (idx & 1)));
}

/* A register read; false: no such register (x2APIC: #GP; xAPIC: reads 0). */
static bool reg_read(struct vcpu *v, unsigned off, uint32_t *val)
{
	struct vlapic *l = L(v);
	bool x = x2(l);
	*val = 0;
	if (off >= R_ISR && off < R_ESR) {
		unsigned idx = (off & 0x7f) >> 4;
		const uint64_t *b = off < R_TMR ? l->isr : off < R_IRR ? l->tmr : l->irr;
		*val = bits32(b, idx);
		return true;
	}
	if (off >= R_LVT_TIMER && off <= R_LVT_ERROR) {
		*val = l->lvt[LVT_TIMER + ((off - R_LVT_TIMER) >> 4)];
		return true;
	}
	switch (off) {
	case R_ID:
		*val = x ? v->id : v->id << 24;
		return true;
	case R_VER:
		*val = APIC_VER;
		return true;
	case R_TPR:
		*val = __atomic_load_n(&v->tpr, __ATOMIC_RELAXED);
		return true;
	case R_APR:
	case R_RRD:
		return !x;
	case R_PPR:
		*val = ppr(v);
		return true;
	case R_LDR:
		*val = x ? x2_ldr(v->id) : l->ldr;
		return true;
	case R_DFR:
		*val = l->dfr;
		return !x;
	case R_SVR:
		*val = l->svr;
		return true;
	case R_ESR:
		*val = l->esr;
		return true;
	case R_LVT_CMCI:
		*val = l->lvt[LVT_CMCI];
		return true;
	case R_ICR_LO:
		*val = l->icr_lo;
		return true;
	case R_ICR_HI:
		*val = l->icr_hi;
		return !x;
	case R_TMICT:
		*val = l->tmict;
		return true;
	case R_TMCCT:
		spin_lock(&l->lock);
		*val = tmcct(l);
		spin_unlock(&l->lock);
		return true;
	case R_TDCR:
		*val = l->tdcr;
		return true;
	default:
		return false; /* EOI, SELF_IPI (write-only) and reserved */
	}
}

static void eoi(struct vcpu *v)
{
	struct vlapic *l = L(v);
	int vec = highest(l->isr);
	if (vec < 0)
		return;
	l->isr[vec / 64] &= ~(1ull << (vec % 64));
	/* A level-triggered vector: the EOI goes on to the IOAPIC (10.8.5). */
	if (__atomic_load_n(&l->tmr[vec / 64], __ATOMIC_ACQUIRE) & (1ull << (vec % 64)))
		pc_ioapic_eoi(v->dom, (uint8_t)vec);
}

static void set_svr(struct vcpu *v, uint32_t val)
{
	struct vlapic *l = L(v);
	l->svr = val & 0x3ff;	    /* vector, APIC enable, focus check (no EOI suppression) */
	if (!(l->svr & SVR_ENABLE)) /* 10.4.7.2: every LVT masked */
		for (unsigned i = 0; i < VLAPIC_NR_LVT; i++)
			l->lvt[i] |= LVT_MASKED;
}

static void set_lvt(struct vcpu *v, unsigned i, uint32_t val)
{
	struct vlapic *l = L(v);
	val &= lvt_bits[i];
	if (!(l->svr & SVR_ENABLE))
		val |= LVT_MASKED;
	spin_lock(&l->lock);
	unsigned old = timer_mode(l);
	l->lvt[i] = val;
	if (i == LVT_TIMER && timer_mode(l) != old &&
	    (old == TM_DEADLINE || timer_mode(l) == TM_DEADLINE)) {
		/* A change to or from TSC-deadline mode disarms (10.5.4.1): TMICT and the
		 * deadline start over. Between one-shot and periodic the count goes on from
		 * where it is; the mode is read when it reaches zero (KVM: apic_update_lvtt;
		 * kvm-unit-tests x86/apic.c, test_apic_change_mode). */
		l->tmict = 0;
		l->tsc_deadline = 0;
		timer_restart(v);
	}
	spin_unlock(&l->lock);
}

/* A register write; false: #GP (x2APIC: read-only or absent register, reserved bits). */
static bool reg_write(struct vcpu *v, unsigned off, uint64_t val64)
{
	struct vlapic *l = L(v);
	bool x = x2(l);
	uint32_t val = (uint32_t)val64;
	if (x && off != R_ICR_LO && (val64 >> 32))
		return false;
	if (off >= R_LVT_TIMER && off <= R_LVT_ERROR) {
		set_lvt(v, LVT_TIMER + ((off - R_LVT_TIMER) >> 4), val);
		return true;
	}
	switch (off) {
	case R_ID:
	case R_VER:
	case R_PPR:
	case R_LDR:
		if (off == R_LDR && !x) {
			l->ldr = val & 0xff000000u;
			return true;
		}
		return !x; /* read-only: xAPIC ignores the write */
	case R_TPR:
		__atomic_store_n(&v->tpr, (uint8_t)val, __ATOMIC_RELAXED);
		return true;
	case R_EOI:
		if (x && val)
			return false;
		eoi(v);
		return true;
	case R_DFR:
		if (x)
			return false;
		l->dfr = val | 0x0fffffffu;
		return true;
	case R_SVR:
		set_svr(v, val);
		return true;
	case R_ESR: /* a write latches the errors seen since the last one (10.5.3) */
		if (x && val)
			return false;
		l->esr = __atomic_exchange_n(&l->esr_pending, 0, __ATOMIC_ACQ_REL);
		return true;
	case R_LVT_CMCI:
		set_lvt(v, LVT_CMCI, val);
		return true;
	case R_ICR_LO:
		l->icr_lo = x ? (uint32_t)val & ~(1u << 12) : val & 0x000ccfffu;
		if (x)
			l->icr_hi = (uint32_t)(val64 >> 32);
		send_ipi(v, l->icr_lo, l->icr_hi);
		return true;
	case R_ICR_HI:
		if (x)
			return false;
		l->icr_hi = val & 0xff000000u;
		return true;
	case R_TMICT:
		spin_lock(&l->lock);
		if (timer_mode(l) != TM_DEADLINE) { /* ignored in TSC-deadline mode */
			l->tmict = val;
			timer_restart(v);
		}
		spin_unlock(&l->lock);
		return true;
	case R_TDCR:
		spin_lock(&l->lock);
		l->tdcr = val & 0xb;
		spin_unlock(&l->lock);
		return true;
	case R_SELF_IPI:
		if (!x)
			return true; /* x2APIC only */
		if (val & ~0xffu)
			return false;	     /* bits 31:8 are reserved (10.12.11): #GP, as KVM */
		accept_fixed(v, val & 0xff); /* its own: seen at its next entry (ipi_notify) */
		return true;
	default:
		return !x; /* reserved: xAPIC ignores the write */
	}
}

/* ---- the xAPIC page: fetch, decode, emulate ---- */

bool vlapic_mmio(struct vcpu *v, struct hv_exit *e)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic || (e->ept.gpa & ~0xfffull) != (l->apic_base & ~0xfffull))
		return false;
	/* Hardware-disabled or in x2APIC mode, the page is no APIC's (10.4.3, 10.12.2): it
	 * answers as unassigned addresses on a PC, reads all ones and writes dropped, as
	 * under KVM and QEMU (kvm-unit-tests x86/apic.c memsets it and reads it back). */
	bool unassigned = !hw_enabled(l) || x2(l);
	uint8_t b[INSN_MAX_LEN];
	char why[96];
	bool long64;
	int n = insn_fetch(v, b, &long64, why, sizeof why);
	if (n < 0) {
		domain_crash(v->dom, v, "LAPIC access at 0x%lx: %s", (unsigned long)e->ept.gpa,
			     why);
		return true;
	}
	struct insn_mov in;
	const char *bad = insn_mov_decode(b, (unsigned)n, long64, &in);
	if (!bad && in.size != 4 && !unassigned)
		bad = "not a 32-bit access (APIC registers are 32-bit)";
	if (bad) {
		char hex[3 * INSN_MAX_LEN + 1];
		unsigned k = 0;
		for (int i = 0; i < n && i < 8; i++)
			k += (unsigned)fmt_snprintf(hex + k, sizeof hex - k, "%s%02x", i ? " " : "",
						    b[i]);
		domain_crash(v->dom, v, "LAPIC access at 0x%lx by [%s]: %s",
			     (unsigned long)e->ept.gpa, hex, bad);
		return true;
	}
	unsigned off = (unsigned)(e->ept.gpa & 0xfff);
	bool aligned = !(off & 0xf); /* 10.4.1: 32-bit accesses at 16-byte boundaries */
	if (unassigned) {
		if (in.kind == INSN_MOV_LOAD)
			hv_gpr_set(v->hv, in.reg,
				   insn_mov_load_result(&in, hv_gpr_get(v->hv, in.reg), ~0ull));
	} else if (in.kind == INSN_MOV_LOAD) {
		uint32_t val = 0;
		if (aligned)
			reg_read(v, off, &val);
		hv_gpr_set(v->hv, in.reg, val);
	} else if (aligned) {
		uint64_t val = in.kind == INSN_MOV_STORE ? hv_gpr_get(v->hv, in.reg) : in.imm;
		reg_write(v, off, (uint32_t)val);
	}
	hv_skip_insn(v->hv, in.len);
	return true;
}

/* ---- MSRs ---- */

/* The first byte above the guest-physical address space (CPUID.80000008H:EAX[7:0], which
 * the guest sees unchanged): APIC_BASE bits from there up are reserved. */
static uint64_t maxphy_limit(void)
{
	unsigned bits = cpuid(0x80000008u, 0).eax & 0xff;
	return bits >= 36 && bits < 64 ? 1ull << bits : 1ull << 36;
}

/* APIC_BASE writes (10.4.4, 10.12.5): EN/EXTD go disabled <-> xAPIC -> x2APIC, and x2APIC
 * -> disabled; every other transition, reserved bits (0-7, 9, MAXPHYADDR and up), #GP.
 * BSP is read-only here. The base may move, as KVM allows (kvm-unit-tests x86/apic.c
 * moves it to 0xFED40000): the APIC page then answers there (vlapic_mmio); where the
 * domain has RAM, RAM stays, as with KVM's APICv. */
static bool set_apic_base(struct vcpu *v, uint64_t val)
{
	struct vlapic *l = L(v);
	if ((val & 0x2ffull) || val >= maxphy_limit())
		return false;
	uint64_t want = val & (BASE_EN | BASE_EXTD), cur = l->apic_base & (BASE_EN | BASE_EXTD);
	if (want == BASE_EXTD)
		return false; /* invalid state */
	if (cur == (BASE_EN | BASE_EXTD) && want == BASE_EN)
		return false; /* x2APIC -> xAPIC directly */
	if (cur == 0 && want == (BASE_EN | BASE_EXTD))
		return false; /* disabled -> x2APIC directly */
	if (cur && !want) {   /* hardware disable: the APIC state is reset */
		spin_lock(&l->lock);
		reset_regs(v);
		spin_unlock(&l->lock);
	}
	l->apic_base = (l->apic_base & BASE_BSP) | (val & ~0xfffull) | want;
	return true;
}

int vlapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *val)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic)
		return 0;
	if (msr == MSR_IA32_APIC_BASE) {
		*val = l->apic_base;
		return 1;
	}
	if (msr == MSR_IA32_TSC_DEADLINE) {
		*val = timer_mode(l) == TM_DEADLINE ? l->tsc_deadline : 0;
		return 1;
	}
	if (msr < 0x800 || msr > 0x8ff)
		return 0;
	uint32_t r;
	if (!x2(l) || msr == 0x830 + 1 || !reg_read(v, (msr - 0x800) << 4, &r))
		return -1;
	*val = r;
	if (msr == 0x830)
		*val |= (uint64_t)l->icr_hi << 32;
	return 1;
}

int vlapic_wrmsr(struct vcpu *v, uint32_t msr, uint64_t val)
{
	struct vlapic *l = L(v);
	if (!v->dom->lapic)
		return 0;
	if (msr == MSR_IA32_APIC_BASE)
		return set_apic_base(v, val) ? 1 : -1;
	if (msr == MSR_IA32_TSC_DEADLINE) {
		spin_lock(&l->lock);
		if (timer_mode(l) == TM_DEADLINE) { /* ignored in the other modes */
			l->tsc_deadline = val;
			if (val && (int64_t)(val - v->tsc_offset - rdtsc()) <= 0) {
				/* Already due: the interrupt is pending before the next
				 * instruction, as on a CPU (kvm-unit-tests x86/apic.c writes the
				 * current TSC and counts it after a serializing CPUID), not after a
				 * host timer. */
				l->tsc_deadline = 0;
				timer_arm(v, 0);
				if (lvt_fire(v, LVT_TIMER))
					l->timer_irqs++;
			} else {
				timer_restart(v);
			}
		}
		spin_unlock(&l->lock);
		return 1;
	}
	if (msr < 0x800 || msr > 0x8ff)
		return 0;
	unsigned off = (msr - 0x800) << 4;
	if (!x2(l))
		return -1;
	/* x2APIC: read-only and absent registers #GP (10.12.1.2, table 10-6). */
	switch (off) {
	case R_ID:
	case R_VER:
	case R_PPR:
	case R_LDR:
	case R_TMCCT:
	case R_DFR:
	case R_APR:
	case R_RRD:
	case R_ICR_HI:
		return -1;
	default:
		if ((off >= R_ISR && off < R_ESR) || (off > R_TDCR && off != R_SELF_IPI) ||
		    (off > R_TMCCT && off < R_TDCR) || (off > R_ESR && off < R_LVT_CMCI) ||
		    off < R_ID || (off > R_VER && off < R_TPR))
			return -1;
	}
	return reg_write(v, off, val) ? 1 : -1;
}
