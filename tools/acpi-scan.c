/* acpi-scan: sliver's own ACPI parsers (drivers/acpi_tables.c, acpi_fadt.c, spcr.c) run on
 * a machine's tables as `acpidump` prints them (the hex dump: `SIG @ 0xADDR` then
 * `  OFFS: xx xx ...` lines), one dump per argument. The tables are laid out in a private
 * memory behind a made-up RSDP and XSDT (dumps taken from sysfs carry no addresses), the
 * FADT pointed at the DSDT, and acpi_walk runs over it, as at boot. One line per dump:
 *   <file> cpus=N beyond=N ids=a,b,.. ioapics=N gsi=b0,b1,.. iso=irq:gsi:flags,..
 *   s5=<DSDT|SSDT|method|none>:a/b off=<PM1|SLEEP|none> reset=<FADT|CF9|KBC|none>
 *   pm1a=<space>:<addr> sleep=<space>:<addr> rst=<space>:<addr>:<value> hwr=0|1
 *   spcr=<none|io:addr|mem:addr|bad> why=<reason power-off or reset cannot work>
 * Built by `make build/acpi-scan`; docs/metal.md says how to use it on a box's dump. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/acpi_tables.h"
#include "drivers/spcr.h"
#include "test/unit/acpi_mem.h"

#define MEM_MAX	   (16u << 20)
#define MAX_TABLES 256

static unsigned get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Reads the dump's tables one after another into m (from offset 4096, 16-byte aligned);
 * returns how many, their offsets in off[]. */
static unsigned read_dump(FILE *f, struct acpi_mem *m, size_t *off)
{
	char line[512];
	unsigned n = 0;
	size_t at = 4096;
	bool in = false;
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, " @ 0x") && line[0] != ' ') {
			if (n == MAX_TABLES)
				break;
			at = (at + 15) & ~(size_t)15;
			off[n++] = at;
			in = true;
			continue;
		}
		char *c = strchr(line, ':');
		if (!in || !c || line[0] != ' ')
			continue;
		for (char *q = c + 1; at < m->len;) {
			while (*q == ' ')
				q++;
			unsigned v;
			int used;
			if (q[0] == ' ' || sscanf(q, "%2x%n", &v, &used) != 1 || used != 2 ||
			    (q[2] != ' ' && q[2] != '\n' && q[2] != '\r'))
				break;
			m->p[at++] = (uint8_t)v;
			q += 2;
			if (q[0] == ' ' && q[1] == ' ')
				break; /* the ASCII column follows */
		}
	}
	return n;
}

static const char *space(uint8_t s)
{
	return s == ACPI_GAS_IO	      ? "io"
	       : s == ACPI_GAS_MEMORY ? "mem"
	       : s == ACPI_GAS_PCI    ? "pci"
				      : "other";
}

static void scan(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("%s error=cannot-open\n", path);
		return;
	}
	static size_t off[MAX_TABLES];
	struct acpi_mem m = {calloc(1, MEM_MAX), MEM_MAX};
	unsigned n = read_dump(f, &m, off);
	fclose(f);
	/* RSDP at 0 and the XSDT at 64 list every table but the DSDT and FACS; the FADT's
	 * DSDT and X_DSDT fields point at the dump's (first) DSDT. */
	size_t dsdt = 0, spcr = 0;
	uint8_t *x = m.p + 64;
	unsigned nx = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *t = m.p + off[i];
		if (!memcmp(t, "DSDT", 4) && !dsdt)
			dsdt = off[i];
		else if (memcmp(t, "FACS", 4) && memcmp(t, "DSDT", 4) &&
			 64 + 36 + 8 * (nx + 1) < 4096)
			put64(x + 36 + 8 * nx++, off[i]);
		if (!memcmp(t, "SPCR", 4) && !spcr)
			spcr = off[i];
	}
	for (unsigned i = 0; i < n; i++) {
		uint8_t *t = m.p + off[i];
		unsigned len = get32(t + 4);
		if (!memcmp(t, "FACP", 4) && len >= 44 && off[i] + len <= m.len) {
			put32(t + 40, (uint32_t)dsdt);
			if (len >= 148)
				put64(t + 140, dsdt);
			acpi_mem_checksum(t, len, 9);
		}
	}
	memcpy(x, "XSDT", 4);
	put32(x + 4, 36 + 8 * nx);
	x[8] = 1;
	acpi_mem_checksum(x, 36 + 8 * nx, 9);
	memcpy(m.p, "RSD PTR ", 8);
	m.p[15] = 2;
	put32(m.p + 20, 36);
	put64(m.p + 24, 64);
	acpi_mem_checksum(m.p, 20, 8);
	acpi_mem_checksum(m.p, 36, 32);

	struct acpi_info ai;
	struct acpi_power pw;
	const char *err = acpi_walk(&ai, &pw, m.p, 36, acpi_mem_map, &m);
	printf("%s tables=%u err=%s cpus=%u beyond=%u ids=", path, n, err ? "yes" : "no",
	       ai.nr_cpus, ai.cpus_beyond);
	for (unsigned i = 0; i < ai.nr_cpus; i++)
		printf("%s%u", i ? "," : "", ai.apic_ids[i]);
	printf(" ioapics=%u gsi=", ai.nr_ioapics + ai.ioapics_beyond);
	for (unsigned i = 0; i < ai.nr_ioapics; i++)
		printf("%s%u", i ? "," : "", ai.ioapics[i].gsi_base);
	printf(" iso=");
	bool first = true;
	for (unsigned i = 0; i < 16; i++)
		if (ai.isa_gsi[i] != i || ai.isa_flags[i]) {
			printf("%s%u:%u:%u", first ? "" : ",", i, ai.isa_gsi[i], ai.isa_flags[i]);
			first = false;
		}
	static const char *const from[] = {"none", "DSDT", "SSDT", "method"};
	static const char *const offs[] = {"none", "PM1", "SLEEP"};
	static const char *const rsts[] = {"none", "FADT", "CF9", "KBC"};
	const char *why_off = "", *why_rst = "";
	int o = acpi_poweroff_plan(&pw, ai.have_s5, &why_off);
	int r = acpi_reset_plan(&pw, &why_rst);
	printf(" s5=%s:%u/%u off=%s reset=%s pm1a=%s:0x%llx sleep=%s:0x%llx rst=%s:0x%llx:0x%x "
	       "hwr=%d",
	       from[ai.have_s5			   ? pw.s5_from
		    : pw.s5_from == ACPI_S5_METHOD ? 3
						   : 0],
	       pw.slp_typ_a, pw.slp_typ_b, offs[o], rsts[r], space(pw.pm1a_cnt.space),
	       (unsigned long long)pw.pm1a_cnt.addr, space(pw.sleep_ctl.space),
	       (unsigned long long)pw.sleep_ctl.addr, space(pw.reset.space),
	       (unsigned long long)pw.reset.addr, pw.reset_value,
	       !!(pw.flags & ACPI_FADT_HW_REDUCED));
	struct spcr_info si;
	if (!spcr)
		printf(" spcr=none");
	else if (spcr_parse(m.p + spcr, m.len - spcr, &si))
		printf(" spcr=bad");
	else
		printf(" spcr=%s:0x%llx", si.mmio ? "mem" : "io", (unsigned long long)si.base);
	printf(" why=%s|%s\n", o ? "" : why_off, r ? "" : why_rst);
	free(m.p);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: acpi-scan ACPIDUMP-FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		scan(argv[i]);
	return 0;
}
