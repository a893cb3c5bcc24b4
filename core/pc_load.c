/* What a PC's firmware leaves in a boot=mb1|real domain's memory (core/pcboot.h has the
 * map), at its creation and again at each reboot (core/pc_reset.c): the image and its
 * multiboot1 modules, the BDA's base-memory size and EBDA segment, the multiboot1
 * information, the ACPI tables and the ROM page. Memory is zero at creation; a reboot
 * writes these over what the guest left (RAM survives a reset on a PC). */
#include "arch/x86_64/panic.h"
#include "core/bootinfo.h"
#include "core/loader.h"
#include "core/mm.h"
#include "core/pc.h"
#include "core/linuxboot.h"
#include "core/pcboot.h"
#include "core/vmm.h"
#include "lib/cmdline.h"
#include "lib/string.h"

const char *pc_load_mods(struct domain *d, const void *img, size_t len, void *mem,
			 struct mb1_mod *mods, uint32_t *start, unsigned *n, char *why, size_t wl)
{
	uint32_t end;
	const char *err = mb1_image_end(img, len, d->mem_bytes, &end, why, wl);
	if (err)
		return err;
	char owner[32];
	unsigned k = 0;
	for (unsigned j = 0; j < boot_info.nr_modules; j++) {
		const struct boot_module *bm = &boot_info.modules[j];
		if (!cmdline_get(bm->cmdline, MB1_MOD_KEY, owner, sizeof owner) ||
		    strcmp(owner, d->name))
			continue;
		if (k < MB1_MAX_MODS)
			mods[k] = (struct mb1_mod){phys_to_virt(bm->start),
						   (size_t)(bm->end - bm->start), bm->cmdline};
		k++; /* counted past the maximum: mb1_mods_place refuses it */
	}
	*n = k;
	return mb1_mods_place(mods, k, end, mem, d->mem_bytes, start, why, wl);
}

void pc_write_memory(struct domain *d, const struct mb1_mod *mods, const uint32_t *start,
		     unsigned nmods, uint32_t entry)
{
	uint8_t *bda = hv_space_ptr(d->space, 0x400, 0x100);
	uint16_t kib = PC_LOW_END >> 10, ebda = PC_INFO_GPA >> 4;
	memcpy(bda + 0x13, &kib, 2);  /* 0x413: base memory in KiB */
	memcpy(bda + 0x0e, &ebda, 2); /* 0x40e: EBDA segment */
	char cl[SLIVER_CMDLINE_MAX];
	pc_mb1_cmdline(d->name, d->cmdline, cl, sizeof cl);
	mb1_info_build(hv_space_ptr(d->space, PC_INFO_GPA, PC_INFO_SIZE), d->mem_bytes, cl, mods,
		       start, nmods);
	acpi_build(hv_space_ptr(d->space, PC_ACPI_GPA, PC_ACPI_SIZE), d->nr_vcpus, d->lapic);
	pc_rom_build(hv_space_ptr(d->space, PC_ROM_GPA, PC_ROM_SIZE), entry,
		     d->boot == PC_BOOT_LINUX ? LINUX_ZP_GPA : 0);
	pc_ivt_build(hv_space_ptr(d->space, 0, 0x400));
}

void domain_pc_reload(struct domain *d)
{
	const struct boot_module *m = d->module;
	const void *img = phys_to_virt(m->start);
	size_t len = (size_t)(m->end - m->start);
	void *mem = phys_to_virt(d->mem_hpa);
	struct elf_image_info info = {0};
	struct mb1_mod mods[MB1_MAX_MODS];
	uint32_t at[MB1_MAX_MODS];
	unsigned n = 0;
	char why[160];
	/* It loaded the same way at creation: a failure now is a hypervisor bug. */
	if (domain_image_load(d, img, len, mem, &info, why, sizeof why, false) ||
	    (d->boot == PC_BOOT_MB1 &&
	     pc_load_mods(d, img, len, mem, mods, at, &n, why, sizeof why)))
		panic("d%u: reloading its image failed: %s", d->id, why);
	pc_write_memory(d, mods, at, n, (uint32_t)info.entry);
}
