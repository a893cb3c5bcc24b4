/* guests/pc: a multiboot1 kernel written as for QEMU's minimal PC (boot=mb1): no sliver
 * ABI, no hypercalls. Reads its multiboot1 information, finds the ACPI tables by the
 * BIOS-area scan and counts the MADT's CPUs, reads fw_cfg, checks the PICs as the firmware
 * left them (and masks them), times the ACPI PM timer against the TSC, writes IA32_MISC_ENABLE and
 * IA32_TSC, then switches to long mode (lm.S) and exits through isa-debug-exit (port 0xf4) with
 * status= from its command line when every check held, else 0x40 + the failures.
 * Prints `pc: <what>: got <x> ok|BAD` on COM1. Arguments: status=<n> cpus=<n expected>
 * resets=1 (then reset.c's resets and boots follow the other checks).
 * The virtual LAPIC's checks (IA32_APIC_BASE, the LVT timer, INIT-SIPI-SIPI, IPIs) are in
 * apic.c (and the AP's code in ap.S), called after the MSR checks; the other PC devices'
 * in devices.c, the resets in reset.c. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "guests/lib/rt.h"
#include "guests/pc/pc.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define MB1_BOOTLOADER_MAGIC 0x2badb002u

struct mb1_info { /* Multiboot 0.6.96, 3.3 */
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	uint32_t syms[4], mmap_length, mmap_addr;
};
struct mb1_module {
	uint32_t start, end, string, reserved;
};
struct __attribute__((packed)) mb1_mmap {
	uint32_t size;
	uint64_t base, len;
	uint32_t type;
};
extern char _end[]; /* guests/lib/guest.ld: the first byte after this image */

static unsigned fails;
static char cmdline[256];

void pc_printf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (const char *p = buf; *p; p++) {
		while (!(inb(0x3fd) & 0x20))
			;
		outb(0x3f8, (uint8_t)*p);
	}
}

/* What guests/lib/idt.c needs of a runtime: a printf (COM1 here) and an exit (0xf4). */
int rt_printf(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	pc_printf("%s", buf);
	return n;
}

void rt_exit(int code)
{
	outl(0xf4, (uint32_t)code); /* isa-debug-exit */
	for (;;)
		__asm__ volatile("cli; hlt");
}

unsigned pc_fails(void)
{
	return fails;
}

void pc_check(const char *what, bool ok, const char *fmt, ...)
{
	char got[192];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(got, sizeof got, fmt, ap);
	va_end(ap);
	pc_printf("pc: %s: got %s %s\n", what, got, ok ? "ok" : "BAD");
	fails += !ok;
}

static uint64_t arg(const char *key, uint64_t def)
{
	uint64_t v;
	return cmdline_get_u64(cmdline, key, &v) ? v : def;
}

static bool sum_ok(const uint8_t *p, uint32_t len)
{
	uint8_t s = 0;
	for (uint32_t i = 0; i < len; i++)
		s = (uint8_t)(s + p[i]);
	return s == 0;
}

/* ACPI 6.5 5.2.5.1: the RSDP on a 16-byte boundary in the BIOS area 0xE0000-0xFFFFF; the
 * MADT's enabled processor-local-APIC entries and its first I/O APIC's address. */
static unsigned acpi_cpus(uint32_t *ioapic)
{
	*ioapic = 0;
	for (uint32_t a = 0xe0000; a < 0x100000; a += 16) {
		const uint8_t *r = (const uint8_t *)a;
		if (memcmp(r, "RSD PTR ", 8) || !sum_ok(r, 20))
			continue;
		uint32_t rsdt;
		memcpy(&rsdt, r + 16, 4);
		const uint8_t *t = (const uint8_t *)rsdt;
		uint32_t len;
		memcpy(&len, t + 4, 4);
		if (memcmp(t, "RSDT", 4) || !sum_ok(t, len))
			return 0;
		for (uint32_t i = 36; i + 4 <= len; i += 4) {
			uint32_t pa, mlen;
			memcpy(&pa, t + i, 4);
			const uint8_t *m = (const uint8_t *)pa;
			memcpy(&mlen, m + 4, 4);
			if (memcmp(m, "APIC", 4) || !sum_ok(m, mlen))
				continue;
			unsigned n = 0;
			for (uint32_t o = 44; o + 2 <= mlen && m[o + 1] >= 2; o += m[o + 1]) {
				if (m[o] == 0 && (m[o + 4] & 1))
					n++;
				if (m[o] == 1 && m[o + 1] >= 12 && !*ioapic)
					memcpy(ioapic, m + o + 4, 4);
			}
			return n;
		}
		return 0;
	}
	return 0;
}

static void check_fwcfg(unsigned cpus)
{
	char sig[5] = {0};
	outw(0x510, 0); /* FW_CFG_SIGNATURE */
	for (unsigned i = 0; i < 4; i++)
		sig[i] = (char)inb(0x511);
	outw(0x510, 5); /* FW_CFG_NB_CPUS */
	unsigned n = inb(0x511);
	n |= (unsigned)inb(0x511) << 8;
	pc_check("fw_cfg", !strcmp(sig, "QEMU") && n == cpus, "%s cpus=%u", sig, n);
}

/* The PM timer (3.579545 MHz, 24 bits) against the TSC: two windows of 1 and 2 ms of PM
 * ticks must take TSC ticks in the ratio 1:2 (within 2%), and the timer must move. Up to
 * PC_TRIES measurements: under QEMU TCG a vCPU is frozen while the other runs (docs/svm.md,
 * QEMU item 6), which only ever lengthens a window; a wrong rate fails every try. */
static uint64_t pm_window(uint32_t ticks)
{
	uint32_t p0 = inl(0x608) & 0xffffff;
	uint64_t t0 = rdtsc();
	while (((inl(0x608) - p0) & 0xffffff) < ticks)
		;
	return rdtsc() - t0;
}

static uint64_t check_pm_timer(void)
{
	uint64_t a = 0, b = 0;
	bool ok = false;
	unsigned try;
	for (try = 1; try <= PC_TRIES && !ok; try++) {
		a = pm_window(3580), b = pm_window(7160);
		ok = a > 0 && b > 2 * a - a / 50 && b < 2 * a + a / 50;
	}
	pc_check("pm timer 1 ms / 2 ms in TSC ticks", ok, "%llu/%llu (tsc ~%llu MHz) try %u",
		 (unsigned long long)a, (unsigned long long)b, (unsigned long long)(a / 1000),
		 try - 1);
	return (a + b) / 3; /* TSC ticks per ms */
}

static void check_msrs(void)
{
	uint64_t misc = rdmsr(0x1a0);
	wrmsr(0x1a0, misc & ~1ull); /* fast strings off */
	uint64_t off = rdmsr(0x1a0);
	wrmsr(0x1a0, misc);
	uint64_t back = rdmsr(0x1a0);
	pc_check("IA32_MISC_ENABLE fast strings", (misc & 1) && !(off & 1) && back == misc,
		 "%llx/%llx/%llx", (unsigned long long)misc, (unsigned long long)off,
		 (unsigned long long)back);
	const uint64_t to = 1ull << 40;
	wrmsr(0x10, to);
	uint64_t t = rdtsc(), adj = rdmsr(0x3b);
	pc_check("IA32_TSC write", t >= to && t - to < (1ull << 32) && adj != 0, "rdtsc-%llx=%llx",
		 (unsigned long long)to, (unsigned long long)(t - to));
	uint32_t c, d;
	cpuid(1, &c, &d);
	uint32_t a0 = cpuid_eax(0xa);
	pc_check("cpuid PDCM hidden, leaf 0xA zero", !(c & (1u << 15)) && a0 == 0, "%x/%x",
		 c & (1u << 15), a0);
}

/* The memory map (flags bit 6) as a PC's E820: RAM below 0x9f000 (mem_lower), reserved to
 * 1 MiB, RAM from 1 MiB for mem_upper KiB; walked by each entry's size field. */
static void check_mmap(const struct mb1_info *mi)
{
	char got[96] = "";
	size_t o = 0;
	unsigned n = 0;
	bool ok = (mi->flags >> 6) & 1;
	static const uint64_t want[3][3] = {
		{0, 0x9f000, 1}, {0x9f000, 0x61000, 2}, {0x100000, 0, 1}};
	for (uint32_t a = mi->mmap_addr; ok && a < mi->mmap_addr + mi->mmap_length && n < 4; n++) {
		const struct mb1_mmap *e = (const struct mb1_mmap *)a;
		uint64_t len = n == 2 ? (uint64_t)mi->mem_upper << 10 : want[n < 3 ? n : 0][1];
		ok = n < 3 && e->base == want[n][0] && e->len == len && e->type == want[n][2];
		o += (size_t)fmt_snprintf(got + o, sizeof got - o, "%s%llx+%llx:%u", n ? " " : "",
					  (unsigned long long)e->base, (unsigned long long)e->len,
					  e->type);
		if (o >= sizeof got)
			o = sizeof got - 1;
		a += e->size + 4;
	}
	pc_check("mb1 mmap", ok && n == 3, "%s", got);
}

/* Extra modules (mb1.module_of=, docs/guests.md): mods= of them, each page-aligned after
 * this image and after the one before, holding modpat's bytes (i * 7 + 3), with a command
 * line; the first's is modcl1=, the second's modcl2= (underscores for spaces). */
static void check_modules(const struct mb1_info *mi)
{
	unsigned want = (unsigned)arg("mods", 0);
	const struct mb1_module *m = (const struct mb1_module *)mi->mods_addr;
	pc_check("mb1 mods_count", mi->mods_count == want, "%u", mi->mods_count);
	uint32_t prev = (uint32_t)_end;
	for (unsigned i = 0; i < mi->mods_count && i < want && i < 4; i++) {
		const uint8_t *p = (const uint8_t *)m[i].start;
		uint32_t len = m[i].end - m[i].start, bad = 0;
		for (uint32_t k = 0; k < len; k++)
			bad += p[k] != (uint8_t)(k * 7 + 3);
		char key[8], cl[64] = "";
		fmt_snprintf(key, sizeof key, "modcl%u", i + 1);
		cmdline_get(cmdline, key, cl, sizeof cl);
		for (char *c = cl; *c; c++)
			*c = *c == '_' ? ' ' : *c;
		const char *s = (const char *)m[i].string;
		char what[24];
		fmt_snprintf(what, sizeof what, "mb1 module %u", i + 1);
		pc_check(what,
			 !(m[i].start & 0xfff) && m[i].start >= prev && len == arg("modlen", 0) &&
				 !bad && !strcmp(s, cl),
			 "0x%x+%u after 0x%x, %u bytes differ, '%s'", m[i].start, len, prev, bad,
			 s);
		prev = m[i].end;
	}
}

void pc_main(uint32_t magic, const struct mb1_info *mi)
{
	pc_printf("pc: start\n");
	if (magic != MB1_BOOTLOADER_MAGIC) {
		pc_check("multiboot1 magic", false, "%x", magic);
		pc_lm_exit(0x7f);
	}
	if (mi->flags & (1u << 2))
		fmt_snprintf(cmdline, sizeof cmdline, "%s", (const char *)mi->cmdline);
	if (pc_reset_stage()) { /* booted again by a reset of reset.c */
		unsigned f = pc_reset_checks();
		unsigned status = f ? 0x40 + f : (unsigned)arg("status", 0);
		pc_printf("pc: %u checks failed, exit status %u\n", f, status);
		pc_lm_exit(status);
	}
	pc_check("mb1 info", (mi->flags & 0x4d) == 0x4d && (uint32_t)mi >= 0x1000,
		 "flags=%x mem_lower=%u mem_upper=%u cmdline='%s'", mi->flags, mi->mem_lower,
		 mi->mem_upper, cmdline);
	check_mmap(mi);
	check_modules(mi);
	uint32_t ioapic;
	unsigned cpus = acpi_cpus(&ioapic), want = (unsigned)arg("cpus", 1);
	pc_check("acpi madt cpus", cpus == want, "%u", cpus);
	check_fwcfg(want);
	/* The PICs as the firmware left them (IRQ 0, its timer tick, and the cascade
	 * unmasked): masked here before interrupts go on, as an OS does. */
	uint8_t imr = inb(0x21), imr2 = inb(0xa1);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	pc_check("pic as the firmware left it, then masked",
		 imr == 0xfa && imr2 == 0xff && inb(0x21) == 0xff, "%x/%x", imr, imr2);
	uint64_t tsc_per_ms = check_pm_timer();
	check_msrs();
	pc_apic_checks(tsc_per_ms);
	pc_device_checks(tsc_per_ms, mi->mem_upper, ioapic);
	if (arg("resets", 0))
		pc_reset_checks(); /* resets; the last boot exits above */
	unsigned status = fails ? 0x40 + fails : (unsigned)arg("status", 0);
	pc_printf("pc: %u checks failed, exit status %u\n", fails, status);
	pc_lm_exit(status);
}
