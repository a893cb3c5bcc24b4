/* The multiboot2 boot information (Multiboot2 spec, section 3.6): a u32 total size, a
 * reserved u32, then 8-byte aligned tags {u32 type, u32 size, payload}, ended by type 0.
 * Every size is untrusted: each tag must lie inside the total size, which must lie inside
 * the buffer, and the arithmetic is done in size_t so that no size can wrap an offset. */
#include "core/bootinfo.h"
#include "lib/le.h"
#include "lib/string.h"

struct boot_info boot_info; /* kmain fills it once at boot; read-only after */

enum {
	TAG_END = 0,
	TAG_CMDLINE = 1,
	TAG_MODULE = 3,
	TAG_MMAP = 6,
	TAG_EFI64 = 12,
	TAG_FRAMEBUFFER = 8,
	TAG_ACPI_OLD = 14,
	TAG_ACPI_NEW = 15,
	TAG_EFI_MMAP = 17,
};

#define TAG_HEADER    8
#define MODULE_HEADER 16 /* type, size, mod_start, mod_end */

/* Copies a string that should end with a NUL inside [src, src + n); a string without one
 * ends at the tag's end, and one longer than the destination is cut. */
static void copy_str(char *dst, size_t max, const uint8_t *src, size_t n)
{
	size_t i = 0;
	while (i < n && src[i] && i + 1 < max) {
		dst[i] = (char)src[i];
		i++;
	}
	dst[i] = 0;
}

static const char *parse_module(struct boot_info *bi, const uint8_t *t, size_t size)
{
	if (size < MODULE_HEADER)
		return "malformed module tag";
	uint32_t start = le32(t + 8), end = le32(t + 12);
	if (end < start)
		return "module tag ends before it starts";
	if (bi->nr_modules == BOOT_MAX_MODULES) {
		bi->modules_dropped++;
		return NULL;
	}
	struct boot_module *m = &bi->modules[bi->nr_modules++];
	m->start = start;
	m->end = end;
	copy_str(m->cmdline, sizeof(m->cmdline), t + MODULE_HEADER, size - MODULE_HEADER);
	return NULL;
}

static void parse_rsdp(struct boot_info *bi, uint32_t type, const uint8_t *t, size_t size)
{
	/* Prefer the ACPI 2.0+ RSDP (it carries the XSDT) when both are present. */
	if (bi->have_rsdp && type != TAG_ACPI_NEW)
		return;
	size_t n = size - TAG_HEADER;
	if (n > sizeof(bi->rsdp))
		n = sizeof(bi->rsdp);
	memset(bi->rsdp, 0, sizeof(bi->rsdp));
	memcpy(bi->rsdp, t + TAG_HEADER, n);
	bi->rsdp_len = (unsigned)n;
	bi->have_rsdp = true;
}

const char *bootinfo_parse(struct boot_info *bi, const uint8_t *mbi, size_t len, uint64_t mbi_pa)
{
	memset(bi, 0, sizeof(*bi));
	if (len < 8)
		return "multiboot2 information is truncated";
	size_t total = le32(mbi);
	if (total < 16 || total > (1u << 20))
		return "multiboot2 information has an implausible size";
	if (total > len)
		return "multiboot2 information is truncated";
	bi->mbi_start = mbi_pa;
	bi->mbi_end = mbi_pa + total;
	const uint8_t *mmap = NULL, *efi_mmap = NULL;
	size_t mmap_size = 0, efi_mmap_size = 0;
	for (size_t off = 8; total - off >= TAG_HEADER;) {
		const uint8_t *t = mbi + off;
		uint32_t type = le32(t);
		size_t size = le32(t + 4);
		if (size < TAG_HEADER || size > total - off)
			return "malformed multiboot2 tag";
		const char *err = NULL;
		switch (type) {
		case TAG_CMDLINE:
			copy_str(bi->cmdline, sizeof(bi->cmdline), t + TAG_HEADER,
				 size - TAG_HEADER);
			break;
		case TAG_MODULE:
			err = parse_module(bi, t, size);
			break;
		case TAG_MMAP:
			mmap = t, mmap_size = size;
			break;
		case TAG_EFI_MMAP:
			efi_mmap = t, efi_mmap_size = size;
			break;
		case TAG_FRAMEBUFFER:
			bootinfo_parse_fb(&bi->fb, t, size);
			break;
		case TAG_EFI64:
			bi->efi = true;
			break;
		case TAG_ACPI_OLD:
		case TAG_ACPI_NEW:
			parse_rsdp(bi, type, t, size);
			break;
		}
		if (err)
			return err;
		if (type == TAG_END)
			break;
		/* Tags start 8-byte aligned; the padding of the last one may end past total. */
		size_t step = (size + 7) & ~(size_t)7;
		if (step >= total - off)
			break;
		off += step;
	}
	bi->mmap_tag = mmap ? mmap : efi_mmap;
	bi->mmap_tag_size = mmap ? mmap_size : efi_mmap_size;
	if (mmap) {
		if (!memmap_parse_mb2(&bi->mem, mmap, mmap_size))
			return "malformed memory map tag";
	} else if (efi_mmap) {
		bi->efi_mmap = true;
		if (!memmap_parse_efi(&bi->mem, efi_mmap, efi_mmap_size))
			return "malformed EFI memory map tag";
	} else {
		return "no memory map from the boot loader";
	}
	return NULL;
}

/* Multiboot2 specification 3.6.12, laid out as GRUB writes it: addr at 8, pitch 16, width
 * 20, height 24, bpp 28, type 29, two reserved bytes, then the colour info at 32 (RGB: red
 * position and size, green, blue). Type 0 is indexed, 1 RGB, 2 EGA text. */
void bootinfo_parse_fb(struct fb_info *fb, const uint8_t *t, uint32_t size)
{
	enum { MB2_FB_INDEXED = 0, MB2_FB_RGB = 1, MB2_FB_EGA_TEXT = 2 };
	struct fb_info f = {0};
	if (size < 32)
		return;
	memcpy(&f.addr, t + 8, 8);
	memcpy(&f.pitch, t + 16, 4);
	memcpy(&f.width, t + 20, 4);
	memcpy(&f.height, t + 24, 4);
	f.bpp = t[28];
	if (t[29] == MB2_FB_EGA_TEXT) {
		f.type = FB_EGA_TEXT;
	} else if (t[29] == MB2_FB_RGB && size >= 38) {
		f.type = FB_RGB;
		f.red_pos = t[32];
		f.red_size = t[33];
		f.green_pos = t[34];
		f.green_size = t[35];
		f.blue_pos = t[36];
		f.blue_size = t[37];
	} else {
		return;
	}
	*fb = f;
}
