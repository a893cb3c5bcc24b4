/* service: the privileged domain (role=service). It owns the console input and runs a
 * small shell: list, sched, ping, lat, top, perf, trace, pin, pause, unpause, destroy,
 * reset, help. `autorun="cmd; cmd"` on its command line runs commands first; then it reads
 * lines from the console (HC_CONSOLE_READ, woken by SLIVER_PORT_CONSOLE).
 * Every command prints machine-readable lines; errors are one line starting `error:`. */
#include "guests/lib/rt.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/dominfo.h"
#include "sliver/service.h"

#define VEC_CONSOLE  RT_VEC_FIRST_FREE
#define VEC_PONG     (RT_VEC_FIRST_FREE + 1)
#define MAX_ARGS     12
#define MAX_PINGS    4096
#define PING_LOST    UINT64_MAX /* rtt[] entry of a ping without a reply */
#define PING_LATE_NS 20000u	/* sent later than this after its time: late (core/ping.c) */
#define TEXT_MAX     4096

static char text[TEXT_MAX];
static volatile uint32_t pongs;
static uint64_t rtt[MAX_PINGS];

/* CPU% bookkeeping for `list` and `top`: run time per domain at the last call. */
static uint64_t last_run_ns[SLIVER_MAX_DOMS], last_list_ns;

static int32_t hc_ptr(uint32_t nr, uint32_t a0, const void *p, uint32_t len)
{
	return hc3(nr, a0, (uint32_t)(uintptr_t)p, len);
}

static void print_text(int32_t n)
{
	if (n > 0)
		hc_console_write(text, (uint32_t)n);
}

static const char *errname(int32_t r)
{
	switch (-r) {
	case SLIVER_EPERM:
		return "not permitted";
	case SLIVER_ENOENT:
		return "no such entry";
	case SLIVER_ESRCH:
		return "no such domain";
	case SLIVER_EINVAL:
		return "invalid argument";
	case SLIVER_EBUSY:
		return "busy";
	case SLIVER_ENOSYS:
		return "this hypervisor has no such call";
	case SLIVER_EFAULT:
		return "bad address";
	default:
		return "failed";
	}
}

static bool fail(int32_t r, const char *what)
{
	if (r < 0)
		rt_printf("error: %s: %s (%d)\n", what, errname(r), (int)r);
	return r < 0;
}

/* "4" or "d4" -> 4 */
static bool parse_dom(const char *s, uint32_t *dom)
{
	uint64_t v;
	if (*s == 'd')
		s++;
	if (!parse_u64(s, &v) || v == 0 || v >= SLIVER_MAX_DOMS)
		return false;
	*dom = (uint32_t)v;
	return true;
}

/* "0", "0-2", "0,2" -> bit mask */
static bool parse_cpus(const char *s, uint32_t *mask)
{
	char buf[32];
	uint32_t m = 0;
	size_t n = strlen(s);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, s, n + 1);
	for (char *p = buf; *p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		char *dash = strchr(p, '-');
		uint64_t a, b;
		if (dash) {
			*dash = 0;
			if (!parse_u64(p, &a) || !parse_u64(dash + 1, &b))
				return false;
		} else if (!parse_u64(p, &a)) {
			return false;
		} else {
			b = a;
		}
		if (a > b || b >= 32)
			return false;
		for (uint64_t c = a; c <= b; c++)
			m |= 1u << c;
		if (!comma)
			break;
		p = comma + 1;
	}
	*mask = m;
	return m != 0;
}

static void print_us(const char *key, uint64_t ns)
{
	rt_printf(" %s=%llu.%03llu", key, (unsigned long long)(ns / 1000),
		  (unsigned long long)(ns % 1000));
}

static const char *const state_names[] = {"running", "blocked", "paused", "crashed", "shutdown"};

static int list_doms(struct sliver_dom_info *d, unsigned max)
{
	return hc3(HC_DOM_LIST, (uint32_t)(uintptr_t)d, max, 0);
}

/* CPU% since the previous call, tenths of a percent of one pCPU. */
static uint32_t cpu_permille(const struct sliver_dom_info *d, uint64_t dt)
{
	uint64_t used = d->run_ns - last_run_ns[d->dom_id];
	return dt ? (uint32_t)(used * 1000 / dt) : 0;
}

static void cmd_list(int argc, char **argv)
{
	(void)argc, (void)argv;
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	int n = list_doms(d, SLIVER_MAX_DOMS);
	if (fail(n, "list"))
		return;
	uint64_t now = rt_clock_ns(), dt = now - last_list_ns;
	rt_printf("list: %d domain(s), cpu%% over the last %llu ms\n", n,
		  (unsigned long long)(dt / 1000000));
	for (int i = 0; i < n; i++) {
		struct sliver_vcpu_counters vc = {0};
		int32_t r = hc5(HC_VCPU_COUNTERS, d[i].dom_id, 0, (uint32_t)(uintptr_t)&vc,
				sizeof vc, 0);
		uint32_t pm = cpu_permille(&d[i], dt);
		rt_printf("list d%u name=%s state=%s role=%s vcpus=%u weight=%u cap=%u pcpu=%s%u "
			  "mem_mib=%llu cpu_pct=%u.%u\n",
			  d[i].dom_id, d[i].name, d[i].state < 5 ? state_names[d[i].state] : "?",
			  d[i].role == SLIVER_ROLE_SERVICE ? "service" : "guest", d[i].nr_vcpus,
			  d[i].weight, d[i].cap, r < 0 ? "?" : "", r < 0 ? 0 : vc.pcpu,
			  (unsigned long long)(d[i].mem_bytes >> 20), pm / 10, pm % 10);
		last_run_ns[d[i].dom_id] = d[i].run_ns;
	}
	last_list_ns = now;
}

static void cmd_sched(int argc, char **argv)
{
	if (argc == 1) {
		int32_t r = hc3(HC_SCHED_GET, (uint32_t)(uintptr_t)text, TEXT_MAX, 0);
		if (!fail(r, "sched"))
			print_text(r);
		return;
	}
	if (!strcmp(argv[1], "global")) {
		if (argc < 3) {
			rt_printf("error: sched global needs key=value (e.g. tslice_us=1000)\n");
			return;
		}
		for (int i = 2; i < argc; i++) {
			/* As typed: a short key (tslice_us=) is one of the selected policy's,
			 * as on the boot line. */
			const char *word = argv[i];
			int32_t r = hc3(HC_SCHED_GLOBAL, (uint32_t)(uintptr_t)word,
					(uint32_t)strlen(word), 0);
			if (!fail(r, word))
				rt_printf("sched: %s ok\n", word);
		}
		return;
	}
	uint32_t dom;
	if (!parse_dom(argv[1], &dom)) {
		rt_printf("error: sched: '%s' is not a domain id\n", argv[1]);
		return;
	}
	uint64_t weight = 0, cap = (uint64_t)-1;
	for (int i = 2; i < argc; i++) {
		bool ok = false;
		if (!strncmp(argv[i], "weight=", 7))
			ok = parse_u64(argv[i] + 7, &weight) && weight >= 1 && weight <= 65535;
		else if (!strncmp(argv[i], "cap=", 4))
			ok = parse_u64(argv[i] + 4, &cap) && cap <= 6400;
		if (!ok) {
			rt_printf("error: sched: bad argument '%s' (weight=1..65535 cap=0..6400)\n",
				  argv[i]);
			return;
		}
	}
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	int n = list_doms(d, SLIVER_MAX_DOMS);
	if (fail(n, "sched"))
		return;
	for (int i = 0; i < n; i++) {
		if (d[i].dom_id != dom)
			continue;
		if (argc > 2) {
			uint32_t w = weight ? (uint32_t)weight : d[i].weight;
			uint32_t c = cap != (uint64_t)-1 ? (uint32_t)cap : d[i].cap;
			if (fail(hc3(HC_SCHED_SET, dom, w, c), "sched"))
				return;
			d[i].weight = w;
			d[i].cap = c;
		}
		rt_printf("sched d%u weight=%u cap=%u\n", dom, d[i].weight, d[i].cap);
		return;
	}
	rt_printf("error: sched: no domain d%u\n", dom);
}

static void pong_isr(struct rt_frame *f)
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

static void cmd_ping(int argc, char **argv)
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

static void each_vcpu(int argc, char **argv,
		      void (*fn)(const struct sliver_dom_info *, uint32_t, bool), bool flag)
{
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	uint32_t only = 0;
	if (argc > 1 && !parse_dom(argv[1], &only)) {
		rt_printf("error: %s: '%s' is not a domain id\n", argv[0], argv[1]);
		return;
	}
	int n = list_doms(d, SLIVER_MAX_DOMS);
	if (fail(n, argv[0]))
		return;
	bool found = false;
	for (int i = 0; i < n; i++) {
		if (only && d[i].dom_id != only)
			continue;
		found = true;
		for (uint32_t v = 0; v < d[i].nr_vcpus; v++)
			fn(&d[i], v, flag);
	}
	if (only && !found)
		rt_printf("error: %s: no domain d%u\n", argv[0], only);
}

static void lat_one(const struct sliver_dom_info *d, uint32_t v, bool hist)
{
	print_text(hc5(HC_LAT, d->dom_id, v, hist ? SLIVER_LAT_HIST : 0, (uint32_t)(uintptr_t)text,
		       TEXT_MAX));
}

static void cmd_lat(int argc, char **argv)
{
	bool hist = false;
	int j = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h"))
			hist = true;
		else
			argv[j++] = argv[i];
	}
	each_vcpu(j, argv, lat_one, hist);
}

static void perf_one(const struct sliver_dom_info *d, uint32_t v, bool unused)
{
	(void)unused;
	struct sliver_vcpu_counters c = {0};
	int32_t r = hc5(HC_VCPU_COUNTERS, d->dom_id, v, (uint32_t)(uintptr_t)&c, sizeof c, 0);
	if (fail(r, "perf"))
		return;
	rt_printf("perf d%uv%u pcpu=%u run_ms=%llu wait_ms=%llu wakes=%llu boosts=%llu "
		  "preempts=%llu migrations=%llu yields=%llu exits=%llu\n",
		  d->dom_id, v, c.pcpu, (unsigned long long)(c.run_ns / 1000000),
		  (unsigned long long)(c.wait_ns / 1000000), (unsigned long long)c.wakes,
		  (unsigned long long)c.boosts, (unsigned long long)c.preempts,
		  (unsigned long long)c.migrations, (unsigned long long)c.yields,
		  (unsigned long long)c.exits);
	if (v == 0)
		print_text(hc_ptr(HC_DOM_EXITS, d->dom_id, text, TEXT_MAX));
}

static void cmd_perf(int argc, char **argv)
{
	each_vcpu(argc, argv, perf_one, false);
	for (uint32_t cpu = 0;; cpu++) {
		struct sliver_pcpu_info p = {0};
		if (hc_ptr(HC_PCPU_INFO, cpu, &p, sizeof p) < 0)
			break;
		uint64_t total = p.idle_ns + p.busy_ns;
		rt_printf("perf cpu%u idle_pct=%llu sched_calls=%llu decision_n=%llu "
			  "decision_avg_cycles=%llu decision_p99_cycles=%llu "
			  "decision_max_cycles=%llu\n",
			  cpu, (unsigned long long)(total ? p.idle_ns * 100 / total : 0),
			  (unsigned long long)p.sched_calls, (unsigned long long)p.decision_n,
			  (unsigned long long)p.decision_avg_cycles,
			  (unsigned long long)p.decision_p99_cycles,
			  (unsigned long long)p.decision_max_cycles);
		rt_printf("conwrite cpu%u n=%llu avg_cycles=%llu p99_cycles=%llu max_cycles=%llu\n",
			  cpu, (unsigned long long)p.conwrite_n,
			  (unsigned long long)p.conwrite_avg_cycles,
			  (unsigned long long)p.conwrite_p99_cycles,
			  (unsigned long long)p.conwrite_max_cycles);
	}
}

static void cmd_top(int argc, char **argv)
{
	uint64_t secs = 5;
	if (argc > 1 && (!parse_u64(argv[1], &secs) || secs == 0 || secs > 3600)) {
		rt_printf("error: usage: top [seconds 1..3600]\n");
		return;
	}
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	int n = list_doms(d, SLIVER_MAX_DOMS);
	if (fail(n, "top"))
		return;
	uint64_t t0 = rt_clock_ns();
	for (int i = 0; i < n; i++)
		last_run_ns[d[i].dom_id] = d[i].run_ns;
	for (uint64_t s = 1; s <= secs; s++) {
		rt_sleep_until(t0 + s * 1000000000ull);
		uint64_t now = rt_clock_ns(), dt = now - (t0 + (s - 1) * 1000000000ull);
		n = list_doms(d, SLIVER_MAX_DOMS);
		if (fail(n, "top"))
			return;
		char line[256];
		int len = fmt_snprintf(line, sizeof line, "top t=%llu", (unsigned long long)s);
		for (int i = 0; i < n && len < (int)sizeof line; i++) {
			uint32_t pm = cpu_permille(&d[i], dt);
			len += fmt_snprintf(line + len, sizeof line - (size_t)len, " d%u=%u.%u%%",
					    d[i].dom_id, pm / 10, pm % 10);
			last_run_ns[d[i].dom_id] = d[i].run_ns;
		}
		last_list_ns = now;
		rt_printf("%s\n", line);
	}
}

static void cmd_trace(int argc, char **argv)
{
	if (argc != 2 ||
	    (strcmp(argv[1], "on") && strcmp(argv[1], "off") && strcmp(argv[1], "dump"))) {
		rt_printf("error: usage: trace on|off|dump\n");
		return;
	}
	uint32_t op = !strcmp(argv[1], "on")	? SLIVER_TRACE_ON
		      : !strcmp(argv[1], "off") ? SLIVER_TRACE_OFF
						: SLIVER_TRACE_DUMP;
	int32_t r = hc_ptr(HC_TRACE, op, text, TEXT_MAX);
	if (fail(r, "trace"))
		return;
	if (op == SLIVER_TRACE_DUMP && r == 0)
		rt_printf("trace: no records (trace on, then off, marks the window)\n");
	else if (op == SLIVER_TRACE_DUMP)
		print_text(r);
	else
		rt_printf("trace: %s\n", argv[1]);
}

static void cmd_pin(int argc, char **argv)
{
	uint32_t dom, mask;
	uint64_t vcpu;
	if (argc != 4 || !parse_dom(argv[1], &dom) || !parse_u64(argv[2], &vcpu) ||
	    !parse_cpus(argv[3], &mask)) {
		rt_printf("error: usage: pin <dom> <vcpu> <cpus: 0 | 0-1 | 0,2>\n");
		return;
	}
	if (!fail(hc3(HC_VCPU_PIN, dom, (uint32_t)vcpu, mask), "pin"))
		rt_printf("pin d%uv%u cpus=%s\n", dom, (uint32_t)vcpu, argv[3]);
}

static void dom_op(int argc, char **argv, uint32_t nr, const char *done)
{
	uint32_t dom;
	if (argc != 2 || !parse_dom(argv[1], &dom)) {
		rt_printf("error: usage: %s <dom>\n", argv[0]);
		return;
	}
	if (dom == rt_bi->dom_id && nr != HC_DOM_UNPAUSE) {
		rt_printf("error: %s: d%u is this shell\n", argv[0], dom);
		return;
	}
	if (!fail(hc3(nr, dom, 0, 0), argv[0]))
		rt_printf("%s d%u %s\n", argv[0], dom, done);
}

static void cmd_pause(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_PAUSE, "paused");
}
static void cmd_unpause(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_UNPAUSE, "running");
}
static void cmd_destroy(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_DESTROY, "destroyed");
}

static void cmd_reset(int argc, char **argv)
{
	uint32_t dom = 0;
	if (argc > 2 || (argc == 2 && !parse_dom(argv[1], &dom))) {
		rt_printf("error: usage: reset [dom]\n");
		return;
	}
	if (!fail(hc3(HC_COUNTERS_RESET, dom, 0, 0), "reset"))
		rt_printf("reset: counters of %s cleared\n", dom ? argv[1] : "all domains");
}

static void cmd_help(int argc, char **argv);

static const struct command {
	const char *name, *usage;
	void (*fn)(int argc, char **argv);
} commands[] = {
	{"help", "this list", cmd_help},
	{"list", "domains and vCPUs: state, weight, cap, pCPU, CPU% since the last list", cmd_list},
	{"sched", "[dom [weight=N] [cap=N]] | global key=value..: read or set parameters",
	 cmd_sched},
	{"ping", "<dom> [-c count] [-i interval_us] [-q]: round trips through the hypervisor",
	 cmd_ping},
	{"lat", "[dom] [-h]: wake-to-run latency per vCPU (-h: histogram)", cmd_lat},
	{"top", "[seconds]: CPU% per domain every second", cmd_top},
	{"perf", "[dom]: vCPU, exit and pCPU counters", cmd_perf},
	{"trace", "on|off|dump: the scheduler trace ring", cmd_trace},
	{"pin", "<dom> <vcpu> <cpus>: set a vCPU's pCPU affinity", cmd_pin},
	{"pause", "<dom>", cmd_pause},
	{"unpause", "<dom>", cmd_unpause},
	{"destroy", "<dom>: stop a domain and free its memory", cmd_destroy},
	{"reset", "[dom]: clear latency histograms and counters", cmd_reset},
};

static void cmd_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	rt_printf("commands (domains as 4 or d4):\n");
	for (unsigned i = 0; i < sizeof commands / sizeof commands[0]; i++)
		rt_printf("  %-8s %s\n", commands[i].name, commands[i].usage);
}

static void run_line(char *line)
{
	char *argv[MAX_ARGS];
	int argc = 0;
	size_t len;
	for (const char *w = line; (w = cmdline_next(w, &len)); w += len) {
		if (argc == MAX_ARGS) {
			rt_printf("error: more than %d words\n", MAX_ARGS);
			return;
		}
		argv[argc++] = (char *)w;
		if (w[len]) {
			((char *)w)[len] = 0;
			len++;
		}
	}
	if (!argc)
		return;
	for (unsigned i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (!strcmp(argv[0], commands[i].name)) {
			commands[i].fn(argc, argv);
			return;
		}
	}
	rt_printf("error: unknown command '%s' (try help)\n", argv[0]);
}

static void run_autorun(void)
{
	static char script[512];
	if (!rt_arg("autorun", script, sizeof script))
		return;
	for (char *p = script; *p;) {
		char *semi = strchr(p, ';');
		if (semi)
			*semi = 0;
		while (*p == ' ')
			p++;
		rt_printf("> %s\n", p);
		run_line(p);
		if (!semi)
			break;
		p = semi + 1;
	}
	rt_printf("autorun: done\n");
}

static void console_isr(struct rt_frame *f)
{
	(void)f;
	hc_event_recv(SLIVER_PORT_CONSOLE);
}

/* Reads console input into lines; returns when one is complete. */
static void read_line(char *line, size_t max)
{
	static char buf[128];
	size_t n = 0;
	for (;;) {
		int32_t got = hc3(HC_CONSOLE_READ, (uint32_t)(uintptr_t)buf, sizeof buf, 0);
		if (got < 0) {
			rt_printf("error: console input: %s; the shell stops reading\n",
				  errname(got));
			for (;;)
				hc_block();
		}
		for (int32_t i = 0; i < got; i++) {
			char c = buf[i];
			if (c == '\r' || c == '\n') {
				line[n] = 0;
				return;
			}
			if ((c == 8 || c == 127) && n) {
				n--;
			} else if (c >= ' ' && n + 1 < max) {
				line[n++] = c;
			}
		}
		/* Input raises SLIVER_PORT_CONSOLE; HC_BLOCK returns at once if it already did. */
		if (!got) {
			rt_cli();
			hc_block();
			rt_sti();
		}
	}
}

int main(const struct sliver_boot_info *bi)
{
	rt_irq_register(VEC_CONSOLE, console_isr);
	rt_irq_register(VEC_PONG, pong_isr);
	hc_event_bind(SLIVER_PORT_CONSOLE, VEC_CONSOLE, 0);
	hc_event_bind(SLIVER_PORT_PONG, VEC_PONG, 0);
	rt_printf("service: d%u shell ready (type help)\n", bi->dom_id);
	/* CPU% in the first `list` counts from here, not from boot. */
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	int n = list_doms(d, SLIVER_MAX_DOMS);
	for (int i = 0; i < n && i < SLIVER_MAX_DOMS; i++)
		last_run_ns[d[i].dom_id] = d[i].run_ns;
	last_list_ns = rt_clock_ns();
	run_autorun();
	uint64_t quit_after = 0;
	if (rt_arg_u64("exit_after_autorun", &quit_after) && quit_after)
		hc3(HC_SHUTDOWN, 0, 0, 0);
	static char line[256];
	for (;;) {
		rt_printf("sliver> \n");
		read_line(line, sizeof line);
		rt_printf("> %s\n", line);
		run_line(line);
	}
}
