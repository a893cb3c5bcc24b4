/* The virtual IOAPIC of a PC domain (docs/guests.md): an 82093AA at 0xFEC00000 (IOREGSEL
 * at 0x00, IOWIN at 0x10; version 0x11, 24 inputs, as KVM's and QEMU's), listed in the
 * MADT. A redirection entry turns its input into an interrupt message to the virtual
 * LAPICs (core/vlapic_ipi.c): fixed, lowest priority (to the first destination) or NMI, to a
 * physical or logical destination. Edge-triggered entries send on a rising edge;
 * level-triggered ones send while the input is asserted and the entry is not in service
 * (Remote IRR), which a LAPIC's EOI of the vector ends (its TMR bit says the vector came
 * level-triggered). An edge while masked is lost, a level still asserted at an unmask is
 * sent then; polarity is honoured. The inputs are driven by QEMU pc-testdev's IRQ ports
 * (pc_testdev.c): no other device of the minimal PC raises an interrupt. Register
 * semantics: 82093AA datasheet 3.0; the edge cases as KVM's arch/x86/kvm/ioapic.c. */
#include "core/pc.h"
#include "core/vlapic.h"
#include "core/vmm.h"

#define IOAPIC_VER    (((uint32_t)(PC_IOAPIC_PINS - 1) << 16) | 0x11)
#define RE_VECTOR     0xffull
#define RE_DESTLOG    (1ull << 11)
#define RE_DELIVS     (1ull << 12) /* delivery status: read-only (always idle here) */
#define RE_POLARITY   (1ull << 13) /* 1: active low */
#define RE_REMOTE_IRR (1ull << 14) /* read-only: a level interrupt in service */
#define RE_LEVEL      (1ull << 15)
#define RE_MASK	      (1ull << 16)
enum { DM_FIXED = 0, DM_LOWEST = 1, DM_NMI = 4 };

void pc_ioapic_reset(struct pc_ioapic *io)
{
	io->sel = 0;
	io->id = 0;
	io->level = 0;
	for (unsigned i = 0; i < PC_IOAPIC_PINS; i++)
		io->redir[i] = RE_MASK;
}

static bool asserted(const struct pc_ioapic *io, unsigned pin)
{
	return ((io->level >> pin) & 1) ^ !!(io->redir[pin] & RE_POLARITY);
}

/* The entry's interrupt message (the lock held): the destinations take it into their
 * IRR now; *wake collects them, woken after the lock is let go (no IPI with a lock held). */
static void send(struct domain *d, struct pc_ioapic *io, unsigned pin, uint64_t *wake)
{
	uint64_t e = io->redir[pin];
	unsigned mode = (e >> 8) & 7;
	bool level = e & RE_LEVEL, got = false;
	if (mode != DM_FIXED && mode != DM_LOWEST && mode != DM_NMI)
		return; /* SMI, INIT, ExtINT: nothing of the kind here */
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct vcpu *t = d->vcpu[i];
		if (!t || !vlapic_match_msg(t, (uint32_t)(e >> 56), e & RE_DESTLOG))
			continue;
		bool took = mode == DM_NMI ? vlapic_nmi(t)
					   : vlapic_accept_msg(t, (uint8_t)(e & RE_VECTOR), level);
		got |= took;
		if (took)
			*wake |= 1ull << i;
		if (mode == DM_LOWEST)
			break; /* one destination: the first (KVM picks by priority or in turn) */
	}
	io->irqs++;
	if (got && level && mode != DM_NMI)
		io->redir[pin] |= RE_REMOTE_IRR;
}

/* After a change of the input or the entry: a level entry asserted, unmasked and not in
 * service sends. */
static void level_check(struct domain *d, struct pc_ioapic *io, unsigned pin, uint64_t *wake)
{
	uint64_t e = io->redir[pin];
	if ((e & RE_LEVEL) && !(e & (RE_MASK | RE_REMOTE_IRR)) && asserted(io, pin))
		send(d, io, pin, wake);
}

static void wake_all(struct domain *d, uint64_t wake)
{
	for (; wake; wake &= wake - 1)
		vcpu_notify(d->vcpu[__builtin_ctzll(wake)], false);
}

void pc_ioapic_set_irq(struct domain *d, unsigned pin, bool level)
{
	if (!d->pc || !d->lapic || pin >= PC_IOAPIC_PINS)
		return;
	struct pc_ioapic *io = &d->pc->ioapic;
	uint64_t wake = 0;
	spin_lock(&io->lock);
	bool was = asserted(io, pin);
	io->level = level ? io->level | 1u << pin : io->level & ~(1u << pin);
	uint64_t e = io->redir[pin];
	if (e & RE_LEVEL)
		level_check(d, io, pin, &wake);
	else if (!was && asserted(io, pin) && !(e & RE_MASK))
		send(d, io, pin, &wake);
	spin_unlock(&io->lock);
	wake_all(d, wake);
}

void pc_ioapic_eoi(struct domain *d, uint8_t vector)
{
	if (!d->pc)
		return;
	struct pc_ioapic *io = &d->pc->ioapic;
	uint64_t wake = 0;
	spin_lock(&io->lock);
	for (unsigned pin = 0; pin < PC_IOAPIC_PINS; pin++) {
		uint64_t e = io->redir[pin];
		if ((e & RE_VECTOR) != vector || !(e & RE_LEVEL) || !(e & RE_REMOTE_IRR))
			continue;
		io->redir[pin] &= ~RE_REMOTE_IRR;
		level_check(d, io, pin, &wake);
	}
	spin_unlock(&io->lock);
	wake_all(d, wake);
}

/* IOWIN: the register IOREGSEL selects (the lock held). */
static uint32_t reg_read(const struct pc_ioapic *io)
{
	unsigned r = io->sel;
	if (r == 0)
		return io->id;
	if (r == 1)
		return IOAPIC_VER;
	if (r == 2)
		return io->id; /* IOAPICARB: loaded from the ID */
	if (r >= 0x10 && r < 0x10 + 2 * PC_IOAPIC_PINS)
		return (uint32_t)(io->redir[(r - 0x10) / 2] >> (r & 1 ? 32 : 0));
	return ~0u;
}

static void reg_write(struct domain *d, struct pc_ioapic *io, uint32_t val, uint64_t *wake)
{
	unsigned r = io->sel;
	if (r == 0) {
		io->id = val & 0x0f000000u;
		return;
	}
	if (r < 0x10 || r >= 0x10 + 2 * PC_IOAPIC_PINS)
		return; /* the version and arbitration registers are read-only */
	unsigned pin = (r - 0x10) / 2;
	uint64_t e = io->redir[pin];
	if (r & 1) {
		e = (e & 0xffffffffull) | (uint64_t)val << 32;
	} else {
		e = (e & ~0xffffffffull) | (val & ~(uint32_t)(RE_DELIVS | RE_REMOTE_IRR)) |
		    (e & RE_REMOTE_IRR);
		if (!(e & RE_LEVEL)) /* as KVM: an edge entry is never in service */
			e &= ~RE_REMOTE_IRR;
	}
	io->redir[pin] = e;
	level_check(d, io, pin, wake);
}

uint64_t pc_ioapic_read(struct vcpu *v, uint64_t gpa, unsigned size)
{
	(void)size;
	struct pc_ioapic *io = &v->dom->pc->ioapic;
	unsigned off = (unsigned)(gpa & 0xfff);
	uint64_t val = 0;
	spin_lock(&io->lock);
	if (off == 0x00)
		val = io->sel;
	else if (off == 0x10)
		val = reg_read(io);
	spin_unlock(&io->lock);
	return val;
}

void pc_ioapic_write(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val)
{
	(void)size;
	struct pc_ioapic *io = &v->dom->pc->ioapic;
	unsigned off = (unsigned)(gpa & 0xfff);
	uint64_t wake = 0;
	spin_lock(&io->lock);
	if (off == 0x00)
		io->sel = (uint32_t)val & 0xff;
	else if (off == 0x10)
		reg_write(v->dom, io, (uint32_t)val, &wake);
	spin_unlock(&io->lock);
	wake_all(v->dom, wake);
}
