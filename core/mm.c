/* The frame allocator (mm.h): a bitmap over [0, top of usable memory), searched from the
 * top down. */
#include "core/mm.h"
#include "arch/x86_64/panic.h"
#include "arch/x86_64/spinlock.h"
#include "lib/string.h"

static uint64_t *bitmap; /* 1 = free */
static size_t nframes, nfree, ntotal, high_total, high_free;
static spinlock_t lock = SPINLOCK_INIT(lock_frames);
static size_t nallocs, fail_at; /* test hook: mm_test_fail_at */
static const char *warning;

#define HIGH_FRAME (MM_4G / PAGE_SIZE)

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

/* Frames [s, e) free (whole words at a time where they can be). */
static void free_range(size_t s, size_t e)
{
	for (size_t f = s; f < e;) {
		if (!(f % 64) && e - f >= 64) {
			bitmap[f / 64] = ~0ull;
			f += 64;
		} else {
			set_free(f++, true);
		}
	}
	nfree += e - s;
	if (e > HIGH_FRAME) {
		size_t hs = s > HIGH_FRAME ? s : HIGH_FRAME;
		high_total += e - hs;
		high_free += e - hs;
	}
}

static void count_taken(size_t f, size_t n, bool taken)
{
	for (size_t k = 0; k < n; k++)
		if (f + k >= HIGH_FRAME) {
			if (taken)
				high_free--;
			else
				high_free++;
		}
}

/* n frames aligned to align, ending at or below frame `limit`, highest first; the lock is
 * held. Returns the first frame or SIZE_MAX. */
static size_t find(size_t n, size_t align, size_t limit)
{
	if (n > limit)
		return SIZE_MAX;
	size_t f = (limit - n) / align * align;
	for (;;) {
		size_t w = (f + n - 1) / 64;
		if (!bitmap[w]) { /* no free frame in the word of the candidate's last frame */
			size_t below = w * 64;
			if (below < n)
				return SIZE_MAX;
			f = (below - n) / align * align;
			continue;
		}
		size_t k = n;
		while (k && is_free(f + k - 1))
			k--;
		if (!k)
			return f;
		/* Frame f + k - 1 is taken: the next candidate ends below it. */
		if (f + k - 1 < n)
			return SIZE_MAX;
		f = (f + k - 1 - n) / align * align;
	}
}

static uint64_t alloc_below(size_t n, size_t align, size_t limit)
{
	if (!n || !align || !nframes)
		return 0;
	spin_lock(&lock);
	if (++nallocs == fail_at) {
		spin_unlock(&lock);
		return 0; /* injected failure */
	}
	size_t f = find(n, align, limit < nframes ? limit : nframes);
	if (f == SIZE_MAX) {
		spin_unlock(&lock);
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		set_free(f + k, false);
	nfree -= n;
	count_taken(f, n, true);
	spin_unlock(&lock);
	uint64_t pa = f * PAGE_SIZE;
	memset(phys_to_virt(pa), 0, n * PAGE_SIZE);
	return pa;
}

uint64_t frames_alloc(size_t n, size_t align)
{
	return alloc_below(n, align, SIZE_MAX);
}

uint64_t frame_alloc(void)
{
	return frames_alloc(1, 1);
}

/* Page tables for the map of RAM above 4 GiB come from below 4 GiB (mapped at boot). */
static uint64_t low_frame_alloc(void)
{
	return alloc_below(1, 1, HIGH_FRAME);
}

void mm_init(const struct memmap *m)
{
	uint64_t top = 0;
	for (unsigned i = 0; i < m->n; i++)
		if (m->r[i].end > top)
			top = m->r[i].end;
	if (top > MM_MAX_PHYS) {
		top = MM_MAX_PHYS;
		warning = "usable memory above 64 TiB is not used";
	}
	/* The bitmap goes at the end of the largest usable range below 4 GiB that holds it;
	 * with none large enough, only memory below 4 GiB is managed. */
	for (int pass = 0; pass < 2 && !bitmap; pass++) {
		uint64_t want =
			((top / PAGE_SIZE + 63) / 64 * 8 + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		const struct mem_range *best = NULL;
		for (unsigned i = 0; i < m->n; i++) {
			const struct mem_range *r = &m->r[i];
			if (r->end <= MM_4G && r->end - r->start >= want &&
			    (!best || r->end - r->start > best->end - best->start))
				best = r;
		}
		if (best) {
			bitmap = phys_to_virt(best->end - want);
			memset(bitmap, 0, want);
			nframes = top / PAGE_SIZE;
		} else if (top > MM_4G) {
			top = MM_4G;
			warning = "no room below 4 GiB for the bitmap of all memory: only the "
				  "memory below 4 GiB is used";
		} else {
			return;
		}
	}
	uint64_t bm = virt_to_phys(bitmap), bm_end = bm + ((nframes + 63) / 64 * 8);
	for (unsigned i = 0; i < m->n; i++) {
		uint64_t s = m->r[i].start, e = m->r[i].end < top ? m->r[i].end : top;
		if (s >= e)
			continue;
		if (s < bm_end && e > bm) { /* the bitmap's own frames stay taken */
			if (s < bm)
				free_range(s / PAGE_SIZE, bm / PAGE_SIZE);
			s = (bm_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
			if (s >= e)
				continue;
		}
		if (e <= MM_4G) {
			free_range(s / PAGE_SIZE, e / PAGE_SIZE);
			continue;
		}
		if (s < MM_4G) {
			free_range(s / PAGE_SIZE, HIGH_FRAME);
			s = MM_4G;
		}
		/* Above 4 GiB: identity-mapped write-back first, so frames are pointers. */
		paging_set_table_alloc(low_frame_alloc);
		if (ident_map(s, e, false))
			free_range(s / PAGE_SIZE, e / PAGE_SIZE);
		else
			warning = "out of page tables for memory above 4 GiB: some is not used";
	}
	paging_set_table_alloc(frame_alloc);
	ntotal = nfree;
}

void frames_free(uint64_t pa, size_t n)
{
	BUG_ON(pa % PAGE_SIZE || pa / PAGE_SIZE + n > nframes);
	spin_lock(&lock);
	for (size_t k = 0; k < n; k++) {
		BUG_ON(is_free(pa / PAGE_SIZE + k));
		set_free(pa / PAGE_SIZE + k, true);
	}
	nfree += n;
	count_taken(pa / PAGE_SIZE, n, false);
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

size_t mm_high_total_frames(void)
{
	return high_total;
}

size_t mm_high_used_frames(void)
{
	return high_total - high_free;
}

uint64_t mm_top(void)
{
	return nframes * PAGE_SIZE;
}

const char *mm_warning(void)
{
	return warning;
}
