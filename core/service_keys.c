/* The hypervisor's own debug keys (Ctrl-] then a key on the console, docs/console.md): they
 * print straight to the console from the UART interrupt on CPU 0, so they work when no
 * service domain is alive; and the end-of-run report (service_report). Apart from the
 * service domain's calls (core/service.c), whose reports they print too. */
#include "core/service_priv.h"
#include "arch/x86_64/power.h"
#include "core/conin.h"
#include "drivers/console.h"

static struct text key_text;

static void key_flush(void)
{
	console_write(key_text.buf, key_text.len);
	key_text.len = 0;
	key_text.full = false;
}

static void key_domains(void)
{
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++)
		if (domains[id])
			domain_print_stats(domains[id]);
}

static void key_latency(void)
{
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domain_get(id);
		for (unsigned i = 0; d && i < d->nr_vcpus; i++) {
			svc_lat_text(&key_text, d->vcpu[i], false);
			key_flush();
		}
	}
}

static void sched_print(void *arg, const char *fmt, ...)
{
	(void)arg;
	va_list ap;
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

static void key_runqueues(void)
{
	svc_sched_text(&key_text);
	key_flush();
	sd_dump(sched_print, NULL);
}

static void key_pcpus(void)
{
	for (unsigned c = 0; c < cpu_count(); c++) {
		struct sliver_pcpu_info p;
		svc_pcpu_info(c, &p);
		struct vmm_cpu *pc = percpu[c].vmm;
		static struct hist snap; /* 9 KiB: not on the stack; the median too */
		hist_snapshot(&pc->decision, &snap);
		printk("perf cpu%u idle_ms=%lu busy_ms=%lu sched_calls=%lu decision_avg_cycles=%lu "
		       "decision_p50_cycles=%lu decision_p99_cycles=%lu running=d%uv%u "
		       "run_until_us=%ld need_resched=%u\n",
		       c, p.idle_ns / 1000000, p.busy_ns / 1000000, p.sched_calls,
		       p.decision_avg_cycles,
		       (unsigned long)(snap.n ? hist_percentile(&snap, 500000) : 0),
		       p.decision_p99_cycles, p.cur_dom, p.cur_vcpu,
		       pc->run_until == SCHED_NEVER ? -1l : (long)(pc->run_until / 1000),
		       pc->need_resched);
	}
}

static void key_trace(void)
{
	svc_trace_text(&key_text);
	key_flush();
}

/* One line per pCPU and per vCPU: where everything stands (end of a run, key 'v'). */
void service_report(void)
{
	key_pcpus();
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domains[id];
		for (unsigned i = 0; d && i < d->nr_vcpus; i++) {
			struct vcpu *v = d->vcpu[i];
			struct sd_info in;
			sd_info(&v->s, &in);
			printk("vcpu d%uv%u sched_state=%u prio=%u pcpu=%u running_on=%d "
			       "blocked=%d "
			       "paused=%d irr=%lx:%lx:%lx:%lx\n",
			       id, i, in.state, in.prio, in.pcpu, in.running_on, in.blocked,
			       in.paused, v->irr[0], v->irr[1], v->irr[2], v->irr[3]);
		}
	}
}

static void key_quit(void)
{
	printk("sliver: power off requested on the console\n");
	hv_exit(EXIT_PASS);
}

void service_keys_init(void)
{
	conin_register_key('d', "domains: state and counters", key_domains);
	conin_register_key('l', "wake-to-run latency of every vCPU", key_latency);
	conin_register_key('r', "run queues and scheduler parameters", key_runqueues);
	conin_register_key('p', "pCPUs: idle time, scheduling decisions", key_pcpus);
	conin_register_key('t', "the scheduler trace", key_trace);
	conin_register_key('v', "pCPUs and vCPUs: where each stands", service_report);
	conin_register_key('q', "power off (ends the emulator)", key_quit);
}
