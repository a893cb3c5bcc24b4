/* A dead domain's memory zeroed and freed in bounded steps (core/scrub.h). Who steps: an idle
 * pCPU, chunk after chunk until something wants it (core/vmm.c's idle wait); a busy pCPU one
 * chunk when its slice ran out (the time is charged to the vCPU whose slice ended, a bounded
 * SCRUB_CHUNK, never to a vCPU that was woken: a wake's pick does no scrubbing); the run's
 * end the rest. Xen frees a dead domain's pages the same way, in preemptible chunks. */
#include "core/scrub.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memory.h"
#include "arch/x86_64/spinlock.h"
#include "core/mm.h"

static spinlock_t lock = SPINLOCK_INIT(lock_scrub);
static struct scrub_job *head, **tail = &head;

void scrub_queue(struct scrub_job *j)
{
	j->next = 0;
	j->busy = 0;
	j->link = NULL;
	spin_lock(&lock);
	*tail = j;
	tail = &j->link;
	spin_unlock(&lock);
}

bool scrub_pending(void)
{
	return __atomic_load_n(&head, __ATOMIC_RELAXED) != NULL;
}

/* Zeroes with rep stosq: a byte loop costs seconds of emulated time. */
static void zero(uint64_t hpa, uint64_t bytes)
{
	void *p = phys_to_virt(hpa);
	uint64_t n = bytes / 8;
	__asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0ull) : "memory");
}

bool scrub_step(bool irqs)
{
	if (!scrub_pending())
		return false;
	spin_lock(&lock);
	struct scrub_job *j = head;
	if (!j) {
		spin_unlock(&lock);
		return false;
	}
	uint64_t at = j->next, n = j->bytes - at < SCRUB_CHUNK ? j->bytes - at : SCRUB_CHUNK;
	j->next += n;
	j->busy++;
	if (j->next == j->bytes) { /* all handed out: the next step takes the next job */
		head = j->link;
		if (!head)
			tail = &head;
	}
	spin_unlock(&lock);
	if (irqs) /* idle: its timers and kicks run as they come, not after the chunk */
		irq_enable();
	zero(j->hpa + at, n);
	if (irqs)
		irq_disable();
	if (!j->keep)
		frames_free(j->hpa + at, n / PAGE_SIZE);
	spin_lock(&lock);
	bool last = --j->busy == 0 && j->next == j->bytes;
	spin_unlock(&lock);
	if (last && j->done)
		j->done(j->arg);
	return true;
}

void scrub_all(void)
{
	while (scrub_step(false))
		;
}
