/* The hypervisor's view of physical memory: identity-mapped, so a physical address is also
 * a pointer. boot/multiboot2.S maps the first 4 GiB (2 MiB pages, 3-4 GiB uncached);
 * paging.c maps the rest on demand: RAM above 4 GiB when core/mm.c takes it (write-back),
 * device memory above 4 GiB (PCI BARs, MMIO UARTs, ACPI registers) when a driver asks
 * (uncached). */
#ifndef ARCH_X86_64_MEMORY_H
#define ARCH_X86_64_MEMORY_H
#include <stdbool.h>
#include <stdint.h>

#define PAGE_SIZE	   4096ull
#define IDENTITY_MAP_LIMIT (1ull << 32) /* what the boot page tables map */

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)pa;
}

static inline uint64_t virt_to_phys(const void *p)
{
	return (uint64_t)p;
}

/* Where page-table frames come from once core/mm.c runs (a zeroed, identity-mapped frame,
 * or 0); before that, a small static pool (enough for a few device mappings at boot). */
void paging_set_table_alloc(uint64_t (*alloc)(void));
/* Maps [start, end) identity (rounded out to 4 KiB): 1 GiB or 2 MiB pages where a whole
 * aligned one fits, 4 KiB pages at the edges; uncached (PCD|PWT) or write-back. What is
 * already mapped stays as it is. False when a page-table frame could not be had. */
bool ident_map(uint64_t start, uint64_t end, bool uncached);
/* A pointer to len bytes of device (or firmware) memory at pa: the boot map below 4 GiB,
 * else mapped by ident_map (uncached when asked). NULL when it cannot be mapped. */
void *mmio_map(uint64_t pa, uint64_t len, bool uncached);
/* The end of the highest range ident_map mapped (at least IDENTITY_MAP_LIMIT). */
uint64_t ident_map_top(void);

#endif
