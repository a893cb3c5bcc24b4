/* The two 8259A PICs of a PC domain (docs/guests.md; Intel 8259A datasheet; the edge and
 * level input rules as QEMU's hw/intc/i8259.c): master at 0x20/0x21, slave at 0xA0/0xA1
 * cascaded on the master's IRQ 2, ELCR at 0x4D0/0x4D1 (a 1 makes an input level-triggered).
 * ICW1-ICW4 (vector base, AEOI), OCW1 (IMR), OCW2 (non-specific and specific EOI; the
 * rotations act as their EOI), OCW3 (read IRR or ISR). Fixed priority, IRQ 0 highest; no
 * poll mode, no special mask or special fully nested mode. The master's INTR goes to the
 * BSP as ExtINT, when its local APIC lets it through (vlapic_extint_ok: LINT0 unmasked in
 * ExtINT mode, or the APIC disabled); the vector is taken (INTA: IRR to ISR) when it is
 * injected. Inputs: the PIT's counter 0 (IRQ 0, pc_pit.c) and pc-testdev's lines. The
 * vector pending is also kept in an atomic for readers that hold a run-queue lock. At
 * power-up the firmware has programmed them as SeaBIOS does (pc_pic_firmware). */
#include "core/pc.h"
#include "core/vlapic.h"
#include "core/vmm.h"

#define ICW1_ICW4  0x01
#define ICW1_SNGL  0x02
#define ICW1_INIT  0x10
#define ICW4_AEOI  0x02
#define OCW3_SEL   0x08
#define ELCR_EDGES 0x0107 /* IRQ 0, 1, 2 and 8 are always edge-triggered (PIIX) */

static unsigned highest(uint8_t bits)
{
	return bits ? (unsigned)__builtin_ctz(bits) : 8; /* IRQ 0 is the highest priority */
}

/* The input a chip would signal now (8: none): requested, unmasked, and above every
 * input in service. */
static unsigned chip_pending(const struct pc_pic_chip *c)
{
	unsigned irq = highest(c->irr & ~c->imr);
	return irq < highest(c->isr) ? irq : 8;
}

/* The cascade and the vector the master would give now (-1: none); the lock held. */
static void update(struct pc_state *pc)
{
	struct pc_pic_chip *m = &pc->pic[0], *s = &pc->pic[1];
	if (chip_pending(s) < 8)
		m->irr |= 1u << 2; /* the slave's INT is the master's IRQ 2 (level) */
	else
		m->irr &= (uint8_t) ~(1u << 2);
	unsigned irq = chip_pending(m);
	int vec = -1;
	if (irq < 8 && m->ready)
		vec = irq == 2 ? (chip_pending(s) < 8 && s->ready ? s->base + (int)chip_pending(s)
								  : -1)
			       : m->base + (int)irq;
	__atomic_store_n(&pc->extint, vec, __ATOMIC_SEQ_CST);
}

void pc_pic_firmware(struct pc_state *pc)
{
	/* As SeaBIOS leaves them: vectors 0x08 and 0x70, every input masked but the cascade
	 * and IRQ 0 (its 18.2 Hz timer tick, pc_pit.c), 8086 mode, normal EOI. */
	pc->pic[0] = (struct pc_pic_chip){.base = 0x08, .imr = 0xfa, .ready = true};
	pc->pic[1] = (struct pc_pic_chip){.base = 0x70, .imr = 0xff, .ready = true};
	update(pc);
}

int pc_extint_pending(const struct vcpu *v)
{
	const struct domain *d = v->dom;
	if (v->id != 0 || !d->pc || !d->lapic || !vlapic_extint_ok(v))
		return -1; /* lapic=0 PC domains get no PIC interrupt (docs/guests.md) */
	return __atomic_load_n(&d->pc->extint, __ATOMIC_SEQ_CST);
}

static void eoi(struct pc_pic_chip *c, int irq)
{
	if (irq < 0)
		irq = (int)highest(c->isr);
	if (irq < 8)
		c->isr &= (uint8_t) ~(1u << irq);
}

static void write(struct pc_pic_chip *c, bool data, uint8_t b)
{
	if (!data && (b & ICW1_INIT)) { /* ICW1: start the initialisation */
		/* As QEMU's pic_init_reset: masks and in-service cleared, level requests kept,
		 * an edge needs a new rising edge. */
		*c = (struct pc_pic_chip){
			.elcr = c->elcr, .irr = c->irr & c->elcr, .level_mode = b & 0x08};
		c->init = 2;
		c->need_icw3 = !(b & ICW1_SNGL);
		c->need_icw4 = b & ICW1_ICW4;
		return;
	}
	if (data && c->init) {
		if (c->init == 2) { /* ICW2 */
			c->base = b & 0xf8;
			c->init = c->need_icw3 ? 3 : c->need_icw4 ? 4 : 0;
		} else if (c->init == 3) { /* ICW3: the cascade wiring, fixed here */
			c->init = c->need_icw4 ? 4 : 0;
		} else { /* ICW4 */
			c->aeoi = b & ICW4_AEOI;
			c->init = 0;
		}
		c->ready = !c->init;
		return;
	}
	if (data) { /* OCW1 */
		c->imr = b;
		return;
	}
	if (b & OCW3_SEL) {
		if (b & 2)
			c->read_isr = b & 1;
		return;
	}
	unsigned cmd = b >> 5; /* OCW2 */
	if (cmd == 1 || cmd == 5)
		eoi(c, -1);
	else if (cmd == 3 || cmd == 7)
		eoi(c, b & 7);
}

/* Input irq of chip c at `level` (the lock held): an edge-triggered input requests on its
 * rising edge and keeps the request until it is taken; a level-triggered one while high. */
static void set_line(struct pc_pic_chip *c, unsigned irq, bool level)
{
	uint8_t bit = (uint8_t)(1u << irq);
	bool lvl = c->level_mode || (c->elcr & bit);
	if (level) {
		if (lvl || !(c->lines & bit))
			c->irr |= bit;
		c->lines |= bit;
	} else {
		if (lvl)
			c->irr &= (uint8_t)~bit;
		c->lines &= (uint8_t)~bit;
	}
}

static void wake_bsp(struct domain *d, int was)
{
	int now = __atomic_load_n(&d->pc->extint, __ATOMIC_SEQ_CST);
	if (now >= 0 && now != was && d->vcpu[0])
		vcpu_notify(d->vcpu[0], false);
}

void pc_pic_set_irq(struct domain *d, unsigned irq, bool level)
{
	struct pc_state *pc = d->pc;
	if (!pc || irq >= 16)
		return;
	spin_lock(&pc->dev_lock);
	int was = pc->extint;
	set_line(&pc->pic[irq / 8], irq % 8, level);
	update(pc);
	spin_unlock(&pc->dev_lock);
	wake_bsp(d, was);
}

int pc_pic_ack(struct domain *d)
{
	struct pc_state *pc = d->pc;
	spin_lock(&pc->dev_lock);
	struct pc_pic_chip *m = &pc->pic[0], *s = &pc->pic[1];
	unsigned irq = chip_pending(m);
	int vec = m->base + 7; /* spurious IRQ 7 when the request went away */
	if (irq < 8) {
		struct pc_pic_chip *c = m;
		if (irq == 2) {
			unsigned si = chip_pending(s);
			vec = s->base + (si < 8 ? (int)si : 7);
			if (si < 8) {
				if (!(s->level_mode || (s->elcr & (1u << si))))
					s->irr &= (uint8_t) ~(1u << si);
				if (!s->aeoi)
					s->isr |= (uint8_t)(1u << si);
			}
		} else {
			vec = m->base + (int)irq;
		}
		if (!(c->level_mode || (c->elcr & (1u << irq))) || irq == 2)
			c->irr &= (uint8_t) ~(1u << irq);
		if (!c->aeoi)
			c->isr |= (uint8_t)(1u << irq);
	}
	update(pc);
	spin_unlock(&pc->dev_lock);
	return vec;
}

bool pc_pic_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val)
{
	struct domain *d = v->dom;
	struct pc_state *pc = d->pc;
	unsigned chip = 0;
	if (port == 0x20 || port == 0x21)
		chip = 0;
	else if (port == 0xa0 || port == 0xa1)
		chip = 1;
	else if (port != 0x4d0 && port != 0x4d1)
		return false;
	spin_lock(&pc->dev_lock);
	int was = pc->extint;
	if (port == 0x4d0 || port == 0x4d1) {
		struct pc_pic_chip *c = &pc->pic[port - 0x4d0];
		uint8_t fixed = (uint8_t)(ELCR_EDGES >> (8 * (port - 0x4d0)));
		if (in)
			*val = c->elcr;
		else
			c->elcr = (uint8_t)*val & ~fixed;
	} else {
		struct pc_pic_chip *c = &pc->pic[chip];
		bool data = port & 1;
		if (in)
			*val = data ? c->imr : c->read_isr ? c->isr : c->irr;
		else
			write(c, data, (uint8_t)*val);
	}
	update(pc);
	spin_unlock(&pc->dev_lock);
	wake_bsp(d, was);
	return true;
}
