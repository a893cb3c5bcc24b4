/* The hypervisor's view of physical memory: boot/multiboot2.S maps the first 4 GiB
 * identity (2 MiB pages), so a physical address below 4 GiB is also a pointer. */
#ifndef ARCH_X86_64_MEMORY_H
#define ARCH_X86_64_MEMORY_H
#include <stdint.h>

#define PAGE_SIZE	   4096ull
#define IDENTITY_MAP_LIMIT (1ull << 32)

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)pa;
}

static inline uint64_t virt_to_phys(const void *p)
{
	return (uint64_t)p;
}

#endif
