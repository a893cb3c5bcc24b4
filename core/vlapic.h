/* The virtual local APIC of a vCPU (domains with lapic=1; docs/lapic.md): xAPIC MMIO at
 * 0xFEE00000 (fault exits decoded by core/insn_mov.c), x2APIC MSRs 0x800-0x8FF,
 * IA32_APIC_BASE and IA32_TSC_DEADLINE, the LVT timer on the hypervisor's software timers,
 * IPIs between the vCPUs of the domain. Its interrupts have IRR/ISR/PPR semantics and are
 * injected through the same path as event-port vectors (vcpu_deliverable_irq). */
#ifndef CORE_VLAPIC_H
#define CORE_VLAPIC_H
#include <stdbool.h>
#include <stdint.h>
#include "core/vlapic_state.h"

struct vcpu;
struct domain;
struct hv_exit;

void vlapic_init(struct vcpu *v);
/* The highest vector the vLAPIC may inject now (IRR above PPR), or -1. */
int vlapic_deliverable(const struct vcpu *v);
/* The vector went in at entry: IRR -> ISR. */
void vlapic_injected(struct vcpu *v, int vector);
bool vlapic_has_irr(const struct vcpu *v, int vector);
/* Before an entry: INIT resets the APIC and stops the vCPU until a SIPI, which restarts
 * it in real mode (hv_vcpu_reset_real); a pending NMI is asked for (hv_request_nmi: the
 * backend delivers it when the guest does not block NMIs). false: do not enter
 * (waiting for a SIPI: block). */
bool vlapic_before_entry(struct vcpu *v);
/* First, an INIT that arrived: true when v is a PC's BSP, which runs the firmware
 * (pc_fw_boot) before vlapic_before_entry; false otherwise (an AP now waits for a SIPI). */
bool vlapic_take_init(struct vcpu *v);
bool vlapic_wake_pending(const struct vcpu *v);
/* The NMI latched and asked for went in at entry (hv_exit.nmi_injected). */
void vlapic_nmi_injected(struct vcpu *v);
bool vlapic_waiting(const struct vcpu *v); /* stopped after INIT until a SIPI */
/* A fault exit at gpa in the APIC page: true when handled (the instruction emulated or a
 * fault injected, or the domain crashed with a message), false when it is not the vLAPIC's. */
bool vlapic_mmio(struct vcpu *v, struct hv_exit *e);
/* RDMSR/WRMSR of APIC_BASE, TSC_DEADLINE, 0x800-0x8FF: 1 handled (*val for a read), -1
 * #GP, 0 not a vLAPIC MSR. */
int vlapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *val);
int vlapic_wrmsr(struct vcpu *v, uint32_t msr, uint64_t val);
/* An interrupt message from the IOAPIC (core/pc_ioapic.c): does its 8-bit destination
 * (physical APIC ID or logical, 0xFF broadcast) name t, read in t's xAPIC or x2APIC mode? */
bool vlapic_match_msg(const struct vcpu *t, uint32_t dest, bool logical);
/* Accepts `vector` at t as a fixed interrupt (level: its TMR bit set, else cleared; an EOI
 * of a vector with TMR set goes on to the IOAPIC); false when t's APIC is software-disabled
 * or the vector illegal. The caller wakes t (vcpu_notify) when it holds no lock. */
bool vlapic_accept_msg(struct vcpu *t, uint8_t vector, bool level);
bool vlapic_nmi(struct vcpu *t);	 /* an NMI message for t (true: wake it, as above) */
void vlapic_init_signal(struct vcpu *t); /* an INIT for t (a platform reset, core/pc_reset.c) */
/* Does v's APIC let the PICs' INTR through (LINT0 unmasked in ExtINT mode, or the APIC
 * hardware-disabled, as QEMU's apic_accept_pic_intr)? */
bool vlapic_extint_ok(const struct vcpu *v);
/* The BSP's APIC as a PC BIOS leaves it (SeaBIOS): software-enabled, LINT0 ExtINT (virtual
 * wire: the PICs' INTR), LINT1 NMI. */
void vlapic_firmware(struct vcpu *v);
/* v was preempted (runnable, not blocked; its pCPU let go of it): its timer needs no host
 * timer until v runs again, when it fires if it is due (vlapic_before_entry). A waiting
 * vCPU's interrupt is taken at its next entry whenever it comes, so firing meanwhile would
 * only cost the vCPUs that run (issue 30: a periodic timer at its shortest period). */
void vlapic_park(struct vcpu *v);
/* The vLAPIC timer's software timer expired (vcpu.c, interrupt context, any pCPU). */
void vlapic_timer_expired(struct vcpu *v, uint64_t gen);
/* The guest's TSC moved (an IA32_TSC or TSC_ADJUST write): an armed TSC-deadline timer is
 * re-armed against the new TSC, as hardware compares the deadline with the TSC itself. */
void vlapic_tsc_moved(struct vcpu *v);

#endif
