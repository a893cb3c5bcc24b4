/* Guest-linear to guest-physical through the guest's own page tables (SDM Vol. 3A 4.3
 * 32-bit paging, 4.4 PAE paging, 4.5 4-level paging), for the instructions core/
 * emulates (the vLAPIC's MMIO accesses). Pure: guest-physical memory is read through a
 * callback (hv_space_ptr in the hypervisor, a buffer in test/unit/test_gwalk.c). Only the
 * present bits are checked: the guest has just executed the instruction whose bytes are
 * fetched, so the hardware already checked the rest. */
#ifndef CORE_GWALK_H
#define CORE_GWALK_H
#include <stdbool.h>
#include <stdint.h>

/* A pointer to [gpa, gpa + len) of guest memory, or NULL when not all of it is memory. */
typedef const void *(*gwalk_mem_fn)(void *ctx, uint64_t gpa, uint64_t len);

struct gwalk_regs {
	uint64_t cr0, cr3, cr4, efer;
};

enum gwalk_result {
	GWALK_OK = 0,
	GWALK_NOT_PRESENT, /* a paging-structure entry with P = 0: the guest gets #PF */
	GWALK_BAD_TABLE,   /* a paging structure outside guest memory: crash the domain */
};

/* Translates la (already CS.base-adjusted and truncated to 32 bits outside 64-bit
 * code). *level gets the level that failed (4 = PML4 .. 1 = PTE) for the message. */
enum gwalk_result gwalk(const struct gwalk_regs *r, uint64_t la, gwalk_mem_fn mem, void *ctx,
			uint64_t *gpa, unsigned *level);
const char *gwalk_result_name(enum gwalk_result r);

#endif
