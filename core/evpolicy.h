/* Who may raise which event port: the pure rules of sliver/event.h, and the parser of the
 * `evt.allow=` module word. No hypervisor state: host-tested (test/unit/test_evpolicy.c). */
#ifndef CORE_EVPOLICY_H
#define CORE_EVPOLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sliver/event.h"

#define EV_BIT(dom) (1ull << (dom)) /* a domain's bit in a sender set (dom < 64) */

/* The sending side and the target of one HC_EVENT_SEND between two domains. */
struct ev_side {
	unsigned id;
	bool service;
	uint64_t signalled_by; /* domains that ever raised a port of this one */
};

/* May `from` raise port `port` of `to`, given the allow set of that port? */
bool ev_may_send(const struct ev_side *from, const struct ev_side *to, uint64_t port_allow);

/* Maps a domain name (n characters, not terminated) to its id; 0 when there is none. */
typedef unsigned (*ev_lookup_fn)(const char *name, size_t n, void *ctx);

/* Parses `<port>:<who>[,<port>:<who>...]`, who = a domain id, a domain name or `*` (every
 * domain), into allow[port] (bits are added). The good items are applied; returns the
 * number of bad ones, the first described in msg (one line). */
unsigned ev_parse_allow(const char *val, ev_lookup_fn lookup, void *ctx,
			uint64_t allow[SLIVER_NR_PORTS], char *msg, size_t len);

#endif
