/* The in-hypervisor test ping source: with `ping.dom=<id>` on the hypervisor command
 * line, every `ping.interval_us` (default 10000) pCPU `ping.cpu` (default 0, the BSP)
 * raises SLIVER_PORT_PING on that domain; the reply (HC_EVENT_SEND to SLIVER_DOMID_HV,
 * SLIVER_PORT_PONG) is time-stamped when it arrives. `ping.count=N` sends N pings in all;
 * `ping.jitter_us=J` spreads each interval uniformly over +-J (a fixed-seed xorshift,
 * `ping.seed=`, so runs stay deterministic), which keeps the pings from locking in phase
 * with a periodic scheduler tick; `ping.delay_ms=D` holds the first ping back D ms (the
 * guests' start-up is not measured). The simulator reads the same keys but ping.cpu and
 * ping.count (its pinger is outside every pCPU and runs for sim.duration_ms).
 *
 * Scheduled-time accounting (coordinated omission, as wrk2 corrects it: Gil Tene, "How NOT
 * to Measure Latency", and github.com/giltene/wrk2's README): the send times are fixed in
 * advance (start + the sum of the intervals, never "now + interval"), and a round trip is
 * counted from the time the ping was *scheduled* to be sent. A pCPU that is held (a console
 * write under a lock, a long exit) sends late, and that wait is inside the number instead
 * of vanishing with the ping that was never sent on time. One ping is outstanding at a
 * time: a ping not answered when the next one is due is counted lost (the last one too,
 * against the time its successor would have had); a ping whose successor is already due
 * when the pCPU gets to send it is counted sent, late and lost, and not raised (it could not be
 * answered in time; raising them all at once would only flood the echo domain). A ping is *late*
 * when it left more than PING_LATE_NS after its scheduled time (well above the timer's own
 * lateness, docs/BENCHMARKS.md "Platform"). The summary line has ping's fields (lib/hist.h) and the
 * late count: ping d<id> n= lost= min_us= avg_us= p50_us= p90_us= p99_us= p999_us= max_us= mdev_us=
 *   late=
 * n answered + lost = pings scheduled so far (= ping.count once all were due).
 * The service domain's `ping` command (core/service.c) is the interactive twin.
 *
 * `ping.uart=1` pings through the domain's COM1 instead of its event ports (issue 28: a Linux
 * guest answering on its serial line, docs/guests.md "The UART echo"): ping_fire puts the byte
 * PING_UART_BYTE into its receive FIFO, which raises IRQ 4 as the guest's IER and MCR say
 * (core/exit_io.c, core/vuart.c), and the round trip ends when the guest writes that byte to
 * THR (ping_uart_answer; the byte is not printed, the guest's other output is). Same
 * accounting; a byte that finds the FIFO full is not received (the ping is lost).
 *
 * The domains' shares while the pings ran: each domain's CPU time (domains 1..PING_SHARE_DOMS-1,
 * alive at both ends) between the first ping's send and the last one's (or the run's end),
 * in % of that window's length, after the summary:
 *   ping share window_ms=<ms> d1=<%> d2=<%> ...
 * (the 2006 table's "CPU usage" column, measured by the scheduler instead of xentop). */
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "core/bootargs.h"
#include "core/pingtrace.h"
#include "lib/fmt.h"

#define PING_LATE_NS	20000ull /* a send later than this after its scheduled time is late */
#define PING_SHARE_DOMS 16	 /* the window's shares are kept for domains 1..15 */

static struct {
	bool on, stopped, uart;
	unsigned dom, cpu;
	uint64_t interval_ns, jitter_ns, count, sent, lost, late, rng;
	uint64_t due_ns;	     /* scheduled send time of the next ping */
	volatile uint64_t posted_ns; /* scheduled time of the outstanding ping, 0: none */
	uint64_t posted_at;	     /* when it was actually raised */
	struct timer t;
	spinlock_t lock;
	struct hist rtt; /* round trips in ns, from the scheduled send time */
	/* The window's two ends (ping.c's own pCPU, or ping_stop's once the run ends; the
	 * report reads them after ping_stop): [0] the first send, [1] the last. */
	bool marked[2];
	uint64_t mark_ns[2];
	uint64_t dom_ns[2][PING_SHARE_DOMS]; /* CPU time, UINT64_MAX: not alive then */
} ping;

/* One end of the shares' window (no lock held: dom_run_ns takes rq locks). */
static void share_mark(unsigned end)
{
	ping.mark_ns[end] = now_ns();
	for (unsigned id = 1; id < PING_SHARE_DOMS; id++) {
		struct domain *d = domain_get(id);
		ping.dom_ns[end][id] = d ? dom_run_ns(d) : UINT64_MAX;
	}
	__atomic_store_n(&ping.marked[end], true, __ATOMIC_RELEASE);
}

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

static bool more_to_send(void)
{
	return !ping.count || ping.sent < ping.count;
}

static void ping_fire(struct timer *t, void *arg)
{
	(void)arg;
#ifdef SLIVER_PINGTRACE
	uint64_t fire_tsc = rdtsc();
#endif
	uint64_t now = now_ns();
	struct domain *d = domain_get(ping.dom);
	if (!d || !more_to_send())
		return;
	spin_lock(&ping.lock);
	if (ping.stopped) {
		spin_unlock(&ping.lock);
		return;
	}
	if (ping.posted_ns)
		ping.lost++; /* not answered before this one was due */
	ping.posted_ns = 0;
	uint64_t due = ping.due_ns, next = due + next_interval();
	/* Held past a whole interval: the pings whose successor is already due are lost. */
	while (next <= now && (!ping.count || ping.sent + 1 < ping.count)) {
		ping.sent++, ping.late++, ping.lost++;
		due = next;
		next = due + next_interval();
	}
	ping.sent++;
	bool late = now - due > PING_LATE_NS;
	if (late)
		ping.late++;
	ping.posted_ns = due;
	ping.posted_at = now;
	ping.due_ns = next;
	bool first = ping.sent == 1, last = ping.count && ping.sent == ping.count;
	spin_unlock(&ping.lock);
	if (first)
		share_mark(0);
	if (last)
		share_mark(1);
	PT_HOOK(pt_ping_fire(ns_to_tsc_deadline(due), fire_tsc, late));
	PT_HOOK(pt_raising(true));
	PT_STAMP(PT_RAISE);
	if (ping.uart)
		(void)com1_receive(d, PING_UART_BYTE); /* lost if the FIFO is full */
	else
		event_raise(d, SLIVER_PORT_PING, SLIVER_DOMID_HV);
	PT_HOOK(pt_raising(false));
	if (more_to_send())
		timer_set(t, next);
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
	ping.uart = bootarg_u64("ping.uart");
	uint64_t cpu = bootarg_u64("ping.cpu");
	if (us < 10)
		us = 10;
	if (jitter_us >= us)
		jitter_us = us - 1;
	if (cpu >= cpu_count()) {
		printk("sliver: ping.cpu=%lu: no such pCPU, pinging from pCPU 0\n",
		       (unsigned long)cpu);
		cpu = 0;
	}
	ping.jitter_ns = jitter_us * 1000;
	ping.rng = seed ? seed : 1;
	ping.on = true;
	ping.dom = (unsigned)dom;
	ping.cpu = (unsigned)cpu;
	ping.interval_ns = us * 1000;
	spin_init(&ping.lock, &lock_ping, -1);
	printk("sliver: ping d%u%s from pCPU %u every %lu +- %lu us from %lu ms%s\n", ping.dom,
	       ping.uart ? " through COM1" : "", ping.cpu, (unsigned long)us,
	       (unsigned long)jitter_us, (unsigned long)delay_ms,
	       ping.count ? "" : " until the end of the run");
	timer_init(&ping.t, ping_fire, NULL);
	PT_HOOK(pt_ping_start(ping.dom, ping.cpu));
	ping.due_ns = now_ns() + delay_ms * 1000000 + next_interval();
}

/* A struct timer belongs to the pCPU that sets it (core/timer.c): pCPU ping.cpu arms the
 * ping timer itself, once, on its way into vmm_cpu_loop (the APs start after vmm_boot).
 * Entering the loop after the first due time only makes that ping late. */
void ping_cpu_start(unsigned cpu)
{
	if (ping.on && cpu == ping.cpu)
		timer_set(&ping.t, ping.due_ns);
}

/* The run is over: no more pings (the counters are printed next; the report itself holds
 * pCPU 0 for a while on a polled UART, and a ping source on another pCPU would go on
 * counting pings that nothing on pCPU 0 can answer). The outstanding one stays lost. */
void ping_stop(void)
{
	spin_lock(&ping.lock);
	ping.stopped = true;
	/* The last ping marks the window's end itself (ping_fire); else the run's end does. */
	bool window = ping.on && ping.sent && (!ping.count || ping.sent < ping.count);
	spin_unlock(&ping.lock);
	if (window)
		share_mark(1);
}

/* ping share window_ms= d<id>=<%.1f>... (share_mark: both ends marked). */
static void share_report(void)
{
	if (!__atomic_load_n(&ping.marked[0], __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&ping.marked[1], __ATOMIC_ACQUIRE) ||
	    ping.mark_ns[1] <= ping.mark_ns[0])
		return;
	uint64_t win = ping.mark_ns[1] - ping.mark_ns[0];
	char line[400];
	size_t n = (size_t)fmt_snprintf(line, sizeof line, "ping share window_ms=%lu",
					(unsigned long)(win / 1000000));
	for (unsigned id = 1; id < PING_SHARE_DOMS && n < sizeof line; id++) {
		uint64_t a = ping.dom_ns[0][id], b = ping.dom_ns[1][id];
		if (a == UINT64_MAX || b == UINT64_MAX || b < a)
			continue;
		uint64_t permille = ((b - a) * 1000 + win / 2) / win;
		n += (size_t)fmt_snprintf(line + n, sizeof line - n, " d%u=%lu.%lu", id,
					  (unsigned long)(permille / 10),
					  (unsigned long)(permille % 10));
	}
	printk("%s\n", line);
}

/* The outstanding ping's answer arrived at `now` (any pCPU, no lock held). */
static void reply_at(uint64_t now, uint64_t reply_tsc)
{
	(void)reply_tsc;
	spin_lock(&ping.lock);
	/* A reply that arrived before the outstanding ping was raised answers an earlier one
	 * (counted lost already; ping_fire took the lock between this reply's arrival and
	 * here): not this one's, whose round trip it would make negative. */
	if (ping.posted_ns && !ping.stopped && now >= ping.posted_at) {
		/* Answered after its successor was due (the last ping's successor is never sent,
		 * its time is due_ns all the same): lost, as ping_fire would count it. */
		if (now >= ping.due_ns)
			ping.lost++;
		else
			hist_record(&ping.rtt, now - ping.posted_ns);
		PT_HOOK(pt_reply(reply_tsc));
		ping.posted_ns = 0;
	}
	spin_unlock(&ping.lock);
}

void ping_reply(unsigned from_dom)
{
	uint64_t reply_tsc = 0;
#ifdef SLIVER_PINGTRACE
	reply_tsc = rdtsc();
#endif
	if (service_ping_reply(from_dom))
		return;
	uint64_t now = now_ns();
	if (!ping.on || ping.uart || from_dom != ping.dom)
		return;
	reply_at(now, reply_tsc);
}

bool ping_uart_is_answer(const struct domain *d, uint8_t b)
{
	return ping.on && ping.uart && d->id == ping.dom && b == PING_UART_BYTE;
}

bool ping_uart_answer(const struct domain *d, uint8_t b)
{
	uint64_t reply_tsc = 0;
#ifdef SLIVER_PINGTRACE
	reply_tsc = rdtsc();
#endif
	if (!ping_uart_is_answer(d, b))
		return false;
	reply_at(now_ns(), reply_tsc);
	return true;
}

void ping_report(void)
{
	if (!ping.on)
		return;
	spin_lock(&ping.lock);
	uint64_t lost = ping.lost + (ping.posted_ns ? 1 : 0), late = ping.late;
	struct hist_stats st = hist_stats(&ping.rtt);
	spin_unlock(&ping.lock);
	char line[240];
	hist_format(line, sizeof(line), &st);
	/* "n=<n> " first, then lost=, then the rest of the summary, then late= */
	const char *rest = line;
	while (*rest && *rest != ' ')
		rest++;
	printk("ping d%u %.*s lost=%lu%s late=%lu\n", ping.dom, (int)(rest - line), line,
	       (unsigned long)lost, rest, (unsigned long)late);
	share_report();
	PT_HOOK(pt_report());
}
