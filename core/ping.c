/* The in-hypervisor test ping source: with `ping.dom=<id>` on the hypervisor command
 * line, every `ping.interval_us` (default 10000) the BSP raises SLIVER_PORT_PING on that
 * domain, time-stamped; the reply (HC_EVENT_SEND to SLIVER_DOMID_HV, SLIVER_PORT_PONG) is
 * time-stamped when it arrives. A ping not answered before the next one is counted lost.
 * `ping.count=N` stops after N pings. The summary line has ping's fields:
 *   ping d<id> n= lost= min_us= avg_us= p50_us= p99_us= max_us= mdev_us=
 * (The service domain's histogram-based ping replaces this with issue 5.) */
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/cmdline.h"

#define MAX_SAMPLES 2048

static struct {
	bool on;
	unsigned dom;
	uint64_t interval_ns, count, sent, lost;
	volatile uint64_t posted_ns; /* 0: no ping outstanding */
	struct timer t;
	spinlock_t lock;
	unsigned n;
	uint64_t samples[MAX_SAMPLES]; /* round trips in ns */
	uint64_t min, max, sum;
	unsigned __int128 sumsq;
} ping;

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
	timer_set(t, now + ping.interval_ns);
}

void ping_start(const char *cmdline)
{
	uint64_t dom = 0, us = 10000;
	if (!cmdline_get_u64(cmdline, "ping.dom", &dom) || dom == 0 || dom >= SLIVER_MAX_DOMS)
		return;
	cmdline_get_u64(cmdline, "ping.interval_us", &us);
	cmdline_get_u64(cmdline, "ping.count", &ping.count);
	if (us < 10)
		us = 10;
	ping.on = true;
	ping.dom = (unsigned)dom;
	ping.interval_ns = us * 1000;
	ping.min = UINT64_MAX;
	ping.lock = (spinlock_t)SPINLOCK_INIT;
	printk("sliver: ping d%u every %lu us%s\n", ping.dom, (unsigned long)us,
	       ping.count ? "" : " until the end of the run");
	timer_init(&ping.t, ping_fire, NULL);
	timer_set(&ping.t, now_ns() + ping.interval_ns);
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
		uint64_t rtt = now - ping.posted_ns;
		ping.posted_ns = 0;
		if (ping.n < MAX_SAMPLES)
			ping.samples[ping.n] = rtt;
		ping.n++;
		ping.sum += rtt;
		ping.sumsq += (unsigned __int128)rtt * rtt;
		if (rtt < ping.min)
			ping.min = rtt;
		if (rtt > ping.max)
			ping.max = rtt;
	}
	spin_unlock(&ping.lock);
}

/* 128-by-64 division without libgcc (the hypervisor links none). */
static unsigned __int128 div128(unsigned __int128 n, uint64_t d)
{
	unsigned __int128 q = 0, r = 0;
	for (int i = 127; i >= 0; i--) {
		r = r << 1 | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= (unsigned __int128)1 << i;
		}
	}
	return q;
}

static uint64_t isqrt(unsigned __int128 x)
{
	uint64_t r = 0;
	for (int b = 63; b >= 0; b--) {
		uint64_t t = r | (1ull << b);
		if ((unsigned __int128)t * t <= x)
			r = t;
	}
	return r;
}

static void sort(uint64_t *a, unsigned n)
{
	for (unsigned i = 1; i < n; i++) { /* insertion sort: at most MAX_SAMPLES, once */
		uint64_t x = a[i];
		unsigned j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

#define US(ns) (unsigned long)((ns) / 1000), (unsigned)((ns) % 1000)

void ping_report(void)
{
	if (!ping.on)
		return;
	spin_lock(&ping.lock);
	unsigned n = ping.n, k = n < MAX_SAMPLES ? n : MAX_SAMPLES;
	uint64_t lost = ping.lost + (ping.posted_ns ? 1 : 0);
	sort(ping.samples, k);
	uint64_t avg = n ? ping.sum / n : 0;
	unsigned __int128 meansq = n ? div128(ping.sumsq, n) : 0;
	unsigned __int128 sq = (unsigned __int128)avg * avg;
	uint64_t mdev = meansq > sq ? isqrt(meansq - sq) : 0;
	uint64_t p50 = k ? ping.samples[(k - 1) * 50 / 100] : 0;
	uint64_t p99 = k ? ping.samples[(k - 1) * 99 / 100] : 0;
	uint64_t min = n ? ping.min : 0;
	spin_unlock(&ping.lock);
	printk("ping d%u n=%u lost=%lu min_us=%lu.%03u avg_us=%lu.%03u p50_us=%lu.%03u "
	       "p99_us=%lu.%03u max_us=%lu.%03u mdev_us=%lu.%03u\n",
	       ping.dom, n, (unsigned long)lost, US(min), US(avg), US(p50), US(p99), US(ping.max),
	       US(mdev));
}
