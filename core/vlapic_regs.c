/* The vLAPIC's registers (SDM Vol. 3A 10.4-10.12): reads and writes at their offsets, the
 * xAPIC page (MMIO through the MOV decoder) and the MSRs (x2APIC 0x800-0x8FF, APIC_BASE,
 * TSC_DEADLINE). Apart from what they act on (core/vlapic.c, vlapic_timer.c,
 * vlapic_ipi.c) so that each file has one job. */
#include "core/vlapic_priv.h"
#include "arch/x86_64/msr.h"
#include "core/insn_fetch.h"
#include "core/insn_mov.h"
#include "core/pc.h"
#include "lib/fmt.h"

#define APIC_VER 0x00060014u /* version 0x14, max LVT entry 6 (7 LVTs with CMCI) */

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
/* Writable bits of each LVT (10.5.1): vector, delivery mode, polarity, trigger, mask;
 * the timer has its mode (bits 18:17) and no delivery mode. */
static const uint32_t lvt_bits[VLAPIC_NR_LVT] = {0x107ff, 0x700ff, 0x107ff, 0x107ff,
						 0x1a7ff, 0x1a7ff, 0x100ff};
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
		*val = vl_tmcct(l);
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
		vl_timer_restart(v);
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
		vl_send_ipi(v, l->icr_lo, l->icr_hi);
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
			vl_timer_restart(v);
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
		char hex[INSN_HEX_LEN];
		insn_hex(b, n, hex);
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
		vl_reset_regs(v);
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
		vl_deadline_write(v, val);
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
