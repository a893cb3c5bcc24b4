/* Domains: one per multiboot2 module. Creation parses the module's command line
 * (name= mem=<MiB> vcpus= weight= cap= pin=<cpu list> role=service|guest), checks and
 * loads the ELF into fresh host memory mapped by its own EPT, writes a boot-info page per
 * vCPU and inserts the vCPUs into the scheduler. A module that cannot run is refused with
 * one line; the others start. Ending (crash or shutdown) takes the vCPUs out of the
 * scheduler as each pCPU lets go of them; the last one scrubs and frees the memory. */
#include <stdarg.h>
#include "arch/x86_64/tsc.h"
#include "core/cpulist.h"
#include "core/loader.h"
#include "core/mm.h"
#include "core/vmm.h"
#include "drivers/console.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/errno.h"

#define DEFAULT_MEM_MIB 4
#define MAX_MEM_MIB	2048

struct domain *domains[SLIVER_MAX_DOMS];

struct domain *domain_get(unsigned id)
{
	if (id == 0 || id >= SLIVER_MAX_DOMS)
		return NULL;
	struct domain *d = domains[id];
	return d && !d->dying ? d : NULL;
}

/* The module's command line: GRUB passes what follows the path on the module2 line. */
static void refuse(unsigned id, const struct boot_module *m, const char *why)
{
	printk("sliver: module %u (%s) refused: %s\n", id, m->cmdline[0] ? m->cmdline : "-", why);
}

static bool has_char(const char *p, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == c)
			return true;
	return false;
}

/* name= when given; else the file name when the command line starts with a path; else
 * "d<id>". */
static void default_name(struct domain *d, const char *cmdline)
{
	size_t wl;
	const char *p = cmdline_next(cmdline, &wl);
	if (!p || has_char(p, wl, '=') || !has_char(p, wl, '/')) {
		fmt_snprintf(d->name, sizeof d->name, "d%u", d->id);
		return;
	}
	const char *base = p;
	for (size_t i = 0; i < wl; i++)
		if (p[i] == '/')
			base = p + i + 1;
	size_t n = wl - (size_t)(base - p);
	if (n > 4 && !memcmp(base + n - 4, ".elf", 4))
		n -= 4;
	if (n >= sizeof d->name)
		n = sizeof d->name - 1;
	memcpy(d->name, base, n);
	d->name[n] = 0;
}

static void write_boot_info(struct domain *d, unsigned i)
{
	struct sliver_boot_info *bi = hv_space_ptr(d->space, SLIVER_BOOTINFO_GPA(i), sizeof *bi);
	bi->magic = SLIVER_BOOT_MAGIC;
	bi->version = SLIVER_BOOT_VERSION;
	bi->dom_id = d->id;
	bi->vcpu_id = i;
	bi->nr_vcpus = d->nr_vcpus;
	bi->flags = d->role == SLIVER_ROLE_SERVICE ? SLIVER_BI_SERVICE : 0;
	bi->mem_bytes = d->mem_bytes;
	bi->tsc_base = tsc_at_boot;
	bi->tsc_mul = (uint32_t)tsc_ns_conv.mult;
	bi->tsc_shift = tsc_ns_conv.shift;
	bi->tsc_hz = tsc_hz;
	memcpy(bi->name, d->name, sizeof bi->name);
	memcpy(bi->cmdline, d->cmdline, sizeof bi->cmdline);
}

/* Zeroes guest memory with rep stosq: a byte loop costs seconds of emulated time. */
static void scrub(uint64_t hpa, uint64_t bytes)
{
	void *p = phys_to_virt(hpa);
	uint64_t n = bytes / 8;
	__asm__ volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0ull) : "memory");
}

static void domain_free_memory(struct domain *d)
{
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		if (d->vcpu[i] && d->vcpu[i]->hv) {
			hv_vcpu_destroy(d->vcpu[i]->hv);
			d->vcpu[i]->hv = NULL;
		}
	}
	if (d->space) {
		hv_space_destroy(d->space);
		d->space = NULL;
	}
	if (d->mem_hpa) {
		scrub(d->mem_hpa, d->mem_bytes);
		frames_free(d->mem_hpa, d->mem_bytes / PAGE_SIZE);
		d->mem_hpa = 0;
	}
}

struct domain *domain_create(unsigned id, const struct boot_module *m)
{
	char why[160], val[64];
	if (id >= SLIVER_MAX_DOMS) {
		refuse(id, m, "too many domains");
		return NULL;
	}
	uint64_t dpa = frames_alloc((sizeof(struct domain) + PAGE_SIZE - 1) / PAGE_SIZE, 1);
	if (!dpa) {
		refuse(id, m, "out of hypervisor memory");
		return NULL;
	}
	struct domain *d = phys_to_virt(dpa);
	d->id = id;
	d->con.lock = (spinlock_t)SPINLOCK_INIT;
	fmt_snprintf(d->cmdline, sizeof d->cmdline, "%s", m->cmdline);
	default_name(d, m->cmdline);
	if (cmdline_get(m->cmdline, "name", val, sizeof val))
		fmt_snprintf(d->name, sizeof d->name, "%s", val);

	uint64_t mem = DEFAULT_MEM_MIB, vcpus = 1, weight = SCHED_DEFAULT_WEIGHT, cap = 0;
	sched_cpumask_t pin = 0;
	const char *bad = NULL;
	if (cmdline_has(m->cmdline, "mem") &&
	    (!cmdline_get_u64(m->cmdline, "mem", &mem) || mem == 0 || mem > MAX_MEM_MIB))
		bad = "mem= must be 1..2048 (MiB)";
	else if (cmdline_has(m->cmdline, "vcpus") &&
		 (!cmdline_get_u64(m->cmdline, "vcpus", &vcpus) || vcpus == 0 ||
		  vcpus > SLIVER_MAX_VCPUS))
		bad = "vcpus= must be 1..8";
	else if (cmdline_has(m->cmdline, "weight") &&
		 (!cmdline_get_u64(m->cmdline, "weight", &weight) || weight == 0 ||
		  weight > SCHED_MAX_WEIGHT))
		bad = "weight= must be 1..65535";
	else if (cmdline_has(m->cmdline, "cap") &&
		 (!cmdline_get_u64(m->cmdline, "cap", &cap) || cap > 100 * SLIVER_MAX_VCPUS))
		bad = "cap= must be 0..800 (% of one pCPU)";
	else if (cmdline_get(m->cmdline, "pin", val, sizeof val) && !cpulist_parse(val, &pin))
		bad = "pin= must be a CPU list like 0,1 or 0-1";
	if (!bad && cmdline_get(m->cmdline, "role", val, sizeof val)) {
		if (!strcmp(val, "service"))
			d->role = SLIVER_ROLE_SERVICE;
		else if (strcmp(val, "guest"))
			bad = "role= must be service or guest";
	}
	/* The pCPUs that run guests: all, or the first vmm.sched_pcpus. */
	unsigned ncpu = vmm_sched.nr_pcpus;
	sched_cpumask_t online = ncpu >= 64 ? ~0ull : SCHED_CPU(ncpu) - 1;
	if (!bad && pin && !(pin & online))
		bad = "pin= names no CPU that is online";
	pin &= online;
	if (bad) {
		refuse(id, m, bad);
		goto fail;
	}
	d->mem_bytes = mem << 20;
	d->nr_vcpus = (unsigned)vcpus;
	d->sd.id = id;
	d->sd.weight = (uint32_t)weight;
	d->sd.cap = (uint32_t)cap;

	const void *img = phys_to_virt(m->start);
	size_t len = (size_t)(m->end - m->start);
	struct elf_image_info info;
	if (elf_check(img, len, SLIVER_GUEST_LOAD_MIN, d->mem_bytes, &info, why, sizeof why)) {
		refuse(id, m, why);
		goto fail;
	}
	size_t frames = d->mem_bytes / PAGE_SIZE;
	d->mem_hpa = frames_alloc(frames, d->mem_bytes >= (2u << 20) ? 512 : 1);
	if (!d->mem_hpa) {
		fmt_snprintf(why, sizeof why, "asks for %lu MiB, only %lu MiB free",
			     (unsigned long)mem, (unsigned long)(mm_free_frames() >> 8));
		refuse(id, m, why);
		goto fail;
	}
	elf_load(img, len, phys_to_virt(d->mem_hpa), SLIVER_GUEST_LOAD_MIN, d->mem_bytes, &info,
		 why, sizeof why);
	d->space = hv_space_create(d->mem_hpa, d->mem_bytes);
	if (!d->space) {
		refuse(id, m, "out of memory for its EPT");
		goto fail;
	}
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		d->vcpu[i] = vcpu_create(d, i, info.entry);
		if (!d->vcpu[i]) {
			refuse(id, m, "cannot create its vCPUs");
			goto fail;
		}
		d->vcpu[i]->sv.affinity = pin;
		write_boot_info(d, i);
	}
	uint64_t now = now_ns();
	spin_lock(&vmm_lock);
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		int rc = sched_vcpu_insert(&vmm_sched, &d->vcpu[i]->sv, now);
		if (rc) {
			spin_unlock(&vmm_lock);
			fmt_snprintf(why, sizeof why, "scheduler refused vCPU %u (%d)", i, rc);
			refuse(id, m, why);
			goto fail; /* (leaks the inserted ones; only on a scheduler bug) */
		}
	}
	spin_unlock(&vmm_lock);
	d->vcpus_left = d->nr_vcpus;
	d->state = SLIVER_DOM_RUNNING;
	domains[id] = d;
	printk("sliver: d%u %s: %s ELF entry=0x%lx mem=%lu MiB vcpus=%u weight=%u cap=%u%s\n", id,
	       d->name, info.is64 ? "64-bit" : "32-bit", info.entry, (unsigned long)mem,
	       d->nr_vcpus, d->sd.weight, d->sd.cap,
	       d->role == SLIVER_ROLE_SERVICE ? " role=service" : "");
	return d;
fail:
	domain_free_memory(d);
	return NULL;
}

void domain_start(struct domain *d)
{
	uint64_t now = now_ns();
	sched_cpumask_t mask = 0;
	spin_lock(&vmm_lock);
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		d->vcpu[i]->wake_ns = now;
		mask |= sched_wake(&vmm_sched, &d->vcpu[i]->sv, now, WAKE_NEW);
	}
	spin_unlock(&vmm_lock);
	vmm_kick_mask(mask);
}

/* Under vmm_lock: v leaves the scheduler; true when it was the domain's last. */
static bool leave_locked(struct vcpu *v, uint64_t now, sched_cpumask_t *mask)
{
	if (v->gone)
		return false;
	if (!v->blocked && v->sv.state != SCHED_VS_BLOCKED)
		*mask |= sched_sleep(&vmm_sched, &v->sv, now);
	v->blocked = true;
	sched_vcpu_remove(&vmm_sched, &v->sv, now);
	v->gone = true;
	return __atomic_sub_fetch(&v->dom->vcpus_left, 1, __ATOMIC_ACQ_REL) == 0;
}

static void domain_finish(struct domain *d)
{
	dcon_flush(d);
	domain_free_memory(d);
	printk("sliver: d%u memory scrubbed and freed (%lu MiB)\n", d->id,
	       (unsigned long)(d->mem_bytes >> 20));
}

void domain_vcpu_leave(struct vcpu *v)
{
	sched_cpumask_t mask = 0;
	spin_lock(&vmm_lock);
	bool last = leave_locked(v, now_ns(), &mask);
	spin_unlock(&vmm_lock);
	vmm_kick_mask(mask);
	if (last)
		domain_finish(v->dom);
}

/* Starts the end of d: vCPUs that no pCPU holds leave now; the others leave when their
 * pCPU lets go of them (it is kicked). */
static void domain_end(struct domain *d, uint32_t state)
{
	if (__atomic_exchange_n(&d->dying, true, __ATOMIC_ACQ_REL))
		return;
	d->state = state;
	unsigned self = this_cpu()->id;
	sched_cpumask_t mask = 0, kick = 0;
	bool last = false;
	spin_lock(&vmm_lock);
	uint64_t now = now_ns();
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct vcpu *v = d->vcpu[i];
		if (v->running_on < 0)
			last |= leave_locked(v, now, &mask);
		else if ((unsigned)v->running_on != self)
			kick |= SCHED_CPU(v->running_on);
	}
	spin_unlock(&vmm_lock);
	vmm_kick_mask(mask | kick);
	if (last)
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

int domain_pause(struct domain *d)
{
	if (d->dying)
		return -SLIVER_ESRCH;
	if (d->state == SLIVER_DOM_PAUSED)
		return -SLIVER_EBUSY;
	unsigned self = this_cpu()->id;
	sched_cpumask_t mask = 0, kick = 0;
	spin_lock(&vmm_lock);
	uint64_t now = now_ns();
	d->state = SLIVER_DOM_PAUSED;
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct vcpu *v = d->vcpu[i];
		v->paused = true;
		if (v->running_on >= 0) {
			if ((unsigned)v->running_on != self)
				kick |= SCHED_CPU(v->running_on);
		} else if (!v->gone && v->sv.state != SCHED_VS_BLOCKED) {
			mask |= sched_sleep(&vmm_sched, &v->sv, now);
		}
	}
	spin_unlock(&vmm_lock);
	vmm_kick_mask(mask | kick);
	return 0;
}

int domain_unpause(struct domain *d)
{
	if (d->dying)
		return -SLIVER_ESRCH;
	if (d->state != SLIVER_DOM_PAUSED)
		return -SLIVER_EBUSY;
	sched_cpumask_t mask = 0;
	spin_lock(&vmm_lock);
	uint64_t now = now_ns();
	d->state = SLIVER_DOM_RUNNING;
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		struct vcpu *v = d->vcpu[i];
		v->paused = false;
		if (!v->gone && !v->blocked && v->sv.state == SCHED_VS_BLOCKED) {
			v->wake_ns = now;
			mask |= sched_wake(&vmm_sched, &v->sv, now, WAKE_NEW);
		}
	}
	spin_unlock(&vmm_lock);
	vmm_kick_mask(mask);
	return 0;
}

/* CPU time of d's vCPUs up to now, the running ones' uncharged interval included: a vCPU
 * that runs alone makes no scheduler call, and its c.run_ns would lag (sched_run_ns). */
static uint64_t dom_run_ns(const struct domain *d)
{
	uint64_t ns = 0;
	spin_lock(&vmm_lock);
	uint64_t now = now_ns();
	if (vmm_run_end_ns && vmm_run_end_ns < now)
		now = vmm_run_end_ns; /* the report's own printing is nobody's CPU time */
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		ns += d->vcpu[i] ? sched_run_ns(&d->vcpu[i]->sv, now) : 0;
	spin_unlock(&vmm_lock);
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
}

void domain_destroy(struct domain *d, unsigned by)
{
	if (d->dying)
		return;
	dcon_flush(d);
	printk("sliver: d%u destroyed by d%u\n", d->id, by);
	domain_end(d, SLIVER_DOM_SHUTDOWN);
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
	char line[400];
	int n = fmt_snprintf(line, sizeof line, "exits d%u", d->id);
	for (unsigned r = 0; r < HV_NR_EXIT_REASONS && n < (int)sizeof line - 40; r++)
		if (d->exits[r])
			n += fmt_snprintf(line + n, sizeof line - (size_t)n, " %u:%lu", r,
					  (unsigned long)d->exits[r]);
	printk("%s\n", line);
}
