/* Physical frame allocator over every usable range of the firmware's map, below and above
 * 4 GiB: one bit per 4 KiB frame, the bitmap itself carved out of usable memory below
 * 4 GiB. RAM above 4 GiB is identity-mapped (arch/x86_64/paging.c) when mm_init takes it,
 * so a physical address is a pointer everywhere. Allocation goes from the top of memory
 * down: guests and the hypervisor's own structures use memory above 4 GiB first, and the
 * memory below stays for what needs it (the AP trampoline, firmware, 32-bit devices). */
#ifndef CORE_MM_H
#define CORE_MM_H
#include <stddef.h>
#include <stdint.h>
#include "arch/x86_64/memory.h"
#include "core/memmap.h"

#define MM_MAX_PHYS (1ull << 46) /* 64 TiB: usable memory above it is ignored (one line) */
#define MM_4G	    (1ull << 32)

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
/* Frames managed / in use above 4 GiB; the highest frame boundary managed. */
size_t mm_high_total_frames(void);
size_t mm_high_used_frames(void);
uint64_t mm_top(void);
/* One line: what mm_init could not take (ranges past MM_MAX_PHYS, page tables missing). */
const char *mm_warning(void);

#endif
