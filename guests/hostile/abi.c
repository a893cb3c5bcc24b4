/* hostile, the hypercall ABI: what a well-behaved guest relies on (HC_CLOCK, yield,
 * self_info), bad pointers, lengths, numbers and privileged calls refused with the error
 * docs/hypercalls.md gives, and event ports (coalescing, permission to signal another
 * domain, a reply from a peer that allowed us). */
#include "guests/hostile/hostile.h"
#include "guests/lib/hcinsn.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/dominfo.h"
#include "sliver/event.h"

/* Not attacks: what a well-behaved guest relies on, checked from the same guest first. */
void try_sane(const struct sliver_boot_info *bi)
{
	char got[48];
	uint64_t c1 = rt_clock_ns(), h = hc_clock(), c2 = rt_clock_ns();
	fmt_snprintf(got, sizeof got, "%llu<=%llu<=%llu", (unsigned long long)c1,
		     (unsigned long long)h, (unsigned long long)c2);
	verdict("HC_CLOCK within the TSC clock", got, c1 <= h && h <= c2);
	int32_t y = hc_yield();
	fmt_snprintf(got, sizeof got, "%d", (int)y);
	verdict("yield", got, y == 0);
	struct sliver_dom_info in;
	int32_t n = hc3(HC_SELF_INFO, (uint32_t)(uintptr_t)&in, sizeof in, 0);
	fmt_snprintf(got, sizeof got, "%d d%u %s", (int)n, in.dom_id, in.name);
	verdict("self_info", got,
		n == (int32_t)sizeof in && in.dom_id == bi->dom_id && !strcmp(in.name, bi->name));
}

void try_hypercalls(const struct sliver_boot_info *bi)
{
	uint32_t mem = (uint32_t)bi->mem_bytes;
	static char msg[] = "x";
	expect_err("console_write ptr past memory", hc3(HC_CONSOLE_WRITE, mem + 0x1000, 4, 0),
		   SLIVER_EFAULT);
	expect_err("console_write straddling end", hc3(HC_CONSOLE_WRITE, mem - 4, 64, 0),
		   SLIVER_EFAULT);
	expect_err("console_write wrapping ptr+len", hc3(HC_CONSOLE_WRITE, 0xfffffff0u, 0x20, 0),
		   SLIVER_EFAULT);
	expect_err("console_write huge len",
		   hc3(HC_CONSOLE_WRITE, (uint32_t)(uintptr_t)msg, 0x7fffffff, 0), SLIVER_E2BIG);
	expect_err("self_info into APIC page", hc3(HC_SELF_INFO, 0xfee00000u, 64, 0),
		   SLIVER_EFAULT);
	/* The last id of the table (no test scenario has that many domains) and one past it. */
	expect_err("event_send to domain 1023",
		   hc_event_send(SLIVER_MAX_DOMS - 1, SLIVER_PORT_USER), SLIVER_ESRCH);
	expect_err("event_send to domain 1024", hc_event_send(SLIVER_MAX_DOMS, SLIVER_PORT_USER),
		   SLIVER_ESRCH);
	expect_err("event_send to port 999", hc_event_send(bi->dom_id, 999), SLIVER_EINVAL);
	expect_err("event_bind vector 13", hc_event_bind(SLIVER_PORT_USER, 13, 0), SLIVER_EINVAL);
	expect_err("event_bind vcpu 7", hc_event_bind(SLIVER_PORT_USER, 0x40, 7), SLIVER_EINVAL);
	expect_err("set_timer in 1000 years", hc_set_timer(~0ull), 0);
	hc_set_timer(0);
	expect_err("hypercall 1000", hc3(1000, 1, 2, 3), SLIVER_ENOSYS);
	expect_err("hypercall 0xffffffff", hc3(0xffffffffu, 0, 0, 0), SLIVER_ENOSYS);
	for (uint32_t nr = HC_PRIV_FIRST; nr < HC_PRIV_END; nr++) {
		char what[40];
		fmt_snprintf(what, sizeof what, "privileged hypercall %u", nr);
		expect_err(what, hc5(nr, 1, 0x2000, 64, 0, 0), SLIVER_EPERM);
	}
}

/* Event ports: coalesced events keep their count and sender; another domain's port needs
 * its permission (peer=<id>: a domain whose evt.allow= lets us raise its SLIVER_PORT_PING
 * only, and answers pings, as the echo guest does). */
void try_events(const struct sliver_boot_info *bi)
{
	char got[64];
	const uint32_t port = SLIVER_PORT_USER + 1;
	hc_event_send(bi->dom_id, port);
	hc_event_send(bi->dom_id, port);
	struct sliver_event_info in = {0};
	int32_t n = hc3(HC_EVENT_INFO, port, (uint32_t)(uintptr_t)&in, sizeof in);
	/* The sender set: exactly our own bit, in whichever word it is (ids up to 1023). */
	unsigned bits = 0;
	for (unsigned i = 0; i < SLIVER_DOMSET_WORDS; i++)
		for (uint64_t w = in.senders[i]; w; w &= w - 1)
			bits++;
	bool mine = in.senders[bi->dom_id / 64] >> (bi->dom_id % 64) & 1;
	fmt_snprintf(got, sizeof got, "%d count=%u last=%u senders=%s", (int)n, in.count, in.last,
		     mine && bits == 1 ? "self" : "wrong");
	verdict("two events to self coalesce", got,
		n == (int32_t)sizeof in && in.count == 2 && in.last == bi->dom_id && mine &&
			bits == 1);
	expect_err("event_info on a cleared port",
		   hc3(HC_EVENT_INFO, port, (uint32_t)(uintptr_t)&in, sizeof in), SLIVER_EAGAIN);
	uint64_t peer;
	if (!rt_arg_u64("peer", &peer))
		return;
	expect_err("signal a port of another domain without permission",
		   hc_event_send((uint32_t)peer, SLIVER_PORT_USER), SLIVER_EPERM);
	expect_err("signal the timer port of another domain",
		   hc_event_send((uint32_t)peer, SLIVER_PORT_TIMER), SLIVER_EPERM);
	expect_err("allow domain 0 on own port", hc3(HC_EVENT_ALLOW, port, 0, 1), SLIVER_EINVAL);
	expect_err("allow every domain on own port, then take it back",
		   hc3(HC_EVENT_ALLOW, port, SLIVER_DOMID_ANY, 1) | hc3(HC_EVENT_ALLOW, port, 7, 0),
		   0);
	/* Allowed by the peer's evt.allow=: it answers on our SLIVER_PORT_PONG (a reply).
	 * Waited for 2 s of clock, not a count of yields: among 100 domains the peer may not
	 * have run yet, and 1000 yields on a quiet pCPU took a few ms (e2e-manydoms-svm
	 * failed so, now and then, under QEMU TCG). */
	int32_t r = hc_event_send((uint32_t)peer, SLIVER_PORT_PING), from = -1;
	uint64_t until = rt_clock_ns() + 2000000000ull;
	while (r == 0 && from < 0 && rt_clock_ns() < until) {
		from = hc_event_recv(SLIVER_PORT_PONG);
		if (from < 0)
			hc_yield();
	}
	fmt_snprintf(got, sizeof got, "send %d, reply from %d", (int)r, (int)from);
	verdict("signal a port the other domain allowed, get its reply", got,
		r == 0 && from == (int32_t)peer);
}
