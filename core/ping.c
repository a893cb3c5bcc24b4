/* The in-hypervisor test ping source: with `ping.dom=<id>` on the hypervisor command
 * line, every `ping.interval_us` (default 10000) the BSP raises SLIVER_PORT_PING on that
 * domain, time-stamped; the reply (HC_EVENT_SEND to SLIVER_DOMID_HV, SLIVER_PORT_PONG) is
 * time-stamped when it arrives. A ping not answered before the next one is counted lost.
 * `ping.count=N` stops after N pings; `ping.jitter_us=J` spreads each interval uniformly
 * over +-J (a fixed-seed xorshift, `ping.seed=`, so runs stay deterministic), which keeps the
 * pings from locking in phase with a periodic scheduler tick; `ping.delay_ms=D` holds the
 * first ping back D ms (the guests' start-up is not measured). The simulator reads the
 * same keys. The summary line has ping's fields (lib/hist.h):
 *   ping d<id> n= lost= min_us= avg_us= p50_us= p90_us= p99_us= p999_us= max_us= mdev_us=
 * The service domain's `ping` command (core/service.c) is the interactive twin. */
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "core/bootargs.h"

static struct {
	bool on;
	unsigned dom;
	uint64_t interval_ns, jitter_ns, count, sent, lost, rng;
	volatile uint64_t posted_ns; /* 0: no ping outstanding */
	struct timer t;
	spinlock_t lock;
	struct hist rtt; /* round trips in ns */
} ping;

/* The next interval: interval +- jitter, uniform (xorshift64). */
static uint64_t next_interval(void)
{
	if (!ping.jitter_ns)
		return ping.interval_ns;
	ping.rng ^= ping.rng << 13;
	ping.rng ^= ping.rng >> 7;
	ping.rng ^= ping.rng << 17;
	return ping.interval_ns - ping.jitter_ns + ping.rng % (2 * ping.jitter_ns + 1);
}

static void ping_fire(struct timer *t, void *arg)
{
	(void)arg;
	uint64_t now = now_ns();
	struct domain *d = domain_get(ping.dom);
	if (!d || (ping.count && ping.sent >= ping.count))
		return;
	spin_lock(&ping.lock);
	if (ping.posted_ns)
		ping.lost++;
	ping.posted_ns = now;
	ping.sent++;
	spin_unlock(&ping.lock);
	event_raise(d, SLIVER_PORT_PING, SLIVER_DOMID_HV);
	timer_set(t, now + next_interval());
}

void ping_start(const char *cmdline)
{
	(void)cmdline; /* the keys are checked and read through core/bootargs.c */
	uint64_t dom = bootarg_u64("ping.dom"), us = bootarg_u64("ping.interval_us");
	uint64_t jitter_us = bootarg_u64("ping.jitter_us"), delay_ms = bootarg_u64("ping.delay_ms");
	uint64_t seed = bootarg_u64("ping.seed");
	if (dom == 0)
		return;
	ping.count = bootarg_u64("ping.count");
	if (us < 10)
		us = 10;
	if (jitter_us >= us)
		jitter_us = us - 1;
	ping.jitter_ns = jitter_us * 1000;
	ping.rng = seed ? seed : 1;
	ping.on = true;
	ping.dom = (unsigned)dom;
	ping.interval_ns = us * 1000;
	ping.lock = (spinlock_t)SPINLOCK_INIT;
	printk("sliver: ping d%u every %lu +- %lu us from %lu ms%s\n", ping.dom, (unsigned long)us,
	       (unsigned long)jitter_us, (unsigned long)delay_ms,
	       ping.count ? "" : " until the end of the run");
	timer_init(&ping.t, ping_fire, NULL);
	timer_set(&ping.t, now_ns() + delay_ms * 1000000 + next_interval());
}

void ping_reply(unsigned from_dom)
{
	if (service_ping_reply(from_dom))
		return;
	uint64_t now = now_ns();
	if (!ping.on || from_dom != ping.dom)
		return;
	spin_lock(&ping.lock);
	if (ping.posted_ns) {
		hist_record(&ping.rtt, now - ping.posted_ns);
		ping.posted_ns = 0;
	}
	spin_unlock(&ping.lock);
}

void ping_report(void)
{
	if (!ping.on)
		return;
	spin_lock(&ping.lock);
	uint64_t lost = ping.lost + (ping.posted_ns ? 1 : 0);
	struct hist_stats st = hist_stats(&ping.rtt);
	spin_unlock(&ping.lock);
	char line[240];
	hist_format(line, sizeof(line), &st);
	/* "n=<n> " first, then lost=, then the rest of the summary */
	const char *rest = line;
	while (*rest && *rest != ' ')
		rest++;
	printk("ping d%u %.*s lost=%lu%s\n", ping.dom, (int)(rest - line), line,
	       (unsigned long)lost, rest);
}
