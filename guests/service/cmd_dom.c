/* service, the commands that read and change domains: list, sched (a domain's weight and
 * cap, or the policy's global keys), pin, pause, unpause, destroy, reset. */
#include "guests/service/service.h"
#include "lib/cmdline.h"
#include "lib/string.h"

/* A window shorter than this (the autorun's first `list`, right after the shell started)
 * says nothing about shares: `list` then counts from boot instead. */
#define LIST_MIN_WINDOW_NS 10000000ull

void cmd_list(int argc, char **argv)
{
	(void)argc, (void)argv;
	static struct sliver_dom_info d[SLIVER_MAX_DOMS];
	int n = list_doms(d, SLIVER_MAX_DOMS);
	if (fail(n, "list"))
		return;
	uint64_t now = rt_clock_ns(), dt = now - last_list_ns;
	if (dt < LIST_MIN_WINDOW_NS) {
		for (int i = 0; i < n; i++)
			last_run_ns[d[i].dom_id] = 0;
		dt = now;
		rt_printf("list: %d domain(s), cpu%% since boot (%llu ms)\n", n,
			  (unsigned long long)(dt / 1000000));
	} else {
		rt_printf("list: %d domain(s), cpu%% over the last %llu ms\n", n,
			  (unsigned long long)(dt / 1000000));
	}
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

void cmd_sched(int argc, char **argv)
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

void cmd_pin(int argc, char **argv)
{
	uint32_t dom;
	uint64_t vcpu;
	static uint8_t mask[SLIVER_CPUMASK_BYTES];
	if (argc != 4 || !parse_dom(argv[1], &dom) || !parse_u64(argv[2], &vcpu) ||
	    !parse_cpus(argv[3], mask)) {
		rt_printf("error: usage: pin <dom> <vcpu> <cpus: 0 | 0-1 | 0,2 (0..255)>\n");
		return;
	}
	if (!fail(hc5(HC_VCPU_AFFINITY, dom, (uint32_t)vcpu, (uint32_t)(uintptr_t)mask, sizeof mask,
		      0),
		  "pin"))
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

void cmd_pause(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_PAUSE, "paused");
}
void cmd_unpause(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_UNPAUSE, "running");
}
void cmd_destroy(int argc, char **argv)
{
	dom_op(argc, argv, HC_DOM_DESTROY, "destroyed");
}

void cmd_reset(int argc, char **argv)
{
	uint32_t dom = 0;
	if (argc > 2 || (argc == 2 && !parse_dom(argv[1], &dom))) {
		rt_printf("error: usage: reset [dom]\n");
		return;
	}
	if (!fail(hc3(HC_COUNTERS_RESET, dom, 0, 0), "reset"))
		rt_printf("reset: counters of %s cleared\n", dom ? argv[1] : "all domains");
}
