/* Control- and debug-register exits (SDM 27.2.1 tables 27-3, 27-4). Every CR0/CR4 bit is
 * host-owned, so each guest write lands here; the backend checks it the way hardware does
 * and keeps the forced VMX bits and long-mode state (hv_write_cr). A write it refuses is
 * #GP(0). CR8 exits (load and store exiting): the guest's TPR is virtual (vcpu->tpr, CR8 =
 * TPR[7:4], SDM Vol. 3A 10.8.6.1: one value with the vLAPIC's TPR register),
 * honoured by interrupt injection (vcpu_deliverable_irq), and never reaches the host's
 * LAPIC, whose TPR must stay 0 for the scheduler's timer. */
#include "arch/x86_64/cr.h"
#include "arch/x86_64/debugreg.h"
#include "core/vmm.h"

enum exit_action exit_cr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	bool ok = true;
	switch (e->cr.type) {
	case HV_CR_WRITE: { /* MOV to CR */
		uint64_t val = hv_gpr_get(h, e->cr.gpr);
		if (!hv_guest_long_mode(h))
			val = (uint32_t)val;
		if (e->cr.cr == 8) {
			ok = val <= 15; /* bits 63:4 are reserved (SDM Vol. 3A 10.8.6.1) */
			if (ok)
				__atomic_store_n(&v->tpr, (uint8_t)(val << 4), __ATOMIC_RELAXED);
			break;
		}
		ok = hv_write_cr(h, e->cr.cr, val);
		break;
	}
	case HV_CR_READ: /* MOV from CR: only CR3 (never: no CR3-store exiting) and CR8 exit */
		hv_gpr_set(h, e->cr.gpr, e->cr.cr == 8 ? v->tpr >> 4u : hv_read_cr(h, e->cr.cr));
		break;
	case HV_CR_CLTS:
		ok = hv_write_cr(h, 0, hv_read_cr(h, 0) & ~(uint64_t)CR0_TS);
		break;
	case HV_CR_LMSW: /* loads PE, MP, EM, TS; cannot clear PE */
		ok = hv_write_cr(h, 0, (hv_read_cr(h, 0) & ~0xeull) | (e->cr.lmsw & 0xfu));
		break;
	}
	if (!ok) {
		hv_inject_exception(h, 13, true, 0);
		return ACT_CONTINUE;
	}
	hv_skip_exit_insn(h);
	return ACT_CONTINUE;
}

/* MOV to/from DRn: the backend keeps the guest's values and gives them to the hardware
 * only while the vCPU runs (hv_dr_get), so the guest's breakpoints fire in the guest and
 * never in the hypervisor or another domain. DR4/DR5 alias DR6/DR7 while CR4.DE = 0 and
 * are #UD while it is 1 (SDM Vol. 3A 17.2.2). DR6/DR7 bits 63:32 set: #GP(0); their fixed
 * bits read back as the CPU's (KVM: kvm_set_dr). DR7.GD set: the access is a #DB fault
 * with DR6.BD, and DR7.GD clears (SDM Vol. 3B 18.2.4); VMX raises it before the exit, an
 * SVM CPU may exit first. (CPL > 0 faults come before the exit, in hardware.) */
enum exit_action exit_dr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	unsigned dr = e->dr.dr;
	if (dr == 4 || dr == 5) {
		if (hv_read_cr(h, 4) & CR4_DE) {
			hv_inject_exception(h, 6, false, 0);
			return ACT_CONTINUE;
		}
		dr += 2;
	}
	uint64_t dr7 = hv_dr_get(h, 7);
	if (dr7 & DR7_GD) {
		hv_dr_set(h, 6, (hv_dr_get(h, 6) & ~DR6_B0_B3) | DR6_BD);
		hv_dr_set(h, 7, dr7 & ~DR7_GD);
		hv_inject_exception(h, 1, false, 0);
		return ACT_CONTINUE;
	}
	if (e->dr.read) {
		hv_gpr_set(h, e->dr.gpr, hv_dr_get(h, dr));
	} else {
		uint64_t val = hv_gpr_get(h, e->dr.gpr);
		if (!hv_guest_long_mode(h))
			val = (uint32_t)val;
		if ((dr == 6 || dr == 7) && (val >> 32)) {
			hv_inject_exception(h, 13, true, 0);
			return ACT_CONTINUE;
		}
		if (dr == 6)
			val = (val & DR6_VOLATILE) | DR6_FIXED_1;
		else if (dr == 7)
			val = (val & DR7_VOLATILE) | DR7_FIXED_1;
		hv_dr_set(h, dr, val);
	}
	hv_skip_exit_insn(h);
	return ACT_CONTINUE;
}
