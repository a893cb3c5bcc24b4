#include "core/mm.h"
#include "arch/x86_64/panic.h"
#include "arch/x86_64/spinlock.h"
#include "lib/string.h"

#define NFRAMES (MM_LIMIT / PAGE_SIZE)

static uint64_t bitmap[NFRAMES / 64]; /* 1 = free */
static size_t nfree, ntotal;
static spinlock_t lock = SPINLOCK_INIT;
static size_t nallocs, fail_at; /* test hook: mm_test_fail_at */

static bool is_free(size_t f)
{
	return bitmap[f / 64] >> (f % 64) & 1;
}

static void set_free(size_t f, bool free)
{
	if (free)
		bitmap[f / 64] |= 1ull << (f % 64);
	else
		bitmap[f / 64] &= ~(1ull << (f % 64));
}

void mm_init(const struct memmap *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		for (uint64_t a = m->r[i].start; a < m->r[i].end && a < MM_LIMIT; a += PAGE_SIZE) {
			set_free(a / PAGE_SIZE, true);
			nfree++;
		}
	}
	ntotal = nfree;
}

uint64_t frames_alloc(size_t n, size_t align)
{
	if (!n || !align)
		return 0;
	spin_lock(&lock);
	if (++nallocs == fail_at) {
		spin_unlock(&lock);
		return 0; /* injected failure */
	}
	for (size_t f = 0; f + n <= NFRAMES; f += align) {
		/* Skip whole empty bitmap words quickly. */
		if (align == 1 && !(f % 64) && !bitmap[f / 64]) {
			f += 63;
			continue;
		}
		size_t k = 0;
		while (k < n && is_free(f + k))
			k++;
		if (k < n)
			continue;
		for (k = 0; k < n; k++)
			set_free(f + k, false);
		nfree -= n;
		spin_unlock(&lock);
		uint64_t pa = f * PAGE_SIZE;
		memset(phys_to_virt(pa), 0, n * PAGE_SIZE);
		return pa;
	}
	spin_unlock(&lock);
	return 0;
}

uint64_t frame_alloc(void)
{
	return frames_alloc(1, 1);
}

void frames_free(uint64_t pa, size_t n)
{
	BUG_ON(pa % PAGE_SIZE || pa + n * PAGE_SIZE > MM_LIMIT);
	spin_lock(&lock);
	for (size_t k = 0; k < n; k++) {
		BUG_ON(is_free(pa / PAGE_SIZE + k));
		set_free(pa / PAGE_SIZE + k, true);
	}
	nfree += n;
	spin_unlock(&lock);
}

void frame_free(uint64_t pa)
{
	frames_free(pa, 1);
}

size_t mm_test_fail_at(size_t k)
{
	spin_lock(&lock);
	size_t done = nallocs;
	nallocs = 0;
	fail_at = k;
	spin_unlock(&lock);
	return done;
}

size_t mm_free_frames(void)
{
	return nfree;
}

size_t mm_total_frames(void)
{
	return ntotal;
}
