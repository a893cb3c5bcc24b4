/* Control- and debug-register exits (SDM 27.2.1 tables 27-3, 27-4). Every CR0/CR4 bit is
 * host-owned, so each guest write lands here; the backend keeps the forced VMX bits and long-mode
 * state (hv_write_cr). A write it refuses (CR4.VMXE, reserved bits) is #GP(0). */
#include "core/vmm.h"

#define CR0_TS 8u

enum exit_action exit_cr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	bool ok = true;
	switch (e->cr.type) {
	case 0: { /* MOV to CR */
		uint64_t val = hv_gpr_get(h, e->cr.gpr);
		if (!hv_guest_long_mode(h))
			val = (uint32_t)val;
		if (e->cr.cr == 8)
			break; /* no TPR: writes ignored */
		ok = hv_write_cr(h, e->cr.cr, val);
		break;
	}
	case 1: /* MOV from CR: only CR3/CR8 could exit */
		hv_gpr_set(h, e->cr.gpr, e->cr.cr == 8 ? 0 : hv_read_cr(h, e->cr.cr));
		break;
	case 2: /* CLTS */
		ok = hv_write_cr(h, 0, hv_read_cr(h, 0) & ~(uint64_t)CR0_TS);
		break;
	case 3: /* LMSW: loads PE, MP, EM, TS; cannot clear PE */
		ok = hv_write_cr(h, 0, (hv_read_cr(h, 0) & ~0xeull) | (e->cr.lmsw & 0xfu));
		break;
	}
	if (!ok) {
		hv_inject_exception(h, 13, true, 0);
		return ACT_CONTINUE;
	}
	hv_skip_insn(h, e->insn_len);
	return ACT_CONTINUE;
}

/* MOV to/from DRn: the guest gets its own values back and nothing reaches the hardware,
 * so no guest can plant a breakpoint in the hypervisor or another domain. DR4/DR5 alias
 * DR6/DR7 (CR4.DE is never set for guests here). */
enum exit_action exit_dr(struct vcpu *v, struct hv_exit *e)
{
	struct hv_vcpu *h = v->hv;
	unsigned dr = e->dr.dr == 4 ? 6 : e->dr.dr == 5 ? 7 : e->dr.dr;
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
		hv_dr_set(h, dr, val);
	}
	hv_skip_insn(h, e->insn_len);
	return ACT_CONTINUE;
}
