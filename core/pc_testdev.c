/* QEMU's pc-testdev (hw/misc/pc-testdev.c), which every kvm-unit-tests run on x86 has
 * (`-device pc-testdev`), for PC domains: the IOAPIC inputs at ports 0x2000-0x2017 (a write
 * of v drives input `port - 0x2000` to v & 1: x86/ioapic.c raises and lowers them), a
 * 32-bit scratch port at 0xE0 (reads back what was written, in any width), and "iomem":
 * 64 KiB at 0xFF000000 that read back what was written, through the MMIO path (each access
 * is a fault exit, emulated: x86/lam.c and x86/emulator.c test the emulation with it).
 * Its memory is allocated at the first access (most domains never touch it). */
#include "core/mm.h"
#include "core/pc.h"
#include "core/vmm.h"
#include "lib/string.h"

#define TESTDEV_IRQ  0x2000
#define TESTDEV_PORT 0xe0

bool pc_testdev_io(struct vcpu *v, uint16_t port, unsigned size, bool in, uint64_t *val)
{
	struct pc_state *pc = v->dom->pc;
	if (port >= TESTDEV_IRQ && port < TESTDEV_IRQ + PC_IOAPIC_PINS) {
		if (in) {
			*val = 0;
		} else { /* an ISA IRQ line, as QEMU wires them: to the PICs and the IOAPIC */
			if (port - TESTDEV_IRQ < 16)
				pc_pic_set_irq(v->dom, port - TESTDEV_IRQ, *val & 1);
			pc_ioapic_set_irq(v->dom, port - TESTDEV_IRQ, *val & 1);
		}
		return true;
	}
	if (port >= TESTDEV_PORT && port < TESTDEV_PORT + 4) {
		unsigned sh = 8 * (port - TESTDEV_PORT);
		uint64_t mask = size == 4 ? 0xffffffffull : size == 2 ? 0xffff : 0xff;
		if (in) {
			*val = (pc->testdev_io >> sh) & mask;
		} else {
			uint32_t m = (uint32_t)(mask << sh);
			pc->testdev_io = (pc->testdev_io & ~m) | ((uint32_t)(*val << sh) & m);
		}
		return true;
	}
	return false;
}

/* The buffer, allocated at the first access; NULL when out of memory (reads then give
 * all ones and writes are dropped, as unassigned addresses). */
static uint8_t *mem(struct pc_state *pc)
{
	uint8_t *m = __atomic_load_n(&pc->testdev_mem, __ATOMIC_ACQUIRE);
	if (m)
		return m;
	uint64_t pa = frames_alloc(PC_TESTDEV_LEN / PAGE_SIZE, 1);
	if (!pa)
		return NULL;
	m = phys_to_virt(pa);
	memset(m, 0, PC_TESTDEV_LEN);
	uint8_t *none = NULL;
	if (!__atomic_compare_exchange_n(&pc->testdev_mem, &none, m, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		frames_free(pa, PC_TESTDEV_LEN / PAGE_SIZE); /* another vCPU was first */
		return none;
	}
	return m;
}

uint64_t pc_testdev_read(struct vcpu *v, uint64_t gpa, unsigned size)
{
	uint8_t *m = mem(v->dom->pc);
	uint64_t off = gpa - PC_TESTDEV_MEM, val = 0;
	if (!m)
		return ~0ull;
	if (off + size > PC_TESTDEV_LEN) /* the last bytes: the part inside */
		size = (unsigned)(PC_TESTDEV_LEN - off);
	memcpy(&val, m + off, size);
	return val;
}

void pc_testdev_write(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val)
{
	uint8_t *m = mem(v->dom->pc);
	uint64_t off = gpa - PC_TESTDEV_MEM;
	if (!m)
		return;
	if (off + size > PC_TESTDEV_LEN)
		size = (unsigned)(PC_TESTDEV_LEN - off);
	memcpy(m + off, &val, size);
}
