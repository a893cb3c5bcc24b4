/* Emulated MMIO (core/mmio.h): the faulting MOV fetched through the guest's page tables
 * (core/insn_fetch.c), decoded (core/insn_mov.c) and done against a device's callbacks;
 * in a PC domain, what no device claims reads all ones and drops writes, as unassigned
 * addresses on a PC (KVM and QEMU behave the same), and is counted. */
#include "core/mmio.h"
#include "core/insn_fetch.h"
#include "core/insn_mov.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "core/vmm.h"
#include "lib/fmt.h"

bool mmio_emulate(struct vcpu *v, uint64_t gpa, const struct mmio_ops *ops, const char *what)
{
	uint8_t b[INSN_MAX_LEN];
	char why[96];
	bool long64;
	int n = insn_fetch(v, b, &long64, why, sizeof why);
	if (n < 0) {
		domain_crash(v->dom, v, "%s access at 0x%lx: %s", what, (unsigned long)gpa, why);
		return false;
	}
	struct insn_mov in;
	const char *bad = insn_mov_decode(b, (unsigned)n, long64, &in);
	if (bad) {
		char hex[INSN_HEX_LEN];
		insn_hex(b, n, hex);
		domain_crash(v->dom, v, "%s access at 0x%lx by [%s]: %s", what, (unsigned long)gpa,
			     hex, bad);
		return false;
	}
	if (in.kind == INSN_MOV_LOAD) {
		uint64_t val = ops->read(v, gpa, in.size);
		hv_gpr_set(v->hv, in.reg,
			   insn_mov_load_result(&in, hv_gpr_get(v->hv, in.reg), val));
	} else {
		uint64_t val = in.kind == INSN_MOV_STORE ? hv_gpr_get(v->hv, in.reg) : in.imm;
		if (in.high8) /* AH..BH */
			val >>= 8;
		ops->write(v, gpa, in.size, val);
	}
	hv_skip_insn(v->hv, in.len);
	return true;
}

static uint64_t unassigned_read(struct vcpu *v, uint64_t gpa, unsigned size)
{
	(void)gpa, (void)size;
	__atomic_fetch_add(&v->dom->mmio_other, 1, __ATOMIC_RELAXED);
	return ~0ull;
}

static void unassigned_write(struct vcpu *v, uint64_t gpa, unsigned size, uint64_t val)
{
	(void)gpa, (void)size, (void)val;
	__atomic_fetch_add(&v->dom->mmio_other, 1, __ATOMIC_RELAXED);
}

static const struct mmio_ops unassigned = {unassigned_read, unassigned_write};
static const struct mmio_ops ioapic = {pc_ioapic_read, pc_ioapic_write};
static const struct mmio_ops testdev = {pc_testdev_read, pc_testdev_write};

bool pc_mmio(struct vcpu *v, struct hv_exit *e)
{
	struct domain *d = v->dom;
	uint64_t gpa = e->ept.gpa;
	if (d->boot == PC_BOOT_SLIVER || !d->pc || e->ept.fetch)
		return false;
	if (d->lapic && (gpa & ~0xfffull) == PC_IOAPIC_GPA)
		return mmio_emulate(v, gpa, &ioapic, "IOAPIC") || true;
	if (gpa >= PC_TESTDEV_MEM && gpa < PC_TESTDEV_MEM + PC_TESTDEV_LEN)
		return mmio_emulate(v, gpa, &testdev, "pc-testdev iomem") || true;
	mmio_emulate(v, gpa, &unassigned, "unassigned MMIO");
	return true;
}
