#include "drivers/acpi.h"
#include "arch/x86_64/cpu.h"
#include "drivers/console.h"
#include "lib/string.h"

struct acpi_info acpi;

struct rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum, reserved[3];
} __attribute__((packed));

struct sdt {
	char sig[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

static uint16_t pm1a_cnt, pm1b_cnt, slp_typ_a, slp_typ_b;
static uint32_t smi_cmd;
static uint8_t acpi_enable_val;

static bool checksum_ok(const void *p, size_t n)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

static const struct rsdp *scan(uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a + sizeof(struct rsdp) <= end; a += 16) {
		const struct rsdp *r = (const void *)a;
		if (!memcmp(r->sig, "RSD PTR ", 8) && checksum_ok(r, 20))
			return r;
	}
	return NULL;
}

static void parse_madt(const struct sdt *t)
{
	const uint8_t *p = (const uint8_t *)t + 44, *end = (const uint8_t *)t + t->length;
	for (unsigned i = 0; i < 16; i++)
		acpi.isa_gsi[i] = i; /* identity unless overridden */
	acpi.lapic_base = *(const uint32_t *)((const uint8_t *)t + 36);
	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		uint32_t flags, id;
		bool cpu = false;
		if (p[0] == 0) { /* processor local APIC */
			id = p[3];
			flags = *(const uint32_t *)(p + 4);
			cpu = true;
		} else if (p[0] == 9) { /* processor local x2APIC */
			id = *(const uint32_t *)(p + 4);
			flags = *(const uint32_t *)(p + 8);
			cpu = true;
		} else if (p[0] == 5) { /* 64-bit LAPIC address override */
			acpi.lapic_base = *(const uint64_t *)(p + 4);
		} else if (p[0] == 1 && *(const uint32_t *)(p + 8) == 0) { /* IOAPIC, GSI base 0 */
			acpi.ioapic_base = *(const uint32_t *)(p + 4);
		} else if (p[0] == 2 && p[2] == 0 && p[3] < 16) { /* ISA interrupt override */
			acpi.isa_gsi[p[3]] = *(const uint32_t *)(p + 4);
			acpi.isa_flags[p[3]] = *(const uint16_t *)(p + 8);
		}
		/* flags bit 0: enabled; bit 1: online-capable (may be enabled later: skip). */
		if (cpu && (flags & 1) && acpi.nr_cpus < ACPI_MAX_CPUS) {
			bool dup = false;
			for (unsigned i = 0; i < acpi.nr_cpus; i++)
				dup |= acpi.apic_ids[i] == id;
			if (!dup)
				acpi.apic_ids[acpi.nr_cpus++] = id;
		}
		p += p[1];
	}
}

/* \_S5 is a package in the DSDT's AML: `_S5_ 12 <pkglen> <count> <SLP_TYPa> <SLP_TYPb>`
 * where each value is a BytePrefix (0x0A) constant or a Zero/One opcode. */
static void find_s5(const struct sdt *dsdt)
{
	const uint8_t *p = (const uint8_t *)dsdt + 36, *end = (const uint8_t *)dsdt + dsdt->length;
	for (; p + 12 < end; p++) {
		if (memcmp(p, "_S5_", 4) || p[4] != 0x12)
			continue;
		const uint8_t *q = p + 5;
		q += ((*q >> 6) & 3) + 1; /* PkgLength: lead byte plus 0-3 more */
		q++;			  /* NumElements */
		uint16_t v[2];
		for (int i = 0; i < 2; i++) {
			if (*q == 0x0a)
				q++;
			v[i] = *q++;
		}
		slp_typ_a = v[0];
		slp_typ_b = v[1];
		acpi.have_s5 = true;
		return;
	}
}

static void parse_fadt(const struct sdt *t)
{
	const uint8_t *f = (const uint8_t *)t;
	smi_cmd = *(const uint32_t *)(f + 48);
	acpi_enable_val = f[52];
	pm1a_cnt = (uint16_t) * (const uint32_t *)(f + 64);
	pm1b_cnt = (uint16_t) * (const uint32_t *)(f + 68);
	uint64_t dsdt = *(const uint32_t *)(f + 40);
	if (t->length >= 148 && *(const uint64_t *)(f + 140))
		dsdt = *(const uint64_t *)(f + 140);
	if (dsdt && dsdt < (1ull << 32) && !memcmp((const void *)dsdt, "DSDT", 4))
		find_s5((const struct sdt *)dsdt);
}

bool acpi_init(const void *rsdp_copy)
{
	const struct rsdp *r = rsdp_copy;
	if (!r) {
		/* The EBDA segment is at 0x40e in the BIOS data area. (The empty asm keeps gcc
		 * from treating a small constant address as a null-pointer dereference.) */
		uint64_t bda = 0x40e;
		__asm__("" : "+r"(bda));
		uint64_t ebda = (uint64_t) * (const uint16_t *)bda << 4;
		r = scan(ebda, ebda + 1024);
		if (!r)
			r = scan(0xe0000, 0x100000);
	}
	if (!r) {
		printk("acpi: no RSDP found\n");
		return false;
	}
	bool xsdt = r->revision >= 2 && r->xsdt;
	const struct sdt *root = (const void *)(xsdt ? r->xsdt : (uint64_t)r->rsdt);
	if ((uint64_t)root >= (1ull << 32) || !checksum_ok(root, root->length)) {
		printk("acpi: bad %s\n", xsdt ? "XSDT" : "RSDT");
		return false;
	}
	unsigned n = (root->length - sizeof(*root)) / (xsdt ? 8 : 4);
	const uint8_t *entries = (const uint8_t *)(root + 1);
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = xsdt ? *(const uint64_t *)(entries + 8 * i)
				  : *(const uint32_t *)(entries + 4 * i);
		const struct sdt *t = (const void *)a;
		if (a >= (1ull << 32) || !checksum_ok(t, t->length))
			continue;
		if (!memcmp(t->sig, "APIC", 4))
			parse_madt(t);
		else if (!memcmp(t->sig, "FACP", 4))
			parse_fadt(t);
	}
	if (!acpi.nr_cpus) {
		printk("acpi: no enabled CPU in the MADT\n");
		return false;
	}
	return true;
}

void acpi_poweroff(void)
{
	if (!acpi.have_s5 || !pm1a_cnt)
		return;
	const uint16_t SCI_EN = 1, SLP_EN = 1 << 13;
	if (smi_cmd && acpi_enable_val && !(inb(pm1a_cnt) & SCI_EN)) {
		outb((uint16_t)smi_cmd, acpi_enable_val);
		for (int i = 0; i < 1000000 && !(inb(pm1a_cnt) & SCI_EN); i++)
			cpu_relax();
	}
	outw(pm1a_cnt, (uint16_t)(slp_typ_a << 10 | SLP_EN));
	if (pm1b_cnt)
		outw(pm1b_cnt, (uint16_t)(slp_typ_b << 10 | SLP_EN));
}

const void *acpi_find_table(const void *rsdp_copy, const char sig[4], uint32_t *len)
{
	const struct rsdp *r = rsdp_copy;
	if (!r)
		return NULL;
	bool xsdt = r->revision >= 2 && r->xsdt;
	uint64_t root_pa = xsdt ? r->xsdt : (uint64_t)r->rsdt;
	const struct sdt *root = (const void *)root_pa;
	if (!root_pa || root_pa >= (1ull << 32) || root->length < sizeof(*root) ||
	    !checksum_ok(root, root->length))
		return NULL;
	unsigned n = (root->length - sizeof(*root)) / (xsdt ? 8 : 4);
	const uint8_t *entries = (const uint8_t *)(root + 1);
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = 0;
		memcpy(&a, entries + (xsdt ? 8 : 4) * i, xsdt ? 8 : 4);
		const struct sdt *t = (const void *)a;
		/* The caller reads length bytes: keep them inside the identity map. */
		if (!a || a >= (1ull << 32) || memcmp(t->sig, sig, 4) || t->length > (1u << 20) ||
		    a + t->length > (1ull << 32))
			continue;
		*len = t->length;
		return t;
	}
	return NULL;
}
