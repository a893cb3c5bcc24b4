/* Host tests of core/pcboot.c: the ACPI tables a boot=mb1/real domain gets are read back
 * through drivers/acpi_tables.c (the hypervisor's own parser: checksums, RSDP -> RSDT ->
 * MADT/FADT) for every vCPU count; the multiboot1 information for seeded memory sizes; the
 * guest command line without sliver's keys for seeded word mixes; the PM timer's rate for
 * seeded TSC rates; multiboot1 and real-mode images loaded or refused; extra multiboot1
 * modules placed, copied and listed for seeded sets, hostile sets refused; the memory map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/le.h"
#include "core/elf.h"
#include "core/pcboot.h"
#include "drivers/acpi_tables.h"

struct acpi_info acpi;
static uint8_t tables[PC_ACPI_SIZE];
static char why[160];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static const uint8_t *map(uint64_t pa, size_t len, void *ctx)
{
	(void)ctx;
	if (pa < PC_ACPI_GPA || pa - PC_ACPI_GPA > PC_ACPI_SIZE ||
	    len > PC_ACPI_SIZE - (pa - PC_ACPI_GPA))
		return NULL;
	return tables + (pa - PC_ACPI_GPA);
}

static void test_acpi_every_cpu_count(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 2 * 64; k++) {
		unsigned n = k / 2 + 1;
		bool ioapic = k & 1;
		acpi_build(tables, n, ioapic);
		assert_int_equal(acpi_find_rsdp(tables, sizeof tables), 0);
		uint64_t root;
		bool xsdt;
		assert_true(acpi_parse_rsdp(tables, 20, &root, &xsdt));
		assert_false(xsdt);
		struct acpi_info ai;
		struct acpi_power pw;
		assert_null(acpi_walk(&ai, &pw, tables, 20, map, NULL));
		assert_int_equal(ai.nr_cpus, n);
		for (unsigned i = 0; i < n; i++)
			assert_int_equal(ai.apic_ids[i], i);
		assert_int_equal(ai.lapic_base, 0xfee00000u);
		assert_int_equal(ai.nr_ioapics, ioapic);
		assert_int_equal(ai.ioapic_base, ioapic ? PC_IOAPIC_BASE : 0);
		assert_int_equal(pw.pm1a_cnt.addr, PC_PORT_PM1A_CNT);
		assert_int_equal(pw.smi_cmd, 0);
		size_t len;
		const uint8_t *f = acpi_lookup(tables, 20, "FACP", map, NULL, &len);
		assert_non_null(f);
		uint32_t tmr;
		memcpy(&tmr, f + 76, 4);
		assert_int_equal(tmr, PC_PORT_PM_TMR);
		assert_int_equal(f[91], 4);
		assert_non_null(acpi_lookup(tables, 20, "APIC", map, NULL, &len));
		assert_int_equal(len, 44 + 8 * n + (ioapic ? 12 + 2 * 10 : 0));
		if (ioapic) { /* QEMU's overrides: IRQ 0 on GSI 2, the SCI level, active high */
			assert_int_equal(ai.isa_gsi[0], 2);
			assert_int_equal(ai.isa_gsi[9], 9);
			assert_int_equal(ai.isa_flags[9], 0x0d);
			assert_int_equal(ai.isa_gsi[4], 4);
		}
		/* \_S5 in the DSDT, read by the hypervisor's own AML scan: SLP_TYP 5. */
		const uint8_t *dsdt = map(pw.dsdt, 36, NULL);
		assert_non_null(dsdt);
		uint32_t dlen;
		memcpy(&dlen, dsdt + 4, 4);
		assert_true(acpi_find_s5(&pw, dsdt, dlen));
		assert_int_equal(pw.slp_typ_a, 5);
		/* A flipped byte anywhere in a table breaks its checksum. */
		uint8_t *m = (uint8_t *)acpi_lookup(tables, 20, "APIC", map, NULL, &len);
		size_t at = rnd() % len;
		m[at] ^= 0x40;
		assert_false(acpi_table_ok(m, len));
		m[at] ^= 0x40;
		assert_true(acpi_table_ok(m, len));
	}
}

/* The memory map read back as a guest walks it (each entry's size field says where the
 * next one starts): RAM [0, 0x9f000), reserved up to 1 MiB, RAM [1 MiB, mem); contiguous. */
static void check_mmap(const uint8_t *page, uint64_t mem)
{
	uint32_t len = le32(page + 44), addr = le32(page + 48);
	assert_true(addr >= PC_INFO_GPA && addr + len <= PC_INFO_GPA + PC_INFO_SIZE);
	const uint8_t *p = page + (addr - PC_INFO_GPA), *end = p + len;
	static const uint32_t type[] = {MB1_MMAP_RAM, MB1_MMAP_RESERVED, MB1_MMAP_RAM};
	uint64_t next = 0;
	unsigned i = 0;
	for (; p < end; p += le32(p) + 4, i++) {
		assert_true(i < 3);
		assert_int_equal(le64(p + 4), next);
		assert_int_equal(le32(p + 20), type[i]);
		next = le64(p + 4) + le64(p + 12);
	}
	assert_int_equal(i, 3);
	assert_int_equal(next, mem);
	assert_int_equal(le64(page + 0x80 + 12), (uint64_t)le32(page + 4) << 10); /* mem_lower */
	assert_int_equal(le64(page + 0x80 + 48 + 12), (uint64_t)le32(page + 8) << 10);
}

static void test_mb1_info(void **state)
{
	(void)state;
	uint8_t *page = malloc(PC_INFO_SIZE); /* exactly: ASan sees a byte past it */
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t mem = ((rnd() % 2048) + 2) << 20;
		char cl[64];
		snprintf(cl, sizeof cl, "/guests/pc.elf x=%u", i);
		uint32_t flags = mb1_info_build(page, mem, cl, NULL, NULL, 0);
		uint32_t w[7];
		memcpy(w, page, sizeof w);
		assert_int_equal(flags,
				 MB1_INFO_MEM | MB1_INFO_CMDLINE | MB1_INFO_MODS | MB1_INFO_MMAP);
		assert_int_equal(w[0], flags);
		assert_int_equal(w[1], 636);			  /* mem_lower, KiB: 0..0x9f000 */
		assert_int_equal(w[2], (mem - (1u << 20)) >> 10); /* mem_upper from 1 MiB */
		assert_true(w[4] > PC_INFO_GPA && w[4] < PC_INFO_GPA + PC_INFO_SIZE);
		assert_string_equal((char *)page + (w[4] - PC_INFO_GPA), cl);
		assert_int_equal(w[5], 0); /* mods_count */
		check_mmap(page, mem);
	}
	/* A command line longer than its room is cut, NUL-terminated, inside the page. */
	static char big[8000];
	memset(big, 'a', sizeof big - 1);
	mb1_info_build(page, 4 << 20, big, NULL, NULL, 0);
	uint32_t cl;
	memcpy(&cl, page + 16, 4);
	assert_true(strlen((char *)page + (cl - PC_INFO_GPA)) < PC_INFO_SIZE - (cl - PC_INFO_GPA));
	free(page);
}

static void test_guest_cmdline(void **state)
{
	(void)state;
	static const char *const own[] = {
		"name=pc",   "mem=8",	   "vcpus=2",	     "weight=3", "cap=50",
		"pin=0,1",   "role=guest", "evt.allow=1:*",  "boot=mb1", "load=0x8000",
		"\"mem=4\"", "lapic=0",	   MB1_MOD_KEY "=pc"};
	static const char *const theirs[] = {
		"/guests/pc.elf", "console=ttyS0", "memx=1", "named", "x", "-v", "bootx=1", "cap"};
	for (unsigned r = 0; r < 2000; r++) {
		char in[512] = "", want[512] = "", out[512];
		unsigned n = rnd() % 10;
		for (unsigned i = 0; i < n; i++) {
			bool mine = rnd() & 1;
			const char *w = mine ? own[rnd() % (sizeof own / sizeof own[0])]
					     : theirs[rnd() % 8];
			/* "cap" bare is sliver's key too (a bare key matches). */
			if (!mine && strcmp(w, "cap"))
				snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
					 want[0] ? " " : "", w);
			else if (!mine)
				continue;
			snprintf(in + strlen(in), sizeof in - strlen(in), "%s%s", in[0] ? "  " : "",
				 w);
		}
		pc_guest_cmdline(in, out, sizeof out);
		assert_string_equal(out, want);
	}
	char small[8];
	pc_guest_cmdline("abc defgh ij", small, sizeof small);
	assert_string_equal(small, "abc");
}

static void test_pm_timer(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t hz = 100000000ull + rnd() % 5000000000ull;
		struct clockconv c = clockconv_init(hz, PC_PM_TIMER_HZ);
		/* One second of TSC ticks is 3579545 counts (24 bits hold 4.69 s). */
		uint32_t one = pm_timer_count(c, hz);
		assert_true(one >= PC_PM_TIMER_HZ - 1 && one <= PC_PM_TIMER_HZ);
		uint64_t t = rnd() % (hz * 1000);
		uint64_t full = clockconv_apply(c, t);
		assert_int_equal(pm_timer_count(c, t), full & 0xffffff);
		assert_true(pm_timer_count(c, t) <= 0xffffff);
	}
}

static uint8_t img[16384];
static uint8_t *mem;
#define MEM (4u << 20)

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static size_t aout_image(uint32_t hdr_off, uint32_t load, uint32_t load_end, uint32_t bss_end,
			 uint32_t entry)
{
	memset(img, 0x5a, sizeof img);
	uint8_t *h = img + hdr_off;
	uint32_t flags = MB1_HDR_AOUT_KLUDGE | 2;
	put32(h, MB1_HEADER_MAGIC);
	put32(h + 4, flags);
	put32(h + 8, -(MB1_HEADER_MAGIC + flags));
	put32(h + 12, load + hdr_off), put32(h + 16, load), put32(h + 20, load_end);
	put32(h + 24, bss_end), put32(h + 28, entry);
	return 4096;
}

static void test_mb1_images(void **state)
{
	(void)state;
	uint32_t entry;
	size_t len = aout_image(64, 0x100000, 0x100000 + 4096, 0x100000 + 8192, 0x100010);
	assert_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_int_equal(entry, 0x100010);
	assert_int_equal(mem[0x100000], 0x5a);
	assert_int_equal(mem[0x100000 + 4096], 0); /* bss */
	uint32_t end;
	assert_null(mb1_image_end(img, len, MEM, &end, why, sizeof why));
	assert_int_equal(end, 0x100000 + 8192);
	/* Over the BDA, past memory, entry outside, bad checksum, no header: refused. */
	aout_image(64, 0x400, 0x9000, 0, 0x400);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	aout_image(64, MEM - 100, MEM, MEM + 4096, MEM - 100);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "outside guest memory"));
	aout_image(64, 0x100000, 0x101000, 0, 0x200000);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	aout_image(64, 0x100000, 0x101000, 0, 0x100000);
	img[64 + 8] ^= 1;
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "checksum"));
	memset(img, 0, sizeof img);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "no multiboot1 header"));
	/* load_end_addr past the file. */
	aout_image(64, 0x100000, 0x100000 + 100000, 0, 0x100000);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	/* Seeded garbage around a header never loads outside memory (mem is only MEM). */
	for (unsigned i = 0; i < 20000; i++) {
		aout_image(4 * (rnd() % 64), (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd(),
			   (uint32_t)rnd());
		if (!mb1_load(img, 4096, NULL, MEM, &entry, why, sizeof why))
			assert_null(mb1_load(img, 4096, mem, MEM, &entry, why, sizeof why));
	}
}

/* A multiboot1 ELF32 whose segments are at lo (and, when hi, at hi too), entry at lo. */
static size_t mb1_elf(uint32_t lo, uint32_t hi)
{
	memset(img, 0, sizeof img);
	struct elf32_ehdr eh = {0};
	memcpy(eh.ident,
	       "\x7f"
	       "ELF",
	       4);
	eh.ident[4] = ELFCLASS32, eh.ident[5] = ELFDATA2LSB, eh.ident[6] = 1;
	eh.type = ET_EXEC, eh.machine = EM_386, eh.version = 1, eh.entry = lo;
	eh.phoff = sizeof eh, eh.ehsize = sizeof eh;
	eh.phentsize = sizeof(struct elf32_phdr), eh.phnum = hi ? 2 : 1;
	memcpy(img, &eh, sizeof eh);
	for (unsigned i = 0; i < eh.phnum; i++) {
		struct elf32_phdr ph = {0};
		ph.type = PT_LOAD, ph.offset = 4096 * (i + 1), ph.vaddr = ph.paddr = i ? hi : lo;
		ph.filesz = 4096, ph.memsz = 8192, ph.flags = 7, ph.align = 4096;
		memcpy(img + sizeof eh + i * sizeof ph, &ph, sizeof ph);
		memset(img + 4096 * (i + 1), 0x11 * (i + 1), 4096);
	}
	/* The multiboot1 header (no a.out kludge) in the first 8 KiB. */
	put32(img + 4096, MB1_HEADER_MAGIC), put32(img + 4100, 0);
	put32(img + 4104, -MB1_HEADER_MAGIC);
	return 3 * 4096;
}

/* Segments below 1 MiB load when they fit in free low memory (kvm-unit-tests'
 * realmode.flat is linked at 0x8000); their modules still go at or above 1 MiB. */
static void test_mb1_low(void **state)
{
	(void)state;
	uint32_t entry, end;
	size_t len = mb1_elf(0x8000, 0);
	memset(mem, 0, MEM);
	assert_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_int_equal(entry, 0x8000);
	assert_int_equal(mem[0x8000 + 100], 0x11);
	assert_int_equal(mem[0x8000 + 4096 + 100], 0); /* bss */
	assert_null(mb1_image_end(img, len, MEM, &end, why, sizeof why));
	assert_int_equal(end, 0x8000 + 8192);
	struct mb1_mod mod = {"x", 1, "m"};
	uint32_t at;
	assert_null(mb1_mods_place(&mod, 1, end, NULL, MEM, &at, why, sizeof why));
	assert_int_equal(at, PC_HIGH_MIN);
	/* Low and high segments together. */
	len = mb1_elf(0x8000, 0x200000);
	assert_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_int_equal(mem[0x200000], 0x22);
	/* Over the IVT/BDA, into the information block, or across 1 MiB: refused. */
	len = mb1_elf(0x400, 0);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_non_null(strstr(why, "outside guest memory [0x500, 0x9f000) and [0x100000, "));
	len = mb1_elf(PC_LOW_END - 4096, 0);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	len = mb1_elf(PC_HIGH_MIN - 4096, 0);
	assert_non_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	/* The a.out kludge in low memory too. */
	len = aout_image(64, 0x8000, 0x9000, 0xa000, 0x8000);
	assert_null(mb1_load(img, len, mem, MEM, &entry, why, sizeof why));
	assert_int_equal(entry, 0x8000);
}

/* argv[0]: the module line's own path, else the name given. */
static void test_mb1_cmdline(void **state)
{
	(void)state;
	char out[64];
	pc_mb1_cmdline("vmexit", "cpuid name=vmexit mem=128", out, sizeof out);
	assert_string_equal(out, "vmexit cpuid");
	pc_mb1_cmdline("vmexit", "name=vmexit", out, sizeof out);
	assert_string_equal(out, "vmexit");
	pc_mb1_cmdline("x", "/boot/k.elf a=1 boot=mb1", out, sizeof out);
	assert_string_equal(out, "/boot/k.elf a=1");
	pc_mb1_cmdline("longname", "a b", out, 5);
	assert_string_equal(out, "long");
	pc_mb1_cmdline("ab", "cd", out, 4);
	assert_string_equal(out, "ab");
}

/* The ROM's trampoline (checked byte by byte against its encoding, SDM Vol. 2) and GDT,
 * and the reset vector. */
static void test_rom(void **state)
{
	(void)state;
	uint8_t *rom = mem;
	pc_rom_build(rom, 0x123456, 0);
	static const uint8_t head[] = {0xfa, 0x2e, 0x66, 0x0f, 0x01, 0x16};
	assert_memory_equal(rom, head, sizeof head);
	uint16_t gdtr_off = (uint16_t)(rom[6] | rom[7] << 8);
	assert_true(gdtr_off >= PC_ROM_IP && gdtr_off < PC_ROM_IP + 0x100);
	uint8_t *gdtr = rom + (gdtr_off - PC_ROM_IP);
	uint32_t gdt;
	memcpy(&gdt, gdtr + 2, 4);
	assert_int_equal(gdtr[0] | gdtr[1] << 8, 23);
	assert_true(gdt >= PC_ROM_GPA && gdt < PC_ROM_GPA + 0x100);
	uint64_t code, data;
	memcpy(&code, rom + (gdt - PC_ROM_GPA) + 8, 8);
	memcpy(&data, rom + (gdt - PC_ROM_GPA) + 16, 8);
	assert_int_equal(code, 0x00cf9a000000ffffull);
	assert_int_equal(data, 0x00cf92000000ffffull);
	/* jmp dword 0x08:pm, and at pm the register setup then jmp ecx to the entry. */
	uint8_t *j = rom + 18;
	assert_int_equal(j[0], 0x66), assert_int_equal(j[1], 0xea);
	uint32_t pm;
	memcpy(&pm, j + 2, 4);
	assert_int_equal(j[6] | j[7] << 8, 0x08);
	uint8_t *p = rom + (pm - PC_ROM_GPA);
	uint32_t eax, ebx, ecx;
	assert_int_equal(p[15], 0xb8), memcpy(&eax, p + 16, 4);
	assert_int_equal(p[20], 0xbb), memcpy(&ebx, p + 21, 4);
	assert_int_equal(p[25], 0xb9), memcpy(&ecx, p + 26, 4);
	assert_int_equal(eax, MB1_BOOTLOADER_MAGIC);
	assert_int_equal(ebx, PC_INFO_GPA);
	assert_int_equal(ecx, 0x123456);
	assert_int_equal(p[30], 0xff), assert_int_equal(p[31], 0xe1);
	static const uint8_t reset[] = {0xb0, 0xfe, 0xe6, 0x64, 0xf4, 0xeb, 0xfd};
	assert_memory_equal(rom + 0xff0, reset, sizeof reset);
	/* The IVT: the PICs' vectors at their EOI handlers, everything else at an IRET. */
	uint8_t ivt[0x400];
	pc_ivt_build(ivt);
	for (unsigned v = 0; v < 256; v++) {
		uint16_t ip, cs;
		memcpy(&ip, ivt + 4 * v, 2);
		memcpy(&cs, ivt + 4 * v + 2, 2);
		assert_int_equal(cs, PC_ROM_CS);
		unsigned off = ip - PC_ROM_IP;
		if (v >= 8 && v < 16) {
			static const uint8_t m[] = {0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf};
			assert_memory_equal(rom + off, m, sizeof m);
		} else if (v >= 0x70 && v < 0x78) {
			static const uint8_t sl[] = {0x50, 0xb0, 0x20, 0xe6, 0xa0,
						     0xe6, 0x20, 0x58, 0xcf};
			assert_memory_equal(rom + off, sl, sizeof sl);
		} else {
			assert_int_equal(rom[off], 0xcf);
		}
	}
}

static void test_real_images(void **state)
{
	(void)state;
	uint16_t cs, ip;
	memset(img, 0xf4, 64);
	assert_null(real_load(img, 64, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
	assert_int_equal(cs, 0x800);
	assert_int_equal(ip, 0);
	assert_int_equal(mem[0x8000], 0xf4);
	assert_null(real_load(img, 64, mem, MEM, 0x7c05, &cs, &ip, why, sizeof why));
	assert_int_equal(cs * 16 + ip, 0x7c05);
	assert_non_null(real_load(img, 64, mem, MEM, 0x400, &cs, &ip, why, sizeof why));
	assert_non_null(real_load(img, 64, mem, MEM, PC_LOW_END - 63, &cs, &ip, why, sizeof why));
	assert_non_null(real_load(img, 0, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
	/* An ELF outside low memory is refused. */
	memset(img, 0, 4096);
	memcpy(img,
	       "\x7f"
	       "ELF",
	       4);
	assert_non_null(real_load(img, 4096, mem, MEM, 0x8000, &cs, &ip, why, sizeof why));
}

/* Seeded sets of 1..16 modules of random sizes and command lines (sliver's keys mixed in)
 * after a random image end: placed page-aligned in order without overlap, copied, and
 * listed in the information block with their command lines as the guest gets them. */
static void test_mb1_mods(void **state)
{
	(void)state;
	static uint8_t data[MB1_MAX_MODS][8192];
	static char cls[MB1_MAX_MODS][96];
	uint8_t *page = malloc(PC_INFO_SIZE);
	for (unsigned r = 0; r < 300; r++) {
		struct mb1_mod mods[MB1_MAX_MODS];
		uint32_t at[MB1_MAX_MODS];
		unsigned n = 1 + rnd() % MB1_MAX_MODS;
		uint32_t image_end = PC_HIGH_MIN + rnd() % (1u << 20);
		for (unsigned i = 0; i < n; i++) {
			size_t len = 1 + rnd() % sizeof data[i];
			for (size_t k = 0; k < len; k++)
				data[i][k] = (uint8_t)rnd();
			snprintf(cls[i], sizeof cls[i], "%sinitrd%u.img %s=pc arg=%u%s",
				 rnd() & 1 ? "/boot/" : "", i, MB1_MOD_KEY, r,
				 rnd() & 1 ? " mem=4" : "");
			mods[i] = (struct mb1_mod){data[i], len, cls[i]};
		}
		memset(mem, 0, MEM);
		assert_null(mb1_mods_place(mods, n, image_end, mem, MEM, at, why, sizeof why));
		mb1_info_build(page, MEM, "x", mods, at, n);
		assert_int_equal(le32(page + 20), n);
		const uint8_t *list = page + (le32(page + 24) - PC_INFO_GPA);
		uint64_t prev_end = image_end;
		for (unsigned i = 0; i < n; i++) {
			uint32_t s0 = le32(list + 16 * i), e0 = le32(list + 16 * i + 4);
			assert_int_equal(s0, at[i]);
			assert_int_equal(s0 & 0xfff, 0);
			assert_true(s0 >= prev_end && e0 - s0 == mods[i].len && e0 <= MEM);
			assert_memory_equal(mem + s0, data[i], mods[i].len);
			prev_end = e0;
			char want[96];
			pc_guest_cmdline(cls[i], want, sizeof want);
			assert_non_null(strstr(want, "initrd"));
			assert_null(strstr(want, MB1_MOD_KEY));
			assert_null(strstr(want, "mem="));
			assert_string_equal((char *)page + (le32(list + 16 * i + 8) - PC_INFO_GPA),
					    want);
		}
		/* Checking without memory gives the same places. */
		uint32_t at2[MB1_MAX_MODS];
		assert_null(mb1_mods_place(mods, n, image_end, NULL, MEM, at2, why, sizeof why));
		assert_memory_equal(at, at2, n * sizeof at[0]);
	}
	free(page);
}

/* Hostile module sets: too many, too large, empty, past memory, command lines that do not
 * fit the page: one reason each, nothing written past memory or the page. */
static void test_mb1_mods_hostile(void **state)
{
	(void)state;
	static uint8_t data[64];
	static char longcl[1024];
	struct mb1_mod mods[MB1_MAX_MODS + 1];
	uint32_t at[MB1_MAX_MODS + 1];
	for (unsigned i = 0; i <= MB1_MAX_MODS; i++)
		mods[i] = (struct mb1_mod){data, sizeof data, "m"};
	assert_non_null(
		mb1_mods_place(mods, MB1_MAX_MODS + 1, PC_HIGH_MIN, mem, MEM, at, why, sizeof why));
	assert_non_null(strstr(why, "at most 16"));
	assert_null(mb1_mods_place(mods, MB1_MAX_MODS, PC_HIGH_MIN, mem, MEM, at, why, sizeof why));
	/* Larger than memory, past its end, or empty. */
	mods[0].len = (size_t)MEM + 1;
	assert_non_null(mb1_mods_place(mods, 1, PC_HIGH_MIN, NULL, MEM, at, why, sizeof why));
	assert_non_null(strstr(why, "does not fit"));
	mods[0].len = MEM - PC_HIGH_MIN - 4095;
	assert_non_null(mb1_mods_place(mods, 1, PC_HIGH_MIN + 1, NULL, MEM, at, why, sizeof why));
	mods[0].len = MEM - PC_HIGH_MIN;
	assert_null(mb1_mods_place(mods, 1, PC_HIGH_MIN, NULL, MEM, at, why, sizeof why));
	mods[1].len = 1;
	assert_non_null(mb1_mods_place(mods, 2, PC_HIGH_MIN, NULL, MEM, at, why, sizeof why));
	assert_non_null(strstr(why, "module 2"));
	mods[0].len = 0;
	assert_non_null(mb1_mods_place(mods, 1, PC_HIGH_MIN, NULL, MEM, at, why, sizeof why));
	assert_non_null(mb1_mods_place(mods, 1, UINT32_MAX, NULL, MEM, at, why, sizeof why));
	/* Seeded random lengths and image ends: placed inside memory or refused. */
	for (unsigned r = 0; r < 20000; r++) {
		unsigned n = 1 + rnd() % MB1_MAX_MODS;
		for (unsigned i = 0; i < n; i++)
			mods[i].len = rnd() & 1 ? rnd() % (MEM / 4) : rnd() % 8192 + 1;
		uint32_t end = rnd() & 1 ? (uint32_t)rnd() : PC_HIGH_MIN + (uint32_t)(rnd() % MEM);
		if (mb1_mods_place(mods, n, end, NULL, MEM, at, why, sizeof why))
			continue;
		for (unsigned i = 0; i < n; i++)
			assert_true(at[i] >= end && at[i] + mods[i].len <= MEM);
	}
	/* 16 command lines of 1000 characters: more than the page holds. */
	memset(longcl, 'c', sizeof longcl - 1);
	for (unsigned i = 0; i < MB1_MAX_MODS; i++)
		mods[i] = (struct mb1_mod){data, sizeof data, longcl};
	assert_non_null(
		mb1_mods_place(mods, MB1_MAX_MODS, PC_HIGH_MIN, NULL, MEM, at, why, sizeof why));
	assert_non_null(strstr(why, "command lines"));
	/* mb1_info_build given them anyway (or too many) stays inside the page. */
	uint8_t *page = malloc(PC_INFO_SIZE);
	for (unsigned i = 0; i < MB1_MAX_MODS; i++)
		at[i] = PC_HIGH_MIN + i * 4096;
	mb1_info_build(page, MEM, longcl, mods, at, MB1_MAX_MODS + 1);
	assert_int_equal(le32(page + 20), MB1_MAX_MODS);
	for (unsigned i = 0; i < MB1_MAX_MODS; i++) {
		uint32_t str = le32(page + 0x500 + 16 * i + 8) - PC_INFO_GPA;
		assert_true(str < PC_INFO_SIZE);
		assert_true(strlen((char *)page + str) < PC_INFO_SIZE - str);
	}
	free(page);
}

static void test_keys(void **state)
{
	(void)state;
	enum pc_boot b;
	assert_true(pc_boot_parse("mb1", &b) && b == PC_BOOT_MB1);
	assert_true(pc_boot_parse("real", &b) && b == PC_BOOT_REAL);
	assert_true(pc_boot_parse("sliver", &b) && b == PC_BOOT_SLIVER);
	assert_false(pc_boot_parse("mb2", &b));
	assert_false(pc_boot_parse("", &b));
	assert_true(pc_sliver_key(MB1_MOD_KEY "=pc", strlen(MB1_MOD_KEY) + 3));
	assert_false(pc_sliver_key("mb1.module_ofx=pc", 17));
}

int main(void)
{
	mem = calloc(1, MEM);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acpi_every_cpu_count),
		cmocka_unit_test(test_mb1_info),
		cmocka_unit_test(test_guest_cmdline),
		cmocka_unit_test(test_pm_timer),
		cmocka_unit_test(test_mb1_images),
		cmocka_unit_test(test_real_images),
		cmocka_unit_test(test_mb1_low),
		cmocka_unit_test(test_mb1_cmdline),
		cmocka_unit_test(test_rom),
		cmocka_unit_test(test_mb1_mods),
		cmocka_unit_test(test_mb1_mods_hostile),
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
