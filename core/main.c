/* The hypervisor's C entry: platform bring-up on the BSP, then every CPU enters the VMM
 * loop (or the platform selftest when the command line says `selftest`). */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/panic.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer_hw.h"
#include "arch/x86_64/tsc.h"
#include "boot/boot.h"
#include "core/bootinfo.h"
#include "core/conin.h"
#include "core/cpulist.h"
#include "core/main.h"
#include "core/mm.h"
#include "core/timer.h"
#include "drivers/acpi.h"
#include "drivers/console.h"
#include "drivers/conport.h"
#include "drivers/pic.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "lib/fmt.h"

#define MBI_COPY_MAX (64 * 1024)

static uint8_t mbi_copy[MBI_COPY_MAX] __attribute__((aligned(8)));
static uint8_t bsp_ist_stack[3 * IST_STACK_SIZE] __attribute__((aligned(16)));
extern uint8_t bsp_stack[], __image_start[], __image_end[];
static volatile bool aps_released;
static bool selftest_mode;

/* Weak defaults until a VMM is linked in (core/vmm.c defines the real ones). */
__attribute__((weak)) void vmm_boot(void)
{
	printk("sliver: no VMM in this build; nothing to run\n");
	hv_exit(EXIT_FAIL);
}

__attribute__((weak)) void vmm_cpu_loop(void)
{
	for (;;)
		cpu_idle_wait();
}

static void ap_main(unsigned cpu)
{
	(void)cpu;
	timer_init_this_cpu();
	while (!aps_released)
		cpu_relax();
	if (selftest_mode)
		selftest_ap();
	vmm_cpu_loop();
}

static void reserve_boot_memory(void)
{
	struct memmap *m = &boot_info.mem;
	memmap_reserve(m, 0, 0x100000); /* BIOS data, EBDA, the AP trampoline page */
	memmap_reserve(m, (uint64_t)__image_start, (uint64_t)__image_end);
	memmap_reserve(m, boot_info.mbi_start, boot_info.mbi_end);
	for (unsigned i = 0; i < boot_info.nr_modules; i++)
		memmap_reserve(m, boot_info.modules[i].start, boot_info.modules[i].end);
}

/* The firmware's map as given, in the fixture format of test/unit/test_memmap.c. */
static void print_raw_map(void)
{
	const uint8_t *t = boot_info.mmap_tag;
	uint32_t size, esize;
	memcpy(&size, t + 4, 4);
	memcpy(&esize, t + 8, 4);
	for (uint32_t off = 16; off + esize <= size; off += esize) {
		uint64_t base, len;
		uint32_t type;
		if (boot_info.efi_mmap) {
			memcpy(&type, t + off, 4);
			memcpy(&base, t + off + 8, 8);
			memcpy(&len, t + off + 24, 8);
			len <<= 12;
		} else {
			memcpy(&base, t + off, 8);
			memcpy(&len, t + off + 8, 8);
			memcpy(&type, t + off + 16, 4);
		}
		printk("mem: raw %016lx %016lx %u\n", base, len, type);
	}
}

static void print_memory(void)
{
	const struct memmap *m = &boot_info.mem;
	if (cmdline_has(boot_info.cmdline, "mem.raw"))
		print_raw_map();
	printk("mem: %s map: %lu MiB in %u ranges, %lu frames free, %lu above 4 GiB\n",
	       boot_info.efi_mmap ? "EFI" : "multiboot2", memmap_total(m) >> 20, m->n,
	       mm_free_frames(), mm_high_total_frames());
	for (unsigned i = 0; i < m->n; i++)
		printk("mem:   %016lx-%016lx %6lu KiB\n", m->r[i].start, m->r[i].end,
		       (m->r[i].end - m->r[i].start) >> 10);
	if (m->truncated)
		printk("mem: warning: more than %u ranges, some memory is not used\n", MEMMAP_MAX);
	if (mm_warning())
		printk("mem: warning: %s\n", mm_warning());
}

/* After the domains are built: how much memory they took, and from where. */
static void print_memory_use(void)
{
	size_t used = mm_total_frames() - mm_free_frames();
	printk("mem: %lu frames in use, %lu of them above 4 GiB\n", used, mm_high_used_frames());
}

/* The APIC IDs of the MADT's CPUs that are not started (main.c's `cpu: warning:` line). */
static uint32_t not_started[MAX_CPUS + ACPI_BEYOND_IDS];
static unsigned nr_not_started;

static unsigned prepare_aps(void)
{
	uint32_t self = percpu[0].apic_id;
	unsigned n = 1;
	for (unsigned i = 0; i < acpi.nr_cpus; i++) {
		if (acpi.apic_ids[i] == self)
			continue;
		/* No room (the MADT listed MAX_CPUS others than the boot CPU), or an ID the
		 * xAPIC cannot address (0xff is its broadcast; x2APIC mode takes 32 bits). */
		if (n == MAX_CPUS || (!lapic_is_x2apic() && acpi.apic_ids[i] > 0xfe)) {
			not_started[nr_not_started++] = acpi.apic_ids[i];
			continue;
		}
		struct percpu *p = &percpu[n];
		p->apic_id = acpi.apic_ids[i];
		p->stack = phys_to_virt(frames_alloc(CPU_STACK_SIZE / PAGE_SIZE, 1));
		p->ist_stack = phys_to_virt(frames_alloc(3 * IST_STACK_SIZE / PAGE_SIZE, 1));
		if (!p->stack || !p->ist_stack)
			panic("out of memory for the stacks of cpu%u", n);
		n++;
	}
	return n;
}

/* One line names every CPU of the MADT that does not run: past MAX_CPUS, not addressable,
 * or prepared and not started (smp.c stops at the first that does not come up). */
static void report_not_started(unsigned online, unsigned prepared)
{
	for (unsigned c = online; c < prepared; c++)
		not_started[nr_not_started++] = percpu[c].apic_id;
	unsigned named = acpi.cpus_beyond < ACPI_BEYOND_IDS ? acpi.cpus_beyond : ACPI_BEYOND_IDS;
	for (unsigned i = 0; i < named; i++)
		not_started[nr_not_started++] = acpi.beyond_ids[i];
	if (!nr_not_started)
		return;
	static char ids[1024];
	cpulist_format_ids(ids, sizeof ids, not_started, nr_not_started);
	unsigned more = acpi.cpus_beyond - named;
	char tail[48] = "";
	if (more)
		fmt_snprintf(tail, sizeof tail, " and %u more", more);
	printk("cpu: warning: %u CPU(s) in the MADT, %u started; not started: APIC IDs %s%s\n",
	       acpi.nr_cpus + acpi.cpus_beyond, online, ids, tail);
}

void kmain(uint32_t magic, uint32_t mbi_pa)
{
	/* Copy the boot information before anything can overwrite low memory. */
	uint32_t mbi_size = 0;
	if (magic == MB2_BOOTLOADER_MAGIC) {
		memcpy(&mbi_size, (const void *)(uint64_t)mbi_pa, 4);
		memcpy(mbi_copy, (const void *)(uint64_t)mbi_pa,
		       mbi_size < MBI_COPY_MAX ? mbi_size : MBI_COPY_MAX);
	}
	console_init(); /* COM1 until the command line is read: early panics still reach it */

	struct percpu *bsp = &percpu[0];
	bsp->stack = bsp_stack;
	bsp->ist_stack = bsp_ist_stack;
	idt_init();
	cpu_init_this(bsp);
	lock_check_on = LOCK_CHECK; /* every spin lock checks its rank from here on */
	pic_mask_all();

	if (magic != MB2_BOOTLOADER_MAGIC)
		panic("not started by a multiboot2 loader (magic %x)", magic);
	if (mbi_size > MBI_COPY_MAX)
		panic("multiboot2 information is %u bytes, more than %u", mbi_size, MBI_COPY_MAX);
	const char *err = bootinfo_parse(&boot_info, mbi_copy, mbi_size, mbi_pa);
	if (err)
		panic("boot information: %s", err);
	conport_select(boot_info.cmdline, boot_info.have_rsdp ? boot_info.rsdp : NULL,
		       boot_info.rsdp_len, &boot_info.fb);
	printk("\nsliver: hypervisor starting\n");
	conport_report();
	{ /* one line, whatever it holds: escaped, and cut with "..." to fit printk's 512 bytes */
		char cl[440];
		printk("sliver: command line: %s\n",
		       fmt_escape(cl, sizeof cl, boot_info.cmdline, strlen(boot_info.cmdline)));
	}
	printk("sliver: booted by %s, %u module(s)\n", boot_info.efi ? "UEFI GRUB" : "BIOS GRUB",
	       boot_info.nr_modules);
	if (boot_info.modules_dropped)
		printk("sliver: warning: %u module(s) beyond the first %u ignored\n",
		       boot_info.modules_dropped, BOOT_MAX_MODULES);
	reserve_boot_memory();
	mm_init(&boot_info.mem);
	print_memory();

	lapic_init_this();
	bsp->apic_id = lapic_id();
	if (!acpi_init(boot_info.have_rsdp ? boot_info.rsdp : NULL, boot_info.rsdp_len)) {
		printk("acpi: running on the boot CPU only\n");
		acpi.nr_cpus = 1;
		acpi.apic_ids[0] = bsp->apic_id;
	}
	printk("cpu: %u CPU(s) in the MADT, %s\n", acpi.nr_cpus + acpi.cpus_beyond,
	       lapic_is_x2apic() ? "x2APIC" : "xAPIC");
	tsc_calibrate();
	timer_hw_calibrate();
	timer_init_this_cpu();
	__atomic_store_n(&bsp->online, true, __ATOMIC_RELEASE);

	unsigned prepared = prepare_aps();
	unsigned online = smp_boot_aps(prepared, ap_main);
	printk("smp: %u CPU(s) online\n", online);
	report_not_started(online, prepared);

	selftest_mode = cmdline_has(boot_info.cmdline, "selftest");
	if (selftest_mode) {
		aps_released = true;
		selftest_bsp();
	}
	conin_init();
	vmm_boot();
	print_memory_use();
	aps_released = true;
	vmm_cpu_loop();
	panic("vmm_cpu_loop returned");
}
