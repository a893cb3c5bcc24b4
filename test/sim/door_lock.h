/* door_lock.c: one lock of the simulator's lock model (door.c, sim.locks), granted in
 * simulated-time order as far as a one-pass simulator can (README.md, "Lock contention").
 *
 * The simulator processes door calls one at a time, in the order of the events that cause
 * them, and each call runs to its end before the next is processed; but a call that waited
 * for one lock reaches its next lock later than calls processed after it may reach that
 * lock. A lock therefore keeps the busy intervals of the calls already processed (who
 * arrived at the lock when, held it from when to when), and a later-processed call is
 * placed among them: behind every call that arrived before it (a ticket lock is FIFO in
 * arrival order), and in the first gap after that in which its hold fits, even when that
 * gap lies before the hold of a call that arrived later but was processed first. */
#ifndef TEST_SIM_DOOR_LOCK_H
#define TEST_SIM_DOOR_LOCK_H
#include <stdbool.h>
#include <stdint.h>

#define LK_RING 32 /* intervals kept per lock; older ones fold into the horizon */

struct lk_iv {
	uint64_t arr, acq, rel; /* arrived at the lock, held from, let go at */
	int agent;
	bool tried; /* taken by a try */
};

struct lk {
	struct lk_iv r[LK_RING]; /* sorted by acq */
	unsigned n;
	uint64_t horizon; /* the latest release of the intervals folded out of r */
	int hagent;	  /* whose cache the line was in at the horizon (-1: nobody's yet) */
};

/* What a grant or a try found (for the lockmodel line). */
struct lk_grant {
	uint64_t t;    /* held from (a failed try: when the try is over) */
	bool inverted; /* granted after a call that arrived later (processed first) */
	bool held;     /* a try: held or queued for at its time */
	bool late;     /* a try: free then, but a later arrival's hold begins within ours */
};

void lk_init(struct lk *k, int agent);
/* Waits: the first time at or after `at`, behind every call that arrived first, at which
 * a hold of `hold` ns (after the line's transfer from another agent, `xfer`) fits. It does
 * not wait for a recorded try made after `at`: processed in time order, that try would have
 * found this call's ticket taken and failed. */
struct lk_grant lk_wait(const struct lk *k, uint64_t at, uint64_t hold, int agent, uint64_t xfer);
/* Tries at `at`: fails when held or queued for then, or when a hold of `hold` would
 * overlap a recorded one (g.t: `at`, plus a transfer when the line is another's). */
bool lk_try(const struct lk *k, uint64_t at, uint64_t hold, int agent, uint64_t xfer,
	    struct lk_grant *g);
/* Records a hold; returns how long it overlaps recorded ones that it waited for, in ns (0:
 * it kept within the gap it was given), and counts in *stale the recorded tries it ran
 * into that it did not wait for (tries that would have failed, had the calls been
 * processed in time order). */
uint64_t lk_record(struct lk *k, uint64_t arr, uint64_t acq, uint64_t rel, int agent, bool tried,
		   unsigned *stale);

#endif
