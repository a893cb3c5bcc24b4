/* Usable physical memory as a sorted list of disjoint page-aligned ranges [start, end),
 * built from the firmware's map: multiboot2 tag 6 (type 1 is usable, every other type is
 * reserved) or, when that is absent, the EFI map of tag 17 (only EfiConventionalMemory is
 * usable). Reserved ranges win over usable ones where the firmware's entries overlap.
 * Pure code, tested on the host with captured BIOS and OVMF maps. */
#ifndef CORE_MEMMAP_H
#define CORE_MEMMAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMMAP_MAX		128
#define MB2_MEMORY_AVAILABLE	1
#define EFI_CONVENTIONAL_MEMORY 7

struct mem_range {
	uint64_t start, end;
};

struct memmap {
	unsigned n;
	struct mem_range r[MEMMAP_MAX];
	bool truncated; /* more ranges than MEMMAP_MAX: some memory was dropped */
};

void memmap_add(struct memmap *m, uint64_t start, uint64_t end);
void memmap_reserve(struct memmap *m, uint64_t start, uint64_t end);
/* Parses a multiboot2 memory map tag (type 6) or EFI memory map tag (type 17) at tag, of
 * which len bytes are readable (the tag's size must fit in them). Returns false when the
 * tag is malformed: shorter than its header, larger than len, or an entry size smaller than
 * an entry. Reads nothing outside [tag, tag + len). */
bool memmap_parse_mb2(struct memmap *m, const uint8_t *tag, size_t len);
bool memmap_parse_efi(struct memmap *m, const uint8_t *tag, size_t len);
uint64_t memmap_total(const struct memmap *m);

#endif
