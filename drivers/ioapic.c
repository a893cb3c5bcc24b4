#include "drivers/ioapic.h"
#include "arch/x86_64/memory.h"
#include "drivers/acpi.h"
#include "drivers/acpi_tables.h"

#define IOREGSEL    0x00
#define IOWIN	    0x10
#define IOAPICVER   0x01
#define IOREDTBL(n) (0x10 + 2 * (n))

#define RTE_MASKED     (1u << 16)
#define RTE_LEVEL      (1u << 15)
#define RTE_ACTIVE_LOW (1u << 13)

static uint32_t ioapic_read(volatile uint32_t *base, uint32_t reg)
{
	base[IOREGSEL / 4] = reg;
	return base[IOWIN / 4];
}

static void ioapic_write(volatile uint32_t *base, uint32_t reg, uint32_t v)
{
	base[IOREGSEL / 4] = reg;
	base[IOWIN / 4] = v;
}

bool ioapic_route_gsi(uint32_t gsi, uint8_t vector, uint32_t apic_id, bool level, bool active_low)
{
	int i = acpi_ioapic_for_gsi(&acpi, gsi);
	/* The redirection entry's physical destination is 8 bits (IOAPIC datasheet, IOREDTBL
	 * bits 63:56): a CPU with an x2APIC ID above 254 needs interrupt remapping, which
	 * sliver does not set up. */
	if (i < 0 || apic_id > 0xfe)
		return false;
	const struct acpi_ioapic *io = &acpi.ioapics[i];
	volatile uint32_t *base = mmio_map(io->base, 0x20, true); /* above 4 GiB too */
	if (!base)
		return false;
	uint32_t pin = gsi - io->gsi_base;
	uint32_t max = (ioapic_read(base, IOAPICVER) >> 16) & 0xff; /* last entry's index */
	if (pin > max)
		return false;
	uint32_t lo = vector | (level ? RTE_LEVEL : 0) | (active_low ? RTE_ACTIVE_LOW : 0);
	ioapic_write(base, IOREDTBL(pin) + 1, apic_id << 24); /* physical destination */
	ioapic_write(base, IOREDTBL(pin), lo);
	return true;
}

bool ioapic_route_isa(unsigned irq, uint8_t vector, uint32_t apic_id)
{
	if (irq >= 16)
		return false;
	/* ISA defaults are edge/active-high; MPS INTI flags: polarity bits 0-1 (3 = low),
	 * trigger bits 2-3 (3 = level). */
	uint16_t f = acpi.isa_flags[irq];
	return ioapic_route_gsi(acpi.isa_gsi[irq], vector, apic_id, ((f >> 2) & 3) == 3,
				(f & 3) == 3);
}

bool ioapic_route_pci(uint32_t gsi, uint8_t vector, uint32_t apic_id)
{
	return ioapic_route_gsi(gsi, vector, apic_id, true, true);
}
