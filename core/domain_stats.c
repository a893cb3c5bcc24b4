/* What a domain reports: its info and counters for the service domain's hypercalls, and the
 * `stat`/`exits` lines at the end of a run. CPU time is settled when read (sched_run_ns). */
#include "arch/x86_64/tsc.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* CPU time of d's vCPUs up to now, the running ones' uncharged interval included: a vCPU
 * that runs alone makes no scheduler call, and its c.run_ns would lag (sched_run_ns). */
uint64_t dom_run_ns(const struct domain *d)
{
	uint64_t ns = 0;
	/* The report's own printing is nobody's CPU time: counted up to the run's end. */
	uint64_t until = vmm_run_end_ns ? vmm_run_end_ns : UINT64_MAX;
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		ns += d->vcpu[i] ? sd_run_ns(&d->vcpu[i]->s, until) : 0;
	return ns;
}

void domain_fill_counters(const struct domain *d, struct sliver_dom_counters *c)
{
	memset(c, 0, sizeof *c);
	c->dom_id = d->id;
	c->nr_vcpus = d->nr_vcpus;
	c->run_ns = dom_run_ns(d);
	for (unsigned r = 0; r < HV_NR_EXIT_REASONS; r++)
		c->exits += d->exits[r];
	c->hypercalls = d->hypercalls;
	c->io_exits = d->io_exits;
	c->wakes = d->wakes;
	c->events_sent = d->events_sent;
	c->events_received = d->events_received;
	c->events_denied = d->events_denied;
}

void domain_fill_info(const struct domain *d, struct sliver_dom_info *in)
{
	memset(in, 0, sizeof *in);
	in->dom_id = d->id;
	in->state = d->state;
	in->role = d->role;
	in->nr_vcpus = d->nr_vcpus;
	in->weight = d->sd.weight;
	in->cap = d->sd.cap;
	in->mem_bytes = d->mem_bytes;
	in->run_ns = dom_run_ns(d);
	memcpy(in->name, d->name, sizeof in->name);
}

void domain_print_stats(const struct domain *d)
{
	static const char *const states[] = {"running", "blocked", "paused", "crashed", "shutdown"};
	uint64_t total = 0, run_ns = dom_run_ns(d), guest_tsc = 0;
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		guest_tsc += d->vcpu[i] ? d->vcpu[i]->guest_tsc : 0;
	for (unsigned r = 0; r < HV_NR_EXIT_REASONS; r++)
		total += d->exits[r];
	printk("stat d%u name=%s state=%s guest_ms=%lu sched_ms=%lu exits=%lu hypercalls=%lu "
	       "io=%lu "
	       "io_other=%lu events=%lu wakes=%lu\n",
	       d->id, d->name, d->state < 5 ? states[d->state] : "?",
	       (unsigned long)(tsc_to_ns(guest_tsc) / 1000000), (unsigned long)(run_ns / 1000000),
	       (unsigned long)total, (unsigned long)d->hypercalls, (unsigned long)d->io_exits,
	       (unsigned long)d->io_other, (unsigned long)d->events_received,
	       (unsigned long)d->wakes);
	if (d->events_denied)
		printk("stat d%u events_denied=%lu\n", d->id, (unsigned long)d->events_denied);
	if (d->mmio_other) /* unassigned guest-physical addresses a PC domain touched */
		printk("stat d%u mmio_other=%lu\n", d->id, (unsigned long)d->mmio_other);
	if (d->con.waits) /* its vCPUs waited for room in the console's ring (core/dcon.c) */
		printk("stat d%u console_waits=%lu\n", d->id, (unsigned long)d->con.waits);
	char line[400];
	int n = fmt_snprintf(line, sizeof line, "exits d%u", d->id);
	for (unsigned r = 0; r < HV_NR_EXIT_REASONS && n < (int)sizeof line - 40; r++)
		if (d->exits[r])
			n += fmt_snprintf(line + n, sizeof line - (size_t)n, " %u:%lu", r,
					  (unsigned long)d->exits[r]);
	printk("%s\n", line);
}
