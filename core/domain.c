/* Domains: one per multiboot2 module. Creation parses the module's command line
 * (name= mem=<MiB> vcpus= weight= cap= pin=<cpu list> role=service|guest evt.allow= lapic=
 * boot=sliver|mb1|real load=<addr>; boot=mb1/real: core/pcboot.h, docs/guests.md),
 * checks and loads the ELF into fresh host memory mapped by its own EPT/NPT, writes a boot-info
 * page per vCPU and inserts the vCPUs into the scheduler. A module that cannot run as
 * written (a bad word, a name over 31 characters or taken, a pin list too long, cap above
 * 100 x vCPUs, a second service domain, no memory) is refused with one line and everything
 * it took is given back; the others start. Ending (crash or shutdown) takes the vCPUs out of
 * the scheduler as each pCPU lets go of them; the last one scrubs and frees the memory.
 *
 * This file: the table of domains and their creation (the module's words, the steps of a
 * creation and their undoing, the create loop, the start). Beside it: domain_load.c (the
 * loaders' glue: the image by its boot=, the boot-info pages) and domain_end.c (crash,
 * shutdown, destroy, pause, the vCPUs' leaving, the memory's scrubbing and restart=). */
#include "core/domain_priv.h"
#include "core/cpulist.h"
#include "core/evpolicy.h"
#include "core/mm.h"
#include "core/pc.h"
#include "core/linuxboot.h"
#include "core/pcboot.h"
#include "core/scrub.h"
#include "core/vlapic.h"
#include "drivers/console.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define DEFAULT_MEM_MIB 4
#define MAX_MEM_MIB	2048
#define MAX_RESTARTS	1000

/* Frees the vCPUs' VMCS/VMCB and the EPT/NPT (small: freed at once). */
void domain_free_hv(struct domain *d)
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
}

/* The module's command line: GRUB passes what follows the path on the module2 line. */
static void refuse(unsigned id, const struct boot_module *m, const char *why)
{
	/* At most 160 characters of the module's line, escaped: one line whatever it holds. */
	char cl[164];
	size_t n = strlen(m->cmdline);
	printk("sliver: module %u (%s) refused: %s\n", id,
	       n ? fmt_escape(cl, sizeof cl, m->cmdline, n) : "-", why);
}

static bool has_char(const char *p, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == c)
			return true;
	return false;
}

/* The file name when the command line starts with a path; else "d<id>" (name= comes on
 * top in module_words). */
static void default_name_of(char name[32], unsigned id, const char *cmdline)
{
	size_t wl;
	const char *p = cmdline_next(cmdline, &wl);
	if (!p || has_char(p, wl, '=') || !has_char(p, wl, '/')) {
		fmt_snprintf(name, 32, "d%u", id);
		return;
	}
	const char *base = p;
	for (size_t i = 0; i < wl; i++)
		if (p[i] == '/')
			base = p + i + 1;
	size_t n = wl - (size_t)(base - p);
	if (n > 4 && !memcmp(base + n - 4, ".elf", 4))
		n -= 4;
	if (n >= 32)
		n = 31;
	memcpy(name, base, n);
	name[n] = 0;
}

static void default_name(struct domain *d, const char *cmdline)
{
	_Static_assert(sizeof d->name == 32, "default_name_of writes 32 bytes");
	default_name_of(d->name, d->id, cmdline);
}

/* Everything, the memory zeroed on this pCPU now (a domain that never ran: boot time). */
static void domain_free_memory(struct domain *d)
{
	domain_free_hv(d);
	pc_free(d);
	if (d->mem_hpa) {
		d->scrub = (struct scrub_job){.hpa = d->mem_hpa, .bytes = d->mem_bytes};
		scrub_queue(&d->scrub);
		scrub_all();
		d->mem_hpa = 0;
	}
}

#define DOM_FRAMES ((sizeof(struct domain) + PAGE_SIZE - 1) / PAGE_SIZE)

/* Frees everything a domain that never started holds: its vCPUs (the first `inserted`
 * of them are in the scheduler), EPT/NPT, memory and the structure itself. */
static void domain_discard(struct domain *d, unsigned inserted)
{
	for (unsigned i = 0; i < inserted; i++)
		sd_leave(&d->vcpu[i]->s);
	for (unsigned i = 0; i < SLIVER_MAX_VCPUS; i++) {
		if (d->vcpu[i]) {
			vcpu_free(d->vcpu[i]);
			d->vcpu[i] = NULL;
		}
	}
	domain_free_memory(d);
	if (d->id < SLIVER_MAX_DOMS && domains[d->id] == d)
		domains[d->id] = NULL;
	frames_free(virt_to_phys(d), DOM_FRAMES);
}

/* The living domain of that name (a dead one's name is free: restart= re-creates it). */
static const struct domain *named(const char *name)
{
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++)
		if (domains[id] && !domains[id]->dying && !strcmp(domains[id]->name, name))
			return domains[id];
	return NULL;
}

static const struct domain *service_domain(void)
{
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++)
		if (domains[id] && domains[id]->role == SLIVER_ROLE_SERVICE)
			return domains[id];
	return NULL;
}

/* The module's words. NULL when good, else the one reason the module is refused (in why
 * when it needs numbers). */
static const char *module_words(struct domain *d, const char *cl, uint64_t *mem, char *why,
				size_t wl)
{
	char val[256];
	uint64_t vcpus = 1, weight = SCHED_DEFAULT_WEIGHT, cap = 0;
	sched_cpumask_t pin = cpumask_none();
	*mem = DEFAULT_MEM_MIB;
	if (cmdline_has(cl, "name")) {
		if (!cmdline_get(cl, "name", val, sizeof d->name))
			return "name= is longer than 31 characters";
		if (!val[0])
			return "name= is empty";
		const struct domain *o = named(val);
		if (o) {
			fmt_snprintf(why, wl, "name=%s is taken by d%u", val, o->id);
			return why;
		}
		memcpy(d->name, val, sizeof d->name);
	} else if (named(d->name)) {
		fmt_snprintf(d->name, sizeof d->name, "d%u", d->id); /* two of the same file */
	}
	if (cmdline_has(cl, "mem") &&
	    (!cmdline_get_u64(cl, "mem", mem) || *mem == 0 || *mem > MAX_MEM_MIB))
		return "mem= must be 1..2048 (MiB)";
	if (cmdline_has(cl, "vcpus") &&
	    (!cmdline_get_u64(cl, "vcpus", &vcpus) || vcpus == 0 || vcpus > SLIVER_MAX_VCPUS))
		return "vcpus= must be 1..64";
	if (cmdline_has(cl, "weight") &&
	    (!cmdline_get_u64(cl, "weight", &weight) || weight == 0 || weight > SCHED_MAX_WEIGHT))
		return "weight= must be 1..65535";
	if (cmdline_has(cl, "cap") && (!cmdline_get_u64(cl, "cap", &cap) || cap > 100 * vcpus)) {
		fmt_snprintf(why, wl, "cap= must be 0..%lu (%% of one pCPU, 100 per vCPU)",
			     (unsigned long)(100 * vcpus));
		return why;
	}
	if (cmdline_has(cl, "pin")) {
		if (!cmdline_get(cl, "pin", val, sizeof val))
			return "pin= list is longer than 255 characters";
		if (!cpulist_parse(val, &pin))
			return "pin= must be a CPU list like 0,1 or 0-1 (CPUs 0..255)";
	}
	if (cmdline_has(cl, "role") && !cmdline_get(cl, "role", val, sizeof val))
		return "role= must be service or guest";
	if (cmdline_has(cl, "role")) {
		const struct domain *svc = service_domain();
		if (!strcmp(val, "service") && svc) {
			fmt_snprintf(why, wl, "role=service: d%u is the service domain already",
				     svc->id);
			return why;
		}
		if (!strcmp(val, "service"))
			d->role = SLIVER_ROLE_SERVICE;
		else if (strcmp(val, "guest"))
			return "role= must be service or guest";
	}
	/* lapic=1: a virtual local APIC per vCPU (core/vlapic.c, docs/lapic.md); boot=mb1
	 * and boot=real set d->lapic too (issue 13). Off: the APIC page and MSRs fault. */
	uint64_t lapic = 0;
	if (cmdline_has(cl, "lapic") && (!cmdline_get_u64(cl, "lapic", &lapic) || lapic > 1))
		return "lapic= must be 0 or 1";
	if (cmdline_has(cl, "lapic"))
		d->lapic = lapic;
	enum pc_boot boot = PC_BOOT_SLIVER;
	if (cmdline_has(cl, "boot") &&
	    (!cmdline_get(cl, "boot", val, sizeof val) || !pc_boot_parse(val, &boot)))
		return "boot= must be sliver, mb1, real or linux";
	d->boot = (uint8_t)boot;
	if (boot != PC_BOOT_SLIVER && *mem < (PC_MIN_MEM >> 20))
		return "boot=mb1/real/linux needs mem= of 2 MiB or more";
	uint64_t load = 0x7c00;
	if (cmdline_has(cl, "load") &&
	    (boot != PC_BOOT_REAL || !cmdline_get_u64(cl, "load", &load) || load > UINT32_MAX))
		return "load= is an address, with boot=real only";
	d->real_load = (uint32_t)load;
	/* A PC has a local APIC: boot=mb1/real turn it on unless lapic=0 says otherwise. */
	if (boot != PC_BOOT_SLIVER && !cmdline_has(cl, "lapic"))
		d->lapic = true;
	uint64_t restarts = 0;
	if (cmdline_has(cl, "restart") &&
	    (!cmdline_get_u64(cl, "restart", &restarts) || restarts > MAX_RESTARTS))
		return "restart= must be 0..1000";
	d->restarts = (uint32_t)restarts;
	/* The pCPUs that run guests: all, or the first vmm.sched_pcpus. */
	unsigned ncpu = sd_sched()->nr_pcpus;
	sched_cpumask_t online = cpumask_below(ncpu);
	if (!cpumask_empty(pin) && !cpumask_intersects(pin, online))
		return "pin= names no CPU that is online";
	d->nr_vcpus = (unsigned)vcpus;
	d->sd.weight = (uint32_t)weight;
	d->sd.cap = (uint32_t)cap;
	d->pin = cpumask_and(pin, online);
	return NULL;
}

static bool quiet; /* the create loop: no line per attempt */

static void refuse_q(unsigned id, const struct boot_module *m, const char *why)
{
	if (!quiet)
		refuse(id, m, why);
}

/* The boot=<boot> module (boot index) named name, or -1. Its name as domain_create gives
 * it: name=, else default_name_of with its id (boot index + 1, core/vmm.c). */
static int mod_owner(const char *name, const char *boot)
{
	char val[32];
	for (unsigned j = 0; j < boot_info.nr_modules; j++) {
		const char *cl = boot_info.modules[j].cmdline;
		if (cmdline_has(cl, MB1_MOD_KEY) || cmdline_has(cl, LINUX_INITRD_KEY) ||
		    !cmdline_get(cl, "boot", val, sizeof val) || strcmp(val, boot))
			continue;
		if (!cmdline_get(cl, "name", val, sizeof val))
			default_name_of(val, j + 1, cl);
		if (!strcmp(val, name))
			return (int)j;
	}
	return -1;
}

/* A module with mb1.module_of=<name> (initrd_of=<name>) is no domain: it belongs to that
 * boot=mb1 (boot=linux) domain, which loads it (pc_load_mods, linux_domain_load). A line
 * when it names none. */
static void mb1_module_check(unsigned id, const struct boot_module *m, char *why, size_t wl)
{
	char owner[32];
	bool lx = !cmdline_has(m->cmdline, MB1_MOD_KEY);
	const char *key = lx ? LINUX_INITRD_KEY : MB1_MOD_KEY, *boot = lx ? "linux" : "mb1";
	if (!cmdline_get(m->cmdline, key, owner, sizeof owner) || !owner[0]) {
		fmt_snprintf(why, wl, "%s= must be the name of a boot=%s domain (1-31 characters)",
			     key, boot);
		refuse_q(id, m, why);
		return;
	}
	if (mod_owner(owner, boot) < 0) {
		fmt_snprintf(why, wl, "%s=%s names no boot=%s module", key, owner, boot);
		refuse_q(id, m, why);
	}
}

/* A restart's creation runs on a pCPU that has timers of its own (a ping source, the
 * console): their interrupts are taken between its steps, so that no step holds them for
 * the whole creation. (At boot nothing waits.) */
static void breathe(uint64_t restart)
{
	if (restart)
		irq_drain();
}

struct domain *domain_create_mem(unsigned id, const struct boot_module *m, uint64_t mem_hpa,
				 uint64_t mem_bytes)
{
	char why[160];
	if (cmdline_has(m->cmdline, MB1_MOD_KEY) || /* a boot=mb1|linux domain's module: no id */
	    cmdline_has(m->cmdline, LINUX_INITRD_KEY)) {
		mb1_module_check(id, m, why, sizeof why);
		return NULL;
	}
	if (id >= SLIVER_MAX_DOMS) {
		refuse_q(id, m, "too many domains");
		return NULL;
	}
	size_t cl_len = strlen(m->cmdline);
	if (!quiet && cl_len >= BOOT_CMDLINE_MAX - 1)
		printk("sliver: module %u: command line longer than %u characters: the rest was "
		       "cut\n",
		       id, BOOT_CMDLINE_MAX - 1);
	uint64_t dpa = frames_alloc(DOM_FRAMES, 1);
	if (!dpa) {
		refuse_q(id, m, "out of hypervisor memory");
		if (mem_hpa)
			frames_free(mem_hpa, mem_bytes / PAGE_SIZE);
		return NULL;
	}
	struct domain *d = phys_to_virt(dpa);
	d->id = id;
	d->module = m;	      /* a PC's reboot and restart= load it again */
	d->mem_hpa = mem_hpa; /* a failure from here on gives it back (domain_discard) */
	d->mem_bytes = mem_bytes;
	spin_init(&d->con.lock, &lock_dcon, -1);
	spin_init(&d->evlock, &lock_event, -1);
	fmt_snprintf(d->cmdline, sizeof d->cmdline, "%s", m->cmdline);
	default_name(d, m->cmdline);
	uint64_t mem;
	unsigned inserted = 0;
	const char *bad = module_words(d, m->cmdline, &mem, why, sizeof why);
	if (bad) {
		refuse_q(id, m, bad);
		goto fail;
	}
	if (mem_hpa && mem << 20 != mem_bytes) {
		refuse_q(id, m, "mem= is not its last incarnation's");
		goto fail;
	}
	d->mem_bytes = mem << 20;
	d->sd.id = id;
	breathe(mem_hpa);

	const void *img = phys_to_virt(m->start);
	size_t len = (size_t)(m->end - m->start);
	struct elf_image_info info = {0};
	if (domain_image_load(d, img, len, NULL, &info, why, sizeof why, false)) {
		refuse_q(id, m, why);
		goto fail;
	}
	size_t frames = d->mem_bytes / PAGE_SIZE;
	d->mem_hpa = mem_hpa ? mem_hpa : frames_alloc(frames, d->mem_bytes >= (2u << 20) ? 512 : 1);
	if (!d->mem_hpa && scrub_pending()) { /* a dead domain's memory, not free yet */
		scrub_all();
		d->mem_hpa = frames_alloc(frames, d->mem_bytes >= (2u << 20) ? 512 : 1);
	}
	if (!d->mem_hpa) {
		fmt_snprintf(why, sizeof why, "asks for %lu MiB, only %lu MiB free",
			     (unsigned long)mem, (unsigned long)(mm_free_frames() >> 8));
		refuse_q(id, m, why);
		goto fail;
	}
	breathe(mem_hpa);
	if (domain_image_load(d, img, len, phys_to_virt(d->mem_hpa), &info, why, sizeof why,
			      mem_hpa != 0)) {
		refuse_q(id, m, why);
		goto fail;
	}
	struct mb1_mod mods[MB1_MAX_MODS];
	uint32_t mod_at[MB1_MAX_MODS];
	unsigned nmods = 0;
	if (d->boot == PC_BOOT_MB1 && pc_load_mods(d, img, len, phys_to_virt(d->mem_hpa), mods,
						   mod_at, &nmods, why, sizeof why)) {
		refuse_q(id, m, why);
		goto fail;
	}
	breathe(mem_hpa);
	d->space = hv_space_create(d->mem_hpa, d->mem_bytes);
	if (!d->space) {
		refuse_q(id, m, "out of memory for its guest-physical map");
		goto fail;
	}
	for (unsigned i = 0; i < d->nr_vcpus; i++) {
		d->vcpu[i] = vcpu_create(d, i, info.entry);
		if (!d->vcpu[i]) {
			refuse_q(id, m, "cannot create its vCPUs");
			goto fail;
		}
		d->vcpu[i]->s.sv.affinity = d->pin;
		if (d->boot == PC_BOOT_SLIVER) {
			domain_write_boot_info(d, i);
			continue;
		}
		/* A PC starts its BSP only; the APs wait for INIT-SIPI (the virtual LAPIC's). */
		d->vcpu[i]->lapic.wait_sipi = i > 0;
		if (d->boot == PC_BOOT_REAL &&
		    !hv_vcpu_start_real(d->vcpu[i]->hv, d->real_cs, d->real_ip)) {
			refuse_q(id, m, "boot=real: this backend cannot start a vCPU in real mode");
			goto fail;
		}
	}
	if (d->boot != PC_BOOT_SLIVER) {
		if (!pc_create(d)) {
			refuse_q(id, m, "out of hypervisor memory for its PC devices");
			goto fail;
		}
		pc_write_memory(d, mods, mod_at, nmods, (uint32_t)info.entry);
	}
	breathe(mem_hpa);
	for (; inserted < d->nr_vcpus; inserted++) {
		int rc = sd_insert(&d->vcpu[inserted]->s);
		if (rc) {
			fmt_snprintf(why, sizeof why, "scheduler refused vCPU %u (%d)", inserted,
				     rc);
			refuse_q(id, m, why);
			goto fail;
		}
	}
	d->vcpus_left = d->nr_vcpus;
	d->state = SLIVER_DOM_RUNNING;
	__atomic_store_n(&domains[id], d, __ATOMIC_RELEASE);
	if (!quiet)
		printk("sliver: d%u %s: %s entry=0x%lx mem=%lu MiB vcpus=%u weight=%u "
		       "cap=%u%s%s\n",
		       id, d->name, domain_image_kind(d, &info), info.entry, (unsigned long)mem,
		       d->nr_vcpus, d->sd.weight, d->sd.cap,
		       d->role == SLIVER_ROLE_SERVICE ? " role=service" : "",
		       d->lapic ? " lapic" : "");
	for (unsigned i = 0; !quiet && i < nmods; i++)
		printk("sliver: d%u %s: multiboot1 module %u at 0x%x-0x%lx (%lu bytes)\n", id,
		       d->name, i + 1, mod_at[i], (unsigned long)(mod_at[i] + mods[i].len),
		       (unsigned long)mods[i].len);
	return d;
fail:
	domain_discard(d, inserted);
	return NULL;
}

struct domain *domain_create(unsigned id, const struct boot_module *m)
{
	return domain_create_mem(id, m, 0, 0);
}

void domain_create_loop(unsigned n, const struct boot_module *m)
{
	if (!n)
		return;
	/* One clean creation first tells how many allocations a creation makes: every one
	 * of them is then failed in turn, and every other round creates and undoes whole. */
	size_t before = mm_free_frames();
	quiet = true;
	mm_test_fail_at(0);
	struct domain *d = domain_create(1, m);
	size_t steps = mm_test_fail_at(0);
	if (d)
		domain_discard(d, d->nr_vcpus);
	unsigned created = d ? 1 : 0, failed = d ? 0 : 1;
	for (unsigned i = 1; i < n; i++) {
		size_t k = i % (steps + 1); /* 0: no failure */
		mm_test_fail_at(k);
		d = domain_create(1, m);
		mm_test_fail_at(0);
		if (d) {
			created++;
			domain_discard(d, d->nr_vcpus);
		} else {
			failed++;
		}
	}
	quiet = false;
	size_t after = mm_free_frames();
	printk("sliver: create loop n=%u allocations=%lu created=%u failed=%u frames before=%lu "
	       "after=%lu%s\n",
	       n, (unsigned long)steps, created, failed, (unsigned long)before,
	       (unsigned long)after, before == after ? "" : " LEAK");
}

static unsigned lookup_name(const char *name, size_t n, void *ctx)
{
	(void)ctx;
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++)
		if (domains[id] && strlen(domains[id]->name) == n &&
		    !memcmp(domains[id]->name, name, n))
			return id;
	return 0;
}

/* evt.allow=<port>:<dom id|name|*>,...: names may be of any module, so it is read once
 * every domain exists. A bad item gets one line for the word and is ignored. */
static void apply_evt_allow(struct domain *d)
{
	char val[256], msg[120];
	if (!cmdline_has(d->cmdline, "evt.allow"))
		return;
	if (!cmdline_get(d->cmdline, "evt.allow", val, sizeof val)) {
		printk("sliver: d%u: evt.allow= is longer than 255 characters: ignored\n", d->id);
		return;
	}
	/* 4 KiB: static, as domains start one after the other on the BSP (vmm.c). */
	static struct domset allow[SLIVER_NR_PORTS];
	memset(allow, 0, sizeof allow);
	unsigned bad = ev_parse_allow(val, lookup_name, NULL, allow, msg, sizeof msg);
	if (bad)
		printk("sliver: d%u: %s: ignored (%u bad item(s) in all)\n", d->id, msg, bad);
	spin_lock(&d->evlock);
	for (unsigned p = 0; p < SLIVER_NR_PORTS; p++)
		for (unsigned i = 0; i < SLIVER_DOMSET_WORDS; i++)
			d->port[p].allow.w[i] |= allow[p].w[i];
	spin_unlock(&d->evlock);
}

void domain_start(struct domain *d)
{
	apply_evt_allow(d);
	d->start_ns = now_ns();
	/* A vCPU that waits for the virtual LAPIC's SIPI starts blocked. */
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		sd_start(&d->vcpu[i]->s, vlapic_waiting(d->vcpu[i]));
	pc_start(d);
}
