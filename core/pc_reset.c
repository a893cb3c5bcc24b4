/* Resets of a PC domain and what its firmware does then (docs/guests.md):
 * - System control port A (0x92): bit 0 going 0 -> 1 is a fast reset (INIT, "soft"); bit
 *   1 (A20) reads back as written (sliver never masks A20). Bit 0 survives a soft reset
 *   and is cleared by a hard one, so a guest can tell the two apart (kvm-unit-tests
 *   x86/init.c).
 * - The Reset Control Register (0xCF9, as on PIIX/ICH chipsets): RST_CPU (bit 2) resets,
 *   hard when SYS_RST (bit 1) or FULL_RST (bit 3) is set, else soft; bits 1 and 3 read back.
 * - The 8042 keyboard controller (0x60 data, 0x64 status/command), without a keyboard or
 *   mouse: its command byte (0x20/0x60), self tests (0xAA -> 0x55, 0xAB and 0xA9 -> 0), the
 *   AUX port's enable bit (0xA7/0xA8: command byte bit 5), the loop-back of a byte as if from
 *   the keyboard or the AUX port (0xD2/0xD3: status bit 5 tells them apart), the output port
 *   (0xD0/0xD1; bit 0 low resets the CPU, bit 1 is A20), A20 (0xDD/0xDF) and the pulse
 *   commands (0xF0-0xFF: 0xFE pulses the reset line): the 8042's reset is a soft one. A full
 *   output buffer raises ISA IRQ 1 (a keyboard byte, command byte bit 0) or IRQ 12 (an AUX
 *   byte, bit 1) until it is read, as QEMU's 8042 does (Linux's i8042 tests IRQ 12 so).
 * A soft reset sends INIT to every vCPU; a hard one also puts the devices (port 0x92,
 * 0xCF9, the 8042, the PIT, the IOAPIC) back to their power-up state. RAM and the CMOS
 * are kept. The APs then wait for a SIPI; the BSP runs the firmware (pc_fw_boot). */
#include "core/mm.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "core/vlapic.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/string.h"

#define P92_RESET     0x01
#define P92_A20	      0x02
#define RCR_SYS	      0x02
#define RCR_CPU	      0x04
#define RCR_FULL      0x08
#define KBD_OUT_RESET 0x01 /* the output port's reset line: 0 resets */
#define KBD_OUT_A20   0x02
#define KBD_STATUS    0x14 /* system flag (POST passed), keyboard not inhibited */
#define KBD_STR_AUX   0x20 /* status: the output buffer's byte is from the AUX port */
#define KBD_CCB_KINT  0x01 /* command byte: keyboard interrupt (IRQ 1) */
#define KBD_CCB_AINT  0x02 /* AUX interrupt (IRQ 12) */
#define KBD_CCB_ADIS  0x20 /* AUX port disabled */

/* The 8042 and port 0x92 at power-up (the lock held or nobody else running). */
static void devices_reset(struct pc_state *pc)
{
	pc->port92 = P92_A20; /* the firmware turned A20 on */
	pc->rcr = 0;
	pc->kbd_cmd = 0;
	pc->kbd_out = KBD_OUT_RESET | KBD_OUT_A20;
	pc->kbd_ccb = 0x45; /* keyboard interrupt, system flag, scan code translation */
	pc->kbd_obf = pc->kbd_aux = false;
	pc->kbd_data = 0;
}

/* A byte in the 8042's output buffer (a command's answer or a loop-back). */
static void kbd_put(struct pc_state *pc, uint8_t b, bool aux)
{
	pc->kbd_data = b, pc->kbd_obf = true, pc->kbd_aux = aux;
}

bool pc_create(struct domain *d)
{
	uint64_t pa = frames_alloc((sizeof(struct pc_state) + PAGE_SIZE - 1) / PAGE_SIZE, 1);
	if (!pa)
		return false;
	struct pc_state *pc = phys_to_virt(pa);
	memset(pc, 0, sizeof *pc);
	d->pc = pc;
	d->con.uart.intr = true; /* COM1 interrupts on IRQ 4 (core/exit_io.c) */
	spin_init(&pc->ioapic.lock, &lock_ioapic, -1);
	pc_ioapic_reset(&pc->ioapic);
	pc_cmos_init(d);
	pc_pit_reset(pc);
	pc_pic_firmware(pc);
	devices_reset(pc);
	return true;
}

void pc_release(struct domain *d)
{
	struct pc_state *pc = d->pc;
	uint8_t *m = pc ? __atomic_exchange_n(&pc->testdev_mem, NULL, __ATOMIC_ACQ_REL) : NULL;
	if (m)
		frames_free(virt_to_phys(m), PC_TESTDEV_LEN / PAGE_SIZE);
}

void pc_start(struct domain *d)
{
	if (!d->pc)
		return;
	if (d->lapic && d->vcpu[0])
		vlapic_firmware(d->vcpu[0]);
	pc_pit_firmware(d); /* its IRQ 0 timer: armed now the vCPUs exist in the scheduler */
}

void pc_free(struct domain *d)
{
	struct pc_state *pc = d->pc;
	if (!pc)
		return;
	d->pc = NULL;
	if (pc->testdev_mem)
		frames_free(virt_to_phys(pc->testdev_mem), PC_TESTDEV_LEN / PAGE_SIZE);
	frames_free(virt_to_phys(pc), (sizeof(struct pc_state) + PAGE_SIZE - 1) / PAGE_SIZE);
}

/* A reset asked for by v (no lock held). */
static void platform_reset(struct vcpu *v, bool hard, const char *how)
{
	struct domain *d = v->dom;
	struct pc_state *pc = d->pc;
	__atomic_fetch_add(&pc->resets, 1, __ATOMIC_RELAXED);
	printk("sliver: d%u %s reset through %s\n", d->id, hard ? "hard" : "soft", how);
	if (hard) {
		spin_lock(&pc->dev_lock);
		devices_reset(pc);
		pc->port92 &= ~P92_RESET;
		pc_pit_reset(pc);
		spin_unlock(&pc->dev_lock);
		spin_lock(&pc->ioapic.lock);
		pc_ioapic_reset(&pc->ioapic);
		spin_unlock(&pc->ioapic.lock);
	}
	if (!d->lapic) { /* lapic=0: only the BSP ever runs; it is v */
		pc_fw_boot(v);
		return;
	}
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if (d->vcpu[i])
			vlapic_init_signal(d->vcpu[i]);
}

/* The 8042's command port (the lock held): true when it resets the CPU. */
static bool kbd_command(struct pc_state *pc, uint8_t cmd)
{
	pc->kbd_cmd = 0;
	switch (cmd) {
	case 0x20:
		kbd_put(pc, pc->kbd_ccb, false);
		return false;
	case 0x60:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		pc->kbd_cmd = cmd; /* the next data byte is for the controller */
		return false;
	case 0xaa:
		kbd_put(pc, 0x55, false);
		return false;
	case 0xab:
	case 0xa9:
		kbd_put(pc, 0x00, false);
		return false;
	case 0xa7:
	case 0xa8:
		pc->kbd_ccb =
			cmd == 0xa7 ? pc->kbd_ccb | KBD_CCB_ADIS : pc->kbd_ccb & ~KBD_CCB_ADIS;
		return false;
	case 0xad:
	case 0xae:
		pc->kbd_ccb = cmd == 0xad ? pc->kbd_ccb | 0x10 : pc->kbd_ccb & ~0x10;
		return false;
	case 0xd0:
		kbd_put(pc, pc->kbd_out, false);
		return false;
	case 0xdd:
	case 0xdf:
		pc->kbd_out = cmd == 0xdf ? pc->kbd_out | KBD_OUT_A20 : pc->kbd_out & ~KBD_OUT_A20;
		return false;
	default:
		/* 0xF0-0xFF pulse the output port's bits 0-3 that are 0 in the command. */
		return cmd >= 0xf0 && !(cmd & 1);
	}
}

bool pc_reset_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val)
{
	struct pc_state *pc = v->dom->pc;
	if (port != 0x92 && port != 0xcf9 && port != 0x60 && port != 0x64)
		return false;
	uint8_t b = (uint8_t)*val;
	const char *reset = NULL;
	bool hard = false;
	spin_lock(&pc->dev_lock);
	if (port == 0x92) {
		if (in) {
			*val = pc->port92;
		} else {
			if ((b & P92_RESET) && !(pc->port92 & P92_RESET))
				reset = "port 0x92";
			pc->port92 = b;
		}
	} else if (port == 0xcf9) {
		if (in) {
			*val = pc->rcr;
		} else {
			pc->rcr = b & (RCR_SYS | RCR_FULL);
			if (b & RCR_CPU) {
				reset = "0xcf9";
				hard = b & (RCR_SYS | RCR_FULL);
			}
		}
	} else if (port == 0x64) {
		if (in)
			*val = KBD_STATUS | (pc->kbd_obf ? 1 : 0) |
			       (pc->kbd_obf && pc->kbd_aux ? KBD_STR_AUX : 0);
		else if (kbd_command(pc, b))
			reset = "the 8042 (pulse)";
	} else if (in) {
		*val = pc->kbd_data;
		pc->kbd_obf = false;
	} else if (pc->kbd_cmd == 0xd2 || pc->kbd_cmd == 0xd3) {
		kbd_put(pc, b, pc->kbd_cmd == 0xd3);
		pc->kbd_cmd = 0;
	} else if (pc->kbd_cmd == 0x60) {
		pc->kbd_ccb = b;
		pc->kbd_cmd = 0;
	} else if (pc->kbd_cmd == 0xd1) {
		pc->kbd_out = b;
		pc->kbd_cmd = 0;
		if (!(b & KBD_OUT_RESET))
			reset = "the 8042 (output port)";
	} /* else: a byte for the keyboard, which is absent: no answer */
	bool irq1 = pc->kbd_obf && !pc->kbd_aux && (pc->kbd_ccb & KBD_CCB_KINT);
	bool irq12 = pc->kbd_obf && pc->kbd_aux && (pc->kbd_ccb & KBD_CCB_AINT);
	spin_unlock(&pc->dev_lock);
	if (port == 0x60 || port == 0x64) { /* the PIC takes dev_lock: outside it */
		pc_pic_set_irq(v->dom, 1, irq1);
		pc_ioapic_set_irq(v->dom, 1, irq1);
		pc_pic_set_irq(v->dom, 12, irq12);
		pc_ioapic_set_irq(v->dom, 12, irq12);
	}
	if (reset)
		platform_reset(v, hard, reset);
	return true;
}

void pc_fw_boot(struct vcpu *v)
{
	struct domain *d = v->dom;
	uint8_t code = pc_cmos_get(d, 0x0f);
	if (code == 0x05 || code == 0x0a) {
		/* The CMOS shutdown status asks to resume: a far jump through 40:67 (0x05 also
		 * EOIs the 8259s, which are absent), as a PC BIOS does; the code is cleared. */
		pc_cmos_set(d, 0x0f, 0);
		uint16_t *vec = hv_space_ptr(d->space, 0x467, 4);
		uint16_t ip = vec ? vec[0] : 0, cs = vec ? vec[1] : 0;
		printk("sliver: d%u firmware: shutdown code 0x%x, resume at %04x:%04x\n", d->id,
		       code, cs, ip);
		hv_vcpu_reset_real(v->hv, cs, ip);
		return;
	}
	domain_pc_reload(d);
	printk("sliver: d%u firmware: boot again (image reloaded)\n", d->id);
	spin_lock(&d->pc->dev_lock);
	pc_pic_firmware(d->pc);
	spin_unlock(&d->pc->dev_lock);
	pc_start(d); /* the BSP's APIC and the PIT as at power-up's end */
	if (d->boot == PC_BOOT_REAL)
		hv_vcpu_reset_real(v->hv, d->real_cs, d->real_ip);
	else /* the ROM's trampoline: protected mode, then the multiboot1 entry */
		hv_vcpu_reset_real(v->hv, PC_ROM_CS, PC_ROM_IP);
}
