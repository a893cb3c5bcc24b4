/* The ACPI table generator of acpi_gen.h. */
#include "test/unit/acpi_gen.h"
#include "test/unit/acpi_mem.h"
#include <string.h>

struct out {
	uint8_t *mem;
	size_t cap, at;
	uint64_t rng;
};

static uint32_t rnd(struct out *o)
{
	o->rng = o->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(o->rng >> 33);
}

static uint32_t pick(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (uint32_t)(*s >> 33) % n : 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32));
}

/* A table header at the next 16-byte boundary; returns its offset. */
static size_t begin(struct out *o, const char *sig, uint8_t rev)
{
	o->at = (o->at + 15) & ~(size_t)15;
	size_t t = o->at;
	memcpy(o->mem + t, sig, 4);
	o->mem[t + 8] = rev;
	memcpy(o->mem + t + 10, "SLIVER", 6);
	memcpy(o->mem + t + 16, "GENERATD", 8);
	o->at += ACPI_HEADER_LEN;
	return t;
}

static void end(struct out *o, size_t t)
{
	put32(o->mem + t + 4, (uint32_t)(o->at - t));
	acpi_mem_checksum(o->mem + t, o->at - t, 9);
}

static void bytes(struct out *o, const void *p, size_t n)
{
	memcpy(o->mem + o->at, p, n);
	o->at += n;
}

static void byte(struct out *o, uint8_t b)
{
	o->mem[o->at++] = b;
}

static void gas(uint8_t *p, uint8_t space, uint8_t width, uint8_t access, uint64_t addr)
{
	p[0] = space, p[1] = width, p[2] = 0, p[3] = access;
	put64(p + 4, addr);
}

/* --- MADT --- */

static void lapic(struct out *o, uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t e[8] = {0, 8, uid, id};
	put32(e + 4, flags);
	bytes(o, e, 8);
}

static void x2apic(struct out *o, uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t e[16] = {9, 16};
	put32(e + 4, id), put32(e + 8, flags), put32(e + 12, uid);
	bytes(o, e, 16);
}

static void add_truth_cpu(struct acpi_gen_truth *t, uint32_t id)
{
	for (unsigned i = 0; i < t->ncpus; i++)
		if (t->ids[i] == id)
			return;
	if (t->ncpus < ACPI_MAX_CPUS)
		t->ids[t->ncpus++] = id;
	else if (t->beyond++ < ACPI_BEYOND_IDS)
		t->beyond_ids[t->beyond - 1] = id;
}

static size_t madt(struct out *o, const struct acpi_gen_cfg *c, struct acpi_gen_truth *t,
		   bool record)
{
	size_t m = begin(o, "APIC", c->x2apic ? 4 : 3);
	uint8_t f[8];
	put32(f, 0xfee00000), put32(f + 4, 1); /* PC-AT compatible */
	bytes(o, f, 8);
	/* APIC IDs as real packages number them: threads of a core adjacent, with holes. */
	uint32_t stride = 1 + pick(&o->rng, 2);
	for (unsigned i = 0; i < c->ncpus; i++) {
		uint32_t id = i * stride + (i >= 64 ? 64 : 0);
		if (c->x2apic || id >= 255)
			x2apic(o, id, 1, i);
		if ((!c->x2apic || c->dup_x2apic) && id < 255)
			lapic(o, (uint8_t)i, (uint8_t)id, 1);
		if (record)
			add_truth_cpu(t, id);
		if (!(rnd(o) % 17)) /* a disabled or online-capable entry in between */
			lapic(o, (uint8_t)(200 + i % 50), (uint8_t)(0xf0 + i % 8),
			      rnd(o) % 2 ? 0 : 2);
	}
	static const uint32_t bases[GEN_MAX_IOAPICS] = {0, 24, 32, 56, 88};
	for (unsigned k = 0; k < c->nioapics; k++) {
		uint8_t e[12] = {1, 12, (uint8_t)(c->ncpus + k)};
		uint64_t addr = 0xfec00000u + 0x1000u * k;
		put32(e + 4, (uint32_t)addr), put32(e + 8, bases[k]);
		bytes(o, e, 12);
		if (record) {
			t->gsi_base[k] = bases[k];
			t->ioapic_base[k] = addr;
		}
	}
	if (record) {
		t->nioapics = c->nioapics;
		for (unsigned i = 0; i < 16; i++)
			t->isa_gsi[i] = i, t->isa_flags[i] = 0;
	}
	static const uint8_t iso0[10] = {2, 10, 0, 0, 2, 0, 0, 0, 0, 0};
	static const uint8_t iso9[10] = {2, 10, 0, 9, 9, 0, 0, 0, 0x0d, 0};
	bytes(o, iso0, 10);
	bytes(o, iso9, 10);
	if (record) {
		t->isa_gsi[0] = 2;
		t->isa_gsi[9] = 9, t->isa_flags[9] = 0x0d;
	}
	static const uint8_t nmi[6] = {4, 6, 0xff, 5, 0, 1}; /* LAPIC NMI, all processors */
	bytes(o, nmi, 6);
	end(o, m);
	return m;
}

/* --- AML --- */

/* Filler that cannot spell a name of ours: upper-case letters and digits only. */
static void filler(struct out *o, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		byte(o, (uint8_t)(rnd(o) % 2 ? 'A' + rnd(o) % 26 : '0' + rnd(o) % 10));
}

static void aml_int(struct out *o, uint64_t v, unsigned form)
{
	if (form == 0 && v <= 1) {
		byte(o, (uint8_t)v); /* ZeroOp / OneOp */
	} else if (form <= 1 && v <= 0xff) {
		byte(o, 0x0a), byte(o, (uint8_t)v);
	} else if (form == 2 && v <= 0xffff) {
		uint8_t b[3] = {0x0b};
		put16(b + 1, (uint16_t)v);
		bytes(o, b, 3);
	} else {
		uint8_t b[5] = {0x0c};
		put32(b + 1, (uint32_t)v);
		bytes(o, b, 5);
	}
}

/* PkgLength of `len` bytes of contents plus itself, in `nbytes` bytes (1-4). */
static void pkglen_at(uint8_t *p, size_t len, unsigned nbytes)
{
	size_t total = len + nbytes;
	if (nbytes == 1) {
		p[0] = (uint8_t)total;
		return;
	}
	p[0] = (uint8_t)((nbytes - 1) << 6 | (total & 0x0f));
	for (unsigned i = 1; i < nbytes; i++)
		p[i] = (uint8_t)(total >> (4 + 8 * (i - 1)));
}

/* Encodings (s5_enc % 8): 0 `Package(4){a, b, 0, 0}` with Zero/One where they fit; 1 all
 * BytePrefix; 2 WordPrefix; 3 DWordPrefix; 4 a single element a | b << 8; 5 VarPackage;
 * 6 `Name(\_S5, ...)` with the root prefix and a 2-byte PkgLength; 7 inside
 * `If (One) {...}` after a decoy `_S5W`. */
static void s5_name(struct out *o, unsigned enc, uint8_t a, uint8_t b)
{
	uint8_t body[64];
	struct out pk = {body, sizeof body, 0, o->rng};
	unsigned form = enc == 0 ? 0 : enc == 1 ? 1 : enc == 2 ? 2 : enc == 3 ? 3 : 1;
	unsigned count = enc == 4 ? 1 : 4;
	if (enc == 5) {
		aml_int(&pk, count, 1);
	} else {
		byte(&pk, (uint8_t)count);
	}
	if (enc == 4) {
		aml_int(&pk, (uint64_t)a | (uint64_t)b << 8, 2);
	} else {
		aml_int(&pk, a, form);
		aml_int(&pk, b, form);
		aml_int(&pk, 0, form);
		aml_int(&pk, 0, form);
	}
	unsigned nb = enc == 6 ? 2 : 1;
	if (enc == 7) { /* If (One) { Name (_S5W, Zero)  Name (_S5, ...) } */
		uint8_t inner[96];
		struct out in = {inner, sizeof inner, 0, 0};
		bytes(&in, "\x08_S5W\x00", 6);
		bytes(&in, "\x08_S5_\x12", 6);
		pkglen_at(inner + in.at, pk.at, 1);
		in.at++;
		bytes(&in, body, pk.at);
		byte(o, 0xa0); /* IfOp */
		pkglen_at(o->mem + o->at, 1 + in.at, 1);
		o->at++;
		byte(o, 0x01);
		bytes(o, inner, in.at);
		return;
	}
	byte(o, 0x08); /* NameOp */
	if (enc == 6)
		byte(o, '\\');
	bytes(o, "_S5_", 4);
	byte(o, enc == 5 ? 0x13 : 0x12);
	pkglen_at(o->mem + o->at, pk.at, nb);
	o->at += nb;
	bytes(o, body, pk.at);
}

static void s5_method(struct out *o)
{
	/* Method (_S5, 0) { Return (Package (2) {5, 5}) } */
	static const uint8_t m[] = {0x14, 0x0e, '_',  'S',  '5',  '_',	0x00, 0xa4,
				    0x12, 0x06, 0x02, 0x0a, 0x05, 0x0a, 0x05};
	bytes(o, m, sizeof m);
}

static size_t aml_table(struct out *o, const char *sig, bool s5, const struct acpi_gen_cfg *c)
{
	size_t t = begin(o, sig, 2);
	filler(o, 16 + rnd(o) % 400);
	if (s5 && c->s5_where == GEN_S5_METHOD)
		s5_method(o);
	else if (s5)
		s5_name(o, c->s5_enc % 8, c->slp_a, c->slp_b);
	filler(o, rnd(o) % 200);
	end(o, t);
	return t;
}

/* --- FADT --- */

static size_t fadt(struct out *o, const struct acpi_gen_cfg *c, size_t dsdt,
		   struct acpi_gen_truth *t)
{
	static const unsigned lens[GEN_FADT_KINDS] = {116, 244, 244, 276, 276, 268, 0};
	unsigned k = c->fadt, n = lens[k];
	size_t f = begin(o, "FACP", k == GEN_FADT_V1 ? 1 : k >= GEN_FADT_X_MEM ? 6 : 4);
	uint8_t *p = o->mem + f;
	o->at = f + n;
	bool hwr = k == GEN_FADT_HWR || k == GEN_FADT_HWR_NOSLEEP;
	bool x = k != GEN_FADT_V1;
	uint64_t pm1a = 0x404 + 0x400 * (c->seed % 4), pm1b = c->seed % 5 == 0 ? 0x4404 : 0;
	put32(p + 40, (k == GEN_FADT_X_ONLY || k == GEN_FADT_X_MEM) ? 0 : (uint32_t)dsdt);
	if (x)
		put64(p + 140, dsdt);
	uint32_t flags = 0;
	if (!hwr) {
		put32(p + 48, 0xb2), p[52] = 0xf0;
		p[89] = 2, p[91] = 4;
		put32(p + 76, (uint32_t)pm1a + 4);
		if (k == GEN_FADT_V1 || k == GEN_FADT_BOTH) {
			put32(p + 64, (uint32_t)pm1a);
			put32(p + 68, (uint32_t)pm1b);
		}
		if (k == GEN_FADT_BOTH || k == GEN_FADT_X_ONLY) {
			gas(p + 172, ACPI_GAS_IO, 16, 2, pm1a);
			gas(p + 184, ACPI_GAS_IO, 16, 2, pm1b);
			gas(p + 208, ACPI_GAS_IO, 32, 3, pm1a + 4);
		}
		if (k == GEN_FADT_X_MEM) {
			pm1a = 0xfed80804, pm1b = 0;
			gas(p + 172, ACPI_GAS_MEMORY, 16, 2, pm1a);
		}
		put16(p + 109, 3); /* legacy devices, 8042 */
		t->off_plan = ACPI_OFF_PM1;
		t->off_reg = (struct acpi_gas){k == GEN_FADT_X_MEM ? ACPI_GAS_MEMORY : ACPI_GAS_IO,
					       16, 0, 2, pm1a};
		t->pm1b = pm1b;
	} else {
		flags |= ACPI_FADT_HW_REDUCED;
		if (k == GEN_FADT_HWR) {
			uint8_t sp = c->seed % 2 ? ACPI_GAS_IO : ACPI_GAS_MEMORY;
			uint64_t a = sp == ACPI_GAS_IO ? 0x1804 : 0xfe000404;
			gas(p + 244, sp, 8, 1, a);
			gas(p + 256, sp, 8, 1, a + 1);
			t->off_plan = ACPI_OFF_SLEEP_REG;
			t->off_reg = (struct acpi_gas){sp, 8, 0, 1, a};
		}
	}
	/* The reset register (needs the 2.0+ layout). */
	unsigned r = k == GEN_FADT_V1 ? GEN_RST_NONE : c->reset;
	if (r == GEN_RST_IO || r == GEN_RST_UNFLAGGED)
		gas(p + 116, ACPI_GAS_IO, 8, 1, 0xcf9), p[128] = 6;
	else if (r == GEN_RST_MEM)
		gas(p + 116, ACPI_GAS_MEMORY, 8, 1, 0xfed03000), p[128] = 0x0e;
	else if (r == GEN_RST_PCI)
		gas(p + 116, ACPI_GAS_PCI, 8, 1, (uint64_t)0x1f << 32 | 0x0000ac), p[128] = 2;
	if (r != GEN_RST_NONE && r != GEN_RST_UNFLAGGED)
		flags |= ACPI_FADT_RESET_REG_SUP;
	if (r != GEN_RST_NONE) {
		const uint8_t *g = p + 116;
		t->reset_reg = (struct acpi_gas){g[0], g[1], g[2], g[3], 0};
		for (int i = 7; i >= 0; i--)
			t->reset_reg.addr = t->reset_reg.addr << 8 | g[4 + i];
		t->reset_value = p[128];
	}
	if (r != GEN_RST_NONE && (r != GEN_RST_UNFLAGGED || hwr))
		t->reset_plan = ACPI_RESET_FADT;
	else
		t->reset_plan = hwr ? ACPI_RESET_NONE : ACPI_RESET_CF9;
	put32(p + 112, flags);
	end(o, f);
	return f;
}

/* --- SPCR --- */

static size_t spcr(struct out *o, unsigned kind, struct acpi_gen_truth *t)
{
	size_t s = begin(o, "SPCR", 2);
	uint8_t *p = o->mem + s;
	o->at = s + 80;
	p[36] = 0; /* 16550 */
	uint64_t base = kind == 1 ? 0x3f8 : 0x4010000000ull;
	gas(p + 40, kind == 1 ? ACPI_GAS_IO : ACPI_GAS_MEMORY, 8, kind == 1 ? 1 : 3, base);
	p[52] = 1, p[53] = 4;
	p[58] = 7; /* 115200 */
	put16(p + 64, 0xffff), put16(p + 66, 0xffff);
	end(o, s);
	t->spcr = true, t->spcr_mmio = kind != 1, t->spcr_base = base;
	return s;
}

void acpi_gen_random_cfg(uint64_t seed, struct acpi_gen_cfg *c)
{
	uint64_t s = seed * 2654435761u + 1;
	memset(c, 0, sizeof *c);
	c->seed = seed;
	c->xsdt = pick(&s, 8) != 0;
	static const unsigned cpus[] = {1,  2,	4,  4,	8,  8,	 12,  16, 16,
					24, 32, 64, 80, 96, 128, 255, 300};
	c->ncpus = cpus[pick(&s, sizeof cpus / sizeof cpus[0])];
	c->x2apic = c->ncpus > 200 || pick(&s, 5) == 0;
	c->dup_x2apic = c->x2apic && pick(&s, 3) == 0;
	/* 1 IOAPIC on most, 2 on about a quarter, 3-5 on a few (as in the dumps). */
	unsigned io = pick(&s, 20);
	c->nioapics = io < 13 ? 1 : io < 18 ? 2 : 3 + io % 3;
	unsigned f = pick(&s, 40);
	c->fadt = f < 4	   ? GEN_FADT_V1
		  : f < 28 ? GEN_FADT_BOTH
		  : f < 33 ? GEN_FADT_X_ONLY
		  : f < 35 ? GEN_FADT_X_MEM
		  : f < 38 ? GEN_FADT_HWR
		  : f < 39 ? GEN_FADT_HWR_NOSLEEP
			   : GEN_FADT_NONE;
	unsigned w = pick(&s, 40);
	c->s5_where = w < 36   ? GEN_S5_DSDT
		      : w < 38 ? GEN_S5_SSDT
		      : w < 39 ? GEN_S5_NONE
			       : GEN_S5_METHOD;
	c->s5_enc = pick(&s, 8);
	unsigned r = pick(&s, 10);
	c->reset = r < 1   ? GEN_RST_NONE
		   : r < 7 ? GEN_RST_IO
		   : r < 8 ? GEN_RST_MEM
		   : r < 9 ? GEN_RST_PCI
			   : GEN_RST_UNFLAGGED;
	c->nssdt = pick(&s, 12);
	c->spcr = pick(&s, 4) == 0 ? 1 + pick(&s, 2) : 0;
	c->two_madts = pick(&s, 30) == 0;
	c->slp_a = (uint8_t)pick(&s, 8);
	c->slp_b = (uint8_t)pick(&s, 8);
}

size_t acpi_gen_machine(uint8_t *mem, size_t cap, const struct acpi_gen_cfg *c,
			struct acpi_gen_truth *t)
{
	memset(mem, 0, cap);
	memset(t, 0, sizeof *t);
	struct out o = {mem, cap, 64, c->seed ^ 0x9e3779b97f4a7c15ull};
	size_t list[64];
	unsigned n = 0;
	size_t madt_first = madt(&o, c, t, true);
	list[n++] = madt_first;
	if (c->two_madts) {
		struct acpi_gen_cfg other = *c;
		other.ncpus = 1, other.nioapics = 1;
		list[n++] = madt(&o, &other, t, false); /* only the first counts */
	}
	bool s5_dsdt = c->s5_where == GEN_S5_DSDT || c->s5_where == GEN_S5_METHOD;
	size_t dsdt = aml_table(&o, "DSDT", s5_dsdt, c);
	if (c->fadt != GEN_FADT_NONE)
		list[n++] = fadt(&o, c, dsdt, t);
	unsigned s5_ssdt = c->s5_where == GEN_S5_SSDT ? (unsigned)(c->seed % (c->nssdt + 1)) : ~0u;
	for (unsigned i = 0; i <= c->nssdt && n < 60; i++)
		list[n++] = aml_table(&o, "SSDT", i == s5_ssdt, c);
	if (c->spcr)
		list[n++] = spcr(&o, c->spcr, t);
	/* What the parser must conclude about \_S5 and power-off. */
	/* (the DSDT is reached through the FADT; SSDTs through the root table) */
	t->have_s5 = (c->fadt != GEN_FADT_NONE && c->s5_where == GEN_S5_DSDT) ||
		     c->s5_where == GEN_S5_SSDT;
	if (t->have_s5) {
		t->s5_from = c->s5_where == GEN_S5_DSDT ? ACPI_S5_DSDT : ACPI_S5_SSDT;
		t->slp_a = c->slp_a, t->slp_b = c->slp_b;
	} else if (c->fadt != GEN_FADT_NONE && c->s5_where == GEN_S5_METHOD) {
		t->s5_from = ACPI_S5_METHOD;
	}
	if (!t->have_s5)
		t->off_plan = ACPI_OFF_NONE;
	if (c->fadt == GEN_FADT_NONE)
		t->reset_plan = ACPI_RESET_CF9, t->off_plan = ACPI_OFF_NONE;
	/* The root table lists them in a shuffled order (the first MADT stays first of the
	 * MADTs, as firmware lists the one it means first). */
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = rnd(&o) % (i + 1);
		size_t x = list[i];
		list[i] = list[j], list[j] = x;
	}
	if (c->two_madts) { /* the recorded MADT (list[] held it first) before the other */
		unsigned first = n, second = n;
		for (unsigned i = 0; i < n; i++)
			if (list[i] == madt_first)
				first = i;
			else if (!memcmp(mem + list[i], "APIC", 4))
				second = i;
		if (second < first) {
			size_t x = list[first];
			list[first] = list[second], list[second] = x;
		}
	}
	size_t root = begin(&o, c->xsdt ? "XSDT" : "RSDT", 1);
	for (unsigned i = 0; i < n; i++) {
		if (c->xsdt)
			put64(mem + o.at, list[i]), o.at += 8;
		else
			put32(mem + o.at, (uint32_t)list[i]), o.at += 4;
	}
	end(&o, root);
	memcpy(mem, "RSD PTR ", 8);
	memcpy(mem + 9, "SLIVER", 6);
	mem[15] = c->xsdt ? 2 : 0;
	put32(mem + 16, c->xsdt ? 0 : (uint32_t)root);
	put32(mem + 20, 36);
	put64(mem + 24, c->xsdt ? root : 0);
	acpi_mem_checksum(mem, 20, 8);
	acpi_mem_checksum(mem, 36, 32);
	return o.at;
}
