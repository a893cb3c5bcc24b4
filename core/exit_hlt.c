/* HLT: the vCPU leaves the run queue until an interrupt is pending for it (an event on a
 * bound port, its timer). Like HC_BLOCK it wakes on a pending vector whatever IF is. */
#include "core/vmm.h"

enum exit_action exit_hlt(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	hv_skip_exit_insn(v->hv);
	return vcpu_halt(v);
}
