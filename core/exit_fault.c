/* Exits that end the domain: EPT violations / NPT faults (an access outside its memory
 * and the backend's word for it, hv_fault_name) that no emulated device takes (the
 * vLAPIC; in a PC domain the IOAPIC, pc-testdev and unassigned addresses: core/mmio.c),
 * triple
 * faults, failed VM entries and every exit sliver does not handle. One line with the
 * reason, then the register dump (domain_crash). */
#include "core/mmio.h"
#include "core/vlapic.h"
#include "core/vmm.h"

enum exit_action exit_ept(struct vcpu *v, struct hv_exit *e)
{
	if (vlapic_mmio(v, e) || pc_mmio(v, e)) /* the xAPIC page; a PC's other MMIO */
		return v->dom->dying ? ACT_DEAD : ACT_CONTINUE;
	domain_crash(v->dom, v, "%s: %s%s%s at guest-physical 0x%lx%s (memory is [0, 0x%lx))",
		     hv_fault_name(), e->ept.read ? "read" : "", e->ept.write ? "write" : "",
		     e->ept.fetch ? "fetch" : "", e->ept.gpa,
		     e->ept.gla_valid ? " (linear address valid)" : "", v->dom->mem_bytes);
	return ACT_DEAD;
}

enum exit_action exit_fatal(struct vcpu *v, struct hv_exit *e)
{
	switch (e->kind) {
	case HV_EXIT_TRIPLE_FAULT:
		domain_crash(v->dom, v, "triple fault");
		break;
	case HV_EXIT_ENTRY_FAIL:
		domain_crash(v->dom, v, "VM entry failed: %s (error %u) detail=0x%lx",
			     e->fail.why ? e->fail.why : "?", e->fail.error, e->fail.detail);
		break;
	default:
		domain_crash(v->dom, v, "unhandled exit: %s (reason %u, kind %s) detail=0x%lx",
			     hv_exit_reason_name(e->reason), e->reason, hv_exit_kind_name(e->kind),
			     e->fail.detail);
		break;
	}
	return ACT_DEAD;
}

/* Virtualization instructions, MONITOR/MWAIT, GETSEC...: #UD, as on a CPU without them. */
enum exit_action exit_ud(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	hv_inject_exception(v->hv, 6, false, 0);
	return ACT_CONTINUE;
}

/* RDPMC: CPUID leaf 0xA shows no performance counters, so every counter index is invalid
 * and hardware would give #GP(0) (SDM Vol. 2 RDPMC). */
enum exit_action exit_gp(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	hv_inject_exception(v->hv, 13, true, 0);
	return ACT_CONTINUE;
}
