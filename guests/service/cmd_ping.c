/* service, the ping command: round trips through the hypervisor to a domain that answers on
 * SLIVER_PORT_PONG, each timed from when it was due (scheduled-time accounting, as
 * core/ping.c), with exact order statistics over the replies. */
#include "guests/service/service.h"
#include "lib/cmdline.h"
#include "lib/string.h"

#define MAX_PINGS    4096
#define PING_LOST    UINT64_MAX /* rtt[] entry of a ping without a reply */
#define PING_LATE_NS 20000u	/* sent later than this after its time: late (core/ping.c) */

static volatile uint32_t pongs;
static uint64_t rtt[MAX_PINGS];

void pong_isr(struct rt_frame *f)
{
	(void)f;
	hc_event_recv(SLIVER_PORT_PONG);
	pongs++;
}

/* Blocks until *done is set or the clock passes deadline (through the domain timer). */
static void wait_until(volatile uint64_t *done, uint64_t deadline)
{
	while (!*done && rt_clock_ns() < deadline) {
		rt_cli();
		if (*done)
			break;
		hc_set_timer(deadline);
		hc_block();
		rt_sti();
	}
	rt_sti();
}

void cmd_ping(int argc, char **argv)
{
	uint32_t dom;
	uint64_t count = 10, interval_us = 200000;
	bool quiet = false;
	if (argc < 2 || !parse_dom(argv[1], &dom)) {
		rt_printf("error: usage: ping <dom> [-c count] [-i interval_us] [-q]\n");
		return;
	}
	for (int i = 2; i < argc; i++) {
		bool ok = i + 1 < argc;
		if (!strcmp(argv[i], "-q"))
			ok = quiet = true; /* the summary only, as ping -q */
		else if (ok && !strcmp(argv[i], "-c"))
			ok = parse_u64(argv[++i], &count) && count >= 1 && count <= MAX_PINGS;
		else if (ok && !strcmp(argv[i], "-i"))
			ok = parse_u64(argv[++i], &interval_us) && interval_us >= 100;
		else
			ok = false;
		if (!ok) {
			rt_printf("error: ping: bad argument '%s' (-c 1..%u, -i >= 100 us)\n",
				  argv[i], MAX_PINGS);
			return;
		}
	}
	/* Scheduled-time accounting (as core/ping.c, wrk2's correction of coordinated
	 * omission): ping `seq` is due at start + (seq - 1) * interval, and its round trip
	 * counts from then, so a ping sent late (this vCPU woke late, a reply took longer than
	 * the interval) carries its lateness. A ping is late when it left more than
	 * PING_LATE_NS after its time; a reply later than a second after the send is lost.
	 * The reply lines are printed after the run: printing one holds this vCPU for
	 * milliseconds on a polled UART and would make the next pings late by itself. */
	unsigned got = 0, late = 0;
	uint64_t start = rt_clock_ns(), due = start;
	for (uint64_t seq = 1; seq <= count; seq++, due += interval_us * 1000) {
		static volatile struct sliver_ping_result r;
		if (rt_clock_ns() < due)
			rt_sleep_until(due);
		r.posted_ns = r.replied_ns = 0;
		int32_t e = hc3(HC_PING, dom, (uint32_t)(uintptr_t)&r, 0);
		if (fail(e, "ping"))
			return;
		if (r.posted_ns > due + PING_LATE_NS)
			late++;
		wait_until(&r.replied_ns, r.posted_ns + 1000000000ull);
		rtt[seq - 1] = !r.replied_ns	    ? PING_LOST
			       : r.replied_ns > due ? r.replied_ns - due
						    : 0;
	}
	for (uint64_t seq = 1; seq <= count; seq++) {
		if (rtt[seq - 1] == PING_LOST) {
			if (!quiet)
				rt_printf("no reply from d%u: seq=%llu\n", dom,
					  (unsigned long long)seq);
			continue;
		}
		if (!quiet) {
			rt_printf("reply from d%u: seq=%llu", dom, (unsigned long long)seq);
			print_us("time_us", rtt[seq - 1]);
			rt_printf("\n");
		}
		rtt[got++] = rtt[seq - 1]; /* compacted for the order statistics */
	}
	/* Summary: exact order statistics over the samples (sorted in place). */
	for (unsigned i = 1; i < got; i++)
		for (unsigned j = i; j > 0 && rtt[j - 1] > rtt[j]; j--) {
			uint64_t t = rtt[j];
			rtt[j] = rtt[j - 1];
			rtt[j - 1] = t;
		}
	uint64_t sum = 0, var = 0;
	for (unsigned i = 0; i < got; i++)
		sum += rtt[i];
	uint64_t avg = got ? sum / got : 0;
	for (unsigned i = 0; i < got; i++) {
		uint64_t d = rtt[i] > avg ? rtt[i] - avg : avg - rtt[i];
		var += d * d / (got ? got : 1);
	}
	uint64_t mdev = 0;
	for (int bit = 31; bit >= 0; bit--) {
		uint64_t t = mdev | (1ull << bit);
		if (t * t <= var)
			mdev = t;
	}
	rt_printf("ping d%u n=%u lost=%llu", dom, got, (unsigned long long)(count - got));
	print_us("min_us", got ? rtt[0] : 0);
	print_us("avg_us", avg);
	print_us("p50_us", got ? rtt[(got - 1) / 2] : 0);
	print_us("p99_us", got ? rtt[(got * 99 + 99) / 100 - 1] : 0);
	print_us("max_us", got ? rtt[got - 1] : 0);
	print_us("mdev_us", mdev);
	rt_printf(" late=%u\n", late);
}
