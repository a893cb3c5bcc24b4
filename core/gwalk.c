/* The guest page walk (gwalk.h): paging off, 32-bit (4 KiB and, with CR4.PSE, 4 MiB
 * pages), PAE (4 KiB, 2 MiB) and 4-level (4 KiB, 2 MiB, 1 GiB). */
#include "core/gwalk.h"

#define CR0_PG	    (1ull << 31)
#define CR4_PSE	    (1ull << 4)
#define CR4_PAE	    (1ull << 5)
#define EFER_LMA    (1ull << 10)
#define PTE_P	    1ull
#define PTE_PS	    (1ull << 7)
#define ADDR_MASK52 0x000ffffffffff000ull

static enum gwalk_result entry64(gwalk_mem_fn mem, void *ctx, uint64_t pa, uint64_t *e)
{
	const uint64_t *p = mem(ctx, pa, 8);
	if (!p)
		return GWALK_BAD_TABLE;
	*e = *p;
	return (*e & PTE_P) ? GWALK_OK : GWALK_NOT_PRESENT;
}

/* Walks 9-bit levels from `top` down to 1 starting at table t; levels where `ps_ok` has
 * the level's bit may map a large page. */
static enum gwalk_result walk64(gwalk_mem_fn mem, void *ctx, uint64_t t, uint64_t la, int top,
				unsigned ps_ok, uint64_t *gpa, unsigned *level)
{
	for (int l = top; l >= 1; l--) {
		uint64_t e;
		*level = (unsigned)l;
		enum gwalk_result r =
			entry64(mem, ctx, t + 8 * ((la >> (12 + 9 * (l - 1))) & 511), &e);
		if (r)
			return r;
		if (l > 1 && (ps_ok & (1u << l)) && (e & PTE_PS)) {
			uint64_t size = 1ull << (12 + 9 * (l - 1));
			*gpa = (e & ADDR_MASK52 & ~(size - 1)) | (la & (size - 1));
			return GWALK_OK;
		}
		t = e & ADDR_MASK52;
	}
	*gpa = t | (la & 0xfff);
	return GWALK_OK;
}

enum gwalk_result gwalk(const struct gwalk_regs *r, uint64_t la, gwalk_mem_fn mem, void *ctx,
			uint64_t *gpa, unsigned *level)
{
	*level = 0;
	if (!(r->cr0 & CR0_PG)) {
		*gpa = (uint32_t)la;
		return GWALK_OK;
	}
	if (r->efer & EFER_LMA) /* 4-level: 1 GiB pages at level 3, 2 MiB at level 2 */
		return walk64(mem, ctx, r->cr3 & ADDR_MASK52, la, 4, (1u << 3) | (1u << 2), gpa,
			      level);
	la = (uint32_t)la;
	if (r->cr4 & CR4_PAE) { /* PDPTE (bits 31:30), then 2 levels; 2 MiB pages */
		uint64_t e;
		*level = 3;
		enum gwalk_result res =
			entry64(mem, ctx, (r->cr3 & 0xffffffe0ull) + 8 * (la >> 30), &e);
		if (res)
			return res;
		return walk64(mem, ctx, e & ADDR_MASK52, la, 2, 1u << 2, gpa, level);
	}
	*level = 2;
	const uint32_t *pde = mem(ctx, (r->cr3 & 0xfffff000u) + 4 * (la >> 22), 4);
	if (!pde)
		return GWALK_BAD_TABLE;
	if (!(*pde & PTE_P))
		return GWALK_NOT_PRESENT;
	if ((*pde & PTE_PS) && (r->cr4 & CR4_PSE)) { /* 4 MiB page; PSE-36 bits 20:13 */
		*gpa = (*pde & 0xffc00000u) | ((uint64_t)((*pde >> 13) & 0xff) << 32) |
		       (la & 0x3fffff);
		return GWALK_OK;
	}
	*level = 1;
	const uint32_t *pte = mem(ctx, (*pde & 0xfffff000u) + 4 * ((la >> 12) & 1023), 4);
	if (!pte)
		return GWALK_BAD_TABLE;
	if (!(*pte & PTE_P))
		return GWALK_NOT_PRESENT;
	*gpa = (*pte & 0xfffff000u) | (la & 0xfff);
	return GWALK_OK;
}

const char *gwalk_result_name(enum gwalk_result r)
{
	switch (r) {
	case GWALK_OK:
		return "ok";
	case GWALK_NOT_PRESENT:
		return "not present";
	case GWALK_BAD_TABLE:
		return "paging structure outside guest memory";
	}
	return "?";
}
