/* An ordered queue of deadlines: a sorted doubly linked list. Entries with equal deadlines
 * keep their insertion order. Pure code: no locking, no clock (the caller owns both). */
#ifndef CORE_TIMERQ_H
#define CORE_TIMERQ_H
#include <stdbool.h>
#include <stdint.h>

struct timerq_node {
	uint64_t deadline;
	struct timerq_node *prev, *next;
	bool queued;
};

struct timerq {
	struct timerq_node *head;
};

void timerq_insert(struct timerq *q, struct timerq_node *n, uint64_t deadline);
void timerq_remove(struct timerq *q, struct timerq_node *n);
/* The earliest node, or NULL. */
static inline struct timerq_node *timerq_first(const struct timerq *q)
{
	return q->head;
}
/* Removes and returns the earliest node whose deadline is <= now, or NULL. */
struct timerq_node *timerq_pop_expired(struct timerq *q, uint64_t now);

#endif
