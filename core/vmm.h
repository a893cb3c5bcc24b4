/* The VMM's core objects: domains, vCPUs, the per-pCPU loop state, and the entry points
 * between core/domain.c, vcpu.c, event.c, hypercall.c, exit_*.c, ping.c and vmm.c.
 * Nothing here touches a VMCS: the backend is reached through arch/x86_64/hv.h. */
#ifndef CORE_VMM_H
#define CORE_VMM_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/hv.h"
#include "core/scrub.h"
#include "core/bootinfo.h"
#include "core/evpolicy.h"
#include "core/sched_door.h"
#include "core/timer.h"
#include "core/vlapic_state.h"
#include "core/vuart.h"
#include "lib/hist.h"
#include "sched/sched.h"
#include "sliver/bootinfo.h"
#include "sliver/dominfo.h"
#include "sliver/event.h"
#include "sliver/hypercall.h"

#define DCON_LINE 200
/* Bytes one HC_CONSOLE_WRITE takes at most (docs/hypercalls.md): a 4 KiB call took 1.3 ms
 * of Bochs time on its pCPU (64 lines, e2e-console-backpressure's conwrite max), which a
 * wake on that pCPU waited out. */
#define DCON_CALL_MAX 1024
#define VMM_FAR_NS    (1ull << 50) /* ~13 days: deadlines beyond are "never" */

struct domain;
struct pc_state;

/* A vCPU's guest timer (HC_SET_TIMER). A struct timer belongs to the pCPU that set it,
 * and a vCPU moves between pCPUs, so it has one per pCPU; `gen` tells the live one. */
struct vtimer {
	struct timer t;
	struct vcpu *v;
	uint64_t gen;
};

struct dcon_line { /* a vCPU's console line being assembled (under its domain's con.lock) */
	unsigned len;
	bool held; /* finished, waiting for room in the console's ring (core/dcon.c) */
	char line[DCON_LINE];
};

struct vcpu {
	struct domain *dom;
	unsigned id;
	struct hv_vcpu *hv;
	struct sd_vcpu s;     /* its scheduling state, under its run-queue lock (sched_door.h) */
	uint64_t irr[4];      /* pending virtual interrupt vectors (atomic bit ops) */
	uint64_t exits;	      /* VM exits of this vCPU */
	bool reset_lat;	      /* HC_COUNTERS_RESET: its pCPU clears `lat` before the next record */
	uint64_t guest_tsc;   /* TSC ticks spent in the guest (between entry and exit) */
	struct hist lat;      /* wake-to-run latency: wake to the next VM entry (ns) */
	uint64_t timer_gen;   /* generation of the live vtimer */
	struct dcon_line con; /* its console line (core/dcon.c) */
	/* Blocked (or about to) until its held console line has room (dcon_wait): the block
	 * ends on room, its domain's end, or an interrupt when the guest had IF=1 then. Its
	 * own pCPU; cleared at its next entry. */
	bool con_wait, con_wait_if;
	uint64_t msr_pat, msr_mtrr_def; /* emulated MSRs (exit_cpuid_msr.c) */
	/* Virtual TPR, all 8 bits (CR8 is bits 7:4, the vLAPIC's TPR register the whole):
	 * vcpu_deliverable_irq honours it. */
	uint8_t tpr;
	struct vlapic lapic;	  /* the domain's lapic=1 (core/vlapic.c) */
	uint64_t lapic_timer_gen; /* generation of the live vLAPIC timer */
	uint64_t pit_timer_gen;	  /* generation of the live PIT IRQ 0 timer (PC BSP) */
	/* IA32_TSC / TSC_ADJUST (exit_cpuid_msr.c): guest TSC = host TSC + tsc_offset. */
	uint64_t tsc_offset, tsc_adjust;
	uint64_t misc_enable; /* IA32_MISC_ENABLE (its writable bits) */
	/* 2 x cpu_count() entries: [0, n) HC_SET_TIMER, [n, 2n) the vLAPIC timer; a PC
	 * domain's vCPUs have [2n, 3n) too: its PIT interrupt (used on its BSP) */
	struct vtimer vt[];
};

struct evport {		/* count, last, senders, allow: under the domain's evlock */
	uint8_t vector; /* 0 = not bound */
	uint8_t vcpu;
	uint32_t count;	       /* raises since the last receive: pending when > 0 */
	uint32_t last;	       /* the last sender */
	struct domset senders; /* every sender since the last receive */
	uint8_t senders_words; /* senders.w[0, this) hold them all (a receive copies only those) */
	struct domset allow;   /* domains allowed to raise it (HC_EVENT_ALLOW, evt.allow=) */
};

struct dcon { /* the domain's console: rate limit, drop counts, the emulated COM1 */
	spinlock_t lock;
	struct vuart uart;     /* COM1's registers (under lock; exit_io.c, core/vuart.c) */
	bool uart_line;	       /* the IRQ 4 level COM1 drives now (a PC domain; under lock) */
	uint64_t tokens;       /* rate limit: bytes it may print now (token bucket) */
	uint64_t refill;       /* time of the last refill, ns */
	uint64_t dropped;      /* bytes dropped since the last line that got through */
	uint64_t ring_dropped; /* same, refused by a full console ring */
	uint64_t waiting;      /* vCPUs waiting for ring room (bit per vCPU id, atomic) */
	uint64_t waits;	       /* times one of its vCPUs waited for room (atomic) */
};

struct domain {
	unsigned id;
	char name[32];
	char cmdline[SLIVER_CMDLINE_MAX];
	uint32_t role;		 /* SLIVER_ROLE_* */
	volatile uint32_t state; /* enum sliver_dom_state */
	volatile bool dying;	 /* crash/shutdown in progress: vCPUs leave at their next exit */
	uint32_t vcpus_left;	 /* vCPUs not yet removed (atomic) */
	uint64_t mem_hpa, mem_bytes;
	struct scrub_job scrub; /* its memory after its end (core/scrub.h) */
	struct hv_space *space;
	struct sched_dom sd;
	unsigned nr_vcpus;
	sched_cpumask_t pin; /* pin=: the vCPUs' affinity (empty: any pCPU) */
	struct vcpu *vcpu[SLIVER_MAX_VCPUS];
	struct evport port[SLIVER_NR_PORTS];
	spinlock_t evlock;	    /* the ports' counts and sets, signalled_by */
	struct domset signalled_by; /* domains that raised one of our ports: we may reply */
	struct dcon con;
	int exit_code;
	uint8_t boot;		   /* enum pc_boot (core/pcboot.h): boot=sliver|mb1|real */
	uint32_t real_load;	   /* boot=real flat image: load= address */
	uint16_t real_cs, real_ip; /* boot=real: the entry */
	uint16_t fwcfg_sel;	   /* fw_cfg selector (exit_pc.c) */
	uint32_t fwcfg_off;	   /* fw_cfg data offset */
	uint16_t pm1_en;	   /* PM1a_EN as written (exit_pc.c; nothing raises an event) */
	uint64_t start_ns;	   /* now_ns() at domain_start (the power-off line's time) */
	/* Counters (atomic adds: several vCPUs may count at once). */
	uint64_t exits[HV_NR_EXIT_REASONS];
	uint64_t hypercalls, io_exits, io_other, events_sent, events_received, wakes;
	uint64_t events_denied; /* HC_EVENT_SEND refused with -SLIVER_EPERM */
	uint64_t msr_unknown;	/* RDMSR/WRMSR of an MSR sliver does not offer (#GP) */
	uint32_t msr_unknown_last;
	bool lapic; /* lapic=1: a virtual local APIC per vCPU (core/vlapic.c) */
	/* boot=mb1|real: the PC's devices (core/pc.h). */
	struct pc_state *pc;
	/* The boot module it was created from: a PC's reboot and restart= load it again. */
	const struct boot_module *module;
	uint64_t mmio_other; /* accesses to unassigned guest-physical addresses (core/mmio.c) */
	uint32_t restarts;   /* restart=N: re-created from its module after its end, N more times */
};

/* What the loop does after an exit was handled. */
/* ACT_BLOCK: blocked already; ACT_HALT: wants to block (HLT, HC_BLOCK), which the next pick
 * does unless a wake-up is pending by then (sd_pick SD_THEN_BLOCK: one door call for both).
 * ACT_RESUME: continue, and the handler changed nothing the next entry depends on (no
 * interrupt raised, no timer set, no vLAPIC, TPR or scheduler state touched): run_vcpu may
 * enter again without computing the vector and the deadline (its same path). */
enum exit_action {
	ACT_CONTINUE = 0,
	ACT_BLOCK,
	ACT_HALT,
	ACT_YIELD,
	ACT_DEAD,
	ACT_PAUSE,
	ACT_RESUME
};

#define RESCHED_KICK  1u
#define RESCHED_SLICE 2u

struct vmm_cpu {
	struct vcpu *curr; /* picked last by this pCPU */
	uint64_t run_until;
	/* A decision is due: RESCHED_KICK (a kick, the run's end) | RESCHED_SLICE (slice end,
	 * which charge_behalf may take back); set with atomic or, cleared at the pick. */
	volatile uint32_t need_resched;
	struct timer slice;
	volatile bool slice_ended; /* the slice timer fired: the next pick may scrub a chunk */
	uint64_t sched_calls;	   /* pick_next calls */
	uint64_t idle_ns;	   /* time in the idle wait */
	struct hist decision;	   /* TSC ticks per pick_next, the lock held */
	bool reset_decision;	   /* HC_COUNTERS_RESET: clear `decision` at the next pick */
	struct hist conwrite;	   /* TSC ticks per HC_CONSOLE_WRITE on this pCPU */
	struct timer backstop;	   /* SVM: a guest run never goes without a near host timer */
	/* The first vCPU other than curr whose timer expired in the exit being handled
	 * (vmm_behalf): that exit is charged to it (run_vcpu, sd_charge_for). */
	struct vcpu *behalf;
};

extern struct domain *domains[SLIVER_MAX_DOMS];

static inline struct vmm_cpu *vmm_this(void)
{
	return this_cpu()->vmm;
}

/* domain.c (creation), domain_end.c (the end, pause) */
struct domain *domain_create(unsigned id, const struct boot_module *m);
/* vmm.create_loop=N: creates a domain from m N times and undoes each creation, failing
 * the k-th frame allocation in turn; prints the free frames before and after. */
void domain_create_loop(unsigned n, const struct boot_module *m);
void domain_start(struct domain *d);
struct domain *domain_get(unsigned id); /* NULL when absent or ended */
void domain_crash(struct domain *d, struct vcpu *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void domain_shutdown(struct domain *d, int code);
void domain_destroy(struct domain *d, unsigned by);
/* Domains that ended with restarts left and are not re-created yet (vmm.c: a run without
 * run_ms does not end while one is on its way back). */
unsigned domain_restarts_pending(void);
/* On the pCPU that runs v: v leaves the scheduler for good; the last one frees memory. */
void domain_vcpu_leave(struct vcpu *v);
/* Pause: every vCPU leaves the scheduler (running ones at their next exit) but keeps its
 * state; events still mark interrupts pending. Unpause puts back the ones that were not
 * blocked in the guest. 0 or -SLIVER_E*. */
int domain_pause(struct domain *d);
int domain_unpause(struct domain *d);
void domain_fill_info(const struct domain *d, struct sliver_dom_info *in);
void domain_fill_counters(const struct domain *d, struct sliver_dom_counters *c);
void domain_print_stats(const struct domain *d);
/* CPU time of d's vCPUs up to now (up to the run's end once it ended). Takes rq locks. */
uint64_t dom_run_ns(const struct domain *d);

/* vcpu.c */
struct vcpu *vcpu_create(struct domain *d, unsigned id, uint64_t entry);
/* Frees a vCPU that never ran (a domain whose creation failed or was undone). */
void vcpu_free(struct vcpu *v);
int vcpu_highest_irq(const struct vcpu *v);
/* The highest pending vector the guest's TPR lets through ((vector >> 4) > TPR, SDM Vol.
 * 3A 10.8.3.1, 10.8.6), or -1: the one to inject. */
int vcpu_deliverable_irq(const struct vcpu *v);
bool vcpu_irq_pending(const struct vcpu *v);
void vcpu_irq_clear(struct vcpu *v, int vector);
/* The vector chosen by vcpu_deliverable_irq went in at entry: a vLAPIC vector moves to
 * its ISR, an event-port vector is consumed (vcpu_irq_clear). */
void vcpu_irq_injected(struct vcpu *v, int vector);
void vcpu_nmi_injected(struct vcpu *v); /* the NMI latched and asked for went in at entry */
/* v was preempted (not blocked) on this pCPU: its vLAPIC timer waits for its next entry. */
void vcpu_preempted(struct vcpu *v);
/* Right before an entry (the vLAPIC's INIT, SIPI, NMI): false when v must not enter
 * (stopped after INIT until a SIPI): block it. */
bool vcpu_before_entry(struct vcpu *v);
/* Wakes v for something already marked pending (a vLAPIC IRR bit, an NMI): as
 * vcpu_irq_raise without the event bit, and quiet (SD_NOTIFY_QUIET): a wake from HLT is a
 * scheduler event, but one for a vCPU that runs or waits to run only makes it exit where it
 * runs (no latency slice: its own interrupts buy a guest no priority, issue 30). */
void vcpu_notify(struct vcpu *v, bool timer);
/* Wakes v from dcon_wait: no boost (WAKE_YIELD: the end of its own wait for the UART). */
void vcpu_wake_console(struct vcpu *v);
/* Arms (deadline_ns) or cancels (0) the vLAPIC's software timer of v, from any pCPU;
 * vlapic_timer_expired runs when it fires. */
void vcpu_set_lapic_timer(struct vcpu *v, uint64_t deadline_ns);
/* The same for a PC domain's PIT interrupt (core/pc_pit.c: pc_pit_irq_fire): returns the
 * generation of the timer armed. */
uint64_t vcpu_set_pit_timer(struct vcpu *v, uint64_t deadline_ns);
/* Marks vector pending and makes sure v notices: wakes it when blocked, forces an exit
 * when it runs on another pCPU. Any pCPU, interrupt context included (no lock held). */
void vcpu_irq_raise(struct vcpu *v, uint8_t vector);
void vcpu_irq_raise_timer(struct vcpu *v, uint8_t vector); /* same, a timer wake */
void vcpu_set_timer(struct vcpu *v, uint64_t deadline_ns);
/* Blocks v (HLT, HC_BLOCK) unless an interrupt is pending: true when it blocked. */
bool vcpu_block(struct vcpu *v);
/* HLT, HC_BLOCK on v's own pCPU: ACT_CONTINUE when an interrupt is pending now, else ACT_HALT
 * (the next pick blocks it unless one is pending then). */
enum exit_action vcpu_halt(struct vcpu *v);
/* An interrupt is pending for v (void *: the door's wake_pending), or its domain ends. */
bool vcpu_block_refused(void *v);
void vcpu_dump(struct vcpu *v);

/* event.c */
/* Raises port on d for sender (a domain id or SLIVER_DOMID_HV), unchecked: the
 * hypervisor's own events. 0 or -SLIVER_E*. */
int event_raise(struct domain *d, unsigned port, unsigned sender);
/* HC_EVENT_SEND between domains: the access rules of sliver/event.h, then event_raise. */
int event_send(struct domain *from, uint64_t to, uint64_t port);
int event_bind(struct domain *d, unsigned port, unsigned vector, unsigned vcpu);
int event_recv(struct domain *d, unsigned port);
int event_recv_info(struct domain *d, unsigned port, struct sliver_event_info *out);
/* HC_EVENT_ALLOW: dom (or SLIVER_DOMID_ANY) may raise d's port, or no longer. */
int event_allow(struct domain *d, uint64_t port, uint64_t dom, bool on);

/* hypercall.c */
enum exit_action hypercall(struct vcpu *v, struct hv_exit *e);
void hypercall_clock(struct vcpu *v);
/* HC_CLOCK from CPL 0: answered by hypercall_clock alone. Its number is tested first, and
 * alone by core's quick path (exit_quick_offer) to turn other calls away at once. */
static inline bool hypercall_nr_is_clock(const struct hv_vcpu *h)
{
	return h->gpr[HV_RAX] == HC_CLOCK;
}
static inline bool hypercall_is_clock(struct hv_vcpu *h)
{
	return hypercall_nr_is_clock(h) && hv_guest_cpl(h) == 0;
}
/* Privileged calls hypercall.c has no entry for (HC_PING, HC_CONSOLE_READ, the service
 * domain's sliver/service.h calls, any number up to HC_PRIV_END - 1): the permission check
 * is done; a[] holds the five arguments (32 bits each for a 32-bit caller); *act may be set
 * to ACT_BLOCK/ACT_YIELD (RIP and RAX are written first). A weak default returns
 * -SLIVER_ENOSYS: the service-domain work defines the real one in its own file. */
int64_t hypercall_ext(struct vcpu *v, uint64_t nr, const uint64_t a[5], enum exit_action *act);

/* exit.c: the dispatch by exit kind to the handlers in exit_*.c */
enum exit_action exit_dispatch(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_cpuid(struct vcpu *v, struct hv_exit *e);
void cpuid_answer(struct vcpu *v);
/* exit.c: core's quick path, handed to the backend at boot (hv_set_exit_quick). */
bool exit_quick_offer(struct hv_vcpu *hv, struct hv_exit *e);
enum exit_action exit_rdmsr(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_wrmsr(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_io(struct vcpu *v, struct hv_exit *e);
/* exit_pc.c: the minimal PC's ports (isa-debug-exit, PM timer, fw_cfg, PIC/PIT absent).
 * false: not one of them. *act becomes ACT_DEAD when the guest exited through 0xf4. */
void exit_pc_init(void); /* once, after tsc_calibrate */
bool exit_pc_io(struct vcpu *v, uint16_t port, unsigned size, bool in, uint64_t *val,
		enum exit_action *act);
/* domain_end.c: isa-debug-exit: `sliver: d<id> exited status=<v>`, then as domain_shutdown. */
void domain_exit_status(struct domain *d, uint32_t status);
enum exit_action exit_hlt(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_pause_loop(struct vcpu *v, struct hv_exit *e);
/* exit_pause_loop.c: PAUSE-loop detection from sched.ple and the ple.* keys (at boot). */
void vmm_pause_loop_init(void);
enum exit_action exit_cr(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_dr(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_ud(struct vcpu *v, struct hv_exit *e);
enum exit_action exit_gp(struct vcpu *v, struct hv_exit *e);
/* The `msr d<id> unknown=<n> last=0x<msr>` line of a run's end (vmm.c, finish_run). */
void exit_msr_report(const struct domain *d);
/* exit.c: the `exitstats <kind> n=.. <counter>=..` lines of an EXITSTATS build, once per run
 * (finish_run, after the domains' lines; nothing in other builds). */
void exit_stats_report(void);
enum exit_action exit_ept(struct vcpu *v, struct hv_exit *e); /* the vLAPIC page first */
enum exit_action exit_fatal(struct vcpu *v, struct hv_exit *e);

/* dcon.c: the domain console (docs/console.md, "Backpressure") */
/* A byte arrives on d's COM1 (the UART ping): into its receive FIFO, IRQ 4 as it says. Any
 * pCPU, no lock held. false: lost (an overrun). */
bool com1_receive(struct domain *d, uint8_t b);
/* d's IRQ 4 follows its UART's interrupt output (exit_io.c's ports, after each access). */
void com1_irq(struct domain *d);
/* One byte (COM1's THR, port 0xE9); a vCPU whose line is held takes none: check
 * dcon_busy first. */
void dcon_putc(struct vcpu *v, char c);
/* HC_CONSOLE_WRITE's bytes: returns how many it took, all but when a line it finished
 * found no room (it is held; the caller waits, dcon_wait). */
uint64_t dcon_write(struct vcpu *v, const char *s, uint64_t n);
/* Tries v's held line again: true while it is still held (no room: its UART is busy). */
bool dcon_busy(struct vcpu *v);
/* v waits for room for its held line: registered for dcon_drained's wake-up; returns
 * ACT_HALT (the pick blocks it unless vcpu_block_refused says its wait is over by then). */
enum exit_action dcon_wait(struct vcpu *v);
/* Could v's held line go in now (or has it none)? Read without the domain's lock. */
bool dcon_room_for(struct vcpu *v);
/* The UART's interrupt, after the drain (no lock held): wakes the vCPUs that have room. */
void dcon_drained(void);
void dcon_flush(struct domain *d);
/* console.rate=<bytes/s> console.burst=<bytes> (0 = no limit): per-domain output limit;
 * the service domain is never limited. */
void dcon_init(const char *cmdline);
/* After the domains are created: the console drain goes to the service domain's pCPU. */
void dcon_start_async(void);

/* ping.c: the in-hypervisor ping source (ping.dom= ping.interval_us= ping.count= ping.cpu=) */
void ping_start(const char *cmdline);
void ping_cpu_start(unsigned cpu); /* every pCPU on entering vmm_cpu_loop */
void ping_stop(void);		   /* the run is over (before the counters are printed) */
void ping_reply(unsigned from_dom);
/* ping.uart=1: is b, written to d's COM1 THR, the answer (PING_UART_BYTE from ping.dom, not
 * printed)? ping_uart_answer: the same, and the round trip of the outstanding ping ends. */
#define PING_UART_BYTE 0x06 /* ASCII ACK: no console text holds it, no tty gives it a meaning */
bool ping_uart_is_answer(const struct domain *d, uint8_t b);
bool ping_uart_answer(const struct domain *d, uint8_t b);
void ping_report(void);

/* service.c: the service domain's further calls (hypercall_ext); service_keys.c: the debug
 * keys and service_report */
void service_init(void);
void service_keys_init(void); /* the debug keys (service_keys.c) */
void service_report(void);
/* A reply to a ping the service domain sent: true when it was one (ping.c asks first). */
bool service_ping_reply(unsigned from_dom);

/* pcpu.c: what every layer may ask of the pCPUs, below the loop that runs them (vmm.c) */
extern uint64_t vmm_run_end_ns; /* 0 until the run is over (run_ms, all ended), then its end */
/* A timer callback of v's runs on this pCPU (interrupt context): if another vCPU's exit is
 * being handled here, that exit was v's doing and is charged to v (issue 30). */
static inline void vmm_behalf(struct vcpu *v)
{
	struct vmm_cpu *pc = vmm_this();
	if (pc->curr && pc->curr != v && !pc->behalf)
		pc->behalf = v;
}
/* A decision is due on cpu (resched: RESCHED_KICK) or it only has to leave its guest: the
 * reschedule IPI, unless cpu is this one. */
void vmm_kick_cpu(unsigned cpu, bool resched);

#endif
