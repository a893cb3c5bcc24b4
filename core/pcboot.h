/* The minimal PC of boot=mb1 and boot=real domains (docs/guests.md), the pure part:
 * multiboot1 header and image loading, the multiboot1 information block, the ACPI tables
 * that describe the domain, the guest command line without sliver's own keys, and the ACPI
 * PM timer's count. No hypervisor state: host-tested (test/unit/test_pcboot.c).
 *
 * Guest-physical layout of such a domain (RAM from 0, as on a PC):
 *   0x00000-0x004ff  real-mode IVT and BIOS data area (zero; BDA word 0x413 = 639 KiB)
 *   0x00500-0x9efff  free low memory (mem_lower = 636 KiB); boot=real images load here
 *   0x9f000-0x9ffff  multiboot1 information, memory map, cmdline, module list and the
 *                    modules' command lines (the "EBDA")
 *   0xa0000-0xdffff  RAM, not reported (VGA / option ROM hole on a PC)
 *   0xe0000-0xe0fff  ACPI RSDP (0xe0000), RSDT, MADT, FADT, DSDT
 *   0xff000-0xfffff  the "ROM": the boot trampoline of a reboot and the reset vector
 *   0x100000-mem     mem_upper: boot=mb1 images and, page-aligned after them, their modules */
#ifndef CORE_PCBOOT_H
#define CORE_PCBOOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/clockconv.h"

enum pc_boot { PC_BOOT_SLIVER, PC_BOOT_MB1, PC_BOOT_REAL, PC_BOOT_LINUX };

#define MB1_HEADER_MAGIC     0x1badb002u
#define MB1_BOOTLOADER_MAGIC 0x2badb002u
#define MB1_SEARCH	     8192u /* the header lies in the image's first 8 KiB, 4-aligned */
#define MB1_HDR_AOUT_KLUDGE  (1u << 16)
#define MB1_INFO_MEM	     (1u << 0)
#define MB1_INFO_CMDLINE     (1u << 2)
#define MB1_INFO_MODS	     (1u << 3)
#define MB1_INFO_MMAP	     (1u << 6)
#define MB1_MMAP_RAM	     1u /* Multiboot 0.6.96 3.3: available RAM */
#define MB1_MMAP_RESERVED    2u

/* Extra multiboot1 modules (initrd=-style, docs/guests.md): a boot module whose line has
 * MB1_MOD_KEY=<name> is no domain; it is copied into the boot=mb1 domain of that name,
 * page-aligned after its image, and listed in its information block's mods in boot order. */
#define MB1_MOD_KEY	"mb1.module_of"
#define MB1_MAX_MODS	16u
#define MB1_MOD_STRINGS 0xa00u /* bytes of the page for the modules' command lines */

#define PC_LOW_LOAD_MIN	  0x500u   /* boot=real: the first byte after the BDA */
#define PC_INFO_GPA	  0x9f000u /* multiboot1 information block */
#define PC_INFO_SIZE	  0x1000u
#define PC_LOW_END	  PC_INFO_GPA /* mem_lower ends here */
#define PC_ACPI_GPA	  0xe0000u    /* RSDP (16-aligned, in the BIOS area a scan finds) */
#define PC_ACPI_SIZE	  0x1000u
#define PC_HIGH_MIN	  0x100000u /* boot=mb1 images load here (or in free low memory) */
#define PC_ROM_GPA	  0xff000u  /* the firmware's page (pc_rom_build) */
#define PC_ROM_SIZE	  0x1000u
#define PC_ROM_CS	  0xf000u /* its real-mode entry F000:F000 (linear PC_ROM_GPA) */
#define PC_ROM_IP	  0xf000u
#define PC_IOAPIC_BASE	  0xfec00000u
#define PC_ROM_IRET	  0x60u /* ROM offsets of the IVT's handlers (pc_rom_build) */
#define PC_ROM_IRQ_MASTER 0x61u
#define PC_ROM_IRQ_SLAVE  0x68u
#define PC_MIN_MEM	  0x200000u /* boot=mb1/real domains need at least 2 MiB */

/* The ports of the minimal PC. */
#define PC_PORT_DEBUG_EXIT 0xf4	 /* QEMU isa-debug-exit */
#define PC_PORT_PM1A_EVT   0x600 /* as QEMU's PIIX4 PM block */
#define PC_PORT_PM1A_CNT   0x604
#define PC_PORT_PM_TMR	   0x608
#define PC_PORT_FWCFG_SEL  0x510
#define PC_PORT_FWCFG_DATA 0x511
#define PC_PM_TIMER_HZ	   3579545u /* ACPI 6.5, 4.8.3.3 */

struct mb1_header { /* Multiboot 0.6.96, 3.1.1 */
	uint32_t magic, flags, checksum;
	uint32_t header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr;
	uint32_t offset; /* of the header in the file */
};

/* A module= key (core/domain.c reads them; docs/config.md lists them): sliver's own words,
 * not passed to a boot=mb1 guest's command line. */
bool pc_sliver_key(const char *w, size_t n);

/* "sliver"/"mb1"/"real"/"linux" -> *b; false for anything else. */
bool pc_boot_parse(const char *s, enum pc_boot *b);

/* Finds and checks the multiboot1 header: NULL, or the reason in why[]. */
const char *mb1_find(const void *img, size_t len, struct mb1_header *h, char *why, size_t wl);

/* Checks (mem == NULL) or loads the boot=mb1 image into mem (host pointer to GPA 0, mem_size
 * bytes): an a.out-kludge header's load_addr..load_end_addr..bss_end_addr, else the ELF at
 * or above PC_HIGH_MIN. *entry gets the entry point. NULL or the reason. */
const char *mb1_load(const void *img, size_t len, void *mem, uint64_t mem_size, uint32_t *entry,
		     char *why, size_t wl);

/* The first byte after the boot=mb1 image as mb1_load loads it (bss included). */
const char *mb1_image_end(const void *img, size_t len, uint64_t mem_size, uint32_t *end, char *why,
			  size_t wl);

/* One extra multiboot1 module: its bytes and its boot module's command line (written to
 * the guest without sliver's own keys, as pc_guest_cmdline does). */
struct mb1_mod {
	const void *data;
	size_t len;
	const char *cmdline;
};

/* Places n modules page-aligned from image_end up (start[i] gets each one's GPA) and, with
 * mem != NULL, copies them there. Refuses more than MB1_MAX_MODS, a module past mem_size
 * and command lines that need more than MB1_MOD_STRINGS bytes. NULL or the reason. */
const char *mb1_mods_place(const struct mb1_mod *mods, unsigned n, uint32_t image_end, void *mem,
			   uint64_t mem_size, uint32_t *start, char *why, size_t wl);

/* Checks or loads a boot=real image: an ELF32 whose segments lie in [PC_LOW_LOAD_MIN,
 * PC_INFO_GPA) with an entry below 1 MiB, else a flat binary loaded at `at` (module key
 * load=, default 0x7c00) and entered there; *cs:*ip is the real-mode entry. */
const char *real_load(const void *img, size_t len, void *mem, uint64_t mem_size, uint32_t at,
		      uint16_t *cs, uint16_t *ip, char *why, size_t wl);

/* The multiboot1 command line as GRUB and QEMU pass it, the image's path first (its argv[0]
 * for kvm-unit-tests): the module's line when it starts with a path (a word with '/' and
 * no '='), else argv0 (GRUB passes no path on module2 lines: sliver gives the domain's
 * name), then pc_guest_cmdline's words. */
void pc_mb1_cmdline(const char *argv0, const char *cmdline, char *out, size_t outlen);

/* Copies the words of cmdline that are not sliver's own keys (nor the path GRUB puts
 * first... it is kept, as GRUB passes it to a multiboot1 kernel) into out. */
void pc_guest_cmdline(const char *cmdline, char *out, size_t outlen);

/* Writes the multiboot1 information block for a domain of mem_bytes into page (the
 * PC_INFO_SIZE bytes at PC_INFO_GPA): flags mem|cmdline|mods|mmap; the memory map (RAM
 * below PC_LOW_END, reserved up to 1 MiB, RAM from 1 MiB to mem_bytes); mods_count n with
 * each module's start[i], end and command line (mb1_mods_place checked them: cut to the
 * room otherwise). Returns the flags. */
uint32_t mb1_info_build(uint8_t *page, uint64_t mem_bytes, const char *cmdline,
			const struct mb1_mod *mods, const uint32_t *start, unsigned n);

/* Writes RSDP, RSDT, MADT (one enabled processor-local-APIC entry per vCPU, APIC ids
 * 0..ncpus-1, LAPIC at 0xfee00000; with `ioapic` an I/O APIC entry, ID 0 at
 * PC_IOAPIC_BASE, GSI base 0), FADT (PM timer at PC_PORT_PM_TMR, 24-bit) and an empty DSDT
 * into buf, the PC_ACPI_SIZE bytes at PC_ACPI_GPA. Checksums right. ncpus <= 64. */
void acpi_build(uint8_t *buf, unsigned ncpus, bool ioapic);

/* The firmware's page, PC_ROM_SIZE bytes at PC_ROM_GPA: at its start (real mode, entered
 * at PC_ROM_CS:PC_ROM_IP) a trampoline into 32-bit protected mode, flat, paging off, that
 * jumps to `entry` with EAX = MB1_BOOTLOADER_MAGIC and EBX = PC_INFO_GPA, as at the
 * first boot (a reboot of a boot=mb1 domain, core/pc_reset.c); with zero_page != 0
 * (boot=linux) ESI = zero_page and EBX = 0 instead (EAX as the INIT left it). At 0xFFFF0,
 * the reset vector, a reset through the 8042 (which the firmware turns into a resume or a
 * boot). */
void pc_rom_build(uint8_t *rom, uint32_t entry, uint32_t zero_page);

/* The real-mode IVT (1 KiB at 0) as a PC BIOS leaves it, at the ROM's handlers: the
 * vectors of the PICs' IRQs (0x08-0x0F, 0x70-0x77, as the firmware programs them) EOI and
 * return, every other vector returns at once (no BIOS service does anything). */
void pc_ivt_build(uint8_t *ivt);

/* The 24-bit PM timer count tsc_delta TSC ticks after its start (conv: TSC -> 3.579545
 * MHz, clockconv_init(tsc_hz, PC_PM_TIMER_HZ)). */
static inline uint32_t pm_timer_count(struct clockconv conv, uint64_t tsc_delta)
{
	return (uint32_t)clockconv_apply(conv, tsc_delta) & 0xffffffu;
}

#endif
