/* What the domain files share (core/domain.c creation, domain_load.c the loaders' glue,
 * domain_end.c the end of a domain and its restart=); their public side is in core/vmm.h.
 * Nothing else includes it. */
#ifndef CORE_DOMAIN_PRIV_H
#define CORE_DOMAIN_PRIV_H
#include <stdint.h>
#include "core/bootinfo.h"
#include "core/loader.h"
#include "core/vmm.h"

/* A new domain of module m with id `id` (core/domain.c). mem_hpa: zeroed memory of
 * mem_bytes to use (a restart: the module's mem= size), 0: allocate it. A failure gives
 * that memory back. NULL when refused (one line says why). */
struct domain *domain_create_mem(unsigned id, const struct boot_module *m, uint64_t mem_hpa,
				 uint64_t mem_bytes);
/* Frees the vCPUs' VMCS/VMCB and the EPT/NPT (core/domain.c; the end uses it too). */
void domain_free_hv(struct domain *d);
/* vCPU i's boot-info page in d's memory (core/domain_load.c). */
void domain_write_boot_info(struct domain *d, unsigned i);
/* What d's image is, for its creation line (core/domain_load.c). */
const char *domain_image_kind(const struct domain *d, const struct elf_image_info *info);
#endif
