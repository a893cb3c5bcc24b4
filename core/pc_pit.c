/* The 8254 PIT of a PC domain (docs/guests.md; Intel 8254 datasheet): three counters at
 * 1.193182 MHz (ports 0x40-0x42, control word 0x43: modes 0-5, LSB/MSB/both access, the
 * counter latch and read-back commands), computed from the TSC when read, never ticked: a
 * counter costs nothing while nobody looks. Counter 2's gate is port 0x61 bit 0 and its
 * output reads in bit 5 (bit 4, the refresh toggle, flips every 15 us): what firmware and
 * kernels use to calibrate the TSC. Counters 0 and 1 count with their gate high; counter
 * 0's output is IRQ 0 of the 8259 (pc_pic.c): a timer (the BSP's third vtimer set,
 * vcpu.c) gives its rising edges, at each period's end in modes 2 and 3, once at the
 * terminal count in modes 0 and 4. The firmware leaves counter 0 in mode 3 with the full
 * count (18.2 Hz), as a PC BIOS does. BCD counting is not
 * offered (bit 0 of the control word reads back, the count is binary). Simplified: a
 * count written while counting takes effect at once (modes 2 and 3 wait for the period's
 * end on a real 8254), and OUT and the count follow the datasheet's waveforms without the
 * one-tick delay after a load. */
#include "arch/x86_64/tsc.h"
#include "core/pc.h"
#include "core/vmm.h"
#include "lib/clockconv.h"

#define PIT_HZ 1193182u
enum { RW_LATCH = 0, RW_LSB = 1, RW_MSB = 2, RW_BOTH = 3 };

static struct clockconv pit_conv, ns_conv; /* TSC -> PIT ticks, PIT ticks -> ns */
static bool conv_ready;

/* PIT ticks since the hypervisor's boot. */
static uint64_t ticks_now(void)
{
	return clockconv_apply(pit_conv, rdtsc() - tsc_at_boot);
}

static unsigned mode_of(const struct pc_pit_chan *c)
{
	unsigned m = (c->ctrl >> 1) & 7;
	return m > 5 ? m - 4 : m; /* 6 and 7 are 2 and 3 */
}

static unsigned rw_of(const struct pc_pit_chan *c)
{
	return (c->ctrl >> 4) & 3;
}

void pc_pit_reset(struct pc_state *pc)
{
	if (!conv_ready) {
		pit_conv = clockconv_init(tsc_hz, PIT_HZ);
		ns_conv = clockconv_init(PIT_HZ, 1000000000u);
		conv_ready = true;
	}
	for (unsigned i = 0; i < 3; i++)
		pc->pit[i] = (struct pc_pit_chan){.ctrl = RW_BOTH << 4, .gate = i < 2};
	pc->port61 = 0;
}

/* Ticks counted so far (modes 0 and 4 pause while the gate is low). */
static uint64_t elapsed(const struct pc_pit_chan *c, uint64_t now)
{
	unsigned m = mode_of(c);
	if ((m == 0 || m == 4) && !c->gate)
		return c->held;
	return c->held + (now - c->start);
}

static void state_at(const struct pc_pit_chan *c, uint64_t now, uint16_t *count, bool *out)
{
	uint64_t n = c->reload ? c->reload : 65536;
	unsigned m = mode_of(c);
	if (!c->counting) {
		*count = c->reload;
		*out = m != 0; /* mode 0: low from the control word to the terminal count */
		return;
	}
	uint64_t t = elapsed(c, now);
	switch (m) {
	case 2: { /* rate generator: N .. 1, OUT low while it reads 1 */
		uint64_t p = t % n;
		*count = (uint16_t)(n - p);
		*out = p != n - 1;
		return;
	}
	case 3: { /* square wave: high for ceil(N/2) ticks, low for floor(N/2), by 2 */
		uint64_t p = t % n, hi = (n + 1) / 2;
		*count = (uint16_t)(p < hi ? n - 2 * p : n - 2 * (p - hi));
		*out = p < hi;
		return;
	}
	default: /* 0, 1, 4, 5: one pass from N down, then it wraps and goes on */
		*count = (uint16_t)((n - t % 65536) & 0xffff);
		*out = (m == 0 || m == 1) ? t >= n : t != n;
		return;
	}
}

/* A count was written (both bytes, when it takes two). */
static void load(struct pc_pit_chan *c, uint16_t v, uint64_t now)
{
	unsigned m = mode_of(c);
	c->reload = v;
	c->loaded = true;
	c->held = 0;
	c->start = now;
	/* Modes 1 and 5 wait for a rising gate; 2 and 3 count while the gate is high. */
	c->counting = m == 0 || m == 4 || ((m == 2 || m == 3) && c->gate);
}

static void set_gate(struct pc_pit_chan *c, bool gate, uint64_t now)
{
	if (gate == c->gate)
		return;
	unsigned m = mode_of(c);
	if (m == 0 || m == 4) {
		if (c->counting && !gate)
			c->held += now - c->start; /* paused */
		c->start = now;
	} else if (gate && c->loaded) { /* 1, 5: trigger; 2, 3: start again from N */
		c->counting = true;
		c->held = 0;
		c->start = now;
	} else if (!gate && (m == 2 || m == 3)) {
		c->counting = false; /* stops, OUT high */
	}
	c->gate = gate;
}

static void latch_count(struct pc_pit_chan *c, uint64_t now)
{
	if (c->latched)
		return;
	bool out;
	state_at(c, now, &c->latch, &out);
	c->latched = true;
	c->rnext_msb = false;
}

static void latch_status(struct pc_pit_chan *c, uint64_t now)
{
	if (c->status_latched)
		return;
	uint16_t count;
	bool out;
	state_at(c, now, &count, &out);
	c->status = (uint8_t)((out ? 0x80 : 0) | (c->loaded ? 0 : 0x40) | (c->ctrl & 0x3f));
	c->status_latched = true;
}

static void control(struct pc_state *pc, uint8_t w, uint64_t now)
{
	unsigned sc = w >> 6;
	if (sc == 3) { /* read-back: bit 5 clear latches counts, bit 4 clear statuses */
		for (unsigned i = 0; i < 3; i++) {
			if (!(w & (2u << i)))
				continue;
			if (!(w & 0x10))
				latch_status(&pc->pit[i], now);
			if (!(w & 0x20))
				latch_count(&pc->pit[i], now);
		}
		return;
	}
	struct pc_pit_chan *c = &pc->pit[sc];
	if (((w >> 4) & 3) == RW_LATCH) {
		latch_count(c, now);
		return;
	}
	c->ctrl = w & 0x3f;
	c->loaded = c->counting = c->latched = c->status_latched = false;
	c->wnext_msb = c->rnext_msb = false;
	c->held = 0;
}

static uint8_t read_count(struct pc_pit_chan *c, uint64_t now)
{
	if (c->status_latched) {
		c->status_latched = false;
		return c->status;
	}
	uint16_t v;
	bool out;
	if (c->latched)
		v = c->latch;
	else
		state_at(c, now, &v, &out);
	unsigned rw = rw_of(c);
	bool msb = rw == RW_MSB || (rw == RW_BOTH && c->rnext_msb);
	if (rw == RW_BOTH)
		c->rnext_msb = !c->rnext_msb;
	if (c->latched && (rw != RW_BOTH || !c->rnext_msb))
		c->latched = false; /* every byte of the latched count was read */
	return msb ? (uint8_t)(v >> 8) : (uint8_t)v;
}

static void write_count(struct pc_pit_chan *c, uint8_t b, uint64_t now)
{
	switch (rw_of(c)) {
	case RW_LSB:
		load(c, b, now);
		break;
	case RW_MSB:
		load(c, (uint16_t)(b << 8), now);
		break;
	default:
		if (!c->wnext_msb) {
			c->wlow = b;
			c->wnext_msb = true;
			if (mode_of(c) == 0)
				c->counting = false; /* the first byte stops mode 0 (OUT low) */
		} else {
			c->wnext_msb = false;
			load(c, (uint16_t)(c->wlow | b << 8), now);
		}
		break;
	}
}

/* Counter 0's next rising edge as ns since boot (0: none), the lock held. */
static uint64_t irq0_next(const struct pc_state *pc, uint64_t now)
{
	const struct pc_pit_chan *c = &pc->pit[0];
	unsigned m = mode_of(c);
	if (!c->counting)
		return 0;
	uint64_t n = c->reload ? c->reload : 65536, t = elapsed(c, now), at;
	if (m == 2 || m == 3)
		at = c->start + (t / n + 1) * n; /* the end of this period */
	else if ((m == 0 || m == 4) && t < n)
		at = c->start + n; /* the terminal count */
	else
		return 0;
	return clockconv_apply(ns_conv, at) + 1;
}

/* (Re)arms IRQ 0's timer on this pCPU for counter 0 as it is now (no lock held). */
static void irq0_arm(struct domain *d)
{
	struct pc_state *pc = d->pc;
	spin_lock(&pc->dev_lock);
	uint64_t at = irq0_next(pc, ticks_now());
	spin_unlock(&pc->dev_lock);
	if (d->vcpu[0])
		vcpu_set_pit_timer(d->vcpu[0], at);
}

void pc_pit_irq_fire(struct domain *d)
{
	if (!d->pc || d->dying)
		return;
	pc_pic_set_irq(d, 0, true); /* a rising edge... */
	pc_pic_set_irq(d, 0, false);
	pc_ioapic_set_irq(d, 2, true); /* IRQ 0 is GSI 2 (the MADT's override, as QEMU) */
	pc_ioapic_set_irq(d, 2, false);
	irq0_arm(d); /* ...and the next one (missed periods are coalesced into one) */
}

void pc_pit_firmware(struct domain *d)
{
	struct pc_state *pc = d->pc;
	spin_lock(&pc->dev_lock);
	struct pc_pit_chan *c = &pc->pit[0];
	c->ctrl = RW_BOTH << 4 | 3 << 1; /* mode 3, the full count: 18.2 Hz */
	c->wnext_msb = c->rnext_msb = c->latched = c->status_latched = false;
	load(c, 0, ticks_now());
	spin_unlock(&pc->dev_lock);
	irq0_arm(d);
}

bool pc_pit_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val)
{
	struct pc_state *pc = v->dom->pc;
	if (!((port >= 0x40 && port <= 0x43) || port == 0x61))
		return false;
	uint64_t now = ticks_now();
	/* Counter 0's count or mode written: its IRQ 0 timer follows. */
	bool irq0 = !in && (port == 0x40 || (port == 0x43 && (*val >> 6) == 0));
	spin_lock(&pc->dev_lock);
	if (port == 0x61) {
		if (in) {
			uint16_t count;
			bool out2;
			state_at(&pc->pit[2], now, &count, &out2);
			*val = (pc->port61 & 0x0f) | ((now / 18) & 1) << 4 | (uint64_t)out2 << 5;
		} else {
			pc->port61 = (uint8_t)(*val & 0x0f);
			set_gate(&pc->pit[2], *val & 1, now);
		}
	} else if (port == 0x43) {
		if (in)
			*val = 0xff; /* the control word register is write-only */
		else
			control(pc, (uint8_t)*val, now);
	} else if (in) {
		*val = read_count(&pc->pit[port - 0x40], now);
	} else {
		write_count(&pc->pit[port - 0x40], (uint8_t)*val, now);
	}
	spin_unlock(&pc->dev_lock);
	if (irq0)
		irq0_arm(v->dom);
	return true;
}
