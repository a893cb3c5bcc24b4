/* Port I/O. COM1 (0x3f8-0x3ff) is a 16550 whose registers are core/vuart.c's, under the
 * domain's con.lock (any pCPU's ping source puts bytes into its receive FIFO): THR writes go
 * to the domain console at once (THR empty again); the receive side gets the hypervisor's
 * UART ping (ping.uart=1, core/ping.c), whose answer, the byte PING_UART_BYTE written back to
 * THR, is timed there and not printed. A PC domain's COM1 interrupts as the PC16550D's table
 * IV says (line status, received data, THR empty); its line, gated by MCR OUT2 as on a PC, is
 * ISA IRQ 4: the 8259's input 4 and IOAPIC pin 4 (Linux's 8250 driver sends and receives with
 * it). LSR says "transmitter empty" unless the vCPU's finished line waits for room in the
 * console's ring (core/dcon.c, backpressure): then it reads busy and the vCPU that read it
 * blocks until the drain has made room, and a THR write blocks until then and is done again
 * (no byte is lost). Port 0xE9 (the Bochs/QEMU debug port) writes to the console too, with the
 * same wait. The minimal PC's ports are exit_pc.c's. Every other port reads all-ones and
 * ignores writes; those are counted. String I/O is not emulated: the domain is crashed with
 * that reason. */
#include "core/vmm.h"

#define COM1 0x3f8

static uint8_t com1_in(struct domain *d, unsigned reg)
{
	spin_lock(&d->con.lock);
	uint8_t val = vuart_in(&d->con.uart, reg);
	com1_irq(d);
	spin_unlock(&d->con.lock);
	return val;
}

/* A THR write goes to the console, unless it is the UART ping's answer (timed by ping.c). */
static void com1_out(struct vcpu *v, unsigned reg, uint8_t val)
{
	struct domain *d = v->dom;
	uint8_t tx = 0;
	spin_lock(&d->con.lock);
	bool sent = vuart_out(&d->con.uart, reg, val, &tx);
	com1_irq(d);
	spin_unlock(&d->con.lock);
	if (sent && !ping_uart_answer(d, tx))
		dcon_putc(v, (char)tx);
}

/* A port nothing claims: counted, and nothing else changes (reads return all ones, writes
 * are dropped), so the next entry is the same as this one's (ACT_RESUME). */
static enum exit_action unclaimed(struct domain *d)
{
	__atomic_fetch_add(&d->io_other, 1, __ATOMIC_RELAXED);
	return ACT_RESUME;
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
	bool dlab = __atomic_load_n(&d->con.uart.lcr, __ATOMIC_RELAXED) & VUART_LCR_DLAB;
	bool thr = (com1 && port == COM1 && !dlab && !e->io.in) || (port == 0xe9 && size == 1);
	/* The UART ping's answer is not printed: it never waits for the console. */
	bool answer = com1 && thr && ping_uart_is_answer(d, (uint8_t)hv_gpr_get(h, HV_RAX));
	if (thr && !e->io.in && !answer && dcon_busy(v))
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
			act = unclaimed(d);
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
			act = unclaimed(d);
	}
	hv_skip_exit_insn(h);
	return act;
}
