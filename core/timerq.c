#include "core/timerq.h"
#include <stddef.h>

void timerq_insert(struct timerq *q, struct timerq_node *n, uint64_t deadline)
{
	if (n->queued)
		timerq_remove(q, n);
	n->deadline = deadline;
	struct timerq_node **link = &q->head, *prev = NULL;
	while (*link && (*link)->deadline <= deadline) {
		prev = *link;
		link = &(*link)->next;
	}
	n->prev = prev;
	n->next = *link;
	if (*link)
		(*link)->prev = n;
	*link = n;
	n->queued = true;
}

void timerq_remove(struct timerq *q, struct timerq_node *n)
{
	if (!n->queued)
		return;
	if (n->prev)
		n->prev->next = n->next;
	else
		q->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
	n->queued = false;
}

struct timerq_node *timerq_pop_expired(struct timerq *q, uint64_t now)
{
	struct timerq_node *n = q->head;
	if (!n || n->deadline > now)
		return NULL;
	timerq_remove(q, n);
	return n;
}
