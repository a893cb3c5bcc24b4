/* A bounded ring of variable-length records (console lines) for many producers and one
 * consumer, without locks. A producer reserves a record with one compare-and-swap on
 * `head`, copies its bytes, then commits it by writing the record's seal (its position,
 * plus one) with release order; the consumer takes records in reservation order and
 * stops at the first one not yet committed, so a record is never seen half written and
 * records never interleave. A reservation that would not fit under the caller's `limit`
 * fails at once (the caller counts the drop): a ring can keep room that only some
 * producers may use (the hypervisor's own lines). Nothing here waits.
 *
 * Layout: records are 16-byte aligned, a 16-byte header then the bytes; a record that
 * would cross the end of the buffer is preceded by a padding record up to the end. The
 * seal is the absolute position, so a stale header from an earlier lap never looks
 * committed. */
#ifndef LIB_CONRING_H
#define LIB_CONRING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONRING_ALIGN 16u
#define CONRING_PAD   0xffffffffu /* tag of a padding record (never returned) */

struct conring_hdr {
	uint64_t seal; /* position + 1 once committed */
	uint32_t len;  /* bytes after the header (padding: the bytes skipped) */
	uint32_t tag;  /* the producer's label (a domain id), or CONRING_PAD */
};

struct conring {
	uint8_t *buf;
	uint32_t size; /* a power of two, at least 2 * CONRING_ALIGN */
	uint64_t head; /* reserved up to (producers, atomic) */
	uint64_t tail; /* consumed up to (written by the consumer only) */
};

/* buf: `size` bytes aligned to CONRING_ALIGN, size a power of two. */
void conring_init(struct conring *r, void *buf, uint32_t size);
/* Bytes a record of len bytes takes in the ring (header and alignment, not padding). */
uint32_t conring_cost(uint32_t len);
/* Reserves a record of len bytes labelled tag, if the ring then holds at most `limit`
 * bytes (limit <= size); returns where to write them and sets *pos, or NULL (full). */
char *conring_reserve(struct conring *r, uint32_t len, uint32_t tag, uint32_t limit, uint64_t *pos);
/* Publishes the record reserved at pos. */
void conring_commit(struct conring *r, uint64_t pos);

/* Consumer side (one consumer at a time). The oldest record, or NULL when the ring is
 * empty or its oldest record is not committed yet; *pos (may be NULL) gets its position. */
const char *conring_peek(struct conring *r, uint32_t *len, uint32_t *tag, uint64_t *pos);
/* Drops the record conring_peek returned. */
void conring_consume(struct conring *r);
/* Bytes reserved and not yet consumed. */
uint64_t conring_used(const struct conring *r);
/* The reservation position: every record reserved so far lies below it. */
uint64_t conring_head(const struct conring *r);

#endif
