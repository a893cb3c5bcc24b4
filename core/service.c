/* The service domain's calls beyond core/hypercall.c's table (HC_PING, HC_CONSOLE_READ
 * and include/sliver/service.h) and console input for it. Calls that report for people
 * return text lines in the formats tools/ parse; the hypervisor's own debug keys print the
 * same reports (core/service_keys.c). */
#include "core/service_priv.h"
#include "arch/x86_64/tsc.h"
#include "core/conin.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/errno.h"
#include "sliver/hypercall.h"

static void *gbuf(struct domain *d, uint64_t gpa, uint64_t len)
{
	return len ? hv_space_ptr(d->space, gpa, len) : NULL;
}

static struct domain *target(uint64_t dom)
{
	return dom && dom < SLIVER_MAX_DOMS ? domain_get((unsigned)dom) : NULL;
}

static struct vcpu *target_vcpu(uint64_t dom, uint64_t vcpu)
{
	struct domain *d = target(dom);
	return d && vcpu < d->nr_vcpus ? d->vcpu[vcpu] : NULL;
}

static void text_vadd(struct text *t, const char *fmt, va_list ap)
{
	size_t room = sizeof(t->buf) - sizeof(TEXT_NOTE) - t->len;
	if (t->full)
		return;
	int n = fmt_vsnprintf(t->buf + t->len, room, fmt, ap);
	if ((size_t)n < room) {
		t->len += (size_t)n;
		return;
	}
	t->full = true;
	memcpy(t->buf + t->len, TEXT_NOTE, sizeof(TEXT_NOTE) - 1);
	t->len += sizeof(TEXT_NOTE) - 1;
}

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vadd(t, fmt, ap);
	va_end(ap);
}

static int64_t text_out(struct domain *d, uint64_t gpa, uint64_t len, const struct text *t)
{
	uint64_t n = t->len < len ? t->len : len;
	char *dst = gbuf(d, gpa, n ? n : 1);
	if (!dst)
		return -SLIVER_EFAULT;
	memcpy(dst, t->buf, n);
	return (int64_t)n;
}

/* --- ping: one outstanding service ping per target domain --- */

struct svc_ping {
	unsigned svc;
	uint64_t gpa;
	bool active;
};
static struct svc_ping pings[SLIVER_MAX_DOMS];
static spinlock_t ping_lock = SPINLOCK_INIT(lock_svc_ping);

static int64_t hc_ping(struct domain *svc, uint64_t dom, uint64_t gpa)
{
	struct sliver_ping_result *r = gbuf(svc, gpa, sizeof(*r));
	if (!r)
		return -SLIVER_EFAULT;
	struct domain *t = target(dom);
	if (!t)
		return -SLIVER_ESRCH;
	if (t == svc)
		return -SLIVER_EINVAL;
	spin_lock(&ping_lock);
	pings[t->id] = (struct svc_ping){svc->id, gpa, true};
	r->replied_ns = 0;
	r->posted_ns = now_ns();
	spin_unlock(&ping_lock);
	int rc = event_raise(t, SLIVER_PORT_PING, SLIVER_DOMID_HV);
	if (rc < 0) {
		/* Undo under the lock, and only our own entry: a reply path or a newer ping
		 * may have touched it since. */
		spin_lock(&ping_lock);
		struct svc_ping *p = &pings[t->id];
		if (p->active && p->svc == svc->id && p->gpa == gpa)
			p->active = false;
		spin_unlock(&ping_lock);
	}
	return rc < 0 ? rc : 0;
}

bool service_ping_reply(unsigned from)
{
	uint64_t now = now_ns();
	spin_lock(&ping_lock);
	struct svc_ping p = from < SLIVER_MAX_DOMS ? pings[from] : (struct svc_ping){0};
	if (p.active)
		pings[from].active = false;
	spin_unlock(&ping_lock);
	if (!p.active)
		return false;
	struct domain *svc = domain_get(p.svc);
	struct sliver_ping_result *r = svc ? gbuf(svc, p.gpa, sizeof(*r)) : NULL;
	if (r) {
		r->replied_ns = now;
		event_raise(svc, SLIVER_PORT_PONG, from);
	}
	return true;
}

/* --- console input --- */

static struct domain *service_domain(void)
{
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domain_get(id);
		if (d && d->role == SLIVER_ROLE_SERVICE)
			return d;
	}
	return NULL;
}

static void console_notify(void)
{
	struct domain *d = service_domain();
	if (d)
		event_raise(d, SLIVER_PORT_CONSOLE, SLIVER_DOMID_HV);
}

static int64_t hc_console_read(struct domain *d, uint64_t gpa, uint64_t len)
{
	if (len > TEXT_MAX)
		len = TEXT_MAX;
	char *buf = gbuf(d, gpa, len);
	if (!buf)
		return -SLIVER_EFAULT;
	return (int64_t)conin_read(buf, len);
}

/* --- scheduler --- */

/* sched_print_fn into a struct text (arg). The policy prints one ` key=value` a call: past
 * SCHED_LINE_WRAP characters the line goes on on the next one (a guest's console wraps
 * a long line mid-word). */
#define SCHED_LINE_WRAP 150
static void text_sched_pr(void *arg, const char *fmt, ...)
{
	struct text *t = arg;
	size_t col = 0;
	while (col < t->len && t->buf[t->len - col - 1] != '\n')
		col++;
	if (col > SCHED_LINE_WRAP)
		text_add(t, "\n");
	va_list ap;
	va_start(ap, fmt);
	text_vadd(t, fmt, ap);
	va_end(ap);
}

/* The policy and its keys, as the policy shows them (sched_config_show). */
void svc_sched_text(struct text *t)
{
	text_add(t, "sched=%s", sd_sched()->ops->name);
	sd_config_show(text_sched_pr, t);
	text_add(t, "\n");
}

/* v may run on the pCPUs of mask: at least one, and only pCPUs that exist. */
static int64_t vcpu_pin(struct vcpu *v, sched_cpumask_t mask)
{
	if (cpumask_empty(mask) || !cpumask_subset(mask, cpumask_below(cpu_count())))
		return -SLIVER_EINVAL;
	return sd_set_affinity(&v->s, mask);
}

/* HC_VCPU_PIN: the register ABI, pCPUs 0..63 (0..31 from a 32-bit vCPU). */
static int64_t hc_vcpu_pin(uint64_t dom, uint64_t vcpu, uint64_t mask)
{
	struct vcpu *v = target_vcpu(dom, vcpu);
	if (!v)
		return -SLIVER_ESRCH;
	return vcpu_pin(v, cpumask_from_u64(mask));
}

/* HC_VCPU_AFFINITY: the set as `len` bytes of guest memory, bit n % 8 of byte n / 8 for
 * pCPU n (the layout of little-endian 64-bit words), up to SLIVER_CPUMASK_BYTES. Read
 * once: the guest changing it meanwhile changes nothing here. */
static int64_t hc_vcpu_affinity(struct domain *d, const uint64_t a[5])
{
	struct vcpu *v = target_vcpu(a[0], a[1]);
	if (!v)
		return -SLIVER_ESRCH;
	if (!a[3] || a[3] > SLIVER_CPUMASK_BYTES)
		return -SLIVER_EINVAL;
	const volatile uint8_t *b = gbuf(d, a[2], a[3]);
	if (!b)
		return -SLIVER_EFAULT;
	_Static_assert(SLIVER_MAX_PCPUS == SCHED_MAX_PCPUS, "the ABI's CPU set is the scheduler's");
	sched_cpumask_t m = cpumask_none();
	for (unsigned i = 0; i < a[3]; i++) {
		uint8_t x = b[i];
		for (unsigned k = 0; k < 8; k++)
			if (x >> k & 1)
				cpumask_set(&m, 8 * i + k);
	}
	return vcpu_pin(v, m);
}

/* --- latency and counters --- */

void svc_lat_text(struct text *t, const struct vcpu *v, bool histogram)
{
	static struct hist snap; /* 9 KiB: not on the stack; callers are serialized */
	hist_snapshot(&v->lat, &snap);
	if (__atomic_load_n(&v->reset_lat, __ATOMIC_ACQUIRE))
		hist_reset(&snap); /* cleared, and its pCPU has not got round to it yet */
	struct hist_stats st = hist_stats(&snap);
	char line[240];
	hist_format(line, sizeof(line), &st);
	text_add(t, "lat d%uv%u %s\n", v->dom->id, v->id, line);
	if (!histogram || !snap.n)
		return;
	/* Octaves of microseconds: <1, 1-2, 2-4, ... */
	uint64_t bins[40] = {0};
	unsigned top = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!snap.bucket[b])
			continue;
		uint64_t lo, hi;
		hist_bucket_range(b, &lo, &hi);
		unsigned k = lo < 1000 ? 0 : 64 - (unsigned)__builtin_clzll(lo / 1000);
		if (k >= 40)
			k = 39;
		bins[k] += snap.bucket[b];
		if (k > top)
			top = k;
	}
	uint64_t most = 1;
	for (unsigned k = 0; k <= top; k++)
		most = bins[k] > most ? bins[k] : most;
	for (unsigned k = 0; k <= top; k++) {
		char bar[41];
		unsigned w = (unsigned)(bins[k] * 40 / most);
		memset(bar, '#', w);
		bar[w] = 0;
		if (k == 0)
			text_add(t, "  %9s us %-40s %lu\n", "<1", bar, bins[k]);
		else
			text_add(t, "  %4lu-%-4lu us %-40s %lu\n", 1ul << (k - 1), 1ul << k, bar,
				 bins[k]);
	}
}

static int64_t hc_vcpu_counters(struct domain *d, const uint64_t a[5])
{
	struct vcpu *v = target_vcpu(a[0], a[1]);
	if (!v)
		return -SLIVER_ESRCH;
	struct sliver_vcpu_counters c = {0};
	struct sd_info in;
	sd_info(&v->s, &in); /* run_ns with the running interval included */
	c.dom_id = v->dom->id;
	c.vcpu_id = v->id;
	c.pcpu = in.pcpu;
	c.state = in.state;
	c.run_ns = in.c.run_ns;
	c.wait_ns = in.wait_ns;
	c.wakes = in.c.wakes;
	c.boosts = in.c.boosts;
	c.preempts = in.c.preempts;
	c.migrations = in.c.migrations;
	c.yields = in.c.yields;
	c.exits = v->exits;
	uint64_t len = a[3] < sizeof(c) ? a[3] : sizeof(c);
	void *buf = gbuf(d, a[2], len);
	if (!buf)
		return -SLIVER_EFAULT;
	memcpy(buf, &c, len);
	return (int64_t)len;
}

void svc_pcpu_info(unsigned cpu, struct sliver_pcpu_info *p)
{
	struct vmm_cpu *pc = percpu[cpu].vmm;
	struct vcpu *cur = pc->curr;
	static struct hist snap; /* callers are serialized (service calls, CPU 0 keys) */
	hist_snapshot(&pc->decision, &snap);
	if (__atomic_load_n(&pc->reset_decision, __ATOMIC_ACQUIRE))
		hist_reset(&snap);
	struct hist_stats st = hist_stats(&snap);
	hist_snapshot(&pc->conwrite, &snap);
	if (__atomic_load_n(&pc->reset_decision, __ATOMIC_ACQUIRE))
		hist_reset(&snap);
	struct hist_stats cw = hist_stats(&snap);
	uint64_t now = now_ns();
	*p = (struct sliver_pcpu_info){
		.cpu = cpu,
		.apic_id = percpu[cpu].apic_id,
		.cur_dom = cur ? cur->dom->id : 0,
		.cur_vcpu = cur ? cur->id : 0,
		.idle_ns = pc->idle_ns,
		.busy_ns = now > pc->idle_ns ? now - pc->idle_ns : 0,
		.sched_calls = pc->sched_calls,
		.decision_n = st.n,
		.decision_avg_cycles = st.avg,
		.decision_p99_cycles = st.p99,
		.decision_max_cycles = st.max,
		.conwrite_n = cw.n,
		.conwrite_avg_cycles = cw.avg,
		.conwrite_p99_cycles = cw.p99,
		.conwrite_max_cycles = cw.max,
	};
}

static int64_t hc_pcpu_info(struct domain *d, uint64_t cpu, uint64_t gpa, uint64_t len)
{
	if (cpu >= cpu_count())
		return -SLIVER_ENOENT;
	struct sliver_pcpu_info p;
	svc_pcpu_info((unsigned)cpu, &p);
	if (len > sizeof(p))
		len = sizeof(p);
	void *buf = gbuf(d, gpa, len);
	if (!buf)
		return -SLIVER_EFAULT;
	memcpy(buf, &p, len);
	return (int64_t)len;
}

static void exits_text(struct text *t, const struct domain *d)
{
	text_add(t, "exits d%u", d->id);
	for (unsigned r = 0; r < HV_NR_EXIT_REASONS; r++)
		if (d->exits[r]) {
			/* key=value: the reason's name with '_' for its spaces */
			char name[48];
			size_t n = 0;
			for (const char *c = hv_exit_reason_name(r); *c && n + 1 < sizeof(name);
			     c++)
				name[n++] = *c == ' ' ? '_' : *c;
			name[n] = 0;
			text_add(t, " %s=%lu", name, d->exits[r]);
		}
	text_add(t, "\n");
}

/* Counters are cleared by their writers: the vCPU's and the pCPU's own loop (vmm.c),
 * at their next pass, so a reset never races a hist_record. */
static int64_t hc_counters_reset(uint64_t dom)
{
	if (dom && !target(dom))
		return -SLIVER_ESRCH;
	/* One vCPU's run-queue lock at a time: no lock is held across the walk. */
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domain_get(id);
		if (!d || (dom && dom != id))
			continue;
		for (unsigned i = 0; i < d->nr_vcpus; i++) {
			struct vcpu *v = d->vcpu[i];
			sd_counters_reset(&v->s);
			__atomic_store_n(&v->exits, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&v->reset_lat, true, __ATOMIC_RELEASE);
		}
		sd_dom_counters_reset(&d->sd);
		for (unsigned r = 0; r < HV_NR_EXIT_REASONS; r++)
			__atomic_store_n(&d->exits[r], 0, __ATOMIC_RELAXED);
	}
	if (!dom)
		for (unsigned c = 0; c < cpu_count(); c++)
			__atomic_store_n(&((struct vmm_cpu *)percpu[c].vmm)->reset_decision, true,
					 __ATOMIC_RELEASE);
	return 0;
}

/* --- scheduler trace: `on` marks where a window starts, `off` where it ends --- */

static uint32_t trace_from[MAX_CPUS], trace_to[MAX_CPUS];
static bool trace_window, trace_open;

void svc_trace_text(struct text *t)
{
	static struct sched_trace_rec rec[SCHED_TRACE_LEN];
	for (unsigned c = 0; c < sd_sched()->nr_pcpus; c++) {
		uint32_t head;
		unsigned n = sd_trace_read(c, rec, SCHED_TRACE_LEN, &head);
		uint32_t from = trace_window ? trace_from[c] : head - 16;
		uint32_t to = trace_window && !trace_open ? trace_to[c] : head;
		uint32_t want = head - from > SCHED_TRACE_LEN ? SCHED_TRACE_LEN : head - from;
		unsigned first = n > want ? n - want : 0; /* the last `want` records */
		unsigned skip_tail = head - to < n ? head - to : n;
		if (head - from > SCHED_TRACE_LEN)
			text_add(t, "trace cpu%u: %u older records were overwritten\n", c,
				 head - from - SCHED_TRACE_LEN);
		for (unsigned i = first; i + skip_tail < n; i++)
			text_add(t, "trace cpu%u t_us=%lu.%03lu %s d%uv%u arg=%ld\n", c,
				 rec[i].t / 1000, rec[i].t % 1000, sched_ev_name(rec[i].ev),
				 rec[i].dom, rec[i].vcpu, (long)rec[i].arg);
	}
}

static int64_t hc_trace(struct domain *d, uint64_t op, uint64_t gpa, uint64_t len)
{
	static struct text t;
	switch (op) {
	case SLIVER_TRACE_ON:
	case SLIVER_TRACE_OFF:
		for (unsigned c = 0; c < sd_sched()->nr_pcpus; c++) {
			uint32_t head;
			sd_trace_read(c, NULL, 0, &head);
			if (op == SLIVER_TRACE_ON)
				trace_from[c] = head;
			else
				trace_to[c] = head;
		}
		trace_window = trace_window || op == SLIVER_TRACE_ON;
		trace_open = op == SLIVER_TRACE_ON;
		return 0;
	case SLIVER_TRACE_DUMP:
		t.len = 0;
		t.full = false;
		svc_trace_text(&t);
		return text_out(d, gpa, len, &t);
	default:
		return -SLIVER_EINVAL;
	}
}

/* --- the dispatcher behind core/hypercall.c --- */

int64_t hypercall_ext(struct vcpu *v, uint64_t nr, const uint64_t a[5], enum exit_action *act)
{
	(void)act;
	struct domain *d = v->dom;
	static struct text t; /* one service domain: its calls never run twice at once */
	t.len = 0;
	t.full = false;
	switch (nr) {
	case HC_PING:
		return hc_ping(d, a[0], a[1]);
	case HC_CONSOLE_READ:
		return hc_console_read(d, a[0], a[1]);
	case HC_SCHED_GET:
		svc_sched_text(&t);
		return text_out(d, a[0], a[1], &t);
	case HC_VCPU_PIN:
		return hc_vcpu_pin(a[0], a[1], a[2]);
	case HC_VCPU_AFFINITY:
		return hc_vcpu_affinity(d, a);
	case HC_LAT: {
		struct vcpu *tv = target_vcpu(a[0], a[1]);
		if (!tv)
			return -SLIVER_ESRCH;
		svc_lat_text(&t, tv, a[2] & SLIVER_LAT_HIST);
		return text_out(d, a[3], a[4], &t);
	}
	case HC_VCPU_COUNTERS:
		return hc_vcpu_counters(d, a);
	case HC_PCPU_INFO:
		return hc_pcpu_info(d, a[0], a[1], a[2]);
	case HC_TRACE:
		return hc_trace(d, a[0], a[1], a[2]);
	case HC_COUNTERS_RESET:
		return hc_counters_reset(a[0]);
	case HC_DOM_EXITS: {
		struct domain *td = target(a[0]);
		if (!td)
			return -SLIVER_ESRCH;
		exits_text(&t, td);
		return text_out(d, a[1], a[2], &t);
	}
	default:
		return -SLIVER_ENOSYS;
	}
}

void service_init(void)
{
	conin_set_notify(console_notify);
}
