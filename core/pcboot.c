/* The pure part of the minimal PC (core/pcboot.h): multiboot1 (Multiboot Specification
 * 0.6.96, sections 3.1 and 3.3) and the ACPI tables of a domain (ACPI 6.5, 5.2). Every
 * field of an image is untrusted: offsets and sizes are checked with overflow-safe
 * arithmetic before anything is read or written. */
#include "core/pcboot.h"
#include "core/loader.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/le.h"
#include "lib/string.h"

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fmt_snprintf(why, wl, __VA_ARGS__);                                                \
		return why;                                                                        \
	} while (0)

/* The module keys core/domain.c reads (docs/config.md, "Module lines"). */
static const char *const sliver_keys[] = {"name", "mem",     "vcpus",	  "weight",   "cap",
					  "pin",  "role",    "evt.allow", "lapic",    "boot",
					  "load", "restart", MB1_MOD_KEY, "initrd_of"};

bool pc_sliver_key(const char *w, size_t n)
{
	if (n >= 2 && w[0] == '"') /* GRUB's "key=value" */
		w++, n -= 2;
	for (size_t i = 0; i < sizeof sliver_keys / sizeof sliver_keys[0]; i++) {
		size_t k = strlen(sliver_keys[i]);
		if (n >= k && !memcmp(w, sliver_keys[i], k) && (n == k || w[k] == '='))
			return true;
	}
	return false;
}

bool pc_boot_parse(const char *s, enum pc_boot *b)
{
	if (!strcmp(s, "sliver"))
		*b = PC_BOOT_SLIVER;
	else if (!strcmp(s, "mb1"))
		*b = PC_BOOT_MB1;
	else if (!strcmp(s, "real"))
		*b = PC_BOOT_REAL;
	else if (!strcmp(s, "linux"))
		*b = PC_BOOT_LINUX;
	else
		return false;
	return true;
}

const char *mb1_find(const void *img, size_t len, struct mb1_header *h, char *why, size_t wl)
{
	const uint8_t *p = img;
	size_t end = len < MB1_SEARCH ? len : MB1_SEARCH;
	for (size_t off = 0; end >= 12 && off <= end - 12; off += 4) {
		if (le32(p + off) != MB1_HEADER_MAGIC)
			continue;
		uint32_t flags = le32(p + off + 4), sum = le32(p + off + 8);
		if (MB1_HEADER_MAGIC + flags + sum != 0)
			FAIL("multiboot1 header at 0x%zx: bad checksum", off);
		/* Bits 0-15 the loader must honour: 0 (align modules), 1 (memory info) are
		 * met; 2 (video mode) is not offered. */
		if (flags & 0xfffcu)
			FAIL("multiboot1 header asks for flags 0x%x sliver does not offer",
			     flags & 0xfffcu);
		memset(h, 0, sizeof *h);
		h->magic = MB1_HEADER_MAGIC, h->flags = flags, h->checksum = sum;
		h->offset = (uint32_t)off;
		if (flags & MB1_HDR_AOUT_KLUDGE) {
			if (off + 32 > len)
				FAIL("multiboot1 a.out header truncated");
			h->header_addr = le32(p + off + 12), h->load_addr = le32(p + off + 16);
			h->load_end_addr = le32(p + off + 20), h->bss_end_addr = le32(p + off + 24);
			h->entry_addr = le32(p + off + 28);
		}
		return NULL;
	}
	FAIL("no multiboot1 header in the first 8 KiB");
}

static const char *aout_load(const uint8_t *p, size_t len, const struct mb1_header *h, uint8_t *m,
			     uint64_t mem_size, uint32_t *entry, uint32_t *image_end, char *why,
			     size_t wl)
{
	/* 3.1.3: the file offset of load_addr is header offset - (header_addr - load_addr). */
	if (h->header_addr < h->load_addr || h->header_addr - h->load_addr > h->offset)
		FAIL("multiboot1 header_addr 0x%x below load_addr 0x%x or before the file",
		     h->header_addr, h->load_addr);
	uint64_t foff = h->offset - (h->header_addr - h->load_addr);
	uint64_t end = h->load_end_addr ? h->load_end_addr : h->load_addr + (len - foff);
	if (end < h->load_addr || end - h->load_addr > len - foff)
		FAIL("multiboot1 load_end_addr 0x%llx outside the file", (unsigned long long)end);
	uint64_t bss = h->bss_end_addr ? h->bss_end_addr : end;
	if (bss < end)
		FAIL("multiboot1 bss_end_addr below load_end_addr");
	bool low = h->load_addr >= PC_LOW_LOAD_MIN && bss <= PC_LOW_END;
	if (!low && (h->load_addr < PC_HIGH_MIN || bss > mem_size))
		FAIL("multiboot1 image at 0x%x-0x%llx outside guest memory [0x%x, 0x%x) and "
		     "[0x%x, 0x%llx)",
		     h->load_addr, (unsigned long long)bss, PC_LOW_LOAD_MIN, PC_LOW_END,
		     PC_HIGH_MIN, (unsigned long long)mem_size);
	if (h->entry_addr < h->load_addr || h->entry_addr >= bss)
		FAIL("multiboot1 entry 0x%x is not inside the image", h->entry_addr);
	if (m) {
		memcpy(m + h->load_addr, p + foff, end - h->load_addr);
		memset(m + end, 0, bss - end);
	}
	*entry = h->entry_addr;
	*image_end = (uint32_t)bss;
	return NULL;
}

static const char *load(const void *img, size_t len, void *mem, uint64_t mem_size, uint32_t *entry,
			uint32_t *image_end, char *why, size_t wl)
{
	struct mb1_header h;
	const char *err = mb1_find(img, len, &h, why, wl);
	if (err)
		return err;
	if (h.flags & MB1_HDR_AOUT_KLUDGE)
		return aout_load(img, len, &h, mem, mem_size, entry, image_end, why, wl);
	/* As QEMU's loader: segments in free low memory (below the information block) are
	 * taken too, e.g. kvm-unit-tests' realmode.flat, linked at 0x8000. */
	const struct elf_range ok[2] = {{PC_LOW_LOAD_MIN, PC_LOW_END}, {PC_HIGH_MIN, mem_size}};
	struct elf_image_info in;
	err = mem ? elf_load_ranges(img, len, mem, ok, 2, &in, why, wl)
		  : elf_check_ranges(img, len, ok, 2, &in, why, wl);
	if (err)
		return err;
	if (in.is64 || in.entry > UINT32_MAX)
		FAIL("multiboot1 needs a 32-bit ELF (or the a.out kludge)");
	*entry = (uint32_t)in.entry;
	*image_end = (uint32_t)in.hi; /* <= mem_size <= 4 GiB: elf_check */
	return NULL;
}

const char *mb1_load(const void *img, size_t len, void *mem, uint64_t mem_size, uint32_t *entry,
		     char *why, size_t wl)
{
	uint32_t end;
	return load(img, len, mem, mem_size, entry, &end, why, wl);
}

const char *mb1_image_end(const void *img, size_t len, uint64_t mem_size, uint32_t *end, char *why,
			  size_t wl)
{
	uint32_t entry;
	return load(img, len, NULL, mem_size, &entry, end, why, wl);
}

/* The bytes the command line of a module takes in the page, its NUL included. */
static size_t mod_cmdline_size(const char *cmdline)
{
	char out[1024];
	pc_guest_cmdline(cmdline, out, sizeof out);
	return strlen(out) + 1;
}

const char *mb1_mods_place(const struct mb1_mod *mods, unsigned n, uint32_t image_end, void *mem,
			   uint64_t mem_size, uint32_t *start, char *why, size_t wl)
{
	if (n > MB1_MAX_MODS)
		FAIL("%u multiboot1 modules (%s=): at most %u", n, MB1_MOD_KEY, MB1_MAX_MODS);
	/* After the image, and at or above 1 MiB (an image in low memory only). */
	uint64_t at = ((uint64_t)(image_end > PC_HIGH_MIN ? image_end : PC_HIGH_MIN) + 0xfff) &
		      ~0xfffull,
		 strings = 0;
	for (unsigned i = 0; i < n; i++) {
		/* Multiboot 3.3: mod_end is the first byte after the module; a module is at
		 * least one byte so that each has its own range. */
		if (mods[i].len == 0 || mods[i].len > mem_size || at > mem_size - mods[i].len)
			FAIL("multiboot1 module %u (%zu bytes) does not fit in guest memory at "
			     "0x%llx (mem 0x%llx)",
			     i + 1, mods[i].len, (unsigned long long)at,
			     (unsigned long long)mem_size);
		start[i] = (uint32_t)at;
		if (mem)
			memcpy((uint8_t *)mem + at, mods[i].data, mods[i].len);
		at = (at + mods[i].len + 0xfff) & ~0xfffull;
		strings += mod_cmdline_size(mods[i].cmdline);
	}
	if (strings > MB1_MOD_STRINGS)
		FAIL("multiboot1 modules' command lines take %llu bytes: at most %u",
		     (unsigned long long)strings, MB1_MOD_STRINGS);
	return NULL;
}

const char *real_load(const void *img, size_t len, void *mem, uint64_t mem_size, uint32_t at,
		      uint16_t *cs, uint16_t *ip, char *why, size_t wl)
{
	uint32_t magic = 0;
	uint64_t entry;
	if (len >= 4)
		memcpy(&magic, img, 4);
	if (magic == 0x464c457fu) { /* "\x7fELF" */
		struct elf_image_info in;
		const char *err =
			mem ? elf_load(img, len, mem, PC_LOW_LOAD_MIN, PC_LOW_END, &in, why, wl)
			    : elf_check(img, len, PC_LOW_LOAD_MIN, PC_LOW_END, &in, why, wl);
		if (err)
			return err;
		entry = in.entry;
	} else {
		if (len == 0)
			FAIL("boot=real image is empty");
		if (at < PC_LOW_LOAD_MIN || at >= PC_LOW_END || len > PC_LOW_END - at)
			FAIL("boot=real image of %zu bytes at 0x%x outside [0x%x, 0x%x)", len, at,
			     PC_LOW_LOAD_MIN, PC_LOW_END);
		if (mem)
			memcpy((uint8_t *)mem + at, img, len);
		entry = at;
	}
	(void)mem_size;
	/* CS:IP with IP < 16: any linear address below 1 MiB is reachable. */
	*cs = (uint16_t)(entry >> 4);
	*ip = (uint16_t)(entry & 0xf);
	return NULL;
}

static bool has(const char *w, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] == c)
			return true;
	return false;
}

void pc_mb1_cmdline(const char *argv0, const char *cmdline, char *out, size_t outlen)
{
	if (!outlen)
		return;
	size_t n;
	const char *w = cmdline_next(cmdline, &n);
	bool path = w && has(w, n, '/') && !has(w, n, '=');
	size_t a = path ? 0 : strnlen(argv0, outlen - 1);
	memcpy(out, argv0, a);
	bool sp = a && a + 1 < outlen;
	if (sp)
		out[a++] = ' ';
	pc_guest_cmdline(cmdline, out + a, outlen - a);
	if (sp && !out[a]) /* nothing after the name */
		out[a - 1] = 0;
}

void pc_guest_cmdline(const char *cmdline, char *out, size_t outlen)
{
	size_t o = 0, n;
	if (!outlen)
		return;
	for (const char *w = cmdline_next(cmdline, &n); w; w = cmdline_next(w + n, &n)) {
		if (pc_sliver_key(w, n))
			continue;
		if (o + (o > 0) + n >= outlen)
			break;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, w, n);
		o += n;
	}
	out[o] = 0;
}

static void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

uint32_t mb1_info_build(uint8_t *page, uint64_t mem_bytes, const char *cmdline,
			const struct mb1_mod *mods, const uint32_t *start, unsigned n)
{
	/* 3.3: flags 0, mem_lower 4, mem_upper 8, cmdline 16, mods_count 20, mods_addr 24,
	 * mmap_length 44, mmap_addr 48. The page: the block, the memory map at 0x80, the
	 * command line at 0x100, the module list at 0x500 (16 bytes each: mod_start, mod_end,
	 * string, 0), the modules' strings from 0x600. */
	enum { MMAP_OFF = 0x80, CMDLINE_OFF = 0x100, MODS_OFF = 0x500, STR_OFF = 0x600 };
	_Static_assert(MODS_OFF + 16 * MB1_MAX_MODS <= STR_OFF, "module list overlaps");
	_Static_assert(STR_OFF + MB1_MOD_STRINGS <= PC_INFO_SIZE, "module strings overflow");
	memset(page, 0, PC_INFO_SIZE);
	uint32_t flags = MB1_INFO_MEM | MB1_INFO_CMDLINE | MB1_INFO_MODS | MB1_INFO_MMAP;
	uint64_t upper = mem_bytes > PC_HIGH_MIN ? (mem_bytes - PC_HIGH_MIN) >> 10 : 0;
	if (upper > UINT32_MAX)
		upper = UINT32_MAX;
	if (n > MB1_MAX_MODS)
		n = MB1_MAX_MODS;
	wr32(page + 0, flags);
	wr32(page + 4, PC_LOW_END >> 10);
	wr32(page + 8, (uint32_t)upper);
	wr32(page + 16, PC_INFO_GPA + CMDLINE_OFF);
	wr32(page + 20, n);
	wr32(page + 24, PC_INFO_GPA + MODS_OFF);
	size_t len = strnlen(cmdline, MODS_OFF - CMDLINE_OFF - 1);
	memcpy(page + CMDLINE_OFF, cmdline, len);
	/* The memory map as a PC's E820 gives it: the low RAM, the EBDA/VGA/BIOS hole
	 * reserved (the information block and the ACPI tables live there), RAM above 1 MiB.
	 * Each entry: size (20, not counting itself), base_addr, length, type. */
	const uint64_t map[3][3] = {
		{0, PC_LOW_END, MB1_MMAP_RAM},
		{PC_LOW_END, PC_HIGH_MIN - PC_LOW_END, MB1_MMAP_RESERVED},
		{PC_HIGH_MIN, mem_bytes > PC_HIGH_MIN ? mem_bytes - PC_HIGH_MIN : 0, MB1_MMAP_RAM},
	};
	for (unsigned i = 0; i < 3; i++) {
		uint8_t *e = page + MMAP_OFF + 24 * i;
		wr32(e, 20);
		wr64(e + 4, map[i][0]);
		wr64(e + 12, map[i][1]);
		wr32(e + 20, (uint32_t)map[i][2]);
	}
	wr32(page + 44, 3 * 24);
	wr32(page + 48, PC_INFO_GPA + MMAP_OFF);
	size_t str = STR_OFF;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = page + MODS_OFF + 16 * i;
		if (str > PC_INFO_SIZE - 1) /* out of room: the page's last byte, a NUL */
			str = PC_INFO_SIZE - 1;
		wr32(e, start[i]);
		wr32(e + 4, (uint32_t)(start[i] + mods[i].len));
		wr32(e + 8, PC_INFO_GPA + (uint32_t)str);
		pc_guest_cmdline(mods[i].cmdline, (char *)page + str, PC_INFO_SIZE - str);
		str += strlen((char *)page + str) + 1;
	}
	return flags;
}

/* ACPI 6.5 5.2.6: every table starts with this header; the bytes of the whole table sum
 * to 0. */
static void acpi_header(uint8_t *t, const char sig[4], uint32_t len, uint8_t rev)
{
	memcpy(t, sig, 4);
	wr32(t + 4, len);
	t[8] = rev;
	memcpy(t + 10, "SLIVER", 6);   /* OEM ID */
	memcpy(t + 16, "SLIVERPC", 8); /* OEM table ID */
	wr32(t + 24, 1);	       /* OEM revision */
	memcpy(t + 28, "SLVR", 4);     /* creator ID */
	wr32(t + 32, 1);
}

static void acpi_sum(uint8_t *p, size_t len, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < len; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

void acpi_build(uint8_t *buf, unsigned ncpus, bool ioapic)
{
	enum { RSDP = 0, RSDT = 0x40, MADT = 0x80, FADT = 0x300, DSDT = 0x400 };
	/* The DSDT's AML (ACPI 6.5, 20.2): Name (\_S5, Package (4) {5, 5, 0, 0}): S5 is
	 * SLP_TYP 5 written to PM1a_CNT with SLP_EN (core/exit_pc.c: the domain powers off). */
	static const uint8_t s5[] = {0x08, '_',	 'S',  '5',  '_',  0x12, 0x08,
				     0x04, 0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00};
	enum { RSDT_LEN = 36 + 8, FADT_LEN = 116, DSDT_LEN = 36 + sizeof s5, ISO_LEN = 10 };
	_Static_assert(MADT + 44 + 8 * 64 + 12 + 2 * ISO_LEN <= FADT,
		       "the MADT of 64 vCPUs overlaps the FADT");
	uint32_t madt_len = 44 + 8 * ncpus + (ioapic ? 12 + 2 * ISO_LEN : 0);
	memset(buf, 0, PC_ACPI_SIZE);
	/* RSDP (5.2.5.3), ACPI 1.0 form: signature, checksum, OEM ID, revision 0, RSDT. */
	memcpy(buf + RSDP, "RSD PTR ", 8);
	memcpy(buf + RSDP + 9, "SLIVER", 6);
	wr32(buf + RSDP + 16, PC_ACPI_GPA + RSDT);
	acpi_sum(buf + RSDP, 20, 8);
	/* RSDT (5.2.7): the MADT and the FADT. */
	acpi_header(buf + RSDT, "RSDT", RSDT_LEN, 1);
	wr32(buf + RSDT + 36, PC_ACPI_GPA + MADT);
	wr32(buf + RSDT + 40, PC_ACPI_GPA + FADT);
	acpi_sum(buf + RSDT, RSDT_LEN, 9);
	/* MADT (5.2.12): local APIC address, flags 0 (no 8259 to mask: PCAT_COMPAT clear),
	 * one Processor Local APIC entry (type 0, length 8) per vCPU, enabled. */
	uint8_t *m = buf + MADT;
	acpi_header(m, "APIC", madt_len, 3);
	wr32(m + 36, 0xfee00000u);
	for (unsigned i = 0; i < ncpus; i++) {
		uint8_t *e = m + 44 + 8 * i;
		e[0] = 0, e[1] = 8, e[2] = (uint8_t)i, e[3] = (uint8_t)i;
		wr32(e + 4, 1); /* enabled */
	}
	if (ioapic) { /* I/O APIC (type 1, length 12): ID 0, its address, GSI base 0 */
		uint8_t *e = m + 44 + 8 * ncpus;
		e[0] = 1, e[1] = 12, e[2] = 0, e[3] = 0;
		wr32(e + 4, PC_IOAPIC_BASE);
		wr32(e + 8, 0);
		/* Interrupt source overrides (type 2, length 10; 5.2.12.5), as QEMU's PC has
		 * them: ISA IRQ 0 (the PIT) on GSI 2, bus-conforming (edge, high); IRQ 9 (the
		 * SCI) level, active high: an SCI left active-low would be asserted by its idle
		 * line (nothing drives it). */
		static const uint8_t iso[2][4] = {{0, 2, 0x00, 0}, {9, 9, 0x0d, 0}};
		for (unsigned k = 0; k < 2; k++) {
			uint8_t *o = e + 12 + ISO_LEN * k;
			o[0] = 2, o[1] = ISO_LEN, o[2] = 0, o[3] = iso[k][0];
			wr32(o + 4, iso[k][1]);
			o[8] = iso[k][2], o[9] = iso[k][3];
		}
	}
	acpi_sum(m, madt_len, 9);
	/* FADT (5.2.9), revision 1 layout (116 bytes): DSDT 40, SCI_INT 46 (9, as on a
	 * PIIX4), SMI_CMD 48 = 0 (ACPI mode always on: nothing to enable), PM1a_EVT_BLK 56,
	 * PM1a_CNT_BLK 64, PM_TMR_BLK 76, PM1_EVT_LEN 88 = 4, PM1_CNT_LEN 89 = 2,
	 * PM_TMR_LEN 91 = 4, flags 112: TMR_VAL_EXT clear (24-bit timer). */
	uint8_t *f = buf + FADT;
	acpi_header(f, "FACP", FADT_LEN, 1);
	wr32(f + 40, PC_ACPI_GPA + DSDT);
	f[46] = 9;
	wr32(f + 56, PC_PORT_PM1A_EVT);
	wr32(f + 64, PC_PORT_PM1A_CNT);
	wr32(f + 76, PC_PORT_PM_TMR);
	f[88] = 4, f[89] = 2, f[91] = 4;
	wr32(f + 112, 0);
	acpi_sum(f, FADT_LEN, 9);
	/* DSDT: a header and \_S5 (no devices). */
	acpi_header(buf + DSDT, "DSDT", DSDT_LEN, 1);
	memcpy(buf + DSDT + 36, s5, sizeof s5);
	acpi_sum(buf + DSDT, DSDT_LEN, 9);
}

/* The ROM page at PC_ROM_GPA (see pcboot.h). Real-mode entry at PC_ROM_CS:PC_ROM_IP. */
void pc_rom_build(uint8_t *rom, uint32_t entry, uint32_t zero_page)
{
	enum { PM = 0x20, GDT = 0x40, GDTR = 0x58, RESET = 0xff0 };
	/* The interrupt handlers the IVT points at (pc_ivt_build): IRET; the master PIC's
	 * IRQs: EOI to it; the slave's: EOI to both (push ax; mov al, 0x20; out ..; pop ax). */
	static const uint8_t irq_stubs[] = {
		0xcf,						      /* PC_ROM_IRET */
		0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf,	      /* PC_ROM_IRQ_MASTER */
		0x50, 0xb0, 0x20, 0xe6, 0xa0, 0xe6, 0x20, 0x58, 0xcf, /* PC_ROM_IRQ_SLAVE */
	};
	_Static_assert(PC_ROM_IRQ_MASTER == PC_ROM_IRET + 1, "stub layout");
	_Static_assert(PC_ROM_IRQ_SLAVE == PC_ROM_IRQ_MASTER + 7, "stub layout");
	static const uint8_t real16[] = {
		0xfa, /* cli */
		0x2e,
		0x66,
		0x0f,
		0x01,
		0x16, /* o32 lgdt cs:[PC_ROM_IP + GDTR] */
		(PC_ROM_IP + GDTR) & 0xff,
		(PC_ROM_IP + GDTR) >> 8,
		0x0f,
		0x20,
		0xc0, /* mov eax, cr0 */
		0x66,
		0x83,
		0xc8,
		0x01, /* or eax, 1 */
		0x0f,
		0x22,
		0xc0, /* mov cr0, eax */
		0x66,
		0xea, /* jmp dword 0x08:PC_ROM_GPA + PM */
	};
	static const uint8_t pm32[] = {
		0xb8, 0x10, 0, 0, 0, /* mov eax, 0x10 */
		0x8e, 0xd8,	     /* mov ds, ax */
		0x8e, 0xc0,	     /* mov es, ax */
		0x8e, 0xd0,	     /* mov ss, ax */
		0x8e, 0xe0,	     /* mov fs, ax */
		0x8e, 0xe8,	     /* mov gs, ax */
		0xb8,		     /* mov eax, MB1_BOOTLOADER_MAGIC (then ebx, ecx, jmp ecx) */
	};
	/* The reset vector (F000:FFF0 and FFFF:0000): a reset through the 8042, which the
	 * firmware (core/pc_reset.c) turns into a resume or a boot; then hlt for ever. */
	static const uint8_t reset[] = {0xb0, 0xfe, 0xe6, 0x64, 0xf4, 0xeb, 0xfd};
	memset(rom, 0xf4, PC_ROM_SIZE); /* hlt */
	memcpy(rom, real16, sizeof real16);
	wr32(rom + sizeof real16, PC_ROM_GPA + PM);
	rom[sizeof real16 + 4] = 0x08, rom[sizeof real16 + 5] = 0;
	memcpy(rom + PM, pm32, sizeof pm32);
	uint8_t *p = rom + PM + sizeof pm32;
	wr32(p, MB1_BOOTLOADER_MAGIC);
	p[4] = 0xbb; /* mov ebx, PC_INFO_GPA */
	wr32(p + 5, PC_INFO_GPA);
	if (zero_page) { /* the Linux 32-bit entry: mov esi, zero_page; mov ebx, 0 */
		p[-1] = 0xbe;
		wr32(p, zero_page);
		wr32(p + 5, 0);
	}
	p[9] = 0xb9; /* mov ecx, entry */
	wr32(p + 10, entry);
	p[14] = 0xff, p[15] = 0xe1; /* jmp ecx */
	_Static_assert(0x20 + sizeof pm32 + 16 <= GDT, "the 32-bit code overlaps the GDT");
	/* GDT: null, 0x08 flat 32-bit code, 0x10 flat data (limit 4 GiB, 4 KiB granular). */
	wr64(rom + GDT, 0);
	wr64(rom + GDT + 8, 0x00cf9a000000ffffull);
	wr64(rom + GDT + 16, 0x00cf92000000ffffull);
	rom[GDTR] = 23, rom[GDTR + 1] = 0;
	wr32(rom + GDTR + 2, PC_ROM_GPA + GDT);
	memcpy(rom + RESET, reset, sizeof reset);
	memcpy(rom + PC_ROM_IRET, irq_stubs, sizeof irq_stubs);
}

void pc_ivt_build(uint8_t *ivt)
{
	for (unsigned v = 0; v < 256; v++) {
		unsigned off = PC_ROM_IRET;
		if (v >= 0x08 && v < 0x10)
			off = PC_ROM_IRQ_MASTER;
		else if (v >= 0x70 && v < 0x78)
			off = PC_ROM_IRQ_SLAVE;
		uint16_t ip = (uint16_t)(PC_ROM_IP + off), cs = PC_ROM_CS;
		memcpy(ivt + 4 * v, &ip, 2);
		memcpy(ivt + 4 * v + 2, &cs, 2);
	}
}
