/* vCPUs: creation, the interrupt to inject and what went in, the state before an entry,
 * blocking, the timers' callbacks, and the register dump of a crash. Raising a request and
 * waking are core/vcpu_wake.c's, below the devices that call them. */
#include <stdarg.h>
#include "arch/x86_64/tsc.h"
#include "core/mm.h"
#include "core/pc.h"
#include "core/linuxboot.h"
#include "core/pcboot.h"
#include "core/pingtrace.h"
#include "core/vlapic.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/string.h"

/* The TLB tag of each new vCPU (VMX: its VPID; SVM: the backend maps it to an ASID),
 * 1..65535: 0 is the host's. Reuse after a wrap is safe: the backends flush a vCPU's tag
 * when a pCPU loads it. */
static uint16_t next_asid = 1;

static void vtimer_fire(struct timer *t, void *arg)
{
	(void)t;
	struct vtimer *vt = arg;
	struct vcpu *v = vt->v;
	if (vt->gen != __atomic_load_n(&v->timer_gen, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&v->s.gone, __ATOMIC_ACQUIRE))
		return;
	vmm_behalf(v);
	event_raise(v->dom, SLIVER_PORT_TIMER, SLIVER_DOMID_HV);
}

/* A PC domain's vCPUs have a third timer set (the PIT's interrupt, used on the BSP). */
static size_t vcpu_frames(const struct domain *d)
{
	unsigned sets = d->boot == PC_BOOT_SLIVER ? 2 : 3;
	size_t size = sizeof(struct vcpu) + sets * cpu_count() * sizeof(struct vtimer);
	return (size + PAGE_SIZE - 1) / PAGE_SIZE;
}

/* The PIT counter 0 interrupt of a PC domain (core/pc_pit.c), kept on its BSP. */
static void pit_timer_fire(struct timer *t, void *arg)
{
	(void)t;
	struct vtimer *vt = arg;
	if (vt->gen == __atomic_load_n(&vt->v->pit_timer_gen, __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&vt->v->s.gone, __ATOMIC_ACQUIRE))
		pc_pit_irq_fire(vt->v->dom);
}

static void lapic_timer_fire(struct timer *t, void *arg)
{
	(void)t;
	struct vtimer *vt = arg;
	if (!__atomic_load_n(&vt->v->s.gone, __ATOMIC_ACQUIRE)) {
		vmm_behalf(vt->v);
		vlapic_timer_expired(vt->v, vt->gen);
	}
}

struct vcpu *vcpu_create(struct domain *d, unsigned id, uint64_t entry)
{
	unsigned ncpu = cpu_count();
	size_t frames = vcpu_frames(d);
	uint64_t pa = frames_alloc(frames, 1);
	if (!pa)
		return NULL;
	struct vcpu *v = phys_to_virt(pa);
	v->dom = d;
	v->id = id;
	v->msr_pat = 0x0007040600070406ull;
	hist_reset(&v->lat);
	for (unsigned c = 0; c < ncpu; c++) {
		v->vt[c].v = v;
		timer_init(&v->vt[c].t, vtimer_fire, &v->vt[c]);
		v->vt[ncpu + c].v = v;
		timer_init(&v->vt[ncpu + c].t, lapic_timer_fire, &v->vt[ncpu + c]);
		if (d->boot == PC_BOOT_SLIVER)
			continue;
		v->vt[2 * ncpu + c].v = v;
		timer_init(&v->vt[2 * ncpu + c].t, pit_timer_fire, &v->vt[2 * ncpu + c]);
	}
	vlapic_init(v);
	const char *why = "?";
	uint16_t asid = next_asid++;
	if (!next_asid)
		next_asid = 1;
	/* Multiboot1 (0.6.96, 3.2): EAX = 0x2BADB002, EBX = the information block. */
	bool mb1 = d->boot == PC_BOOT_MB1;
	v->hv = hv_vcpu_create(d->space, asid, entry,
			       mb1 ? MB1_BOOTLOADER_MAGIC : SLIVER_BOOT_MAGIC,
			       mb1 ? PC_INFO_GPA : SLIVER_BOOTINFO_GPA(id), &why);
	if (!v->hv) {
		printk("sliver: d%u vCPU %u: %s\n", d->id, id, why);
		frames_free(pa, frames);
		return NULL;
	}
	if (d->boot == PC_BOOT_LINUX) { /* boot.rst, 32-bit boot protocol: ESI = zero page */
		hv_gpr_set(v->hv, HV_RAX, 0);
		hv_gpr_set(v->hv, HV_RBX, 0);
		hv_gpr_set(v->hv, HV_RSI, LINUX_ZP_GPA);
	}
	v->s.sv.dom = &d->sd;
	v->s.sv.id = id;
	v->s.sv.owner = v;
	return v;
}

void vcpu_free(struct vcpu *v)
{
	if (v->hv)
		hv_vcpu_destroy(v->hv);
	frames_free(virt_to_phys(v), vcpu_frames(v->dom));
}

int vcpu_highest_irq(const struct vcpu *v)
{
#pragma GCC unroll 4
	for (int w = 3; w >= 0; w--) {
		uint64_t bits = __atomic_load_n(&v->irr[w], __ATOMIC_ACQUIRE);
		if (bits)
			return w * 64 + 63 - __builtin_clzll(bits);
	}
	return -1;
}

/* Event-port vectors against the TPR (no ISR: they need no EOI); with lapic=1 the PPR,
 * which also counts the vLAPIC's vectors in service, and the higher of the vLAPIC's and
 * the ports' vectors wins. */
int vcpu_deliverable_irq(const struct vcpu *v)
{
	if (v->dom->pc) { /* the PICs' INTR (ExtINT) goes first, whatever the TPR says */
		int x = pc_extint_pending(v);
		if (x >= 0)
			return x;
	}
	int vec = vcpu_highest_irq(v);
	if (v->dom->lapic) {
		int lv = vlapic_deliverable(v);
		uint32_t isrv = 0;
		for (int w = 3; w >= 0 && !isrv; w--)
			if (v->lapic.isr[w])
				isrv = (uint32_t)(w * 64 + 63 - __builtin_clzll(v->lapic.isr[w]));
		unsigned cls = __atomic_load_n(&v->tpr, __ATOMIC_RELAXED) >> 4;
		if (isrv >> 4 > cls)
			cls = isrv >> 4;
		if (vec >= 0 && (unsigned)vec >> 4 <= cls)
			vec = -1;
		return lv > vec ? lv : vec;
	}
	return vec >= 0 && (unsigned)vec >> 4 > __atomic_load_n(&v->tpr, __ATOMIC_RELAXED) >> 4u
		       ? vec
		       : -1;
}

/* Something v can take: a vector its TPR/PPR lets through, an NMI it does not block, an
 * INIT or SIPI. A vector held back by the TPR, or an NMI waiting for the IRET of the one
 * being handled, does not count: a HLT with only those pending blocks, as on a CPU, instead
 * of returning at once for ever (issue 30: after an NMI storm a HLT inside the NMI handler
 * with one more NMI latched spun through the hypervisor; so did one with TPR above a
 * pending event-port vector). IF does not matter (HLT and HC_BLOCK wake on a pending vector
 * whatever IF is, docs/hypercalls.md). */
bool vcpu_irq_pending(const struct vcpu *v)
{
	if (v->dom->lapic && vlapic_waiting(v)) /* after INIT only a SIPI counts */
		return vlapic_wake_pending(v);
	return vcpu_deliverable_irq(v) >= 0 || (v->dom->lapic && vlapic_wake_pending(v));
}

void vcpu_irq_injected(struct vcpu *v, int vector)
{
	if (v->dom->pc && pc_extint_pending(v) == vector)
		pc_pic_ack(v->dom); /* INTA: the PIC's IRR to its ISR */
	else if (v->dom->lapic && vlapic_has_irr(v, vector))
		vlapic_injected(v, vector);
	else
		vcpu_irq_clear(v, vector);
}

void vcpu_nmi_injected(struct vcpu *v)
{
	vlapic_nmi_injected(v);
}

void vcpu_preempted(struct vcpu *v)
{
	vlapic_park(v);
}

bool vcpu_before_entry(struct vcpu *v)
{
	v->con_wait = false; /* it runs again: a console wait (dcon_wait) is over */
	if (!v->dom->lapic)
		return true;
	if (vlapic_take_init(v))
		pc_fw_boot(v);
	return vlapic_before_entry(v);
}

/* Under v's run-queue lock (sd_block, sd_pick): an interrupt made pending before it blocks,
 * or its domain's end, keeps it running. A vCPU in a console wait (dcon_wait) goes on when
 * its line has room, and on an interrupt only when the guest could take it now (IF was set,
 * the vector passes its TPR/PPR): one it cannot take would end every wait at once, and the
 * guest would spin on the UART. */
bool vcpu_block_refused(void *arg)
{
	struct vcpu *v = arg;
	if (v->con_wait)
		return dcon_room_for(v) || v->dom->dying ||
		       (v->con_wait_if && vcpu_deliverable_irq(v) >= 0);
	return vcpu_irq_pending(v) || v->dom->dying;
}

bool vcpu_block(struct vcpu *v)
{
	return sd_block(&v->s, vcpu_block_refused, v);
}

/* Read without the lock first: a vector pending already costs no pick. One raised after
 * this look is seen by the pick's own look under the lock, or wakes v after it. */
enum exit_action vcpu_halt(struct vcpu *v)
{
	v->con_wait = false; /* HLT, HC_BLOCK: the guest's own wait */
	return vcpu_block_refused(v) ? ACT_CONTINUE : ACT_HALT;
}

void vcpu_dump(struct vcpu *v)
{
	struct hv_state s;
	hv_read_state(v->hv, &s);
	unsigned d = v->dom->id, i = v->id;
	printk("sliver: d%uv%u rip=%016lx rsp=%016lx rflags=%08lx cs=%04x/%x ss=%04x\n", d, i,
	       s.rip, s.gpr[HV_RSP], s.rflags, s.cs, s.cs_ar, s.ss);
	printk("sliver: d%uv%u rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n", d, i, s.gpr[HV_RAX],
	       s.gpr[HV_RBX], s.gpr[HV_RCX], s.gpr[HV_RDX]);
	printk("sliver: d%uv%u rsi=%016lx rdi=%016lx rbp=%016lx r8=%016lx\n", d, i, s.gpr[HV_RSI],
	       s.gpr[HV_RDI], s.gpr[HV_RBP], s.gpr[HV_R8]);
	printk("sliver: d%uv%u cr0=%08lx (guest %08lx) cr3=%08lx cr4=%08lx (guest %08lx) "
	       "efer=%lx intr=%x act=%x idtvec=%lx\n",
	       d, i, s.cr0, s.cr0_shadow, s.cr3, s.cr4, s.cr4_shadow, s.efer, s.intr_state,
	       s.activity, s.idt_vectoring);
}
