/* Extended page tables (SDM Vol. 3C 28.2): one 4-level table per domain mapping
 * guest-physical [0, size) onto one contiguous host range, read/write/execute,
 * write-back, with 2 MiB pages wherever guest and host addresses are both aligned.
 * Nothing else is mapped: any other access is an EPT violation. */
#include "arch/x86_64/hv_backend.h"
#include "arch/x86_64/vmx/vmx.h"

#define EPT_RWX	  (EPT_READ | EPT_WRITE | EPT_EXEC)
#define ADDR_MASK 0x000ffffffffff000ull
#define SZ_2M	  (1ull << 21)

static uint64_t *table(uint64_t entry)
{
	return phys_to_virt(entry & ADDR_MASK);
}

/* The entry of level `level` (3 = PML4 ... 0 = PT) for gpa, creating tables above. */
static uint64_t *walk(struct hv_space *s, uint64_t gpa, int leaf_level)
{
	uint64_t *t = phys_to_virt(s->root_pa);
	for (int level = 3; level > leaf_level; level--) {
		uint64_t *e = &t[(gpa >> (12 + 9 * level)) & 511];
		if (!(*e & EPT_RWX)) {
			uint64_t pa = frame_alloc();
			if (!pa)
				return NULL;
			*e = pa | EPT_RWX;
		}
		t = table(*e);
	}
	return &t[(gpa >> (12 + 9 * leaf_level)) & 511];
}

static void free_level(uint64_t pa, int level)
{
	uint64_t *t = phys_to_virt(pa);
	if (level > 0) {
		for (int i = 0; i < 512; i++)
			if ((t[i] & EPT_RWX) && !(t[i] & EPT_LARGE))
				free_level(t[i] & ADDR_MASK, level - 1);
	}
	frame_free(pa);
}

/* Frees the tables under s->root_pa and root_pa itself (hv.c frees s). */
void vmx_space_unmap(struct hv_space *s)
{
	if (s->root_pa)
		free_level(s->root_pa, 3);
	s->root_pa = 0;
}

/* Builds the tables for [0, s->size) -> [s->hpa, ...); false when out of memory (hv.c then
 * calls vmx_space_unmap). */
bool vmx_space_map(struct hv_space *s)
{
	uint64_t hpa = s->hpa, size = s->size;
	s->root_pa = frame_alloc();
	if (!s->root_pa)
		return false;
	bool big = vmx_caps.ept_vpid & EPT_CAP_2M;
	for (uint64_t gpa = 0; gpa < size;) {
		if (big && !(gpa & (SZ_2M - 1)) && !((hpa + gpa) & (SZ_2M - 1)) &&
		    size - gpa >= SZ_2M) {
			uint64_t *e = walk(s, gpa, 1);
			if (!e)
				return false;
			*e = (hpa + gpa) | EPT_RWX | EPT_MT_WB | EPT_LARGE;
			gpa += SZ_2M;
		} else {
			uint64_t *e = walk(s, gpa, 0);
			if (!e)
				return false;
			*e = (hpa + gpa) | EPT_RWX | EPT_MT_WB;
			gpa += PAGE_SIZE;
		}
	}
	return true;
}

uint64_t ept_pointer(struct hv_space *s)
{
	return s->root_pa | EPTP_WB | EPTP_WALK_4; /* 24.6.11 */
}
