#include "core/bootinfo.h"
#include "lib/string.h"

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

static void copy_str(char *dst, const char *src, const uint8_t *limit, size_t max)
{
	size_t n = 0;
	while ((const uint8_t *)src + n < limit && src[n] && n + 1 < max) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = 0;
}

const char *bootinfo_parse(struct boot_info *bi, const uint8_t *mbi, uint64_t mbi_pa)
{
	uint32_t total;
	memcpy(&total, mbi, 4);
	if (total < 16 || total > (1u << 20))
		return "multiboot2 information has an implausible size";
	bi->mbi_start = mbi_pa;
	bi->mbi_end = mbi_pa + total;
	const uint8_t *mmap = NULL, *efi_mmap = NULL;
	for (uint32_t off = 8; off + 8 <= total;) {
		const uint8_t *t = mbi + off;
		uint32_t type, size;
		memcpy(&type, t, 4);
		memcpy(&size, t + 4, 4);
		if (size < 8 || off + size > total)
			return "malformed multiboot2 tag";
		const uint8_t *end = t + size;
		switch (type) {
		case TAG_CMDLINE:
			copy_str(bi->cmdline, (const char *)t + 8, end, sizeof(bi->cmdline));
			break;
		case TAG_MODULE:
			if (bi->nr_modules == BOOT_MAX_MODULES) {
				bi->modules_dropped++;
				break;
			}
			if (size < 16)
				return "malformed module tag";
			{
				struct boot_module *m = &bi->modules[bi->nr_modules++];
				uint32_t s, e;
				memcpy(&s, t + 8, 4);
				memcpy(&e, t + 12, 4);
				m->start = s;
				m->end = e;
				copy_str(m->cmdline, (const char *)t + 16, end, sizeof(m->cmdline));
			}
			break;
		case TAG_MMAP:
			mmap = t;
			break;
		case TAG_EFI_MMAP:
			efi_mmap = t;
			break;
		case TAG_FRAMEBUFFER:
			bootinfo_parse_fb(&bi->fb, t, size);
			break;
		case TAG_EFI64:
			bi->efi = true;
			break;
		case TAG_ACPI_OLD:
		case TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0+ RSDP (it carries the XSDT) when both are present. */
			if (!bi->have_rsdp || type == TAG_ACPI_NEW) {
				size_t n =
					size - 8 < sizeof(bi->rsdp) ? size - 8 : sizeof(bi->rsdp);
				memcpy(bi->rsdp, t + 8, n);
				bi->have_rsdp = true;
			}
			break;
		}
		if (type == TAG_END)
			break;
		off += (size + 7) & ~7u;
	}
	bi->mmap_tag = mmap ? mmap : efi_mmap;
	if (mmap) {
		if (!memmap_parse_mb2(&bi->mem, mmap))
			return "malformed memory map tag";
	} else if (efi_mmap) {
		bi->efi_mmap = true;
		if (!memmap_parse_efi(&bi->mem, efi_mmap))
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
