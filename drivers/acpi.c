/* ACPI in the hypervisor: finds the RSDP, maps physical memory for the table walk of
 * acpi_tables.c, and drives the FADT's registers: S5 power-off (PM1 control blocks or the
 * sleep control register of hardware-reduced ACPI), reset (the FADT reset register, then
 * port 0xCF9, then the 8042) and the PM timer. Each register is a GAS in I/O or memory space
 * (PCI configuration space for the reset register). */
#include "drivers/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memory.h"
#include "drivers/acpi_tables.h"
#include "drivers/console.h"
#include "drivers/pci.h"

struct acpi_info acpi;
static struct acpi_power power;

static const uint8_t *map_identity(uint64_t pa, size_t len, void *ctx)
{
	(void)ctx;
	return mmio_map(pa, len, false);
}

static const uint8_t *scan(uint64_t start, uint64_t end)
{
	long off = acpi_find_rsdp((const uint8_t *)start, end - start);
	return off < 0 ? NULL : (const uint8_t *)start + off;
}

/* Access width in bytes: the GAS's access size when given, else from its bit width. */
static unsigned gas_bytes(const struct acpi_gas *g)
{
	if (g->access_size >= 1 && g->access_size <= 4)
		return 1u << (g->access_size - 1);
	return g->bit_width > 32 ? 8 : g->bit_width > 16 ? 4 : g->bit_width > 8 ? 2 : 1;
}

static uint64_t gas_read(const struct acpi_gas *g)
{
	unsigned w = gas_bytes(g);
	if (g->space == ACPI_GAS_IO) {
		uint16_t port = (uint16_t)g->addr;
		return w == 1 ? inb(port) : w == 2 ? inw(port) : inl(port);
	}
	volatile void *p = mmio_map(g->addr, w, true);
	if (!p)
		return 0;
	return w == 1	? *(volatile uint8_t *)p
	       : w == 2 ? *(volatile uint16_t *)p
	       : w == 4 ? *(volatile uint32_t *)p
			: *(volatile uint64_t *)p;
}

static void gas_write(const struct acpi_gas *g, uint64_t v)
{
	unsigned w = gas_bytes(g);
	if (g->space == ACPI_GAS_IO) {
		uint16_t port = (uint16_t)g->addr;
		if (w == 1)
			outb(port, (uint8_t)v);
		else if (w == 2)
			outw(port, (uint16_t)v);
		else
			outl(port, (uint32_t)v);
		return;
	}
	if (g->space == ACPI_GAS_PCI) {
		/* 5.2.3.2: bus 0; device in bits 32-47, function 16-31, offset 0-15. */
		struct pci_addr a = {0, (uint8_t)(g->addr >> 32), (uint8_t)(g->addr >> 16)};
		unsigned off = (unsigned)g->addr & 0xffff, sh = 8 * (off & 3);
		uint32_t d = pci_cfg_read32(a, off & ~3u);
		d = (d & ~(0xffu << sh)) | (uint32_t)(v & 0xff) << sh;
		pci_cfg_write32(a, off & ~3u, d);
		return;
	}
	volatile void *p = mmio_map(g->addr, w, true);
	if (!p)
		return;
	if (w == 1)
		*(volatile uint8_t *)p = (uint8_t)v;
	else if (w == 2)
		*(volatile uint16_t *)p = (uint16_t)v;
	else if (w == 4)
		*(volatile uint32_t *)p = (uint32_t)v;
	else
		*(volatile uint64_t *)p = v;
}

static const char *space_name(uint8_t s)
{
	return s == ACPI_GAS_IO ? "io" : s == ACPI_GAS_MEMORY ? "mem" : "pci";
}

/* One line: how power-off and reset will go, or why they cannot (a short line: it must fit
 * the 80 columns of an EGA text console), e.g.
 *   acpi: off PM1a_CNT io 0x604 (\_S5 in DSDT 0/0); reset 0xCF9, 8042
 *   acpi: off impossible: no \_S5 in DSDT or SSDTs; reset FADT io 0xcf9=0x6 */
static void report_power(void)
{
	const char *why = "";
	static const char *const from[] = {"none", "DSDT", "SSDT", "method"};
	int off = acpi_poweroff_plan(&power, acpi.have_s5, &why);
	if (off == ACPI_OFF_NONE) {
		printk("acpi: off impossible: %s", why);
	} else {
		const struct acpi_gas *g = off == ACPI_OFF_PM1 ? &power.pm1a_cnt : &power.sleep_ctl;
		printk("acpi: off %s %s 0x%lx (\\_S5 in %s %u/%u)",
		       off == ACPI_OFF_PM1 ? "PM1a_CNT" : "SLEEP_CTL", space_name(g->space),
		       g->addr, from[power.s5_from], power.slp_typ_a, power.slp_typ_b);
	}
	int rs = acpi_reset_plan(&power, &why);
	if (rs == ACPI_RESET_FADT)
		printk("; reset FADT %s 0x%lx=0x%x\n", space_name(power.reset.space),
		       power.reset.addr, power.reset_value);
	else if (rs == ACPI_RESET_NONE)
		printk("; reset impossible: %s\n", why);
	else
		printk("; reset %s\n", rs == ACPI_RESET_CF9 ? "0xCF9, 8042" : "8042");
	if (acpi.nr_ioapics > 1 || acpi.ioapics_beyond)
		printk("acpi: %u IOAPICs%s\n", acpi.nr_ioapics + acpi.ioapics_beyond,
		       acpi.ioapics_beyond ? " (the ones past 16 are not used)" : "");
}

bool acpi_init(const void *rsdp_copy, size_t rsdp_len)
{
	const uint8_t *r = rsdp_copy;
	if (!r) {
		/* The EBDA segment is at 0x40e in the BIOS data area. (The empty asm keeps gcc
		 * from treating a small constant address as a null-pointer dereference.) */
		uint64_t bda = 0x40e;
		__asm__("" : "+r"(bda));
		uint64_t ebda = (uint64_t) * (const uint16_t *)bda << 4;
		r = scan(ebda, ebda + 1024);
		if (!r)
			r = scan(0xe0000, 0x100000);
		rsdp_len = ACPI_RSDP_V2_LEN;
	}
	if (!r) {
		printk("acpi: no RSDP found\n");
		return false;
	}
	const char *err = acpi_walk(&acpi, &power, r, rsdp_len, map_identity, NULL);
	if (err) {
		printk("acpi: %s\n", err);
		return false;
	}
	report_power();
	return true;
}

/* PM1 control (4.8.3.2.1): SLP_TYP in bits 10-12, SLP_EN bit 13; the other bits kept. */
static void pm1_sleep(const struct acpi_gas *g, uint16_t typ)
{
	const uint64_t SLP_TYP = 7u << 10, SLP_EN = 1u << 13;
	uint64_t v = gas_read(g) & ~(SLP_TYP | SLP_EN);
	gas_write(g, v | (uint64_t)typ << 10);
	gas_write(g, v | (uint64_t)typ << 10 | SLP_EN);
}

static void wait_us(unsigned us)
{
	/* Port 0x80 (POST code) takes about 1 us on a PC; the TSC may not be calibrated. */
	for (unsigned i = 0; i < us; i++)
		inb(0x80);
}

const char *acpi_poweroff(void)
{
	const char *why = "";
	int plan = acpi_poweroff_plan(&power, acpi.have_s5, &why);
	if (plan == ACPI_OFF_SLEEP_REG) {
		/* Sleep control register (4.8.3.7): SLP_TYP bits 2-4, SLP_EN bit 5. */
		gas_write(&power.sleep_ctl, (uint64_t)power.slp_typ_a << 2 | 1u << 5);
	} else if (plan == ACPI_OFF_PM1) {
		const uint16_t SCI_EN = 1;
		if (power.smi_cmd && power.acpi_enable && !(gas_read(&power.pm1a_cnt) & SCI_EN)) {
			outb((uint16_t)power.smi_cmd, power.acpi_enable);
			for (int i = 0; i < 300000 && !(gas_read(&power.pm1a_cnt) & SCI_EN); i++)
				wait_us(1);
		}
		if (power.pm1b_cnt.addr)
			pm1_sleep(&power.pm1b_cnt, power.slp_typ_b);
		pm1_sleep(&power.pm1a_cnt, power.slp_typ_a);
	} else {
		return why;
	}
	wait_us(100000);
	return "the FADT's S5 write did not power the machine off";
}

/* The 8042's command 0xFE pulses the reset line; wait for its input buffer first. */
static void kbc_reset(void)
{
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)
		wait_us(1);
	outb(0x64, 0xfe);
}

const char *acpi_reset(void)
{
	const char *why = "";
	int plan = acpi_reset_plan(&power, &why);
	if (plan == ACPI_RESET_NONE)
		return why;
	if (plan == ACPI_RESET_FADT) {
		gas_write(&power.reset, power.reset_value);
		wait_us(50000);
	}
	if (plan <= ACPI_RESET_CF9 && !(power.flags & ACPI_FADT_HW_REDUCED)) {
		/* Reset control register: SYS_RST (bit 1) set first, then RST_CPU (bit 2). */
		uint8_t cf9 = inb(0xcf9) & ~6;
		outb(0xcf9, cf9 | 2);
		wait_us(50);
		outb(0xcf9, cf9 | 6);
		wait_us(50000);
	}
	if (plan != ACPI_RESET_FADT || !(power.flags & ACPI_FADT_HW_REDUCED) ||
	    (power.boot_arch & ACPI_BOOT_ARCH_8042)) {
		kbc_reset();
		wait_us(50000);
	}
	return plan == ACPI_RESET_FADT ? "the FADT reset register, 0xCF9 and the 8042 did nothing"
				       : "0xCF9 and the 8042 did nothing";
}

bool acpi_pm_timer(uint32_t *value, unsigned *bits)
{
	if (!power.pm_tmr.addr || power.pm_tmr.space > ACPI_GAS_IO)
		return false;
	*bits = power.flags & ACPI_FADT_TMR_VAL_EXT ? 32 : 24;
	struct acpi_gas g = power.pm_tmr;
	g.access_size = 3; /* a 32-bit register (4.8.3.3) */
	*value = (uint32_t)gas_read(&g) & (*bits == 32 ? 0xffffffffu : 0xffffffu);
	return true;
}

const void *acpi_find_table(const void *rsdp, size_t rsdp_len, const char sig[4], uint32_t *len)
{
	size_t n = 0;
	const uint8_t *t = rsdp ? acpi_lookup(rsdp, rsdp_len, sig, map_identity, NULL, &n) : NULL;
	*len = (uint32_t)n;
	return t;
}
