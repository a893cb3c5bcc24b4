/* One lock of the simulator's lock model: its recent holds, and where a new one fits
 * (door_lock.h says why; README.md, "Lock contention"). */
#include "test/sim/door_lock.h"

void lk_init(struct lk *k, int agent)
{
	k->n = 0;
	k->horizon = 0;
	k->hagent = agent;
}

/* Whose cache the lock's line is in at x: the holder then, else the last to let go. */
static int owner(const struct lk *k, uint64_t x)
{
	uint64_t best = k->horizon;
	int a = k->hagent;
	for (unsigned i = 0; i < k->n; i++) {
		const struct lk_iv *v = &k->r[i];
		if (v->acq <= x && x < v->rel)
			return v->agent;
		if (v->rel <= x && v->rel >= best) {
			best = v->rel;
			a = v->agent;
		}
	}
	return a;
}

static uint64_t line(const struct lk *k, uint64_t x, int agent, uint64_t xfer)
{
	int o = owner(k, x);
	return o >= 0 && o != agent ? x + xfer : x;
}

/* A hold a call arriving at `at` does not wait for: a try made after `at`, which would have
 * found this call's ticket taken and failed, had the calls been processed in time order. */
static bool ignored(const struct lk_iv *v, uint64_t at)
{
	return v->tried && v->arr > at;
}

/* The latest release among the recorded holds that overlap [x, end) and that a call
 * arriving at `at` waits for (UINT64_MAX: all), 0: none. */
static uint64_t conflict(const struct lk *k, uint64_t x, uint64_t end, uint64_t at)
{
	uint64_t r = 0;
	for (unsigned i = 0; i < k->n && k->r[i].acq < end; i++)
		if (k->r[i].rel > x && k->r[i].rel > r && !ignored(&k->r[i], at))
			r = k->r[i].rel;
	return r;
}

static bool inverted(const struct lk *k, uint64_t at, uint64_t t)
{
	for (unsigned i = 0; i < k->n && k->r[i].acq < t; i++)
		if (k->r[i].arr > at && !ignored(&k->r[i], at))
			return true;
	return false;
}

struct lk_grant lk_wait(const struct lk *k, uint64_t at, uint64_t hold, int agent, uint64_t xfer)
{
	/* FIFO: behind every call that arrived no later (a tie: the one processed first). */
	uint64_t x = at > k->horizon ? at : k->horizon;
	for (unsigned i = 0; i < k->n; i++)
		if (k->r[i].arr <= at && k->r[i].rel > x)
			x = k->r[i].rel;
	/* Then the first gap the hold fits in. Holds that overlap [x, t + hold) all begin
	 * before its end, so no gap between them is long enough: skip past the last. */
	for (;;) {
		uint64_t t = line(k, x, agent, xfer);
		uint64_t c = conflict(k, x, t + hold, at);
		if (!c)
			return (struct lk_grant){.t = t, .inverted = inverted(k, at, t)};
		x = c;
	}
}

bool lk_try(const struct lk *k, uint64_t at, uint64_t hold, int agent, uint64_t xfer,
	    struct lk_grant *g)
{
	*g = (struct lk_grant){.t = line(k, at, agent, xfer)};
	g->held = k->horizon > at;
	for (unsigned i = 0; i < k->n && !g->held; i++)
		g->held = k->r[i].arr <= at && at < k->r[i].rel;
	g->late = !g->held && conflict(k, at, g->t + hold, UINT64_MAX) != 0;
	return !g->held && !g->late;
}

uint64_t lk_record(struct lk *k, uint64_t arr, uint64_t acq, uint64_t rel, int agent, bool tried,
		   unsigned *stale)
{
	uint64_t overlap = k->horizon > acq ? (k->horizon < rel ? k->horizon : rel) - acq : 0;
	*stale = 0;
	for (unsigned i = 0; i < k->n && k->r[i].acq < rel; i++)
		if (k->r[i].rel > acq) {
			if (ignored(&k->r[i], arr)) {
				(*stale)++;
				continue;
			}
			uint64_t a = k->r[i].acq > acq ? k->r[i].acq : acq;
			uint64_t r = k->r[i].rel < rel ? k->r[i].rel : rel;
			overlap += r - a;
		}
	if (k->n == LK_RING) { /* fold the oldest into the horizon */
		if (k->r[0].rel >= k->horizon) {
			k->horizon = k->r[0].rel;
			k->hagent = k->r[0].agent;
		}
		for (unsigned i = 1; i < k->n; i++)
			k->r[i - 1] = k->r[i];
		k->n--;
	}
	unsigned i = k->n;
	for (; i > 0 && k->r[i - 1].acq > acq; i--)
		k->r[i] = k->r[i - 1];
	k->r[i] =
		(struct lk_iv){.arr = arr, .acq = acq, .rel = rel, .agent = agent, .tried = tried};
	k->n++;
	return overlap;
}
