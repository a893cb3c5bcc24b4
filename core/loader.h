/* ELF32/ELF64 loader for guest images: pure code, host-testable (test/unit/test_loader.c).
 * Segments load at their physical address (p_paddr) into one guest memory range. */
#ifndef CORE_LOADER_H
#define CORE_LOADER_H
#include <stddef.h>
#include <stdint.h>

struct elf_image_info {
	uint64_t entry;
	uint64_t lo, hi;  /* guest-physical range covered by PT_LOAD segments [lo, hi) */
	int is64;	  /* ELFCLASS64 */
	unsigned nr_load; /* PT_LOAD segments */
};

/* Checks the image and that every PT_LOAD segment fits in [min_gpa, mem_size); fills
 * *info. Returns NULL when the image is loadable, else a short reason ("not an ELF
 * image", "segment 1 at 0x... outside memory (... bytes)", ...) in why[]. */
const char *elf_check(const void *img, size_t len, uint64_t min_gpa, uint64_t mem_size,
		      struct elf_image_info *info, char *why, size_t whylen);

/* A range of guest-physical memory segments may load into: [lo, hi). */
struct elf_range {
	uint64_t lo, hi;
};

/* As elf_check, but each PT_LOAD segment must lie wholly inside one of r[0..n) (n <= 4):
 * a multiboot1 image may have segments in free low memory and above 1 MiB. */
const char *elf_check_ranges(const void *img, size_t len, const struct elf_range *r, unsigned n,
			     struct elf_image_info *info, char *why, size_t whylen);
/* elf_check_ranges, then the copy (mem: host pointer to guest-physical 0). */
const char *elf_load_ranges(const void *img, size_t len, void *mem, const struct elf_range *r,
			    unsigned n, struct elf_image_info *info, char *why, size_t whylen);

/* elf_check, then copies each segment into mem (host pointer to guest-physical 0) and
 * zeroes its bss. mem must be mem_size bytes. Same return convention. */
const char *elf_load(const void *img, size_t len, void *mem, uint64_t min_gpa, uint64_t mem_size,
		     struct elf_image_info *info, char *why, size_t whylen);
/* The same into memory that is all zero already (a restart's scrubbed memory): the bss is
 * not zeroed again (in Bochs ~1 ms for a test guest's 150 KiB, a stall of its pCPU). */
const char *elf_load_clean(const void *img, size_t len, void *mem, uint64_t min_gpa,
			   uint64_t mem_size, struct elf_image_info *info, char *why,
			   size_t whylen);

#endif
