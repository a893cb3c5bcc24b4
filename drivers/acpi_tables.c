/* ACPI table parsing: see acpi_tables.h. Every multi-byte field is read with memcpy (ACPI
 * tables are byte-packed), after checking that it lies inside the table's length. */
#include "drivers/acpi_tables.h"
#include "lib/le.h"
#include "lib/string.h"

static bool sums_to_zero(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum == 0;
}

bool acpi_parse_rsdp(const uint8_t *p, size_t len, uint64_t *root, bool *xsdt)
{
	if (len < ACPI_RSDP_V1_LEN || memcmp(p, "RSD PTR ", 8) ||
	    !sums_to_zero(p, ACPI_RSDP_V1_LEN))
		return false;
	uint8_t revision = p[15];
	uint64_t x = len >= ACPI_RSDP_V2_LEN ? le64(p + 24) : 0;
	if (revision >= 2 && x && sums_to_zero(p, ACPI_RSDP_V2_LEN)) {
		*root = x;
		*xsdt = true;
		return true;
	}
	*root = le32(p + 16);
	*xsdt = false;
	return *root != 0;
}

long acpi_find_rsdp(const uint8_t *p, size_t len)
{
	uint64_t root;
	bool xsdt;
	for (size_t off = 0; off < len && len - off >= ACPI_RSDP_V1_LEN; off += 16)
		if (acpi_parse_rsdp(p + off, len - off, &root, &xsdt))
			return (long)off;
	return -1;
}

uint32_t acpi_table_length(const uint8_t *p, size_t len)
{
	if (len < ACPI_HEADER_LEN)
		return 0;
	uint32_t n = le32(p + 4);
	return n >= ACPI_HEADER_LEN && n <= ACPI_TABLE_MAX ? n : 0;
}

bool acpi_table_ok(const uint8_t *p, size_t len)
{
	uint32_t n = acpi_table_length(p, len);
	return n && n <= len && sums_to_zero(p, n);
}

unsigned acpi_root_count(const uint8_t *p, size_t len, bool xsdt)
{
	uint32_t n = acpi_table_length(p, len);
	if (!n || n > len)
		return 0;
	return (n - ACPI_HEADER_LEN) / (xsdt ? 8 : 4);
}

uint64_t acpi_root_entry(const uint8_t *p, size_t len, bool xsdt, unsigned i)
{
	if (i >= acpi_root_count(p, len, xsdt))
		return 0;
	const uint8_t *e = p + ACPI_HEADER_LEN;
	return xsdt ? le64(e + 8 * (size_t)i) : le32(e + 4 * (size_t)i);
}

/* MADT entry types and the length of the layout each is read with (5.2.12.2-5.2.12.12). */
enum {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_ISO = 2,
	MADT_LAPIC_OVERRIDE = 5,
	MADT_X2APIC = 9,
};

static unsigned madt_entry_min(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC:
		return 8;
	case MADT_IOAPIC:
		return 12;
	case MADT_ISO:
		return 10;
	case MADT_LAPIC_OVERRIDE:
		return 12;
	case MADT_X2APIC:
		return 16;
	default:
		return 2;
	}
}

/* The enabled CPU with APIC ID `id` of a LAPIC or x2APIC entry in [ACPI_MADT_ENTRIES, end). */
static bool listed_before(const uint8_t *p, size_t end, uint32_t id)
{
	for (size_t off = ACPI_MADT_ENTRIES; end - off >= 2;) {
		const uint8_t *e = p + off;
		if (e[1] < 2 || e[1] > end - off)
			break;
		off += e[1];
		if (e[0] == MADT_LAPIC && e[1] >= 8 && (le32(e + 4) & 1) && e[3] == id)
			return true;
		if (e[0] == MADT_X2APIC && e[1] >= 16 && (le32(e + 8) & 1) && le32(e + 4) == id)
			return true;
	}
	return false;
}

/* flags bit 0: enabled; bit 1: online-capable (may be enabled later: skip). Firmware may
 * list a CPU twice (a LAPIC and an x2APIC entry): each APIC ID counts once, also past
 * ACPI_MAX_CPUS, where the table itself is searched (p, up to the entry at `at`). */
static void add_cpu(struct acpi_info *ai, uint32_t id, uint32_t flags, const uint8_t *p, size_t at)
{
	if (!(flags & 1))
		return;
	for (unsigned i = 0; i < ai->nr_cpus; i++)
		if (ai->apic_ids[i] == id)
			return;
	if (ai->nr_cpus < ACPI_MAX_CPUS)
		ai->apic_ids[ai->nr_cpus++] = id;
	else if (!listed_before(p, at, id) && ai->cpus_beyond++ < ACPI_BEYOND_IDS)
		ai->beyond_ids[ai->cpus_beyond - 1] = id; /* named, not dropped (main.c) */
}

static void add_ioapic(struct acpi_info *ai, const uint8_t *e)
{
	struct acpi_ioapic io = {e[2], le32(e + 8), le32(e + 4)};
	if (io.gsi_base == 0 && !ai->ioapic_base)
		ai->ioapic_base = io.base;
	if (ai->nr_ioapics < ACPI_MAX_IOAPICS)
		ai->ioapics[ai->nr_ioapics++] = io;
	else
		ai->ioapics_beyond++;
}

bool acpi_parse_madt(struct acpi_info *ai, const uint8_t *p, size_t len)
{
	uint32_t n = acpi_table_length(p, len);
	if (n < ACPI_MADT_ENTRIES || n > len)
		return false;
	for (unsigned i = 0; i < 16; i++)
		ai->isa_gsi[i] = i; /* identity unless overridden */
	ai->lapic_base = le32(p + 36);
	for (size_t off = ACPI_MADT_ENTRIES; n - off >= 2;) {
		const uint8_t *e = p + off;
		uint8_t type = e[0], elen = e[1];
		if (elen < 2 || elen > n - off)
			break; /* would not advance, or runs past the table */
		off += elen;
		if (elen < madt_entry_min(type))
			continue;
		if (type == MADT_LAPIC)
			add_cpu(ai, e[3], le32(e + 4), p, off - elen);
		else if (type == MADT_X2APIC)
			add_cpu(ai, le32(e + 4), le32(e + 8), p, off - elen);
		else if (type == MADT_LAPIC_OVERRIDE)
			ai->lapic_base = le64(e + 4);
		else if (type == MADT_IOAPIC)
			add_ioapic(ai, e);
		else if (type == MADT_ISO && e[2] == 0 && e[3] < 16) { /* bus 0 is ISA */
			ai->isa_gsi[e[3]] = le32(e + 4);
			ai->isa_flags[e[3]] = le16(e + 8);
		}
	}
	return true;
}

/* Maps a whole table: its header first, to learn the length, then all of it. */
static const uint8_t *map_table(acpi_map_fn map, void *ctx, uint64_t pa, size_t *len)
{
	const uint8_t *h = pa ? map(pa, ACPI_HEADER_LEN, ctx) : NULL;
	uint32_t n = h ? acpi_table_length(h, ACPI_HEADER_LEN) : 0;
	const uint8_t *t = n ? map(pa, n, ctx) : NULL;
	if (!t || !acpi_table_ok(t, n))
		return NULL;
	*len = n;
	return t;
}

const char *acpi_walk(struct acpi_info *ai, struct acpi_power *pw, const uint8_t *rsdp,
		      size_t rsdp_len, acpi_map_fn map, void *ctx)
{
	memset(ai, 0, sizeof(*ai));
	memset(pw, 0, sizeof(*pw));
	uint64_t root_pa;
	bool xsdt;
	if (!acpi_parse_rsdp(rsdp, rsdp_len, &root_pa, &xsdt))
		return "bad RSDP";
	size_t rlen;
	const uint8_t *root = map_table(map, ctx, root_pa, &rlen);
	if (!root || memcmp(root, xsdt ? "XSDT" : "RSDT", 4))
		return xsdt ? "bad XSDT" : "bad RSDT";
	bool have_madt = false, ssdt_s5 = false, method = false;
	struct acpi_power s5 = {0}; /* \_S5 from the first SSDT that has it */
	unsigned count = acpi_root_count(root, rlen, xsdt);
	for (unsigned i = 0; i < count; i++) {
		size_t tlen;
		const uint8_t *t = map_table(map, ctx, acpi_root_entry(root, rlen, xsdt, i), &tlen);
		if (!t)
			continue;
		if (!memcmp(t, "APIC", 4) && !have_madt) /* the first one (some list two) */
			have_madt = acpi_parse_madt(ai, t, tlen);
		else if (!memcmp(t, "SSDT", 4) && !ssdt_s5)
			ssdt_s5 = acpi_find_s5_ex(&s5, t, tlen, &method);
		else if (!memcmp(t, "FACP", 4) && !pw->have_fadt && acpi_parse_fadt(pw, t, tlen)) {
			/* The DSDT is not checksum-checked: firmware gets it wrong and S5 is
			 * found by pattern; its length is still checked against the map. */
			const uint8_t *h = pw->dsdt ? map(pw->dsdt, ACPI_HEADER_LEN, ctx) : NULL;
			uint32_t n = h ? acpi_table_length(h, ACPI_HEADER_LEN) : 0;
			const uint8_t *d = n ? map(pw->dsdt, n, ctx) : NULL;
			if (d && !memcmp(d, "DSDT", 4) && acpi_find_s5_ex(pw, d, n, &method)) {
				ai->have_s5 = true;
				pw->s5_from = ACPI_S5_DSDT;
			}
		}
	}
	if (!ai->have_s5 && ssdt_s5) {
		ai->have_s5 = true;
		pw->slp_typ_a = s5.slp_typ_a;
		pw->slp_typ_b = s5.slp_typ_b;
		pw->s5_from = ACPI_S5_SSDT;
	} else if (!ai->have_s5 && method) {
		pw->s5_from = ACPI_S5_METHOD;
	}
	if (!have_madt)
		return "no MADT";
	if (!ai->nr_cpus)
		return "no enabled CPU in the MADT";
	return NULL;
}

const uint8_t *acpi_lookup(const uint8_t *rsdp, size_t rsdp_len, const char sig[4], acpi_map_fn map,
			   void *ctx, size_t *len)
{
	uint64_t root_pa;
	bool xsdt;
	size_t rlen, tlen;
	if (!acpi_parse_rsdp(rsdp, rsdp_len, &root_pa, &xsdt))
		return NULL;
	const uint8_t *root = map_table(map, ctx, root_pa, &rlen);
	if (!root || memcmp(root, xsdt ? "XSDT" : "RSDT", 4))
		return NULL;
	unsigned count = acpi_root_count(root, rlen, xsdt);
	for (unsigned i = 0; i < count; i++) {
		const uint8_t *t = map_table(map, ctx, acpi_root_entry(root, rlen, xsdt, i), &tlen);
		if (t && !memcmp(t, sig, 4)) {
			*len = tlen;
			return t;
		}
	}
	return NULL;
}

int acpi_ioapic_for_gsi(const struct acpi_info *ai, uint32_t gsi)
{
	int best = -1;
	for (unsigned i = 0; i < ai->nr_ioapics; i++)
		if (ai->ioapics[i].gsi_base <= gsi &&
		    (best < 0 || ai->ioapics[i].gsi_base > ai->ioapics[best].gsi_base))
			best = (int)i;
	return best;
}
