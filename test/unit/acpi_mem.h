/* Host stand-ins for physical memory holding ACPI tables, shared by the generator
 * (acpi_gen.c), its test (test_acpi_corpus.c) and tools/acpi-scan.c: a buffer whose offsets
 * are the physical addresses, the map callback acpi_walk takes, and the checksum fix-up. */
#ifndef TEST_UNIT_ACPI_MEM_H
#define TEST_UNIT_ACPI_MEM_H
#include <stddef.h>
#include <stdint.h>

struct acpi_mem {
	uint8_t *p;
	size_t len;
};

/* acpi_map_fn over a struct acpi_mem: len bytes at offset pa, or NULL past its end. */
static inline const uint8_t *acpi_mem_map(uint64_t pa, size_t len, void *ctx)
{
	struct acpi_mem *m = ctx;
	if (pa >= m->len || len > m->len - pa)
		return NULL;
	return m->p + pa;
}

/* Sets the byte at `at` so that the n bytes at p sum to 0. */
static inline void acpi_mem_checksum(uint8_t *p, size_t n, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	p[at] = (uint8_t)-s;
}

#endif
