#include "lib/conring.h"

static struct conring_hdr *hdr_at(struct conring *r, uint64_t pos)
{
	return (struct conring_hdr *)(r->buf + (pos & (r->size - 1)));
}

void conring_init(struct conring *r, void *buf, uint32_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = 0;
	r->tail = 0;
	/* Zeroed seals never equal pos + 1 (pos is aligned, so pos + 1 is odd). */
	for (uint32_t i = 0; i < size; i += CONRING_ALIGN)
		hdr_at(r, i)->seal = 0;
}

uint32_t conring_cost(uint32_t len)
{
	return (uint32_t)((sizeof(struct conring_hdr) + len + CONRING_ALIGN - 1) &
			  ~(CONRING_ALIGN - 1));
}

char *conring_reserve(struct conring *r, uint32_t len, uint32_t tag, uint32_t limit, uint64_t *pos)
{
	uint64_t need = conring_cost(len), h, skip;
	if (limit > r->size)
		limit = r->size;
	if (need > limit)
		return NULL;
	h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	do {
		/* Acquire: the consumer has finished reading what it released. */
		uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		uint64_t off = h & (r->size - 1);
		skip = off + need > r->size ? r->size - off : 0;
		if (h + skip + need - t > limit)
			return NULL;
	} while (!__atomic_compare_exchange_n(&r->head, &h, h + skip + need, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	if (skip) {
		struct conring_hdr *p = hdr_at(r, h);
		p->len = (uint32_t)(skip - sizeof(*p));
		p->tag = CONRING_PAD;
		__atomic_store_n(&p->seal, h + 1, __ATOMIC_RELEASE);
		h += skip;
	}
	struct conring_hdr *x = hdr_at(r, h);
	x->len = len;
	x->tag = tag;
	*pos = h;
	return (char *)(x + 1);
}

void conring_commit(struct conring *r, uint64_t pos)
{
	__atomic_store_n(&hdr_at(r, pos)->seal, pos + 1, __ATOMIC_RELEASE);
}

const char *conring_peek(struct conring *r, uint32_t *len, uint32_t *tag, uint64_t *pos)
{
	for (;;) {
		uint64_t t = r->tail;
		if (t == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
			return NULL;
		struct conring_hdr *x = hdr_at(r, t);
		if (__atomic_load_n(&x->seal, __ATOMIC_ACQUIRE) != t + 1)
			return NULL; /* reserved, not committed yet */
		if (x->tag == CONRING_PAD) {
			__atomic_store_n(&r->tail, t + sizeof(*x) + x->len, __ATOMIC_RELEASE);
			continue;
		}
		*len = x->len;
		*tag = x->tag;
		if (pos)
			*pos = t;
		return (const char *)(x + 1);
	}
}

void conring_consume(struct conring *r)
{
	struct conring_hdr *x = hdr_at(r, r->tail);
	/* Release: our reads of the record are done before a producer may reuse it. */
	__atomic_store_n(&r->tail, r->tail + conring_cost(x->len), __ATOMIC_RELEASE);
}

uint64_t conring_used(const struct conring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

uint64_t conring_head(const struct conring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
}
