/* The ports of the minimal PC (docs/guests.md), for every domain: QEMU's isa-debug-exit at
 * 0xf4 (an 8-, 16- or 32-bit OUT of v ends the domain with status v), the ACPI PM timer
 * (3.579545 MHz from the host TSC, 24 bits, the FADT's PM_TMR_BLK) and PM1 block, fw_cfg's
 * signature, ID and CPU count (QEMU docs/specs/fw_cfg.rst: selector 0x510, data 0x511).
 * A PC domain (boot=mb1|real) also has the devices of core/pc.h: the 8259s, CMOS/RTC, the
 * PIT with port 0x61, ports 0x92 and 0xCF9, the 8042, QEMU's pc-testdev. In a sliver-ABI
 * domain the 8259s and the PIT are absent: reads give all-ones (every IMR bit set:
 * masked), writes are ignored and counted as io_other. */
#include "arch/x86_64/tsc.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "core/vmm.h"
#include "drivers/console.h"

enum { FW_CFG_SIGNATURE = 0x0, FW_CFG_ID = 0x1, FW_CFG_NB_CPUS = 0x5 };
#define PM1_CNT_SCI_EN 1u /* ACPI mode is always on (FADT SMI_CMD = 0) */
/* PM1_CNT (ACPI 6.5, 4.8.3.2.1): SLP_EN starts the sleep state SLP_TYP names; the DSDT's
 * \_S5 gives S5 (soft off) SLP_TYP 5 (core/pcboot.c). */
#define PM1_CNT_SLP_EN	   (1u << 13)
#define PM1_CNT_SLP_TYP(v) (((v) >> 10) & 7u)
#define PC_S5_SLP_TYP	   5u

static struct clockconv pm_conv;

void exit_pc_init(void)
{
	/* Once, at boot (vmm_boot): clockconv_init's 63 divisions take ~2 ms of Bochs time,
	 * too much for every restart= re-creation. */
	pm_conv = clockconv_init(tsc_hz, PC_PM_TIMER_HZ);
}

static uint8_t fwcfg_byte(struct domain *d)
{
	uint32_t off = d->fwcfg_off++;
	switch (d->fwcfg_sel) {
	case FW_CFG_SIGNATURE:
		return off < 4 ? (uint8_t) "QEMU"[off] : 0;
	case FW_CFG_ID: /* bit 0: the traditional port interface; no DMA */
		return off == 0 ? 1 : 0;
	case FW_CFG_NB_CPUS:
		return off < 2 ? (uint8_t)(d->nr_vcpus >> (8 * off)) : 0;
	default:
		return 0;
	}
}

static bool legacy_absent(uint16_t port)
{
	return port == 0x20 || port == 0x21 || port == 0xa0 || port == 0xa1 || /* 8259 PICs */
	       (port >= 0x40 && port <= 0x43);				       /* 8254 PIT */
}

/* The 8259s and the PIT where a domain has none (a sliver-ABI domain's, above). */
static bool absent_io(struct domain *d, uint16_t port, bool in, uint64_t *val)
{
	if (!legacy_absent(port))
		return false;
	if (in)
		*val = ~0ull;
	else
		__atomic_fetch_add(&d->io_other, 1, __ATOMIC_RELAXED);
	return true;
}

/* A PC domain's own devices (core/pc.h), then what no device claims. */
static __attribute__((noinline)) bool pc_devices_io(struct vcpu *v, uint16_t port, unsigned size,
						    bool in, uint64_t *val)
{
	if (size == 1 && (pc_reset_io(v, port, in, val) || pc_cmos_io(v, port, in, val) ||
			  pc_pit_io(v, port, in, val) || pc_pic_io(v, port, in, val)))
		return true;
	return pc_testdev_io(v, port, size, in, val) || absent_io(v->dom, port, in, val);
}

bool exit_pc_io(struct vcpu *v, uint16_t port, unsigned size, bool in, uint64_t *val,
		enum exit_action *act)
{
	struct domain *d = v->dom;
	if (port == PC_PORT_DEBUG_EXIT && !in) {
		domain_exit_status(d, (uint32_t)*val);
		*act = ACT_DEAD;
		return true;
	}
	if (port >= PC_PORT_PM_TMR && port < PC_PORT_PM_TMR + 4 && in) {
		uint32_t t = pm_timer_count(pm_conv, rdtsc() - tsc_at_boot);
		*val = t >> (8 * (port - PC_PORT_PM_TMR));
		*act = ACT_RESUME; /* a read that changes nothing */
		return true;
	}
	if (port >= PC_PORT_PM1A_EVT && port < PC_PORT_PM1A_CNT + 2) {
		/* The control register's high byte, as a 16-bit write or a byte at 0x605. */
		uint32_t cnt = port == PC_PORT_PM1A_CNT && size >= 2 ? (uint32_t)*val
			       : port == PC_PORT_PM1A_CNT + 1	     ? (uint32_t)*val << 8
								     : 0;
		unsigned en = PC_PORT_PM1A_EVT + 2; /* PM1_EN: kept as written (ACPICA checks
						     * that GBL_EN reads back) */
		if (port == en || port == en + 1) {
			unsigned sh = 8 * (port - en);
			if (in)
				*val = (uint16_t)(d->pm1_en >> sh);
			else if (size >= 2 && sh == 0)
				d->pm1_en = (uint16_t)*val;
			else
				d->pm1_en = (uint16_t)((d->pm1_en & ~(0xffu << sh)) |
						       (((uint32_t)*val & 0xff) << sh));
		} else if (in) {
			*val = port == PC_PORT_PM1A_CNT ? PM1_CNT_SCI_EN : 0;
		} else if ((cnt & PM1_CNT_SLP_EN) && PM1_CNT_SLP_TYP(cnt) == PC_S5_SLP_TYP) {
			uint64_t us = (now_ns() - d->start_ns) / 1000;
			printk("sliver: d%u ACPI S5: powered off %lu.%03lu ms after its start\n",
			       d->id, (unsigned long)(us / 1000), (unsigned long)(us % 1000));
			domain_exit_status(d, 0);
			*act = ACT_DEAD;
		} else {
			__atomic_fetch_add(&d->io_other, 1, __ATOMIC_RELAXED);
		}
		return true;
	}
	if (port == PC_PORT_FWCFG_SEL && !in && size == 2) {
		d->fwcfg_sel = (uint16_t)*val;
		d->fwcfg_off = 0;
		return true;
	}
	if (port == PC_PORT_FWCFG_DATA && in && size == 1) {
		*val = fwcfg_byte(d);
		return true;
	}
	if (d->pc) /* a tail call: a sliver-ABI domain's exits do not pay for its calls */
		return pc_devices_io(v, port, size, in, val);
	return absent_io(d, port, in, val);
}
