/* Emulated memory-mapped devices (docs/guests.md): a guest access outside its memory (an
 * EPT violation / NPT fault) that a device claims is done by emulating the faulting MOV
 * (core/insn_mov.c) against the device's read/write callbacks. In a PC domain, an access
 * that no device claims behaves as on a PC: reads return all ones, writes are dropped,
 * both are counted (`mmio_other`). */
#ifndef CORE_MMIO_H
#define CORE_MMIO_H
#include <stdbool.h>
#include <stdint.h>

struct vcpu;
struct hv_exit;

struct mmio_ops {
	/* size 1, 2, 4 or 8; gpa is the faulting address (the operand's first byte). */
	uint64_t (*read)(struct vcpu *v, uint64_t gpa, unsigned size);
	void (*write)(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val);
};

/* Emulates the MOV at v's RIP that faulted at gpa: a load gets ops->read, a store calls
 * ops->write, then RIP moves past it. false: the instruction could not be fetched or is no
 * MOV the decoder knows; the domain was crashed, naming `what` and the bytes. */
bool mmio_emulate(struct vcpu *v, uint64_t gpa, const struct mmio_ops *ops, const char *what);

/* A PC domain's fault exit outside the vLAPIC page: the IOAPIC, pc-testdev's iomem, or
 * unassigned. true: handled (or the domain crashed: check dying); false: not a PC domain,
 * or an instruction fetch (nothing executes from MMIO). */
bool pc_mmio(struct vcpu *v, struct hv_exit *e);

#endif
