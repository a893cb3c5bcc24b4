/* Extended page tables (SDM Vol. 3C 28.2): one 4-level table per domain mapping
 * guest-physical [0, size) onto one contiguous host range, read/write/execute,
 * write-back, with 2 MiB pages wherever guest and host addresses are both aligned.
 * Nothing else is mapped: any other access is an EPT violation. */
#include "arch/x86_64/vmx/vmx.h"
#include <stddef.h>

#define EPT_RWX	  (EPT_READ | EPT_WRITE | EPT_EXEC)
#define ADDR_MASK 0x000ffffffffff000ull
#define SZ_2M	  (1ull << 21)

struct hv_space {
	uint64_t pml4_pa;
	uint64_t hpa, size;
};

static uint64_t *table(uint64_t entry)
{
	return phys_to_virt(entry & ADDR_MASK);
}

/* The entry of level `level` (3 = PML4 ... 0 = PT) for gpa, creating tables above. */
static uint64_t *walk(struct hv_space *s, uint64_t gpa, int leaf_level)
{
	uint64_t *t = phys_to_virt(s->pml4_pa);
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

void hv_space_destroy(struct hv_space *s)
{
	if (!s)
		return;
	if (s->pml4_pa)
		free_level(s->pml4_pa, 3);
	frame_free(virt_to_phys(s));
}

struct hv_space *hv_space_create(uint64_t hpa, uint64_t size)
{
	uint64_t spa = frame_alloc();
	if (!spa)
		return NULL;
	struct hv_space *s = phys_to_virt(spa);
	s->hpa = hpa;
	s->size = size;
	s->pml4_pa = frame_alloc();
	if (!s->pml4_pa)
		goto oom;
	bool big = vmx_caps.ept_vpid & EPT_CAP_2M;
	for (uint64_t gpa = 0; gpa < size;) {
		if (big && !(gpa & (SZ_2M - 1)) && !((hpa + gpa) & (SZ_2M - 1)) &&
		    size - gpa >= SZ_2M) {
			uint64_t *e = walk(s, gpa, 1);
			if (!e)
				goto oom;
			*e = (hpa + gpa) | EPT_RWX | EPT_MT_WB | EPT_LARGE;
			gpa += SZ_2M;
		} else {
			uint64_t *e = walk(s, gpa, 0);
			if (!e)
				goto oom;
			*e = (hpa + gpa) | EPT_RWX | EPT_MT_WB;
			gpa += PAGE_SIZE;
		}
	}
	return s;
oom:
	hv_space_destroy(s);
	return NULL;
}

void *hv_space_ptr(struct hv_space *s, uint64_t gpa, uint64_t len)
{
	if (gpa > s->size || len > s->size - gpa)
		return NULL;
	return phys_to_virt(s->hpa + gpa);
}

uint64_t ept_pointer(struct hv_space *s)
{
	return s->pml4_pa | EPTP_WB | EPTP_WALK_4; /* 24.6.11 */
}
