/* Port I/O. COM1 (0x3f8-0x3ff) is enough of a 16550 for polling output: THR writes go to
 * the domain console, the divisor latch, LCR, MCR and scratch registers keep what was
 * written. A PC domain's COM1 also interrupts as a 16450 on a PC does (National PC16550D
 * datasheet, "Interrupt Identification Register"): the THR-empty interrupt is pending when
 * IER's ETBEI is set (0 -> 1 with THR empty) and after each THR write (the byte leaves at
 * once), and cleared by the IIR read that reports it (IIR 0x02) or by clearing ETBEI; its
 * line, gated by MCR OUT2 as on a PC, is ISA IRQ 4: the 8259's input 4 and IOAPIC pin 4
 * (Linux's 8250 driver sends with it). No receive interrupt (no input). LSR says "transmitter
 * empty" unless the vCPU's finished line waits for room in the console's ring (core/dcon.c,
 * backpressure): then it reads busy and the vCPU that read it blocks until the drain has made room,
 * and a THR write blocks until then and is done again (no byte is lost). Port 0xE9 (the Bochs/QEMU
 * debug port) writes to the console too, with the same wait. The minimal PC's ports are
 * exit_pc.c's. Every other port reads all-ones and ignores writes; those are counted. String I/O is
 * not emulated: the domain is crashed with that reason. */
#include "core/pc.h"
#include "core/vmm.h"

#define COM1	 0x3f8
#define LCR_DLAB 0x80

#define IER_ETBEI 0x02
#define MCR_OUT2  0x08
#define COM1_IRQ  4

/* A PC domain's IRQ 4 follows the UART's interrupt output (OUT2 gates it to the bus). */
static void com1_irq(struct domain *d)
{
	struct dcon *c = &d->con;
	if (!d->pc)
		return;
	bool level = c->uart_thre && (c->uart_ier & IER_ETBEI) && (c->uart_mcr & MCR_OUT2);
	pc_pic_set_irq(d, COM1_IRQ, level);
	pc_ioapic_set_irq(d, COM1_IRQ, level);
}

static uint32_t com1_in(struct domain *d, unsigned reg)
{
	struct dcon *c = &d->con;
	switch (reg) {
	case 0:
		return (c->uart_lcr & LCR_DLAB) ? c->uart_dll : 0; /* RBR: no input */
	case 1:
		return (c->uart_lcr & LCR_DLAB) ? c->uart_dlm : c->uart_ier;
	case 2: /* IIR: THR empty (read: no longer pending), or none */
		if (d->pc && c->uart_thre && (c->uart_ier & IER_ETBEI)) {
			c->uart_thre = false;
			com1_irq(d);
			return 0x02;
		}
		return 0x01;
	case 3:
		return c->uart_lcr;
	case 4:
		return c->uart_mcr;
	case 5:
		return 0x60; /* LSR: THRE | TEMT (exit_io looks at a held line first) */
	case 6:
		return 0xb0; /* MSR: DCD DSR CTS */
	default:
		return c->uart_scr;
	}
}

static void com1_out(struct vcpu *v, unsigned reg, uint8_t val)
{
	struct dcon *c = &v->dom->con;
	switch (reg) {
	case 0:
		if (c->uart_lcr & LCR_DLAB) {
			c->uart_dll = val;
		} else {
			dcon_putc(v, (char)val);
			c->uart_thre = true; /* sent at once: THR empty again */
		}
		break;
	case 1:
		if (c->uart_lcr & LCR_DLAB) {
			c->uart_dlm = val;
			break;
		}
		if ((val & IER_ETBEI) && !(c->uart_ier & IER_ETBEI))
			c->uart_thre = true; /* enabled with THR empty: pending at once */
		c->uart_ier = val & 0x0f;
		break;
	case 3:
		c->uart_lcr = val;
		break;
	case 4:
		c->uart_mcr = val;
		break;
	case 7:
		c->uart_scr = val;
		break;
	default:
		break;
	}
	com1_irq(v->dom);
}

enum exit_action exit_io(struct vcpu *v, struct hv_exit *e)
{
	struct domain *d = v->dom;
	struct hv_vcpu *h = v->hv;
	uint16_t port = e->io.port;
	unsigned size = e->io.size;
	__atomic_fetch_add(&d->io_exits, 1, __ATOMIC_RELAXED);
	if (e->io.string) {
		domain_crash(d, v, "string I/O (ins/outs) on port 0x%x is not emulated", port);
		return ACT_DEAD;
	}
	uint64_t mask = size == 1 ? 0xff : size == 2 ? 0xffff : 0xffffffffu;
	bool com1 = port >= COM1 && port < COM1 + 8 && size == 1;
	bool dlab = d->con.uart_lcr & LCR_DLAB;
	bool thr = (com1 && port == COM1 && !dlab && !e->io.in) || (port == 0xe9 && size == 1);
	if (thr && !e->io.in && dcon_busy(v))
		return dcon_wait(v); /* the OUT is done again once there is room */
	if (com1 && port == COM1 + 5 && e->io.in && dcon_busy(v)) {
		uint64_t rax = hv_gpr_get(h, HV_RAX);
		hv_gpr_set(h, HV_RAX, rax & ~0xffull); /* LSR: THRE, TEMT clear */
		hv_skip_exit_insn(h);
		return dcon_wait(v); /* its loop reads LSR again after the wake-up */
	}
	uint64_t pv = e->io.in ? mask : hv_gpr_get(h, HV_RAX) & mask;
	enum exit_action act = ACT_CONTINUE;
	if (!com1 && exit_pc_io(v, port, size, e->io.in, &pv, &act)) {
		if (act == ACT_DEAD)
			return act;
		if (e->io.in) {
			uint64_t rax = hv_gpr_get(h, HV_RAX);
			pv &= mask;
			hv_gpr_set(h, HV_RAX, size == 4 ? pv : (rax & ~mask) | pv);
		}
	} else if (e->io.in) {
		uint64_t val = mask;
		if (com1)
			val = com1_in(d, port - COM1);
		else if (port == 0xe9 && size == 1)
			val = 0xe9;
		else
			__atomic_fetch_add(&d->io_other, 1, __ATOMIC_RELAXED);
		uint64_t rax = hv_gpr_get(h, HV_RAX);
		/* A 32-bit IN zero-extends into RAX; 8/16-bit ones merge. */
		rax = size == 4 ? (uint32_t)val : (rax & ~mask) | (val & mask);
		hv_gpr_set(h, HV_RAX, rax);
	} else {
		uint8_t val = (uint8_t)hv_gpr_get(h, HV_RAX);
		if (com1)
			com1_out(v, port - COM1, val);
		else if (port == 0xe9 && size == 1)
			dcon_putc(v, (char)val);
		else
			__atomic_fetch_add(&d->io_other, 1, __ATOMIC_RELAXED);
	}
	hv_skip_exit_insn(h);
	return ACT_CONTINUE;
}
