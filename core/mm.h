/* Physical frame allocator over the usable memory below 4 GiB (the part the hypervisor
 * maps, identity: a physical address is also a pointer). One bit per 4 KiB frame. */
#ifndef CORE_MM_H
#define CORE_MM_H
#include <stddef.h>
#include <stdint.h>
#include "arch/x86_64/memory.h"
#include "core/memmap.h"

#define MM_LIMIT IDENTITY_MAP_LIMIT

/* Takes the usable ranges (already without kernel, modules and boot info). */
void mm_init(const struct memmap *m);
/* One zeroed frame; 0 when memory is exhausted. */
uint64_t frame_alloc(void);
void frame_free(uint64_t pa);
/* n contiguous zeroed frames aligned to align_frames frames; 0 on failure. */
uint64_t frames_alloc(size_t n, size_t align_frames);
void frames_free(uint64_t pa, size_t n);
size_t mm_free_frames(void);
/* Test hook (vmm.create_loop): from now, the k-th allocation fails (k = 0: none). Returns
 * the number of allocations since the previous call. */
size_t mm_test_fail_at(size_t k);
size_t mm_total_frames(void);

#endif
