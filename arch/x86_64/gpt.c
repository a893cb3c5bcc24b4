/* Guest page tables (gpt.h): one builder for the EPT and NPT formats. Level 3 is the PML4,
 * level 0 the page table; an entry's address field is bits 51:12 in both formats (SDM Vol.
 * 3C 28.2.2, APM Vol. 2 5.3). */
#include "arch/x86_64/gpt.h"
#include "arch/x86_64/memory.h"

#define GPT_ADDR_MASK 0x000ffffffffff000ull /* bits 51:12 */
#define GPT_2M	      (1ull << 21)
#define GPT_TOP_LEVEL 3

static unsigned gpt_index(uint64_t gpa, int level)
{
	return (gpa >> (12 + 9 * level)) & 511;
}

static bool gpt_present(const struct gpt_format *f, uint64_t e)
{
	return (e & f->present) != 0;
}

/* The entry of level `leaf_level` for gpa, creating the tables above it; NULL when out of
 * frames. */
static uint64_t *gpt_entry(const struct gpt_format *f, uint64_t root_pa, uint64_t gpa,
			   int leaf_level)
{
	uint64_t *t = phys_to_virt(root_pa);
	for (int level = GPT_TOP_LEVEL; level > leaf_level; level--) {
		uint64_t *e = &t[gpt_index(gpa, level)];
		if (!gpt_present(f, *e)) {
			uint64_t pa = hv_frames.alloc();
			if (!pa)
				return NULL;
			*e = pa | f->table;
		}
		t = phys_to_virt(*e & GPT_ADDR_MASK);
	}
	return &t[gpt_index(gpa, leaf_level)];
}

bool gpt_map(const struct gpt_format *f, struct hv_space *s, bool large_pages)
{
	s->root_pa = hv_frames.alloc();
	if (!s->root_pa)
		return false;
	for (uint64_t gpa = 0; gpa < s->size;) {
		uint64_t hpa = s->hpa + gpa;
		bool large = large_pages && !(gpa & (GPT_2M - 1)) && !(hpa & (GPT_2M - 1)) &&
			     s->size - gpa >= GPT_2M;
		uint64_t *e = gpt_entry(f, s->root_pa, gpa, large ? 1 : 0);
		if (!e)
			return false;
		*e = hpa | f->leaf | (large ? f->large : 0);
		gpa += large ? GPT_2M : PAGE_SIZE;
	}
	return true;
}

static void gpt_free_level(const struct gpt_format *f, uint64_t pa, int level)
{
	uint64_t *t = phys_to_virt(pa);
	if (level > 0) {
		for (int i = 0; i < 512; i++)
			if (gpt_present(f, t[i]) && !(level == 1 && (t[i] & f->large)))
				gpt_free_level(f, t[i] & GPT_ADDR_MASK, level - 1);
	}
	hv_frames.free(pa);
}

void gpt_unmap(const struct gpt_format *f, struct hv_space *s)
{
	if (s->root_pa)
		gpt_free_level(f, s->root_pa, GPT_TOP_LEVEL);
	s->root_pa = 0;
}

uint64_t gpt_root(const struct gpt_format *f, const struct hv_space *s)
{
	return s->root_pa | f->root;
}

uint64_t gpt_translate(const struct gpt_format *f, uint64_t root_pa, uint64_t gpa,
		       uint64_t *page_size)
{
	if (gpa >> 48) /* beyond what a 4-level walk translates */
		return GPT_UNMAPPED;
	const uint64_t *t = phys_to_virt(root_pa);
	for (int level = GPT_TOP_LEVEL;; level--) {
		uint64_t e = t[gpt_index(gpa, level)];
		if (!gpt_present(f, e))
			return GPT_UNMAPPED;
		if (level == 1 && (e & f->large)) {
			if (page_size)
				*page_size = GPT_2M;
			return (e & GPT_ADDR_MASK & ~(GPT_2M - 1)) | (gpa & (GPT_2M - 1));
		}
		if (level == 0) {
			if (page_size)
				*page_size = PAGE_SIZE;
			return (e & GPT_ADDR_MASK) | (gpa & (PAGE_SIZE - 1));
		}
		t = phys_to_virt(e & GPT_ADDR_MASK);
	}
}
