/* The end of a domain (core/domain.c creates them): crash, shutdown, exit status and
 * destroy start it; its vCPUs leave the scheduler as each pCPU lets go of them, the last one
 * queues its memory's scrubbing, and with restarts left (restart=) the scrubbed memory
 * becomes the same module's next domain. Pause and unpause are here too (the same door
 * calls on all its vCPUs). Apart from creation so that each file has one job. */
#include <stdarg.h>
#include "core/domain_priv.h"
#include "core/mm.h"
#include "core/pc.h"
#include "core/scrub.h"
#include "drivers/console.h"
#include "lib/fmt.h"
#include "sliver/errno.h"

/* The vCPUs of d, as the door takes them. */
static unsigned door_vcpus(struct domain *d, struct sd_vcpu **out)
{
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		out[i] = &d->vcpu[i]->s;
	return d->nr_vcpus;
}

/* `left` of d's vCPUs left the scheduler: true when they were its last. */
static bool vcpus_left(struct domain *d, unsigned left)
{
	return left && __atomic_sub_fetch(&d->vcpus_left, left, __ATOMIC_ACQ_REL) == 0;
}

/* restart=: ended domains not re-created yet; the lowest id never used (run time). */
static uint32_t restarting;
static unsigned next_id;
static spinlock_t create_lock = SPINLOCK_INIT(lock_create);

unsigned domain_restarts_pending(void)
{
	return __atomic_load_n(&restarting, __ATOMIC_ACQUIRE);
}

/* d ended with restarts left and its memory is free again: the same module becomes a new
 * domain (the next unused id, one restart fewer), as Xen's on_poweroff/on_crash=restart
 * would. Where its last chunk was scrubbed (core/scrub.c: an idle pCPU first), no lock
 * held. Not once the run is over. */
static void domain_restart(struct domain *d)
{
	bool kept = true;
	spin_lock(&create_lock);
	if (!next_id)
		next_id = boot_info.nr_modules + 1;
	struct domain *n = NULL;
	if (!vmm_run_end_ns && next_id < SLIVER_MAX_DOMS) {
		unsigned id = next_id++;
		n = domain_create_mem(id, d->module, d->scrub.hpa, d->scrub.bytes);
		kept = false; /* the new domain's now, or given back by its failed creation */
		if (n) {
			n->restarts = d->restarts - 1;
			printk("sliver: d%u restarted as d%u (%u restarts left)\n", d->id, id,
			       n->restarts);
			domain_start(n);
		}
	} else if (!vmm_run_end_ns) {
		printk("sliver: d%u not restarted: no domain id left\n", d->id);
	}
	spin_unlock(&create_lock);
	if (kept)
		frames_free(d->scrub.hpa, d->scrub.bytes / PAGE_SIZE);
	__atomic_sub_fetch(&restarting, 1, __ATOMIC_ACQ_REL);
}

static void scrubbed(void *arg)
{
	struct domain *d = arg;
	domain_free_hv(d);
	irq_drain(); /* this pCPU's timers: not after the chunk, the frees and a creation */
	printk("sliver: d%u memory scrubbed and %s (%lu MiB)\n", d->id,
	       d->restarts ? "kept for its restart" : "freed", (unsigned long)(d->mem_bytes >> 20));
	if (d->restarts)
		domain_restart(d);
}

/* Its memory is zeroed and freed in bounded steps (core/scrub.h), not here: the pCPU that
 * let go of the last vCPU has others queued. Its VMCS/VMCB and EPT/NPT go with the memory's
 * last chunk (scrubbed: ~0.3 ms of Bochs time for a 4 MiB domain, not on this pCPU). */
static void domain_finish(struct domain *d)
{
	dcon_flush(d);
	pc_release(d);
	if (!d->mem_hpa)
		domain_free_hv(d);
	if (d->mem_hpa) {
		/* With restarts left the zeroed memory is the next incarnation's (restart=:
		 * no second zeroing, no allocation). */
		d->scrub = (struct scrub_job){.hpa = d->mem_hpa,
					      .bytes = d->mem_bytes,
					      .keep = d->restarts != 0,
					      .done = scrubbed,
					      .arg = d};
		d->mem_hpa = 0;
		scrub_queue(&d->scrub);
	}
	/* pCPU 0 ends a run without run_ms= once every domain has ended, but checks only when
	 * it picks: if the last domain ends on another pCPU while pCPU 0 sleeps idle, nothing
	 * else would wake it (found with pinned domains: the run never ended). It scrubs too,
	 * when idle. */
	vmm_kick_cpu(0, true);
}

void domain_vcpu_leave(struct vcpu *v)
{
	if (vcpus_left(v->dom, sd_leave(&v->s)))
		domain_finish(v->dom);
}

/* Starts the end of d: vCPUs that no pCPU holds leave now; the others leave when their
 * pCPU lets go of them (it is kicked). */
static void domain_end(struct domain *d, uint32_t state)
{
	if (__atomic_exchange_n(&d->dying, true, __ATOMIC_ACQ_REL))
		return;
	if (d->restarts)
		__atomic_add_fetch(&restarting, 1, __ATOMIC_ACQ_REL);
	d->state = state;
	struct sd_vcpu *v[SLIVER_MAX_VCPUS];
	unsigned n = door_vcpus(d, v);
	if (vcpus_left(d, sd_end(v, n, NULL)))
		domain_finish(d);
}

void domain_crash(struct domain *d, struct vcpu *v, const char *fmt, ...)
{
	char why[200];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (d->dying)
		return;
	dcon_flush(d);
	printk("sliver: d%u crashed: %s\n", d->id, why);
	if (v && v->hv)
		vcpu_dump(v);
	domain_end(d, SLIVER_DOM_CRASHED);
}

void domain_shutdown(struct domain *d, int code)
{
	if (d->dying)
		return;
	dcon_flush(d);
	d->exit_code = code;
	printk("sliver: d%u shutdown code=%d\n", d->id, code);
	domain_end(d, SLIVER_DOM_SHUTDOWN);
}

void domain_exit_status(struct domain *d, uint32_t status)
{
	if (d->dying)
		return;
	dcon_flush(d);
	d->exit_code = (int)status;
	printk("sliver: d%u exited status=%u\n", d->id, status);
	domain_end(d, SLIVER_DOM_SHUTDOWN);
}

int domain_pause(struct domain *d)
{
	if (d->dying)
		return -SLIVER_ESRCH;
	if (d->state == SLIVER_DOM_PAUSED)
		return -SLIVER_EBUSY;
	d->state = SLIVER_DOM_PAUSED;
	struct sd_vcpu *v[SLIVER_MAX_VCPUS];
	sd_pause(v, door_vcpus(d, v));
	return 0;
}

int domain_unpause(struct domain *d)
{
	if (d->dying)
		return -SLIVER_ESRCH;
	if (d->state != SLIVER_DOM_PAUSED)
		return -SLIVER_EBUSY;
	d->state = SLIVER_DOM_RUNNING;
	struct sd_vcpu *v[SLIVER_MAX_VCPUS];
	sd_unpause(v, door_vcpus(d, v));
	return 0;
}

void domain_destroy(struct domain *d, unsigned by)
{
	if (d->dying)
		return;
	dcon_flush(d);
	d->restarts = 0; /* destroyed for good */
	printk("sliver: d%u destroyed by d%u\n", d->id, by);
	domain_end(d, SLIVER_DOM_SHUTDOWN);
}
