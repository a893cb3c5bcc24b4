/* Intrusive pairing heap of nodes ordered by (key, seq): O(1) insert and meld, O(log n)
 * amortized delete-min and remove. A policy embeds a node in its private vCPU state (credit:
 * its run queues per priority class, the sleeper heap and the park heap). No storage besides
 * the node. */
#ifndef SCHED_HEAP_H
#define SCHED_HEAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched_hnode {
	struct sched_hnode *child, *next, *prev;
	uint64_t key; /* order (vtime, FIFO position or time: the policy's) */
	uint64_t seq; /* tie-breaker: insertion order */
};

static inline bool hn_less(const struct sched_hnode *a, const struct sched_hnode *b)
{
	/* Wrap-safe: the keys of one heap lie within 2^63 of each other. */
	int64_t d = (int64_t)(a->key - b->key);
	return d < 0 || (d == 0 && a->seq < b->seq);
}

/* Melds two roots (either may be NULL); a's and b's prev/next must be NULL. */
static inline struct sched_hnode *hn_meld(struct sched_hnode *a, struct sched_hnode *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (hn_less(b, a)) {
		struct sched_hnode *t = a;
		a = b;
		b = t;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	return a;
}

/* Two-pass pairing of a sibling list into one root. */
static inline struct sched_hnode *hn_pair(struct sched_hnode *first)
{
	struct sched_hnode *acc = NULL; /* pairs, linked through next in reverse order */
	while (first) {
		struct sched_hnode *a = first, *b = first->next;
		if (b) {
			first = b->next;
			a->next = a->prev = NULL;
			b->next = b->prev = NULL;
			a = hn_meld(a, b);
		} else {
			first = NULL;
			a->next = a->prev = NULL;
		}
		a->next = acc;
		acc = a;
	}
	struct sched_hnode *root = NULL;
	while (acc) {
		struct sched_hnode *n = acc->next;
		acc->next = NULL;
		root = hn_meld(root, acc);
		acc = n;
	}
	return root;
}

static inline void hn_insert(struct sched_hnode **root, struct sched_hnode *n)
{
	n->child = n->next = n->prev = NULL;
	*root = hn_meld(*root, n);
}

/* Up to n nodes of a heap into out[], breadth first from the root (the root, its children,
 * theirs...): the best few without a full walk. Returns how many. */
static inline unsigned hn_first(struct sched_hnode *root, struct sched_hnode **out, unsigned n)
{
	unsigned k = 0;
	if (root && n)
		out[k++] = root;
	for (unsigned i = 0; i < k; i++)
		for (struct sched_hnode *c = out[i]->child; c && k < n; c = c->next)
			out[k++] = c;
	return k;
}

static inline struct sched_hnode *hn_pop(struct sched_hnode **root)
{
	struct sched_hnode *r = *root;
	if (r) {
		*root = hn_pair(r->child);
		r->child = NULL;
	}
	return r;
}

static inline void hn_remove(struct sched_hnode **root, struct sched_hnode *n)
{
	if (n == *root) {
		hn_pop(root);
		return;
	}
	/* prev is the parent for a first child, else the left sibling. */
	if (n->prev->child == n)
		n->prev->child = n->next;
	else
		n->prev->next = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->next = n->prev = NULL;
	struct sched_hnode *sub = hn_pair(n->child);
	n->child = NULL;
	*root = hn_meld(*root, sub);
}

#endif
