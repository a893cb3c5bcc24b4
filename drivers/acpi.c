/* ACPI in the hypervisor: finds the RSDP, maps physical memory for the table walk of
 * acpi_tables.c (identity-mapped below 4 GiB) and powers off through S5. */
#include "drivers/acpi.h"
#include "arch/x86_64/cpu.h"
#include "drivers/acpi_tables.h"
#include "drivers/console.h"

struct acpi_info acpi;
static struct acpi_power power;

#define IDENTITY_LIMIT (1ull << 32)

static const uint8_t *map_identity(uint64_t pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa >= IDENTITY_LIMIT || len > IDENTITY_LIMIT - pa)
		return NULL;
	return (const uint8_t *)pa;
}

static const uint8_t *scan(uint64_t start, uint64_t end)
{
	long off = acpi_find_rsdp((const uint8_t *)start, end - start);
	return off < 0 ? NULL : (const uint8_t *)start + off;
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
	return true;
}

void acpi_poweroff(void)
{
	if (!acpi.have_s5 || !power.pm1a_cnt)
		return;
	const uint16_t SCI_EN = 1, SLP_EN = 1 << 13;
	if (power.smi_cmd && power.acpi_enable && !(inb(power.pm1a_cnt) & SCI_EN)) {
		outb((uint16_t)power.smi_cmd, power.acpi_enable);
		for (int i = 0; i < 1000000 && !(inb(power.pm1a_cnt) & SCI_EN); i++)
			cpu_relax();
	}
	outw(power.pm1a_cnt, (uint16_t)(power.slp_typ_a << 10 | SLP_EN));
	if (power.pm1b_cnt)
		outw(power.pm1b_cnt, (uint16_t)(power.slp_typ_b << 10 | SLP_EN));
}

const void *acpi_find_table(const void *rsdp, size_t rsdp_len, const char sig[4], uint32_t *len)
{
	size_t n = 0;
	const uint8_t *t = rsdp ? acpi_lookup(rsdp, rsdp_len, sig, map_identity, NULL, &n) : NULL;
	*len = (uint32_t)n;
	return t;
}
