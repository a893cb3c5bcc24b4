/* What GRUB handed over (multiboot2), copied out of low memory before anything else runs:
 * under UEFI the information sits at 0x4000, where the AP trampoline goes later. */
#ifndef CORE_BOOTINFO_H
#define CORE_BOOTINFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/memmap.h"
#include "drivers/fb.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289
#define BOOT_MAX_MODULES     1024 /* one per domain: 1 MiB of command lines in .bss */
#define BOOT_CMDLINE_MAX     1024

struct boot_module {
	uint64_t start, end;		/* physical, [start, end) */
	char cmdline[BOOT_CMDLINE_MAX]; /* as in module2: path first, then arguments */
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	unsigned nr_modules;
	struct boot_module modules[BOOT_MAX_MODULES];
	unsigned modules_dropped; /* beyond BOOT_MAX_MODULES */
	uint8_t rsdp[36];	  /* the RSDP as the tag held it, zero-padded */
	unsigned rsdp_len;	  /* bytes of it the tag held (20 for ACPI 1.0, 36 for 2.0+) */
	bool have_rsdp;
	bool efi;      /* booted through UEFI (an EFI system table tag was present) */
	bool efi_mmap; /* memory came from the EFI map (tag 17), not tag 6 */
	struct memmap mem;
	const uint8_t *mmap_tag; /* the firmware's raw map (tag 6 or 17) inside the copy */
	size_t mmap_tag_size;	 /* its size, checked against the information's */
	uint64_t mbi_start, mbi_end;
	struct fb_info fb; /* tag 8; type FB_NONE when absent or unusable */
};

extern struct boot_info boot_info;

/* Parses the len bytes of multiboot2 information at `mbi` (found at physical mbi_pa) into
 * bi, which it clears first. Pure: reads nothing outside [mbi, mbi + len), whatever the
 * sizes inside say (fuzzed by test/fuzz/fuzz_bootinfo.c). Returns NULL or a reason. */
const char *bootinfo_parse(struct boot_info *bi, const uint8_t *mbi, size_t len, uint64_t mbi_pa);
/* The framebuffer info tag (type 8, `size` bytes at t) into *fb; leaves FB_NONE when the tag
 * is short or of a kind the console cannot draw on (indexed colour). */
void bootinfo_parse_fb(struct fb_info *fb, const uint8_t *t, uint32_t size);

#endif
