/* The lock order check (lib/lockorder.h). */
#include "lib/lockorder.h"

static int top_rank(const struct lockorder_cpu *c, const struct lock_class **who)
{
	int r = -1;
	*who = 0;
	for (unsigned i = 0; i < c->n; i++) {
		if ((int)c->held[i]->rank > r) {
			r = c->held[i]->rank;
			*who = c->held[i];
		}
	}
	if (c->nidx && (int)c->idx_class->rank > r) {
		r = c->idx_class->rank;
		*who = c->idx_class;
	}
	return r;
}

int lockorder_max_idx(const struct lockorder_cpu *c, const struct lock_class *k)
{
	if (!c->nidx || c->idx_class != k)
		return -1;
	for (int w = LOCKORDER_IDX_WORD - 1; w >= 0; w--)
		if (c->idx[w])
			return w * 64 + 63 - __builtin_clzll(c->idx[w]);
	return -1;
}

bool lockorder_holds(const struct lockorder_cpu *c, const struct lock_class *k, int idx)
{
	if (k->indexed)
		return c->nidx && c->idx_class == k && idx >= 0 && idx < LOCKORDER_IDX_MAX &&
		       (c->idx[idx / 64] >> (idx % 64) & 1);
	for (unsigned i = 0; i < c->n; i++)
		if (c->held[i] == k)
			return true;
	return false;
}

static bool refuse(struct lockorder_bad *bad, const struct lock_class *k, int idx,
		   const struct lock_class *h, int hidx, const char *why)
{
	if (bad)
		*bad = (struct lockorder_bad){k, h, idx, hidx, why};
	return false;
}

bool lockorder_acquire_slow(struct lockorder_cpu *c, const struct lock_class *k, int idx, bool try,
			    struct lockorder_bad *bad)
{
	if (k->indexed && (idx < 0 || idx >= LOCKORDER_IDX_MAX))
		return refuse(bad, k, idx, k, idx, "index out of range");
	if (lockorder_holds(c, k, idx))
		return refuse(bad, k, idx, k, idx, "already held by this CPU");
	if (k->indexed && c->nidx && c->idx_class != k)
		return refuse(bad, k, idx, c->idx_class, -1, "two indexed classes");
	if (!try) {
		const struct lock_class *h;
		int top = top_rank(c, &h);
		if (h == k && k->indexed) {
			/* Same class: only upwards in index, and nothing ranked above it held. */
			int mi = lockorder_max_idx(c, k);
			for (unsigned i = 0; i < c->n; i++)
				if (c->held[i]->rank > k->rank)
					return refuse(bad, k, idx, c->held[i], -1, "rank order");
			if (idx < mi)
				return refuse(bad, k, idx, k, mi, "index order");
		} else if (top >= (int)k->rank) {
			return refuse(bad, k, idx, h,
				      h == c->idx_class ? lockorder_max_idx(c, h) : -1,
				      "rank order");
		}
	}
	if (k->indexed) {
		c->idx_class = k;
		c->idx[idx / 64] |= 1ull << (idx % 64);
		c->nidx++;
		return true;
	}
	if (c->n == LOCKORDER_DEPTH)
		return refuse(bad, k, idx, c->held[c->n - 1], -1, "too many locks held");
	c->held[c->n++] = k;
	return true;
}

bool lockorder_release_slow(struct lockorder_cpu *c, const struct lock_class *k, int idx)
{
	if (!lockorder_holds(c, k, idx))
		return false;
	if (k->indexed) {
		c->idx[idx / 64] &= ~(1ull << (idx % 64));
		if (!--c->nidx)
			c->idx_class = 0;
		return true;
	}
	for (unsigned i = 0; i < c->n; i++) {
		if (c->held[i] == k) {
			c->held[i] = c->held[--c->n];
			return true;
		}
	}
	return false;
}

bool lockorder_empty(const struct lockorder_cpu *c)
{
	return !c->n && !c->nidx;
}
