/* A dead domain's memory, zeroed and freed in bounded steps (issue 30 item 4): a domain's end
 * queues its memory here instead of scrubbing it on the pCPU that happened to let go of its
 * last vCPU (16 MiB took ~10 ms there, a stall for every vCPU queued on that pCPU). */
#ifndef CORE_SCRUB_H
#define CORE_SCRUB_H
#include <stdbool.h>
#include <stdint.h>

/* Bytes zeroed per step: 128 KiB is ~13 us of stores on a current CPU (~10 GB/s), the bound
 * a neighbour on the same pCPU can see; under Bochs (one store an instruction) 16,384
 * instructions. */
#define SCRUB_CHUNK (128u * 1024)

struct scrub_job {
	uint64_t hpa, bytes;	 /* the memory, a multiple of SCRUB_CHUNK or not */
	uint64_t next;		 /* offset of the first byte not handed out yet */
	unsigned busy;		 /* chunks handed out and not finished */
	bool keep;		 /* zeroed but not freed: done() owns the memory */
	void (*done)(void *arg); /* after the last chunk is freed, with no lock held */
	void *arg;
	struct scrub_job *link;
};

/* Queues j (its hpa, bytes, done, arg set); the memory is zeroed and freed chunk by chunk. */
void scrub_queue(struct scrub_job *j);
/* Zeroes and frees one chunk of the oldest job: false when none is queued. Any pCPU, no lock
 * held. `irqs`: the zeroing runs with interrupts enabled (an idle pCPU: a ping or timer due
 * mid-chunk waited up to 16,000 instructions, 0.3 ms under Bochs at 50 MIPS). */
bool scrub_step(bool irqs);
/* Whether any job is queued (a hint, read without the lock). */
bool scrub_pending(void);
/* Steps until no job is queued (the run's end; an allocation that found no memory). */
void scrub_all(void);

#endif
