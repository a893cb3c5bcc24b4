/* service, the commands that read counters: lat (wake-to-run latency per vCPU), perf (vCPU,
 * exit and pCPU counters), top (CPU% per domain every second), trace (the scheduler
 * trace ring). */
#include "guests/service/service.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

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

void cmd_lat(int argc, char **argv)
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

void cmd_perf(int argc, char **argv)
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

void cmd_top(int argc, char **argv)
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

void cmd_trace(int argc, char **argv)
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
