/* boot=linux (docs/guests.md): the Linux x86 boot protocol (the kernel's
 * Documentation/arch/x86/boot.rst), the pure part: a bzImage's setup header checked, its
 * protected-mode kernel loaded at 1 MiB, the initrd placed at the top of memory, the command
 * line and the zero page (struct boot_params: the setup header, type_of_loader 0xff, the E820
 * map of the minimal PC, acpi_rsdp_addr) written. The first vCPU enters at the 32-bit entry
 * (code32_start, protected mode, flat, paging off, interrupts off) with ESI = the zero page,
 * EBP = EDI = EBX = 0, as boot.rst's "32-bit boot protocol" says. No hypervisor state:
 * host-tested (test/unit/test_linuxboot.c).
 *
 * Guest-physical layout (the minimal PC's map of core/pcboot.h, and):
 *   0x07000           the zero page (4 KiB)
 *   0x20000           the command line (cmdline_size + 1 bytes at most, 4 KiB)
 *   0x100000          the protected-mode kernel (the bzImage after its setup sectors)
 *   pref_address      where it decompresses itself (init_size bytes; 16 MiB for Debian's)
 *   top of memory     the initrd, page-aligned, below initrd_addr_max */
#ifndef CORE_LINUXBOOT_H
#define CORE_LINUXBOOT_H
#include <stddef.h>
#include <stdint.h>

#define LINUX_ZP_GPA	  0x7000u
#define LINUX_CMDLINE_GPA 0x20000u
#define LINUX_CMDLINE_MAX 0x1000u
#define LINUX_KERNEL_GPA  0x100000u
#define LINUX_MIN_VERSION 0x20a	      /* 2.10: init_size, pref_address, kernel_alignment */
#define LINUX_INITRD_KEY  "initrd_of" /* the module that is a boot=linux domain's initrd */

/* boot.rst's "The real-mode kernel header" and "The zero page", offsets in struct
 * boot_params (arch/x86/include/uapi/asm/bootparam.h). */
enum {
	LBP_ACPI_RSDP = 0x070,
	LBP_E820_ENTRIES = 0x1e8,
	LBP_SENTINEL = 0x1ef,
	LBP_HDR = 0x1f1, /* setup_sects: the setup header starts here */
	LBP_BOOT_FLAG = 0x1fe,
	LBP_JUMP = 0x200, /* the header ends at 0x202 + the jump's byte at 0x201 */
	LBP_MAGIC = 0x202,
	LBP_VERSION = 0x206,
	LBP_TYPE_OF_LOADER = 0x210,
	LBP_LOADFLAGS = 0x211,
	LBP_CODE32_START = 0x214,
	LBP_RAMDISK_IMAGE = 0x218,
	LBP_RAMDISK_SIZE = 0x21c,
	LBP_CMD_LINE_PTR = 0x228,
	LBP_INITRD_ADDR_MAX = 0x22c,
	LBP_KERNEL_ALIGNMENT = 0x230,
	LBP_CMDLINE_SIZE = 0x238,
	LBP_PREF_ADDRESS = 0x258,
	LBP_INIT_SIZE = 0x260,
	LBP_E820_TABLE = 0x2d0,
};
#define LINUX_LOADED_HIGH 0x01 /* loadflags bit 0: a bzImage (kernel at 1 MiB) */

/* What the setup header says (linux_check). */
struct linux_image {
	uint16_t version;
	uint32_t pm_offset; /* file offset of the protected-mode kernel ((setup_sects + 1) * 512) */
	uint32_t pm_len;
	uint32_t hdr_end; /* the setup header's end (0x202 + the byte at 0x201) */
	uint32_t cmdline_size, initrd_max, init_size;
	uint64_t pref_address;
};

/* Checks a bzImage: its length, the boot flag 0xAA55, "HdrS", protocol 2.10 or later,
 * LOADED_HIGH, sizes that fit in the file. NULL, or the reason in why[]. */
const char *linux_check(const void *img, size_t len, struct linux_image *li, char *why, size_t wl);

/* Places the kernel, its decompression buffer and an initrd of initrd_len bytes (0: none)
 * in mem_size bytes of RAM: *initrd_at gets the initrd's GPA. Refuses what does not fit
 * (the kernel's footprint [1 MiB, pref_address + init_size) and the initrd must not
 * overlap, nor end past memory or initrd_addr_max). NULL or the reason. */
const char *linux_place(const struct linux_image *li, size_t initrd_len, uint64_t mem_size,
			uint32_t *initrd_at, char *why, size_t wl);

/* Checks (mem NULL) or loads img with its initrd and command line into mem (host pointer to
 * GPA 0, mem_size bytes): the kernel at LINUX_KERNEL_GPA, the initrd as linux_place says,
 * the command line (cut to the kernel's cmdline_size) and the zero page. rsdp: the ACPI
 * RSDP's GPA for acpi_rsdp_addr. *entry gets the 32-bit entry. NULL or the reason. */
const char *linux_load(const void *img, size_t len, const void *initrd, size_t initrd_len,
		       const char *cmdline, uint64_t rsdp, void *mem, uint64_t mem_size,
		       uint32_t *entry, char *why, size_t wl);

#endif
