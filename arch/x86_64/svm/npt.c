/* Nested page tables (APM Vol. 2 15.25): one 4-level table per domain in the ordinary
 * long-mode format, mapping guest-physical [0, size) onto one contiguous host range,
 * present/writable/user (nested walks are user accesses, 15.25.5), write-back (PAT index 0
 * of the host PAT), 2 MiB pages wherever guest and host addresses are both aligned - the
 * layout of vmx/ept.c. Nothing else is mapped: any other access is a nested page fault. */
#include "arch/x86_64/svm/svm.h"

#define NPT_TABLE (NPT_P | NPT_RW | NPT_US)
#define ADDR_MASK 0x000ffffffffff000ull
#define SZ_2M	  (1ull << 21)

/* The entry of level `leaf_level` (3 = PML4 ... 0 = PT) for gpa, creating tables above. */
static uint64_t *walk(struct hv_space *s, uint64_t gpa, int leaf_level)
{
	uint64_t *t = phys_to_virt(s->root_pa);
	for (int level = 3; level > leaf_level; level--) {
		uint64_t *e = &t[(gpa >> (12 + 9 * level)) & 511];
		if (!(*e & NPT_P)) {
			uint64_t pa = svm_frame_alloc();
			if (!pa)
				return NULL;
			*e = pa | NPT_TABLE;
		}
		t = phys_to_virt(*e & ADDR_MASK);
	}
	return &t[(gpa >> (12 + 9 * leaf_level)) & 511];
}

static void free_level(uint64_t pa, int level)
{
	uint64_t *t = phys_to_virt(pa);
	if (level > 0) {
		for (int i = 0; i < 512; i++)
			if ((t[i] & NPT_P) && !(t[i] & NPT_PS))
				free_level(t[i] & ADDR_MASK, level - 1);
	}
	svm_frame_free(pa);
}

void svm_space_unmap(struct hv_space *s)
{
	if (s->root_pa)
		free_level(s->root_pa, 3);
	s->root_pa = 0;
}

bool svm_space_map(struct hv_space *s)
{
	s->root_pa = svm_frame_alloc();
	if (!s->root_pa)
		return false;
	for (uint64_t gpa = 0; gpa < s->size;) {
		uint64_t hpa = s->hpa + gpa;
		if (!(gpa & (SZ_2M - 1)) && !(hpa & (SZ_2M - 1)) && s->size - gpa >= SZ_2M) {
			uint64_t *e = walk(s, gpa, 1);
			if (!e)
				return false;
			*e = hpa | NPT_TABLE | NPT_PS;
			gpa += SZ_2M;
		} else {
			uint64_t *e = walk(s, gpa, 0);
			if (!e)
				return false;
			*e = hpa | NPT_TABLE;
			gpa += PAGE_SIZE;
		}
	}
	return true;
}
