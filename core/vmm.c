/* The VMM: vmm_boot builds the domains on the BSP; vmm_cpu_loop is every pCPU's loop:
 * pick the next vCPU through sched/, arm the one-shot timer at run_until, enter the guest
 * (hv_vcpu_run, with the backend's backstop at the same deadline: the VMX-preemption
 * timer; SVM needs none, a physical interrupt always exits, except under QEMU TCG: see
 * backstop_fn), drain the host interrupts the exit left pending, handle the exit, repeat
 * until the slice ends, the vCPU blocks or yields, or a kick asks for a new decision.
 * Command line: sched/credit keys (sched/sched.h), run_ms=<emulated ms> (then print the
 * counters and exit 0 with a pass line), ping.dom= ping.interval_us= ping.count= ping.cpu=,
 * vmm.sched_pcpus= (the pCPUs the scheduler uses, see vmm_boot),
 * vmm.nmi_test_us= (see nmi_test_start), vmm.break_dom= vmm.break_ms= (see maybe_break),
 * vmm.create_loop= (domain_create_loop), vmm.svm_backstop_us= (see backstop_fn). Every key is
 * checked once (core/bootargs.c). */
#include "arch/x86_64/idt.h"
#include "arch/x86_64/panic.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/tsc.h"
#include "core/bootargs.h"
#include "core/bootinfo.h"
#include "core/main.h"
#include "core/mm.h"
#include "core/pingtrace.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/cmdline.h"
#include "lib/string.h"

/* Each started pCPU's, from the frame allocator at boot (19 KiB each: 256 of them in .bss
 * would not fit below OVMF's NVS at 8 MiB, linker.ld). */
static struct vmm_cpu *vmm_cpus[MAX_CPUS];
static volatile bool run_over;
static uint64_t run_ms;
static struct timer run_timer;
static unsigned nr_started;

/* vmm.nmi_test_us=N: the BSP sends an NMI to every other pCPU every N us and each counts
 * what it receives, to check the NMI-exit path (Bochs bug 2: without the fix-up, the host
 * stays NMI-blocked after the first NMI that hits a guest). */
static struct timer nmi_timer;
static uint64_t nmi_interval_ns, nmi_sent;
static uint64_t nmi_received[MAX_CPUS];

static void nmi_count(struct irq_frame *f)
{
	(void)f;
	__atomic_fetch_add(&nmi_received[this_cpu()->id], 1, __ATOMIC_RELAXED);
}

/* vmm.break_dom=<id>: at its first exit vmm.break_ms (default 100) after the domains start,
 * the domain's guest state is made invalid, so its next VM entry fails: the entry-failure
 * path must crash that domain alone. */
static uint64_t break_dom, break_ms = 100, break_at;

static void maybe_break(struct vcpu *v)
{
	if (break_dom && v->dom->id == break_dom && now_ns() >= break_at) {
		break_dom = 0;
		printk("sliver: test: breaking d%u's guest state\n", v->dom->id);
		hv_test_break_guest_state(v->hv);
	}
}

static void nmi_fire(struct timer *t, void *arg)
{
	(void)arg;
	for (unsigned c = 1; c < cpu_count(); c++)
		smp_send_nmi(c);
	nmi_sent++;
	timer_set(t, now_ns() + nmi_interval_ns);
}

static void nmi_test_start(void)
{
	uint64_t us = bootarg_u64("vmm.nmi_test_us");
	if (!us || cpu_count() < 2)
		return;
	nmi_interval_ns = us * 1000;
	irq_register(2, nmi_count);
	timer_init(&nmi_timer, nmi_fire, NULL);
	timer_set(&nmi_timer, now_ns() + nmi_interval_ns);
	printk("sliver: NMI test: every %lu us to every other pCPU\n", (unsigned long)us);
}

static void nmi_test_report(void)
{
	if (!nmi_interval_ns)
		return;
	timer_cancel(&nmi_timer);
	for (unsigned c = 1; c < cpu_count(); c++)
		printk("nmi cpu%u sent=%lu received=%lu\n", c, (unsigned long)nmi_sent,
		       (unsigned long)__atomic_load_n(&nmi_received[c], __ATOMIC_RELAXED));
}

static void resched_ipi(struct irq_frame *f)
{
	(void)f; /* the sender set need_resched (or only wanted a VM exit) */
	PT_STAMP(PT_DRAIN);
}

/* The scheduler door's view of the machine (core/sched_door.h). */
static unsigned port_self(void)
{
	return this_cpu()->id;
}

static void port_bug(const char *what, unsigned a, unsigned b)
{
	panic("scheduler: %s (pCPU %u, %u)", what, a, b);
}

static const struct sd_port door_port = {
	.self = port_self,
	.now = now_ns,
	.cycles = rdtsc,
	.kick = vmm_kick_cpu,
	.bug = port_bug,
	.wake_pending = vcpu_block_refused,
};

/* SVM has no preemption-timer backstop, and QEMU's TCG runs its vCPUs round-robin on one
 * thread (always under -icount): a vCPU runs until the next QEMU_CLOCK_VIRTUAL deadline
 * or the 100 ms round-robin kick, and meanwhile the other vCPUs do not execute at all.
 * With no near timer armed (a spinner alone on its pCPU runs with no deadline), one
 * pCPU's guest keeps the whole machine for up to 100 ms while another pCPU's due timer
 * waits (docs/svm.md, QEMU item 6). So on SVM under TCG with 2+ pCPUs every VM entry has
 * a host timer at most vmm.svm_backstop_us (default 500, 0: none) ahead; it does nothing,
 * the exit is the point. Hardware SVM needs none (the deadline's LAPIC timer exits). */
static uint64_t backstop_ns;

static void backstop_fn(struct timer *t, void *arg)
{
	(void)t, (void)arg;
}

static void slice_end(struct timer *t, void *arg)
{
	(void)t;
	struct vmm_cpu *pc = arg;
	pc->slice_ended = true;
	__atomic_fetch_or(&pc->need_resched, RESCHED_SLICE, __ATOMIC_RELEASE);
}

static void run_end(struct timer *t, void *arg)
{
	(void)t, (void)arg;
	run_over = true;
	__atomic_fetch_or(&vmm_cpus[0]->need_resched, RESCHED_KICK, __ATOMIC_RELEASE);
}

static bool all_ended(void)
{
	if (domain_restarts_pending())
		return false;
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++)
		if (domains[id] && !domains[id]->dying)
			return false;
	return true;
}

/* One line per scheduler pCPU: its run-queue lock's use and waits over the run (the door's
 * statistics; a wait's p99 from its log2 histogram, the bucket's upper end). */
static void lock_report(void)
{
	for (unsigned c = 0; c < sd_sched()->nr_pcpus; c++) {
		struct sd_lockstat st;
		sd_lockstat(c, &st, false);
		uint64_t n = st.waits, seen = 0, p99 = 0;
		for (unsigned k = 0; k < 24 && n; k++) {
			seen += st.log2[k];
			if (seen * 100 >= n * 99) {
				p99 = 2ull << k;
				break;
			}
		}
		printk("locks cpu%u acquires=%lu waits=%lu wait_avg_ns=%lu wait_p99_ns=%lu "
		       "wait_max_ns=%lu try_fail=%lu finishes=%lu\n",
		       c, (unsigned long)st.acquires, (unsigned long)st.waits,
		       (unsigned long)(n ? tsc_to_ns(st.wait_cycles / n) : 0),
		       (unsigned long)tsc_to_ns(p99), (unsigned long)tsc_to_ns(st.max_wait),
		       (unsigned long)st.try_fail, (unsigned long)st.finishes);
	}
}

static void finish_run(const char *why)
{
	ping_stop();
	vmm_run_end_ns = now_ns(); /* counters settle up to here, not through the report */
	/* The report is the run's result: what is queued goes out first, then this pCPU writes
	 * the report synchronously, whole (a 64-domain report is more than the rings hold, and
	 * latency no longer matters). Lines other pCPUs queue from here on stay queued. */
	scrub_all(); /* dead domains' memory still queued: their lines before the report */
	console_drain(ns_to_tsc_deadline(vmm_run_end_ns + 6000000000ull));
	printk("sliver: %s after %lu ms\n", why, (unsigned long)(now_ns() / 1000000));
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		if (!domains[id])
			continue;
		dcon_flush(domains[id]);
		domain_print_stats(domains[id]);
		exit_msr_report(domains[id]);
	}
	exit_stats_report();
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domains[id];
		for (unsigned i = 0; d && i < d->nr_vcpus; i++) {
			struct hist snap;
			hist_snapshot(&d->vcpu[i]->lat, &snap);
			if (!snap.n)
				continue;
			struct hist_stats st = hist_stats(&snap);
			char line[200];
			hist_format(line, sizeof line, &st);
			printk("lat d%uv%u %s\n", id, i, line);
		}
	}
	ping_report();
	lock_report();
	nmi_test_report();
	service_report();
	printk("sliver: run complete: PASS\n");
	hv_exit(EXIT_PASS);
}

/* The scheduler's words go to sched/; a bad one is ignored with one line (bootargs.c). */
static int sched_word(const char *w, size_t wl)
{
	return sd_config_word(w, wl);
}

static void apply_sched_args(const char *cmdline)
{
	bootargs_check(cmdline, sched_word);
}

void vmm_boot(void)
{
	static const struct hv_frame_ops frames = {frame_alloc, frame_free};
	hv_set_frame_ops(&frames);
	hv_set_exit_quick(exit_quick_offer);
	const char *why = "?";
	if (!hv_detect(&why)) {
		printk("sliver: neither VMX nor SVM is available on this CPU: use Bochs, QEMU "
		       "with -cpu qemu64,+svm,+npt, or KVM with nested virtualization\n");
		printk("sliver: (%s)\n", why);
		hv_exit(EXIT_NO_HV);
	}
	for (unsigned c = 0; c < cpu_count(); c++) {
		size_t frames = (sizeof(struct vmm_cpu) + PAGE_SIZE - 1) / PAGE_SIZE;
		uint64_t pa = frames_alloc(frames, 1);
		if (!pa)
			panic("out of memory for the VMM state of cpu%u", c);
		vmm_cpus[c] = percpu[c].vmm = phys_to_virt(pa);
	}
	if (hv_cpu_init(&why)) {
		printk("sliver: cpu0: %s\n", why);
		hv_exit(EXIT_FAIL);
	}
	irq_register(VEC_RESCHEDULE, resched_ipi);
	/* vmm.sched_pcpus=N: guests run on pCPUs 0..N-1 only; the others run their timers
	 * (ping.cpu) and nothing else, as the 2006 table had one pCPU of guests and the pinger
	 * on another machine. A pCPU outside the scheduler also stays out of credit1's
	 * credit_total (period * pCPUs), which is how a one-pCPU pool is accounted. */
	if (!strcmp(hv_backend_name(), "svm") && cpu_is_qemu_tcg() && cpu_count() > 1)
		backstop_ns = bootarg_u64("vmm.svm_backstop_us") * 1000;
	if (backstop_ns)
		printk("sliver: QEMU TCG: a host timer at most %lu us ahead of every VM entry "
		       "(vmm.svm_backstop_us)\n",
		       (unsigned long)(backstop_ns / 1000));
	uint64_t sched_pcpus = bootarg_u64("vmm.sched_pcpus"); /* 0: all */
	if (sched_pcpus == 0 || sched_pcpus > cpu_count())
		sched_pcpus = cpu_count();
	if (sd_init((unsigned)sched_pcpus, &door_port)) {
		printk("sliver: scheduler init failed for %u CPUs\n", cpu_count());
		hv_exit(EXIT_FAIL);
	}
	apply_sched_args(boot_info.cmdline);
	vmm_pause_loop_init();
	dcon_init(boot_info.cmdline);
	exit_pc_init(); /* before any domain: its values never change, a reader never sees a mix */
	printk("sliver: %s on, scheduler %s, %u pCPU(s), %u module(s)\n", hv_backend_name(),
	       sd_sched()->ops->name, cpu_count(), boot_info.nr_modules);
	if (sd_sched()->nr_pcpus < cpu_count())
		printk("sliver: guests on pCPU 0-%u only (vmm.sched_pcpus)\n",
		       sd_sched()->nr_pcpus - 1);

	if (boot_info.nr_modules)
		domain_create_loop((unsigned)bootarg_u64("vmm.create_loop"), &boot_info.modules[0]);
	static struct domain *started[SLIVER_MAX_DOMS]; /* 8 KiB: not on the stack */
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		struct domain *d = domain_create(i + 1, &boot_info.modules[i]);
		if (d)
			started[nr_started++] = d;
	}
	if (!nr_started) {
		printk("sliver: no domain to run\n");
		hv_exit(EXIT_FAIL);
	}
	dcon_start_async();
	for (unsigned i = 0; i < nr_started; i++)
		domain_start(started[i]);
	run_ms = bootarg_u64("run_ms"); /* <= ~11 days: run_ms * 1000000 cannot overflow */
	if (run_ms) {
		timer_init(&run_timer, run_end, NULL);
		timer_set(&run_timer, now_ns() + run_ms * 1000000);
	}
	ping_start(boot_info.cmdline);
	service_init();
	service_keys_init();
	nmi_test_start();
	break_dom = bootarg_u64("vmm.break_dom");
	break_ms = bootarg_u64("vmm.break_ms");
	break_at = now_ns() + break_ms * 1000000;
}

/* After the pick that replaced it (sd_pick let go of its scheduling state), VMCLEAR the
 * vCPU this pCPU ran last so that any pCPU can run it next (a pCPU that already picked it
 * waits for hv_vcpu_loaded_on); a dying domain's vCPU leaves the scheduler for good. */
static void switch_away(struct vmm_cpu *pc, struct vcpu *v)
{
	hv_vcpu_put(v->hv);
	pc->curr = NULL;
	if (v->dom->dying)
		domain_vcpu_leave(v);
	else if (!__atomic_load_n(&v->s.blocked, __ATOMIC_ACQUIRE))
		vcpu_preempted(v); /* preempted: its timer waits for its next entry (not if it
				    * blocked, as this pCPU's pick left it: the timer wakes it) */
}

/* An exit of v's that only a host interrupt caused (nothing of the guest's to handle), in
 * which another vCPU's timer expired (vmm_behalf): from the exit to now it was that vCPU's
 * work, so it pays for it, not v (issue 30: a descheduled vCPU's timer storm costs its own
 * share). The exit and entry themselves stay v's: they are in its guest time. */
static void charge_behalf(struct vmm_cpu *pc, struct vcpu *v, const struct hv_exit *e,
			  uint64_t exit_tsc)
{
	struct vcpu *x = pc->behalf;
	pc->behalf = NULL;
	if (!x || x == v || (e->kind != HV_EXIT_EXTINT && e->kind != HV_EXIT_PREEMPT))
		return;
	uint64_t ns = tsc_to_ns(rdtsc() - exit_tsc);
	sd_charge_for(&v->s, &x->s, ns);
	/* v's slice (or latency slice) is counted in its own time: it ends that much later,
	 * even if the deadline passed during this very exit (under Bochs an echo's 100 us
	 * latency slice has ~20 us left once its switch-in is paid: one such exit ended it
	 * mid-handler, and the extra picks were charged to the echo). */
	if (pc->run_until == SCHED_NEVER)
		return;
	pc->run_until += ns;
	if (pc->slice_ended) {
		if (pc->run_until <= now_ns())
			return; /* it ended even so */
		pc->slice_ended = false;
		__atomic_fetch_and(&pc->need_resched, ~RESCHED_SLICE, __ATOMIC_ACQ_REL);
	}
	timer_set(&pc->slice, pc->run_until);
}

static enum exit_action run_vcpu(struct vmm_cpu *pc, struct vcpu *v)
{
	struct domain *d = v->dom;
	enum exit_action act = ACT_CONTINUE;
	bool entered = false;
	/* The deadline as ns and as the TSC value handed to the backend, kept from one entry
	 * to the next: most exits leave both the timers and run_until as they were, and the
	 * conversion (and now_ns) is then not needed again. */
	uint64_t last_dl = 0, last_dl_tsc = UINT64_MAX;
	bool dl_known = false;
	/* The same path: the last exit's handler changed nothing the entry depends on
	 * (ACT_RESUME), that entry delivered nothing and left no window open (e.calm: it had
	 * no vector and no NMI to give), and no host interrupt ran on this pCPU from before
	 * that entry to after the handler (percpu irqs: every timer that fires, every kick
	 * that sets an IRR from another pCPU, comes as one). Then vcpu_before_entry, the vector
	 * and the deadline would come out as they did: the entry goes in with no vector and
	 * the last deadline (a timer due meanwhile has raised its interrupt, so no same path).
	 * The checks that read state set without an interrupt (dying, paused, need_resched)
	 * are made on both paths. */
	bool same = false;
	int vec = -1;
	if (__atomic_exchange_n(&v->reset_lat, false, __ATOMIC_ACQ_REL))
		hist_reset(&v->lat);
	while (!__atomic_load_n(&pc->need_resched, __ATOMIC_ACQUIRE)) {
		if (d->dying)
			return ACT_DEAD;
		if (__atomic_load_n(&v->s.paused, __ATOMIC_ACQUIRE))
			return ACT_PAUSE;
		vec = HV_INJECT_SAME;
		if (!same) {
			vec = -1;
			if (!vcpu_before_entry(v)) { /* INIT without SIPI yet */
				if (vcpu_block(v))
					return ACT_BLOCK;
				continue;
			}
			/* No event-port vector pending and no vLAPIC: nothing to deliver, so the
			 * TPR and priority scan of vcpu_deliverable_irq is skipped (a vector set
			 * after this test kicks the pCPU, as it would after the scan). */
			if (d->lapic || (__atomic_load_n(&v->irr[0], __ATOMIC_ACQUIRE) |
					 __atomic_load_n(&v->irr[1], __ATOMIC_ACQUIRE) |
					 __atomic_load_n(&v->irr[2], __ATOMIC_ACQUIRE) |
					 __atomic_load_n(&v->irr[3], __ATOMIC_ACQUIRE)))
				vec = vcpu_deliverable_irq(v);
			uint64_t dl = timer_next_deadline();
			if (pc->run_until < dl)
				dl = pc->run_until;
			if (backstop_ns || !dl_known || dl != last_dl) {
				uint64_t now = now_ns();
				if (backstop_ns && dl > now + backstop_ns) {
					dl = now + backstop_ns;
					timer_set(&pc->backstop, dl);
				}
				uint64_t dl_tsc = UINT64_MAX;
				if (dl <= now)
					dl_tsc = 0; /* already due: exit at once */
				else if (dl - now < VMM_FAR_NS)
					dl_tsc = ns_to_tsc_deadline(dl);
				/* One already due stays due; a far one is looked at again. */
				dl_known = !backstop_ns && dl_tsc != UINT64_MAX;
				last_dl = dl;
				last_dl_tsc = dl_tsc;
			}
		}
		struct hv_exit e;
		pc->behalf = NULL;
		PT_HOOK(pt_run(v->dom->id));
		uint64_t irqs = __atomic_load_n(&this_cpu()->irqs, __ATOMIC_RELAXED);
		hv_vcpu_run(v->hv, last_dl_tsc, vec, &e);
		uint64_t exit_tsc = rdtsc();
		PT_HOOK(pt_ran(v->dom->id, e.entry_tsc, e.loaded_tsc, e.exit_tsc, e.reason));
		if (e.entry_tsc) /* from right before the entry to now, right after the exit */
			v->guest_tsc += exit_tsc - e.entry_tsc;
		/* Wake-to-run ends at the first entry after the wake-up, VMCS/VMCB load, TLB
		 * flush and FPU restore included (e.entry_tsc, read right before the entry). A
		 * pick that never reaches an entry keeps wake_ns for the next one; while the
		 * vCPU is running nothing sets it (vcpu.c). */
		if (!entered && e.entry_tsc) {
			entered = true;
			uint64_t woke = __atomic_exchange_n(&v->s.wake_ns, 0, __ATOMIC_ACQ_REL);
			uint64_t ran = tsc_to_ns(e.entry_tsc - tsc_at_boot);
			if (woke)
				hist_record(&v->lat, ran > woke ? ran - woke : 0);
		}
		if (e.injected)
			vcpu_irq_injected(v, vec);
		if (e.nmi_injected)
			vcpu_nmi_injected(v);
		irq_drain(); /* host interrupts that caused the exit (timers, kicks) run here */
		/* The backstop can beat the timer interrupt it stands in for (Bochs: the
		 * preemption timer at the deadline, the LAPIC's a little later): timers due by
		 * the clock run now, in the exit they caused, not in a later one (whose handling
		 * they would join uncounted, charge_behalf) or after one more entry. */
		if (e.kind == HV_EXIT_PREEMPT && timer_next_deadline() <= now_ns())
			timer_run_expired();
		unsigned r = e.reason < HV_NR_EXIT_REASONS ? e.reason : HV_NR_EXIT_REASONS - 1;
		__atomic_fetch_add(&d->exits[r], 1, __ATOMIC_RELAXED);
		v->exits++;
		act = exit_dispatch(v, &e);
		same = act == ACT_RESUME && e.calm;
		if (act == ACT_RESUME)
			act = ACT_CONTINUE;
		if (act != ACT_CONTINUE) {
			if (pc->behalf)
				charge_behalf(pc, v, &e, exit_tsc);
			return act;
		}
		/* A kick or timer that came in while the exit was handled (a hypercall, an
		 * emulated access) runs now, not after one more entry and an exit for it: a
		 * wake on this pCPU waits for the handler, not for the round trip too. */
		irq_drain();
		same = same && irqs == __atomic_load_n(&this_cpu()->irqs, __ATOMIC_RELAXED);
		if (pc->behalf) /* rare: the call is not paid on every exit */
			charge_behalf(pc, v, &e, exit_tsc);
		maybe_break(v);
	}
	return ACT_CONTINUE;
}

static void after_run(struct vcpu *v, enum exit_action act)
{
	if (act == ACT_DEAD)
		sd_stop(&v->s);
	else if (act == ACT_PAUSE)
		sd_pause_self(&v->s);
}

/* An idle pCPU: a chunk of a dead domain's memory, zeroed with interrupts on (the timers it
 * runs, a ping source, a kick: no scrub holds them), or a wait for an interrupt. */
static void idle_step(void)
{
	if (!scrub_step(true))
		cpu_idle_wait();
}

void vmm_cpu_loop(void)
{
	unsigned cpu = this_cpu()->id;
	struct vmm_cpu *pc = vmm_cpus[cpu];
	const char *why = "?";
	if (hv_cpu_init(&why)) {
		printk("sliver: cpu%u: %s\n", cpu, why);
		hv_exit(EXIT_FAIL);
	}
	timer_init(&pc->slice, slice_end, pc);
	timer_init(&pc->backstop, backstop_fn, NULL);
	ping_cpu_start(cpu);
	while (cpu >= sd_sched()->nr_pcpus) { /* outside the scheduler: timers, scrubbing */
		uint64_t idle_from = now_ns();
		idle_step();
		pc->idle_ns += now_ns() - idle_from;
	}
	enum sd_then then = SD_THEN_RUN; /* what the pick does first to the vCPU that ran */
	for (;;) {
		if (cpu == 0 && run_over)
			finish_run("run_ms reached");
		/* A slice ran out: one chunk of a dead domain's memory, charged to the vCPU whose
		 * slice it was (core/scrub.c; never on a wake's pick). */
		if (pc->slice_ended) {
			pc->slice_ended = false;
			scrub_step(false);
		}
		__atomic_store_n(&pc->need_resched, 0, __ATOMIC_RELEASE);
		uint64_t run_until, held;
		PT_STAMP(PT_PICK);
		struct sd_vcpu *sv =
			sd_pick(cpu, pc->curr ? &pc->curr->s : NULL, then, &run_until, &held);
		PT_STAMP(PT_PICKRET);
		then = SD_THEN_RUN;
		struct vcpu *v = sv ? sv->sv.owner : NULL;
		if (__atomic_exchange_n(&pc->reset_decision, false, __ATOMIC_ACQ_REL)) {
			hist_reset(&pc->decision);
			hist_reset(&pc->conwrite);
		}
		hist_record(&pc->decision, held);
		pc->sched_calls++;
		if (pc->curr && pc->curr != v)
			switch_away(pc, pc->curr);
		/* Just taken from another pCPU: wait until that one has let go of it (VMCLEAR,
		 * right after its own pick_next). */
		while (v && v != pc->curr && hv_vcpu_loaded_on(v->hv) >= 0)
			cpu_relax();
		PT_STAMP(PT_PUT);
		pc->curr = v;
		pc->run_until = run_until;
		if (run_until != SCHED_NEVER)
			timer_set(&pc->slice, run_until);
		else
			timer_cancel(&pc->slice);
		PT_STAMP(PT_ARMED);
		if (!v) {
			if (cpu == 0 && !run_ms && all_ended())
				finish_run("all domains ended");
			/* Sleep until something asks for a decision (a kick, a wake, the slice or
			 * run timer all set need_resched). An interrupt that needs none, such as
			 * the console's THR-empty drain or typed input, costs no pick_next: a pick
			 * takes this pCPU's run-queue lock, which a wake from elsewhere may need.
			 */
			uint64_t idle_from = now_ns();
			while (!__atomic_load_n(&pc->need_resched, __ATOMIC_ACQUIRE) &&
			       !(cpu == 0 && !run_ms && all_ended()))
				idle_step(); /* dead domains' memory first */
			pc->idle_ns += now_ns() - idle_from;
			continue;
		}
		enum exit_action act = run_vcpu(pc, v);
		if (act == ACT_YIELD)
			then = SD_THEN_YIELD;
		else if (act == ACT_HALT)
			then = SD_THEN_BLOCK;
		else if (act != ACT_CONTINUE && act != ACT_BLOCK)
			after_run(v, act);
	}
}
