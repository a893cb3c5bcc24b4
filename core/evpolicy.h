/* Who may raise which event port: the pure rules of sliver/event.h, and the parser of the
 * `evt.allow=` module word. No hypervisor state: host-tested (test/unit/test_evpolicy.c). */
#ifndef CORE_EVPOLICY_H
#define CORE_EVPOLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sliver/event.h"

/* A set of domain ids (0..SLIVER_MAX_DOMS-1): sender sets, allow lists, who signalled a
 * domain. 128 bytes. Bits are added under the owner's evlock and may be tested without it
 * (each word is read atomically; a bit being set concurrently reads as either value). */
struct domset {
	uint64_t w[SLIVER_DOMSET_WORDS];
};

static inline void domset_add(struct domset *s, unsigned id)
{
	__atomic_fetch_or(&s->w[id / 64], 1ull << (id % 64), __ATOMIC_RELAXED);
}

static inline void domset_del(struct domset *s, unsigned id)
{
	__atomic_fetch_and(&s->w[id / 64], ~(1ull << (id % 64)), __ATOMIC_RELAXED);
}

static inline bool domset_has(const struct domset *s, unsigned id)
{
	return id < SLIVER_MAX_DOMS &&
	       (__atomic_load_n(&s->w[id / 64], __ATOMIC_RELAXED) >> (id % 64) & 1);
}

/* Every id (HC_EVENT_ALLOW of SLIVER_DOMID_ANY, `evt.allow=<port>:*`), or none. */
static inline void domset_fill(struct domset *s, bool on)
{
	for (unsigned i = 0; i < SLIVER_DOMSET_WORDS; i++)
		__atomic_store_n(&s->w[i], on ? ~0ull : 0, __ATOMIC_RELAXED);
}

/* The sending side and the target of one HC_EVENT_SEND between two domains. */
struct ev_side {
	unsigned id;
	bool service;
	const struct domset *signalled_by; /* domains that ever raised a port of this one */
};

/* May `from` raise port `port` of `to`, given the allow set of that port? */
bool ev_may_send(const struct ev_side *from, const struct ev_side *to,
		 const struct domset *port_allow);

/* Maps a domain name (n characters, not terminated) to its id; 0 when there is none. */
typedef unsigned (*ev_lookup_fn)(const char *name, size_t n, void *ctx);

/* Parses `<port>:<who>[,<port>:<who>...]`, who = a domain id, a domain name or `*` (every
 * domain), into allow[port] (bits are added). The good items are applied; returns the
 * number of bad ones, the first described in msg (one line). */
unsigned ev_parse_allow(const char *val, ev_lookup_fn lookup, void *ctx,
			struct domset allow[SLIVER_NR_PORTS], char *msg, size_t len);

#endif
