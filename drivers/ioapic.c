#include "drivers/ioapic.h"
#include "drivers/acpi.h"

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

bool ioapic_route_isa(unsigned irq, uint8_t vector, uint32_t apic_id)
{
	if (!acpi.ioapic_base || irq >= 16 || acpi.ioapic_base >= (1ull << 32))
		return false;
	volatile uint32_t *base = (volatile uint32_t *)acpi.ioapic_base;
	uint32_t gsi = acpi.isa_gsi[irq];
	uint32_t max = (ioapic_read(base, IOAPICVER) >> 16) & 0xff;
	if (gsi > max)
		return false;
	/* ISA defaults are edge/active-high; MPS INTI flags: polarity bits 0-1 (3 = low),
	 * trigger bits 2-3 (3 = level). */
	uint16_t f = acpi.isa_flags[irq];
	uint32_t lo = vector;
	if ((f & 3) == 3)
		lo |= RTE_ACTIVE_LOW;
	if (((f >> 2) & 3) == 3)
		lo |= RTE_LEVEL;
	ioapic_write(base, IOREDTBL(gsi) + 1, apic_id << 24); /* physical destination */
	ioapic_write(base, IOREDTBL(gsi), lo);
	return true;
}
