/* PAUSE-loop exits (issue 14): the backend saw the guest spin (VMX PAUSE-loop exiting,
 * SVM PAUSE filter) and the scheduler decides what the spinner does (sched.ple: yield, or
 * a directed yield to a preempted sibling, sched/yield_to.c). The boot keys ple.* set the
 * detection (hv_set_pause_loop); sched.ple=off (the default) asks for no such exits. */
#include "core/vmm.h"
#include "core/bootargs.h"
#include "drivers/console.h"

void vmm_pause_loop_init(void)
{
	struct hv_pause_loop p = {
		.on = sd_sched()->p.ple != SCHED_PLE_OFF,
		.gap = (uint32_t)bootarg_u64("ple.gap"),
		.window = (uint32_t)bootarg_u64("ple.window"),
		.window_max = (uint32_t)bootarg_u64("ple.window_max"),
		.grow = (uint32_t)bootarg_u64("ple.grow"),
		.shrink = (uint32_t)bootarg_u64("ple.shrink"),
	};
	if (p.window_max < p.window)
		p.window_max = p.window;
	if (!p.on)
		return;
	if (!hv_pause_loop_supported()) {
		printk("sliver: sched.ple: this CPU cannot report PAUSE loops: no PAUSE-loop "
		       "exits\n");
		return;
	}
	hv_set_pause_loop(&p);
	printk("sliver: PAUSE-loop exits on (sched.ple=%s, gap %u, window %u..%u, grow %u, "
	       "shrink %u)\n",
	       sd_sched()->p.ple == SCHED_PLE_DIRECTED ? "directed" : "yield", p.gap, p.window,
	       p.window_max, p.grow, p.shrink);
}

/* The PAUSE completes; the scheduler yields v (to a sibling), then this pCPU decides
 * again (need_resched) and the target's pCPU, when another, is kicked. */
enum exit_action exit_pause_loop(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	hv_skip_exit_insn(v->hv);
	sd_pause_loop(&v->s);
	if (sd_sched()->p.ple != SCHED_PLE_OFF)
		vmm_kick_cpu(this_cpu()->id, true);
	return ACT_CONTINUE;
}
