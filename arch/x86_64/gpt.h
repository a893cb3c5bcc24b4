/* Guest page tables: the one builder of the second-level tables that map a domain's
 * guest-physical memory, [0, size) onto one contiguous host range (struct hv_space), in
 * either format: Intel EPT (SDM Vol. 3C 28.2) or AMD nested page tables (APM Vol. 2 15.25,
 * the ordinary long-mode format). Both are 4-level radix trees of 4 KiB tables of 512 8-byte
 * entries, indexed by guest-physical bits 47:39, 38:30, 29:21 and 20:12, each entry holding
 * the next table's (or the page's) address in bits 51:12, and bit 7 of a level-1 entry
 * ending the walk at a 2 MiB page. They differ only in the other bits of an entry and of the
 * root pointer: a struct gpt_format names them, one per format (as Jailhouse describes its
 * formats with paging tables), defined by the backend that owns the format: gpt_ept in
 * vmx/ept.c, gpt_npt in svm/npt.c. Tables come from hv_frames (zeroed 4 KiB frames). */
#ifndef ARCH_X86_64_GPT_H
#define ARCH_X86_64_GPT_H
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/hv_backend.h"

struct gpt_format {
	const char *name; /* "EPT", "NPT" */
	uint64_t present; /* an entry with any of these bits set maps something */
	uint64_t table;	  /* the bits of an entry that references the next table */
	uint64_t leaf;	  /* the bits of an entry that maps a page: permissions, memory type */
	uint64_t large;	  /* the page-size bit: a level-1 entry with it maps 2 MiB */
	uint64_t root;	  /* the bits of the root pointer beside the PML4's address */
};
extern const struct gpt_format gpt_ept, gpt_npt;

#define GPT_UNMAPPED (~0ull) /* gpt_translate: no page at that address */

/* Builds the tables for [0, s->size) -> [s->hpa, ...), with 2 MiB pages wherever guest and
 * host addresses are both 2 MiB aligned and 2 MiB remain (when large_pages), else 4 KiB
 * pages; fills s->root_pa. False when out of frames: the caller then calls gpt_unmap. */
bool gpt_map(const struct gpt_format *f, struct hv_space *s, bool large_pages);
/* Frees every table under s->root_pa and the root itself; s->root_pa = 0. */
void gpt_unmap(const struct gpt_format *f, struct hv_space *s);
/* The root pointer the CPU is given: the EPT pointer, or nCR3. */
uint64_t gpt_root(const struct gpt_format *f, const struct hv_space *s);
/* Walks the tables as the CPU would: the host address gpa maps to, or GPT_UNMAPPED; the
 * size of the page it lies in goes to *page_size (may be NULL). */
uint64_t gpt_translate(const struct gpt_format *f, uint64_t root_pa, uint64_t gpa,
		       uint64_t *page_size);

#endif
