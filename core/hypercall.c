/* Hypercalls (docs/hypercalls.md is the table of record): a const table indexed by
 * number, bounds-checked; privileged numbers are refused to non-service domains before
 * their arguments are looked at; every guest pointer goes through guest_buf. */
#include "arch/x86_64/tsc.h"
#include "core/pingtrace.h"
#include "core/vmm.h"
#include "lib/compiler.h"
#include "lib/string.h"
#include "sliver/errno.h"
#include "sliver/hypercall.h"

struct hc_args {
	struct vcpu *v;
	struct domain *d;
	uint64_t a[5];
	enum exit_action act;
};

typedef int64_t (*hc_fn)(struct hc_args *c);

/* The host pointer for guest-physical [gpa, gpa + len), or NULL when any of it lies
 * outside the domain's memory (or len is 0). */
static void *guest_buf(struct domain *d, uint64_t gpa, uint64_t len)
{
	if (len == 0)
		return NULL;
	return hv_space_ptr(d->space, gpa, len);
}

static int64_t hc_console_write(struct hc_args *c)
{
	uint64_t len = c->a[1];
	if (len > HC_CONSOLE_MAX)
		return -SLIVER_E2BIG;
	if (len == 0)
		return 0;
	const char *buf = guest_buf(c->d, c->a[0], len);
	if (!buf)
		return -SLIVER_EFAULT;
	uint64_t t0 = rdtsc();
	/* At most DCON_CALL_MAX bytes per call (the rest is a short count, written again by the
	 * caller): one call's copy is the time its pCPU cannot switch to a vCPU woken there. */
	uint64_t took = dcon_write(c->v, buf, len < DCON_CALL_MAX ? len : DCON_CALL_MAX);
	hist_record(&vmm_this()->conwrite, rdtsc() - t0); /* a bounded copy: perf shows it */
	/* A line found the console's ring full (or its domain's share of it): the vCPU waits
	 * for the drain to make room, then the call returns the bytes it took (docs/
	 * hypercalls.md: a short count; the caller writes the rest). */
	if (c->v->con.held)
		c->act = dcon_wait(c->v);
	return (int64_t)took;
}

static int64_t hc_yield(struct hc_args *c)
{
	c->act = ACT_YIELD;
	return 0;
}

static int64_t hc_block(struct hc_args *c)
{
	c->act = ACT_BLOCK; /* decided after RIP and RAX are set: see hypercall() */
	return 0;
}

static int64_t hc_set_timer(struct hc_args *c)
{
	uint64_t t = (c->a[0] & 0xffffffffu) | (c->a[1] << 32);
	vcpu_set_timer(c->v, t);
	return 0;
}

static int64_t hc_clock(struct hc_args *c)
{
	(void)c;
	return (int64_t)now_ns();
}

static int64_t hc_event_send(struct hc_args *c)
{
	uint64_t dom = c->a[0], port = c->a[1];
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	__atomic_fetch_add(&c->d->events_sent, 1, __ATOMIC_RELAXED);
	if (dom == SLIVER_DOMID_HV) {
		if (port != SLIVER_PORT_PONG)
			return -SLIVER_EINVAL;
		ping_reply(c->d->id);
		return 0;
	}
	return event_send(c->d, dom, port);
}

static int64_t hc_event_allow(struct hc_args *c)
{
	if (c->a[2] > 1)
		return -SLIVER_EINVAL;
	return event_allow(c->d, c->a[0], c->a[1], c->a[2] == 1);
}

static int64_t hc_event_info(struct hc_args *c)
{
	struct sliver_event_info in;
	uint64_t len = c->a[2] < sizeof in ? c->a[2] : sizeof in;
	void *buf = guest_buf(c->d, c->a[1], len);
	if (!buf)
		return -SLIVER_EFAULT;
	/* A whole, aligned buffer (guests/echo's, on every ping) is written in place; a shorter
	 * one (a guest of the one-word ABI) through `in`. */
	bool whole = len == sizeof in && !((uintptr_t)buf & 7);
	int rc = event_recv_info(c->d,
				 c->a[0] < SLIVER_NR_PORTS ? (unsigned)c->a[0] : SLIVER_NR_PORTS,
				 whole ? (struct sliver_event_info *)buf : &in);
	if (rc < 0)
		return rc;
	if (!whole)
		memcpy(buf, &in, len);
	return (int64_t)len;
}

static int64_t hc_event_bind(struct hc_args *c)
{
	if (c->a[0] > 255 || c->a[1] > 255 || c->a[2] > 255)
		return -SLIVER_EINVAL;
	return event_bind(c->d, (unsigned)c->a[0], (unsigned)c->a[1], (unsigned)c->a[2]);
}

static int64_t hc_event_recv(struct hc_args *c)
{
	return event_recv(c->d, c->a[0] < SLIVER_NR_PORTS ? (unsigned)c->a[0] : SLIVER_NR_PORTS);
}

static int64_t hc_shutdown(struct hc_args *c)
{
	domain_shutdown(c->d, (int)(int32_t)c->a[0]);
	c->act = ACT_DEAD;
	return 0;
}

static int64_t hc_self_info(struct hc_args *c)
{
	struct sliver_dom_info in;
	uint64_t len = c->a[1] < sizeof in ? c->a[1] : sizeof in;
	void *buf = guest_buf(c->d, c->a[0], len);
	if (!buf)
		return -SLIVER_EFAULT;
	domain_fill_info(c->d, &in);
	memcpy(buf, &in, len);
	return (int64_t)len;
}

static int64_t hc_dom_list(struct hc_args *c)
{
	uint64_t max = c->a[1];
	if (max > SLIVER_MAX_DOMS)
		max = SLIVER_MAX_DOMS;
	struct sliver_dom_info *out = NULL;
	if (max && !(out = guest_buf(c->d, c->a[0], max * sizeof *out)))
		return -SLIVER_EFAULT;
	int64_t n = 0;
	for (unsigned id = 1; id < SLIVER_MAX_DOMS; id++) {
		struct domain *d = domains[id];
		if (!d)
			continue;
		if ((uint64_t)n < max)
			domain_fill_info(d, &out[n]);
		n++;
	}
	return n;
}

static struct domain *target(struct hc_args *c)
{
	return c->a[0] < SLIVER_MAX_DOMS ? domain_get((unsigned)c->a[0]) : NULL;
}

static int64_t hc_dom_destroy(struct hc_args *c)
{
	struct domain *t = target(c);
	if (!t)
		return -SLIVER_ESRCH;
	domain_destroy(t, c->d->id);
	if (t == c->d)
		c->act = ACT_DEAD;
	return 0;
}

static int64_t hc_dom_counters(struct hc_args *c)
{
	struct domain *t = target(c);
	if (!t)
		return -SLIVER_ESRCH;
	struct sliver_dom_counters k;
	uint64_t len = c->a[2] < sizeof k ? c->a[2] : sizeof k;
	void *buf = guest_buf(c->d, c->a[1], len);
	if (!buf)
		return -SLIVER_EFAULT;
	domain_fill_counters(t, &k);
	memcpy(buf, &k, len);
	return (int64_t)len;
}

static int64_t hc_sched_set(struct hc_args *c)
{
	struct domain *t = target(c);
	if (!t)
		return -SLIVER_ESRCH;
	if (c->a[1] > SCHED_MAX_WEIGHT || c->a[2] > 100u * SLIVER_MAX_VCPUS)
		return -SLIVER_EINVAL;
	int rc = sd_set_params(&t->sd, (uint32_t)c->a[1], (uint32_t)c->a[2]);
	return rc < 0 ? -SLIVER_EINVAL : 0;
}

/* One scheduler setting as on the boot command line ("credit.tslice_us=500"). */
static int64_t hc_sched_global(struct hc_args *c)
{
	char word[128];
	uint64_t len = c->a[1];
	if (len == 0 || len >= sizeof word)
		return -SLIVER_EINVAL;
	const char *src = guest_buf(c->d, c->a[0], len);
	if (!src)
		return -SLIVER_EFAULT;
	memcpy(word, src, len);
	word[len] = 0;
	int rc = sd_config_word(word, strnlen(word, len));
	return rc == 0 ? 0 : -SLIVER_EINVAL;
}

static int64_t hc_dom_pause(struct hc_args *c)
{
	struct domain *t = target(c);
	if (!t)
		return -SLIVER_ESRCH;
	if (t == c->d)
		return -SLIVER_EINVAL; /* the service domain would never be unpaused */
	return domain_pause(t);
}

static int64_t hc_dom_unpause(struct hc_args *c)
{
	struct domain *t = target(c);
	return t ? domain_unpause(t) : -SLIVER_ESRCH;
}

static const hc_fn table[HC_NR] = {
	[HC_CONSOLE_WRITE] = hc_console_write,
	[HC_YIELD] = hc_yield,
	[HC_BLOCK] = hc_block,
	[HC_SET_TIMER] = hc_set_timer,
	[HC_CLOCK] = hc_clock,
	[HC_EVENT_SEND] = hc_event_send,
	[HC_EVENT_BIND] = hc_event_bind,
	[HC_EVENT_RECV] = hc_event_recv,
	[HC_SHUTDOWN] = hc_shutdown,
	[HC_SELF_INFO] = hc_self_info,
	[HC_EVENT_ALLOW] = hc_event_allow,
	[HC_EVENT_INFO] = hc_event_info,
	[HC_DOM_LIST] = hc_dom_list,
	[HC_DOM_COUNTERS] = hc_dom_counters,
	[HC_SCHED_SET] = hc_sched_set,
	[HC_SCHED_GLOBAL] = hc_sched_global,
	[HC_DOM_PAUSE] = hc_dom_pause,
	[HC_DOM_UNPAUSE] = hc_dom_unpause,
	[HC_DOM_DESTROY] = hc_dom_destroy,
};

__attribute__((weak)) int64_t hypercall_ext(struct vcpu *v, uint64_t nr, const uint64_t a[5],
					    enum exit_action *act)
{
	(void)v, (void)nr, (void)a, (void)act;
	return -SLIVER_ENOSYS;
}

/* Every other call: the arguments, CPL, the table, the result. */
static __attribute__((noinline)) enum exit_action hypercall_call(struct vcpu *v)
{
	struct hv_vcpu *h = v->hv;
	const uint64_t *g = h->gpr;
	uint64_t nr = g[HV_RAX];
	struct hc_args c = {.v = v, .d = v->dom, .act = ACT_CONTINUE};
	if (hv_guest_long_mode(h)) {
		c.a[0] = g[HV_RDI], c.a[1] = g[HV_RSI], c.a[2] = g[HV_RDX];
		c.a[3] = g[HV_R10], c.a[4] = g[HV_R8];
	} else { /* the 32-bit ABI: EDI, ESI, EDX, ECX, EBX (docs/hypercalls.md) */
		nr = (uint32_t)nr;
		c.a[0] = (uint32_t)g[HV_RDI], c.a[1] = (uint32_t)g[HV_RSI];
		c.a[2] = (uint32_t)g[HV_RDX], c.a[3] = (uint32_t)g[HV_RCX];
		c.a[4] = (uint32_t)g[HV_RBX];
	}
	__atomic_fetch_add(&c.d->hypercalls, 1, __ATOMIC_RELAXED);
	PT_HOOK(pt_hypercall(v->dom->id, nr));
	int64_t ret;
	if (hv_guest_cpl(h) != 0)
		ret = -SLIVER_EPERM;
	else if (nr >= HC_PRIV_END || (nr < HC_PRIV_FIRST && !table[nr]))
		ret = -SLIVER_ENOSYS;
	else if (nr >= HC_PRIV_FIRST && c.d->role != SLIVER_ROLE_SERVICE)
		ret = -SLIVER_EPERM;
	else if (nr < HC_NR && table[nr])
		ret = table[nr](&c);
	else
		ret = hypercall_ext(v, nr, c.a, &c.act);
	if (c.act == ACT_DEAD)
		return ACT_DEAD;
	h->gpr[HV_RAX] = (uint64_t)ret;
	h->gpr[HV_RDX] = (uint64_t)ret >> 32;
	hv_skip_exit_insn(h);
	if (c.act == ACT_BLOCK)
		return vcpu_halt(v);
	return c.act;
}

/* HC_CLOCK, the most frequent call, answered before any argument is read (RAX is the same
 * number in both ABIs unless a 32-bit caller left upper bits: hypercall_call), in a frame
 * of its own; hypercall_is_clock (vmm.h) said it is one. Registers only, the instruction
 * not completed yet: it changes nothing the next entry depends on (ACT_RESUME; also core's
 * quick path, exit.c). */
void hypercall_clock(struct vcpu *v)
{
	struct hv_vcpu *h = v->hv;
	__atomic_fetch_add(&v->dom->hypercalls, 1, __ATOMIC_RELAXED);
	PT_HOOK(pt_hypercall(v->dom->id, HC_CLOCK));
	uint64_t now = now_ns();
	h->gpr[HV_RAX] = now;
	h->gpr[HV_RDX] = now >> 32;
}

enum exit_action hypercall(struct vcpu *v, struct hv_exit *e)
{
	(void)e;
	if (likely(hypercall_is_clock(v->hv))) {
		hypercall_clock(v);
		hv_skip_exit_insn(v->hv);
		return ACT_RESUME;
	}
	return hypercall_call(v);
}
