#include "core/memmap.h"
#include "lib/le.h"
#include <stddef.h>

#define PAGE 4096ull

static uint64_t up(uint64_t a)
{
	return a > UINT64_MAX - (PAGE - 1) ? UINT64_MAX & ~(PAGE - 1)
					   : (a + PAGE - 1) & ~(PAGE - 1);
}

static uint64_t down(uint64_t a)
{
	return a & ~(PAGE - 1);
}

static void insert_at(struct memmap *m, unsigned i, uint64_t s, uint64_t e)
{
	if (m->n == MEMMAP_MAX) {
		m->truncated = true;
		return;
	}
	for (unsigned j = m->n; j > i; j--)
		m->r[j] = m->r[j - 1];
	m->r[i] = (struct mem_range){s, e};
	m->n++;
}

static void remove_at(struct memmap *m, unsigned i)
{
	for (unsigned j = i; j + 1 < m->n; j++)
		m->r[j] = m->r[j + 1];
	m->n--;
}

void memmap_add(struct memmap *m, uint64_t start, uint64_t end)
{
	uint64_t s = up(start), e = down(end);
	if (end < start || e <= s)
		return;
	unsigned i = 0;
	while (i < m->n && m->r[i].end < s)
		i++;
	insert_at(m, i, s, e);
	/* Ranges before i end before s; merge every later one that touches or overlaps. */
	while (i + 1 < m->n && m->r[i + 1].start <= m->r[i].end) {
		if (m->r[i + 1].start < m->r[i].start)
			m->r[i].start = m->r[i + 1].start;
		if (m->r[i + 1].end > m->r[i].end)
			m->r[i].end = m->r[i + 1].end;
		remove_at(m, i + 1);
	}
}

void memmap_reserve(struct memmap *m, uint64_t start, uint64_t end)
{
	uint64_t s = down(start), e = up(end);
	if (end <= start)
		return;
	for (unsigned i = 0; i < m->n;) {
		struct mem_range r = m->r[i];
		if (r.end <= s || r.start >= e) {
			i++;
			continue;
		}
		remove_at(m, i);
		if (r.start < s)
			insert_at(m, i++, r.start, s);
		if (r.end > e)
			insert_at(m, i++, e, r.end);
	}
}

struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, reserved;
};

struct efi_desc {
	uint32_t type, pad;
	uint64_t phys, virt, pages, attr;
};

static uint64_t end_of(uint64_t base, uint64_t len)
{
	return len > UINT64_MAX - base ? UINT64_MAX : base + len;
}

/* Both tags: u32 type, u32 size, u32 entry size, u32 entry version, then the entries
 * (Multiboot2 spec 3.6.8 and 3.6.12). Checks the header against the container and the
 * entry size against the smallest entry the parser reads; returns the tag's size, or 0. */
#define MMAP_HEADER 16

static size_t check_tag(const uint8_t *tag, size_t len, size_t min_entry, uint32_t *esize)
{
	if (len < MMAP_HEADER)
		return 0;
	size_t size = le32(tag + 4);
	*esize = le32(tag + 8);
	if (size < MMAP_HEADER || size > len || *esize < min_entry)
		return 0;
	return size;
}

/* Two passes over the entries: usable ranges first, then every reserved one carved out,
 * so the result does not depend on the order the firmware listed them in. The loops
 * compare against the bytes left (never off + esize, which a huge esize would wrap). */
bool memmap_parse_mb2(struct memmap *m, const uint8_t *tag, size_t len)
{
	uint32_t esize;
	size_t size = check_tag(tag, len, sizeof(struct mb2_mmap_entry), &esize);
	if (!size)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t off = MMAP_HEADER; size - off >= esize; off += esize) {
			const uint8_t *e = tag + off;
			uint64_t base = le64(e), bytes = le64(e + 8);
			bool usable = le32(e + 16) == MB2_MEMORY_AVAILABLE;
			if (pass == 0 && usable)
				memmap_add(m, base, end_of(base, bytes));
			else if (pass == 1 && !usable)
				memmap_reserve(m, base, end_of(base, bytes));
		}
	}
	return true;
}

bool memmap_parse_efi(struct memmap *m, const uint8_t *tag, size_t len)
{
	uint32_t dsize;
	size_t size = check_tag(tag, len, sizeof(struct efi_desc), &dsize);
	if (!size)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t off = MMAP_HEADER; size - off >= dsize; off += dsize) {
			const uint8_t *d = tag + off;
			uint64_t base = le64(d + 8), pages = le64(d + 24);
			uint64_t bytes = pages > (UINT64_MAX >> 12) ? UINT64_MAX : pages << 12;
			bool usable = le32(d) == EFI_CONVENTIONAL_MEMORY;
			if (pass == 0 && usable)
				memmap_add(m, base, end_of(base, bytes));
			else if (pass == 1 && !usable)
				memmap_reserve(m, base, end_of(base, bytes));
		}
	}
	return true;
}

uint64_t memmap_total(const struct memmap *m)
{
	uint64_t t = 0;
	for (unsigned i = 0; i < m->n; i++)
		t += m->r[i].end - m->r[i].start;
	return t;
}
