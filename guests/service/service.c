/* service: the privileged domain (role=service). It owns the console input and runs a
 * small shell: list, sched, ping, lat, top, perf, trace, pin, pause, unpause, destroy,
 * reset, help. `autorun="cmd; cmd"` on its command line runs commands first; then it reads
 * lines from the console (HC_CONSOLE_READ, woken by SLIVER_PORT_CONSOLE).
 * Every command prints machine-readable lines; errors are one line starting `error:`. */
#include "guests/service/service.h"
#include "lib/cmdline.h"
#include "lib/string.h"

#define VEC_CONSOLE RT_VEC_FIRST_FREE
#define VEC_PONG    (RT_VEC_FIRST_FREE + 1)
#define MAX_ARGS    12

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
