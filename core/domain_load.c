/* The loaders' glue of a domain's creation (core/domain.c): its image checked and loaded as
 * its boot= says (an ELF, multiboot1, a real-mode image: core/loader.c, core/pcboot.c),
 * what kind it is, and the boot-info page of each vCPU of a sliver-ABI guest. Apart from
 * the creation's steps so that each file has one job. */
#include "core/domain_priv.h"
#include "arch/x86_64/tsc.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "lib/string.h"

/* Every vCPU's boot-info page lies below the lowest address an image may load at. */
_Static_assert(SLIVER_BOOTINFO_GPA(SLIVER_MAX_VCPUS - 1) + 0x1000u <= SLIVER_GUEST_LOAD_MIN,
	       "boot-info pages overlap the image");

void domain_write_boot_info(struct domain *d, unsigned i)
{
	struct sliver_boot_info *bi = hv_space_ptr(d->space, SLIVER_BOOTINFO_GPA(i), sizeof *bi);
	bi->magic = SLIVER_BOOT_MAGIC;
	bi->version = SLIVER_BOOT_VERSION;
	bi->dom_id = d->id;
	bi->vcpu_id = i;
	bi->nr_vcpus = d->nr_vcpus;
	bi->flags = d->role == SLIVER_ROLE_SERVICE ? SLIVER_BI_SERVICE : 0;
	bi->mem_bytes = d->mem_bytes;
	bi->tsc_base = tsc_at_boot;
	bi->tsc_mul = (uint32_t)tsc_ns_conv.mult;
	bi->tsc_shift = tsc_ns_conv.shift;
	bi->tsc_hz = tsc_hz;
	memcpy(bi->name, d->name, sizeof bi->name);
	memcpy(bi->cmdline, d->cmdline, sizeof bi->cmdline);
}

/* Checks (mem == NULL) or loads the module's image as its boot= says; the entry point
 * (boot=real: its linear address) in info->entry. NULL or the reason. */
const char *domain_image_load(struct domain *d, const void *img, size_t len, void *mem,
			      struct elf_image_info *info, char *why, size_t wl, bool clean)
{
	uint32_t entry;
	const char *err;
	switch (d->boot) {
	case PC_BOOT_MB1:
		err = mb1_load(img, len, mem, d->mem_bytes, &entry, why, wl);
		info->entry = entry;
		return err;
	case PC_BOOT_LINUX:
		err = linux_domain_load(d, img, len, mem, &entry, why, wl);
		info->entry = entry;
		return err;
	case PC_BOOT_REAL:
		err = real_load(img, len, mem, d->mem_bytes, d->real_load, &d->real_cs, &d->real_ip,
				why, wl);
		info->entry = (uint64_t)d->real_cs * 16 + d->real_ip;
		return err;
	default:
		if (mem && clean)
			return elf_load_clean(img, len, mem, SLIVER_GUEST_LOAD_MIN, d->mem_bytes,
					      info, why, wl);
		return mem ? elf_load(img, len, mem, SLIVER_GUEST_LOAD_MIN, d->mem_bytes, info, why,
				      wl)
			   : elf_check(img, len, SLIVER_GUEST_LOAD_MIN, d->mem_bytes, info, why,
				       wl);
	}
}

const char *domain_image_kind(const struct domain *d, const struct elf_image_info *info)
{
	if (d->boot == PC_BOOT_MB1)
		return "multiboot1";
	if (d->boot == PC_BOOT_REAL)
		return "real-mode";
	if (d->boot == PC_BOOT_LINUX)
		return "Linux bzImage";
	return info->is64 ? "64-bit ELF" : "32-bit ELF";
}
