#include "core/evpolicy.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"

_Static_assert(SLIVER_MAX_DOMS % 64 == 0, "a domain set is whole 64-bit words");

bool ev_may_send(const struct ev_side *from, const struct ev_side *to,
		 const struct domset *port_allow)
{
	if (from->service || to->service || from->id == to->id)
		return true;
	if (domset_has(port_allow, from->id))
		return true;
	return domset_has(from->signalled_by, to->id); /* a reply */
}

/* One item `<port>:<who>`; NULL when good, else why not. */
static const char *item(const char *s, size_t n, ev_lookup_fn lookup, void *ctx,
			struct domset allow[SLIVER_NR_PORTS])
{
	size_t colon = 0;
	while (colon < n && s[colon] != ':')
		colon++;
	uint64_t port, dom;
	if (colon == n)
		return "expected <port>:<domain>";
	if (!parse_u64_n(s, colon, &port) || port >= SLIVER_NR_PORTS)
		return "port must be 0..31";
	const char *who = s + colon + 1;
	size_t wn = n - colon - 1;
	if (wn == 1 && who[0] == '*') {
		domset_fill(&allow[port], true);
		return NULL;
	}
	if (wn == 0)
		return "no domain after ':'";
	if (!parse_u64_n(who, wn, &dom))
		dom = lookup ? lookup(who, wn, ctx) : 0;
	if (dom == 0 || dom >= SLIVER_MAX_DOMS)
		return "no such domain";
	domset_add(&allow[port], (unsigned)dom);
	return NULL;
}

unsigned ev_parse_allow(const char *val, ev_lookup_fn lookup, void *ctx,
			struct domset allow[SLIVER_NR_PORTS], char *msg, size_t len)
{
	unsigned bad = 0;
	const char *s = val;
	if (!*s) {
		fmt_snprintf(msg, len, "evt.allow= is empty");
		return 1;
	}
	for (;;) {
		size_t n = 0;
		while (s[n] && s[n] != ',')
			n++;
		const char *why = item(s, n, lookup, ctx, allow);
		if (why && !bad++)
			fmt_snprintf(msg, len, "evt.allow item '%.*s': %s", n > 40 ? 40 : (int)n, s,
				     why);
		if (!s[n])
			break;
		s += n + 1;
	}
	return bad;
}
