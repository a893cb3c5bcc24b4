/* boot=linux's glue (docs/guests.md): the domain's bzImage with its initrd (the module line
 * with initrd_of=<its name>) and its command line (the module's words without sliver's own,
 * as pcboot.c's pc_guest_cmdline gives them), loaded by core/linuxboot.c at creation and
 * again at each reboot (core/pc_load.c). */
#include "core/bootinfo.h"
#include "core/linuxboot.h"
#include "core/mm.h"
#include "core/pc.h"
#include "core/pcboot.h"
#include "core/vmm.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

const char *linux_domain_load(struct domain *d, const void *img, size_t len, void *mem,
			      uint32_t *entry, char *why, size_t wl)
{
	const struct boot_module *rd = NULL;
	char owner[32];
	for (unsigned j = 0; j < boot_info.nr_modules; j++) {
		const struct boot_module *bm = &boot_info.modules[j];
		if (!cmdline_get(bm->cmdline, LINUX_INITRD_KEY, owner, sizeof owner) ||
		    strcmp(owner, d->name))
			continue;
		if (rd) {
			fmt_snprintf(why, wl,
				     "two initrd modules (" LINUX_INITRD_KEY "=%s): one only",
				     d->name);
			return why;
		}
		rd = bm;
	}
	const void *initrd = rd ? phys_to_virt(rd->start) : NULL;
	size_t initrd_len = rd ? (size_t)(rd->end - rd->start) : 0;
	if (rd && !initrd_len) {
		fmt_snprintf(why, wl, "its initrd module is empty");
		return why;
	}
	char cl[SLIVER_CMDLINE_MAX];
	pc_guest_cmdline(d->cmdline, cl, sizeof cl);
	return linux_load(img, len, initrd, initrd_len, cl, PC_ACPI_GPA, mem, d->mem_bytes, entry,
			  why, wl);
}
