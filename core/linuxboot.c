/* The pure part of boot=linux (core/linuxboot.h): the Linux x86 boot protocol as the
 * kernel's Documentation/arch/x86/boot.rst gives it. Every field of the image is untrusted:
 * sizes are checked against the file and the guest's memory with 64-bit arithmetic before
 * anything is copied. */
#include "core/linuxboot.h"
#include "core/pcboot.h"
#include "lib/fmt.h"
#include "lib/le.h"
#include "lib/string.h"

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fmt_snprintf(why, wl, __VA_ARGS__);                                                \
		return why;                                                                        \
	} while (0)

#define E820_RAM      1u
#define E820_RESERVED 2u
#define PAGE	      0x1000u

static void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

const char *linux_check(const void *img, size_t len, struct linux_image *li, char *why, size_t wl)
{
	const uint8_t *p = img;
	if (len < LBP_INIT_SIZE + 4)
		FAIL("not a bzImage: %zu bytes, shorter than a setup header", len);
	uint16_t flag = (uint16_t)(p[LBP_BOOT_FLAG] | p[LBP_BOOT_FLAG + 1] << 8);
	if (flag != 0xaa55 || memcmp(p + LBP_MAGIC, "HdrS", 4))
		FAIL("not a bzImage: no boot flag 0xaa55 and \"HdrS\" setup header");
	li->version = (uint16_t)(p[LBP_VERSION] | p[LBP_VERSION + 1] << 8);
	if (li->version < LINUX_MIN_VERSION)
		FAIL("boot protocol %u.%02u is too old (2.10 or later: Linux 2.6.31)",
		     li->version >> 8, li->version & 0xff);
	if (!(p[LBP_LOADFLAGS] & LINUX_LOADED_HIGH))
		FAIL("a zImage (loaded below 1 MiB), not a bzImage");
	unsigned sects = p[LBP_HDR] ? p[LBP_HDR] : 4; /* boot.rst: 0 means 4 */
	li->pm_offset = (sects + 1) * 512u;
	li->hdr_end = 0x202u + p[LBP_JUMP + 1];
	if (li->pm_offset >= len || li->hdr_end > li->pm_offset || li->hdr_end > PAGE)
		FAIL("setup header says %u setup sectors, header end 0x%x: beyond the %zu-byte "
		     "file",
		     sects, li->hdr_end, len);
	li->pm_len = (uint32_t)(len - li->pm_offset);
	li->cmdline_size = le32(p + LBP_CMDLINE_SIZE);
	li->initrd_max = le32(p + LBP_INITRD_ADDR_MAX);
	li->init_size = le32(p + LBP_INIT_SIZE);
	li->pref_address = le64(p + LBP_PREF_ADDRESS);
	return NULL;
}

const char *linux_place(const struct linux_image *li, size_t initrd_len, uint64_t mem_size,
			uint32_t *initrd_at, char *why, size_t wl)
{
	/* startup_32 decompresses at pref_address (LOAD_PHYSICAL_ADDR) when loaded below it,
	 * using init_size bytes from there; the image itself lies at 1 MiB. */
	uint64_t out = li->pref_address > LINUX_KERNEL_GPA ? li->pref_address : LINUX_KERNEL_GPA;
	uint64_t end = out + li->init_size;
	if ((uint64_t)LINUX_KERNEL_GPA + li->pm_len > end)
		end = LINUX_KERNEL_GPA + (uint64_t)li->pm_len;
	if (end > mem_size)
		FAIL("kernel does not fit: it needs memory up to 0x%llx (init_size 0x%x at "
		     "0x%llx), "
		     "mem is 0x%llx",
		     (unsigned long long)end, li->init_size, (unsigned long long)out,
		     (unsigned long long)mem_size);
	*initrd_at = 0;
	if (!initrd_len)
		return NULL;
	uint64_t top = mem_size < (1ull << 32) ? mem_size : 1ull << 32; /* ramdisk_image: 32 bits */
	if (li->initrd_max && top > (uint64_t)li->initrd_max + 1)
		top = (uint64_t)li->initrd_max + 1;
	if (initrd_len > top || ((top - initrd_len) & ~(uint64_t)(PAGE - 1)) < end)
		FAIL("initrd (%zu bytes) does not fit between the kernel's end 0x%llx and 0x%llx",
		     initrd_len, (unsigned long long)end, (unsigned long long)top);
	*initrd_at = (uint32_t)((top - initrd_len) & ~(uint64_t)(PAGE - 1));
	return NULL;
}

/* The minimal PC's memory map as E820 gives it (the same as the multiboot1 map, pcboot.c):
 * the low RAM, the EBDA/VGA/BIOS hole reserved (the ACPI tables live there), RAM from 1 MiB. */
static void e820_write(uint8_t *zp, uint64_t mem_size)
{
	const uint64_t map[3][3] = {
		{0, PC_LOW_END, E820_RAM},
		{PC_LOW_END, PC_HIGH_MIN - PC_LOW_END, E820_RESERVED},
		{PC_HIGH_MIN, mem_size - PC_HIGH_MIN, E820_RAM},
	};
	for (unsigned i = 0; i < 3; i++) {
		uint8_t *e = zp + LBP_E820_TABLE + 20 * i;
		wr64(e, map[i][0]);
		wr64(e + 8, map[i][1]);
		wr32(e + 16, (uint32_t)map[i][2]);
	}
	zp[LBP_E820_ENTRIES] = 3;
}

const char *linux_load(const void *img, size_t len, const void *initrd, size_t initrd_len,
		       const char *cmdline, uint64_t rsdp, void *mem, uint64_t mem_size,
		       uint32_t *entry, char *why, size_t wl)
{
	struct linux_image li;
	uint32_t initrd_at;
	const char *err = linux_check(img, len, &li, why, wl);
	if (!err)
		err = linux_place(&li, initrd_len, mem_size, &initrd_at, why, wl);
	if (err)
		return err;
	*entry = LINUX_KERNEL_GPA;
	if (!mem)
		return NULL;
	uint8_t *m = mem;
	const uint8_t *p = img;
	memcpy(m + LINUX_KERNEL_GPA, p + li.pm_offset, li.pm_len);
	if (initrd_len)
		memcpy(m + initrd_at, initrd, initrd_len);
	size_t cl_max =
		li.cmdline_size < LINUX_CMDLINE_MAX - 1 ? li.cmdline_size : LINUX_CMDLINE_MAX - 1;
	size_t cl_len = strlen(cmdline);
	if (cl_len > cl_max)
		cl_len = cl_max;
	memset(m + LINUX_CMDLINE_GPA, 0, LINUX_CMDLINE_MAX);
	memcpy(m + LINUX_CMDLINE_GPA, cmdline, cl_len);
	/* The zero page: all zero (no video: orig_video_lines/cols 0 keep vgacon off; sentinel
	 * 0), the setup header as the image has it, then what the loader fills in. */
	uint8_t *zp = m + LINUX_ZP_GPA;
	memset(zp, 0, PAGE);
	memcpy(zp + LBP_HDR, p + LBP_HDR, li.hdr_end - LBP_HDR);
	zp[LBP_TYPE_OF_LOADER] = 0xff; /* undefined loader */
	wr32(zp + LBP_CODE32_START, LINUX_KERNEL_GPA);
	wr32(zp + LBP_RAMDISK_IMAGE, initrd_at);
	wr32(zp + LBP_RAMDISK_SIZE, (uint32_t)initrd_len);
	wr32(zp + LBP_CMD_LINE_PTR, LINUX_CMDLINE_GPA);
	wr64(zp + LBP_ACPI_RSDP, rsdp);
	e820_write(zp, mem_size);
	return NULL;
}
