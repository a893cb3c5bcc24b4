/* The devices of the minimal PC that boot=mb1|real domains see besides COM1, the PM timer
 * and fw_cfg (core/exit_pc.c): an IOAPIC (pc_ioapic.c), the 8259s (pc_pic.c), the CMOS/RTC
 * (pc_cmos.c), the 8254 PIT with port 0x61 (pc_pit.c), the reset paths and the firmware's reset
 * vector (port 0x92, 0xCF9, the 8042's reset line: pc_reset.c), QEMU's pc-testdev (pc_testdev.c)
 * and unassigned addresses (core/mmio.c). docs/guests.md says what a guest sees. Their state is a
 * domain's `pc` (allocated for PC domains only: a sliver-ABI domain keeps a machine with nothing
 * but its hypercalls, COM1 and the ports of exit_pc.c). */
#ifndef CORE_PC_H
#define CORE_PC_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "arch/x86_64/spinlock.h"
#include "core/loader.h"
#include "core/pcboot.h"

struct vcpu;
struct domain;
struct hv_exit;

#define PC_IOAPIC_GPA  0xfec00000ull /* the 82093AA's default base (MADT) */
#define PC_IOAPIC_PINS 24
#define PC_TESTDEV_MEM 0xff000000ull /* QEMU pc-testdev's "iomem": 64 KiB that read back */
#define PC_TESTDEV_LEN 0x10000u

struct pc_ioapic {
	spinlock_t lock; /* everything below (lock_ioapic) */
	uint32_t sel;	 /* IOREGSEL */
	uint32_t id;	 /* IOAPICID: bits 27:24 */
	uint32_t level;	 /* pin levels as driven (before the polarity) */
	uint64_t redir[PC_IOAPIC_PINS];
	uint64_t irqs; /* interrupt messages sent */
};

struct pc_pit_chan {
	uint8_t ctrl;		   /* the control word's RW, mode and BCD bits */
	uint16_t reload;	   /* the count written (0 = 65536) */
	uint8_t wlow;		   /* LSB-then-MSB access: the LSB written, waiting */
	bool wnext_msb, rnext_msb; /* the LSB/MSB flip-flops */
	bool latched, status_latched;
	uint16_t latch;
	uint8_t status;
	bool gate;	/* counters 0, 1: always high; 2: port 0x61 bit 0 */
	bool loaded;	/* a count was written since the control word */
	bool counting;	/* loaded (and, modes 1 and 5, triggered; 2 and 3, gate high) */
	uint64_t start; /* PIT tick (since boot) when it began counting */
	uint64_t held;	/* modes 0, 4: ticks counted before the gate went low */
};

struct pc_pic_chip { /* one 8259A (pc_pic.c) */
	uint8_t base, imr, irr, isr, elcr;
	uint8_t lines; /* input levels (edge detection) */
	uint8_t init;  /* next ICW expected (2-4), 0: initialised */
	bool ready;    /* ICWs done: it delivers */
	bool need_icw3, need_icw4, aeoi, read_isr, level_mode;
};

struct pc_state {
	struct pc_ioapic ioapic;
	struct pc_pic_chip pic[2]; /* master, slave (under dev_lock) */
	int extint;		   /* the vector the PICs present to the BSP, -1: none (atomic) */

	/* CMOS, PIT, port 0x61, 0x92, 0xCF9 and the 8042 (a leaf lock). */
	spinlock_t dev_lock; /* lock_pcdev */
	/* CMOS: 128 bytes of RAM with the RTC in 0x00-0x0D (pc_cmos.c). */
	uint8_t cmos_index, cmos[128];
	int64_t rtc_offset; /* seconds: the guest's clock minus the host's boot-time clock */
	/* 8254 (pc_pit.c) and port 0x61 (bits 0-3 as written). */
	struct pc_pit_chan pit[3];
	uint8_t port61;
	/* System control port A (0x92), the Reset Control Register (0xCF9), the 8042. */
	uint8_t port92, rcr;
	uint8_t kbd_cmd, kbd_out, kbd_ccb, kbd_data;
	bool kbd_obf, kbd_aux; /* output buffer full; its byte is the AUX port's */
	uint32_t testdev_io;   /* pc-testdev's port 0xE0 */
	uint8_t *testdev_mem;  /* PC_TESTDEV_LEN bytes, allocated at the first access */
	uint64_t resets;
};

/* Creation (boot=mb1|real) and end: the devices in their power-up state; pc_start (at the
 * domain's start and each boot): what the firmware leaves (the BSP's APIC, the PIT). */
bool pc_create(struct domain *d);
/* At a domain's end: what only its vCPUs use (pc-testdev's memory). The rest stays with
 * the domain's structure, which outlives it (a device timer may still fire: it looks at
 * d->dying). pc_free: everything, for a domain that never started. */
void pc_release(struct domain *d);
void pc_start(struct domain *d);
void pc_free(struct domain *d);

/* Port I/O of a PC domain's devices (exit_pc.c asks first): true when a device took it
 * (*val: an IN's result). A reset ends the instruction normally: its INITs are taken
 * before the next entry. */
bool pc_dev_io(struct vcpu *v, uint16_t port, unsigned size, bool in, uint64_t *val);

/* pc_load.c: the image's multiboot1 modules (mb1.module_of=) copied after it; what the
 * firmware leaves in low memory (BDA, multiboot1 information, ACPI, the ROM page); the
 * reload of a reboot (the same, over the guest's memory; panics if it fails now). */
const char *pc_load_mods(struct domain *d, const void *img, size_t len, void *mem,
			 struct mb1_mod *mods, uint32_t *start, unsigned *n, char *why, size_t wl);
void pc_write_memory(struct domain *d, const struct mb1_mod *mods, const uint32_t *start,
		     unsigned nmods, uint32_t entry);
void domain_pc_reload(struct domain *d);
/* linux_load.c: checks (mem NULL) or loads a boot=linux domain's kernel, initrd, command
 * line and zero page (core/linuxboot.h). */
const char *linux_domain_load(struct domain *d, const void *img, size_t len, void *mem,
			      uint32_t *entry, char *why, size_t wl);
/* domain_load.c: checks (mem NULL) or loads a module's image as its boot= says (clean: mem is
 * zeroed already, an ELF's bss is not zeroed again). */
const char *domain_image_load(struct domain *d, const void *img, size_t len, void *mem,
			      struct elf_image_info *info, char *why, size_t wl, bool clean);

/* pc_ioapic.c */
void pc_ioapic_reset(struct pc_ioapic *io);
/* Drives IOAPIC input `pin` (QEMU pc-testdev's IRQ ports): an edge-triggered entry sends
 * on the rising edge, a level-triggered one while asserted and not in service. */
void pc_ioapic_set_irq(struct domain *d, unsigned pin, bool level);
/* The LAPIC of a vCPU of d wrote EOI for a level-triggered vector (its TMR bit set): the
 * entries with that vector leave service (remote IRR), and one still asserted sends again. */
void pc_ioapic_eoi(struct domain *d, uint8_t vector);
uint64_t pc_ioapic_read(struct vcpu *v, uint64_t gpa, unsigned size);
void pc_ioapic_write(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val);

/* pc_pic.c: ports 0x20/0x21, 0xA0/0xA1, ELCR 0x4D0/0x4D1. */
void pc_pic_firmware(struct pc_state *pc); /* programmed as the firmware leaves it */
bool pc_pic_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val);
/* ISA IRQ 0-15 at `level` (the PIT's counter 0, pc-testdev's lines): wakes the BSP when
 * an interrupt becomes pending for it. */
void pc_pic_set_irq(struct domain *d, unsigned irq, bool level);
/* INTA: the vector the master gives (IRR to ISR), spurious 7 when nothing is pending. */
int pc_pic_ack(struct domain *d);
/* The vector an ExtINT would deliver to v now, or -1 (only the BSP, when its local APIC
 * lets the PIC's INTR through). Lock-free: any context. */
int pc_extint_pending(const struct vcpu *v);

/* pc_cmos.c: ports 0x70/0x71; the firmware reads the shutdown status byte (0x0F). */
void pc_cmos_init(struct domain *d);
bool pc_cmos_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val);
uint8_t pc_cmos_get(struct domain *d, uint8_t reg);
void pc_cmos_set(struct domain *d, uint8_t reg, uint8_t val);

/* pc_pit.c: ports 0x40-0x43 and 0x61. pc_pit_firmware: counter 0 in mode 3 with the full
 * count (18.2 Hz, IRQ 0), as a PC BIOS leaves it; pc_pit_irq_fire: its timer (vcpu.c). */
void pc_pit_reset(struct pc_state *pc);
void pc_pit_firmware(struct domain *d);
void pc_pit_irq_fire(struct domain *d);
bool pc_pit_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val);

/* pc_reset.c: ports 0x92, 0xCF9, 0x60/0x64. */
bool pc_reset_io(struct vcpu *v, uint16_t port, bool in, uint64_t *val);
/* The BSP after an INIT or reset (vcpu_before_entry), on its pCPU before its next entry:
 * what the firmware does at the reset vector. A resume code in CMOS 0x0F (0x05, 0x0A)
 * jumps through the far pointer at 0x467 in real mode; anything else boots the image
 * again (reloaded, as at creation). */
void pc_fw_boot(struct vcpu *v);

/* pc_testdev.c: QEMU pc-testdev's IRQ lines (0x2000-0x2017), port 0xE0, iomem. */
bool pc_testdev_io(struct vcpu *v, uint16_t port, unsigned size, bool in, uint64_t *val);
uint64_t pc_testdev_read(struct vcpu *v, uint64_t gpa, unsigned size);
void pc_testdev_write(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val);

#endif
