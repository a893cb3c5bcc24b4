/* Identity mappings above the boot map (memory.h): 4-level paging, SDM Vol. 3A 4.5. The
 * tables hang under boot_pml4 (boot/multiboot2.S), which every CPU loads, so a mapping made
 * here is seen by all; entries only go from not-present to present, which needs no TLB
 * flush (SDM Vol. 3A 4.10.4.3: not-present entries are not cached). */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memory.h"
#include "arch/x86_64/spinlock.h"
#include "boot/boot.h"
#include "lib/string.h"

#define PTE_ADDR  0x000ffffffffff000ull
#define PTE_FLAGS (PTE_P | PTE_W)
#define PTE_UC	  (PTE_PCD | PTE_PWT)
#define GIB	  (1ull << 30)
#define MIB2	  (1ull << 21)

extern uint64_t boot_pml4[512];

/* Early pool: a device above 4 GiB met before the frame allocator runs (an MMIO UART
 * named on the command line or by the SPCR) needs at most a PDPT, a PD and a PT. */
#define POOL_PAGES 6
static uint8_t pool[POOL_PAGES][4096] __attribute__((aligned(4096)));
static unsigned pool_used;
static uint64_t (*table_alloc)(void);
static spinlock_t lock = SPINLOCK_INIT(lock_paging);
static uint64_t top = IDENTITY_MAP_LIMIT;

void paging_set_table_alloc(uint64_t (*alloc)(void))
{
	table_alloc = alloc;
}

uint64_t ident_map_top(void)
{
	return top;
}

static uint64_t new_table(void)
{
	if (pool_used < POOL_PAGES) {
		memset(pool[pool_used], 0, 4096);
		return virt_to_phys(pool[pool_used++]);
	}
	return table_alloc ? table_alloc() : 0;
}

/* The table an entry points to, made when absent; NULL when the entry maps a large page
 * (the range is mapped already) or no frame could be had (*oom set). */
static uint64_t *next_level(uint64_t *e, bool *oom)
{
	if (!(*e & PTE_P)) {
		uint64_t t = new_table();
		if (!t) {
			*oom = true;
			return NULL;
		}
		*e = t | PTE_FLAGS;
	}
	if (*e & PTE_PS)
		return NULL;
	return phys_to_virt(*e & PTE_ADDR);
}

static bool gib_pages(void)
{
	return cpuid(0x80000000u, 0).eax >= 0x80000001u &&
	       (cpuid(0x80000001u, 0).edx & (1u << 26)); /* Page1GB */
}

bool ident_map(uint64_t start, uint64_t end, bool uncached)
{
	uint64_t a = start & ~(PAGE_SIZE - 1);
	end = (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t attr = PTE_FLAGS | (uncached ? PTE_UC : 0);
	bool big = gib_pages(), oom = false;
	spin_lock(&lock);
	while (a < end && !oom) {
		uint64_t *pdpt = next_level(&boot_pml4[(a >> 39) & 511], &oom);
		if (!pdpt) {
			a = (a | ((1ull << 39) - 1)) + 1; /* (never a large PML4 entry) */
			continue;
		}
		uint64_t *pdpte = &pdpt[(a >> 30) & 511];
		if (big && !(a & (GIB - 1)) && end - a >= GIB && !(*pdpte & PTE_P)) {
			*pdpte = a | attr | PTE_PS;
			a += GIB;
			continue;
		}
		uint64_t *pd = next_level(pdpte, &oom);
		if (!pd) {
			a = (a | (GIB - 1)) + 1; /* a 1 GiB page maps it already */
			continue;
		}
		uint64_t *pde = &pd[(a >> 21) & 511];
		if (!(a & (MIB2 - 1)) && end - a >= MIB2 && !(*pde & PTE_P)) {
			*pde = a | attr | PTE_PS;
			a += MIB2;
			continue;
		}
		uint64_t *pt = next_level(pde, &oom);
		if (!pt) {
			a = (a | (MIB2 - 1)) + 1;
			continue;
		}
		uint64_t *pte = &pt[(a >> 12) & 511];
		if (!(*pte & PTE_P))
			*pte = a | attr;
		a += PAGE_SIZE;
	}
	if (!oom && end > top)
		top = end;
	spin_unlock(&lock);
	return !oom;
}

void *mmio_map(uint64_t pa, uint64_t len, bool uncached)
{
	if (!pa || len > (1ull << 40) || pa > (1ull << 52) - len)
		return NULL; /* beyond any physical address width */
	if (pa + len <= IDENTITY_MAP_LIMIT)
		return phys_to_virt(pa);
	return ident_map(pa, pa + len, uncached) ? phys_to_virt(pa) : NULL;
}
