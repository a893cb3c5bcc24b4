/* Generic scheduler layer: instance setup, parameter parsing, trace ring, helpers. */
#include "sched/sched.h"
#include "lib/cmdline.h"
#include "sched/sched_priv.h"

void sched_apply_profile(struct sched_params *p, unsigned profile)
{
	if (profile == SCHED_PROFILE_XEN_CREDIT1) {
		/* Xen credit1 as of 3.0.4 plus the 4.2 ratelimit: 30 ms slices, a 10 ms
		 * sampling tick that burns credit and ends boosts, 30 ms accounting. */
		p->tslice_ns = 30000000;
		p->ratelimit_ns = 1000000;
		p->period_ns = 30000000;
		p->tick_ns = 10000000;
		p->boost_ns = 0;
		p->boost_debt_ns = 0;
		p->cap_debt_ns = 0;
		p->burn_sampled = 1;
		p->balance_gap_ns = 0; /* idle stealing only, as measured */
		p->balance_hold_ns = 0;
	} else {
		/* sliver defaults, chosen from the simulator sweeps in docs/BENCHMARKS.md. */
		p->tslice_ns = 1000000;
		p->ratelimit_ns = 0;
		p->period_ns = 50000000;
		p->tick_ns = 0;
		p->boost_ns = 100000;
		p->boost_debt_ns = 2000000;
		p->cap_debt_ns = 500000;
		p->burn_sampled = 0;
		p->balance_gap_ns = 2000000;
		p->balance_hold_ns = 10000000;
		profile = SCHED_PROFILE_SLIVER;
	}
	p->profile = profile;
}

int sched_init(struct sched *s, unsigned nr_pcpus)
{
	if (nr_pcpus == 0 || nr_pcpus > SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	/* Zero by hand: sched/ calls no library function it does not need. */
	unsigned char *b = (unsigned char *)s;
	for (size_t i = 0; i < sizeof(*s); i++)
		b[i] = 0;
	s->nr_pcpus = nr_pcpus;
	s->ops = &sched_credit_ops;
	sched_apply_profile(&s->p, SCHED_PROFILE_SLIVER);
	s->ops->init(s);
	return 0;
}

static bool str_eq(const char *a, size_t alen, const char *b)
{
	size_t i = 0;
	for (; i < alen; i++)
		if (b[i] == '\0' || a[i] != b[i])
			return false;
	return b[i] == '\0';
}

const struct sched_ops *sched_ops_by_name(const char *name, size_t len)
{
	if (str_eq(name, len, "credit"))
		return &sched_credit_ops;
	if (str_eq(name, len, "rr"))
		return &sched_rr_ops;
	if (str_eq(name, len, "credit1"))
		return &sched_credit1_ops;
	return NULL;
}

/* Decimal or 0x-hex, the whole string, no overflow. */
struct us_key {
	const char *name;
	size_t off;
	uint64_t min_us, max_us;
};

#define P_OFF(f) offsetof(struct sched_params, f)
static const struct us_key us_keys[] = {
	{"tslice_us", P_OFF(tslice_ns), 10, 1000000},
	{"ratelimit_us", P_OFF(ratelimit_ns), 0, 1000000},
	{"period_us", P_OFF(period_ns), 100, 10000000},
	{"tick_us", P_OFF(tick_ns), 0, 1000000},
	{"boost_us", P_OFF(boost_ns), 0, 1000000},
	{"boost_debt_us", P_OFF(boost_debt_ns), 0, 10000000},
	{"cap_debt_us", P_OFF(cap_debt_ns), 0, 10000000},
	{"balance_gap_us", P_OFF(balance_gap_ns), 0, 10000000},
	{"balance_hold_us", P_OFF(balance_hold_ns), 0, 10000000},
};

static int config_kv(struct sched *s, const char *k, size_t klen, const char *v, size_t vlen,
		     uint64_t now)
{
	if (str_eq(k, klen, "sched")) {
		const struct sched_ops *ops = sched_ops_by_name(v, vlen);
		if (!ops)
			return -SCHED_EINVAL;
		if (ops == s->ops)
			return 0;
		if (s->nr_vcpus)
			return -SCHED_EINVAL; /* no policy change with vCPUs inserted */
		struct sched_params keep = s->p;
		unsigned n = s->nr_pcpus;
		sched_init(s, n);
		s->p = keep;
		s->ops = ops;
		s->ops->init(s);
		return 0;
	}
	if (str_eq(k, klen, "sched.ple")) {
		if (str_eq(v, vlen, "off"))
			s->p.ple = SCHED_PLE_OFF;
		else if (str_eq(v, vlen, "yield"))
			s->p.ple = SCHED_PLE_YIELD;
		else if (str_eq(v, vlen, "directed"))
			s->p.ple = SCHED_PLE_DIRECTED;
		else
			return -SCHED_EINVAL;
		return 0;
	}
	/* `<policy>.<key>`: the selected policy's own keys (sched_ops.config). */
	size_t nl = 0;
	while (s->ops->name[nl])
		nl++;
	if (s->ops->config && klen > nl + 1 && k[nl] == '.' && str_eq(k, nl, s->ops->name))
		return s->ops->config(s, k + nl + 1, klen - nl - 1, v, vlen, now);
	/* Accept `credit.x`, `rr.x` and the bare `x` of the design notes. */
	if (klen > 7 && str_eq(k, 7, "credit."))
		k += 7, klen -= 7;
	else if (klen > 3 && str_eq(k, 3, "rr."))
		k += 3, klen -= 3;
	if (str_eq(k, klen, "profile")) {
		if (str_eq(v, vlen, "xen-credit1"))
			sched_apply_profile(&s->p, SCHED_PROFILE_XEN_CREDIT1);
		else if (str_eq(v, vlen, "sliver") || str_eq(v, vlen, "default"))
			sched_apply_profile(&s->p, SCHED_PROFILE_SLIVER);
		else
			return -SCHED_EINVAL;
		goto changed;
	}
	if (str_eq(k, klen, "burn")) {
		if (str_eq(v, vlen, "sample"))
			s->p.burn_sampled = 1;
		else if (str_eq(v, vlen, "exact"))
			s->p.burn_sampled = 0;
		else
			return -SCHED_EINVAL;
		goto changed;
	}
	for (size_t i = 0; i < sizeof(us_keys) / sizeof(us_keys[0]); i++) {
		const struct us_key *uk = &us_keys[i];
		uint64_t us;
		if (!str_eq(k, klen, uk->name))
			continue;
		if (!parse_u64_n(v, vlen, &us) || us < uk->min_us || us > uk->max_us)
			return -SCHED_EINVAL;
		if (uk->off == P_OFF(tick_ns) && us != 0 && us < 100)
			return -SCHED_EINVAL;
		*(uint64_t *)((char *)&s->p + uk->off) = us * 1000;
		goto changed;
	}
	return 1;
changed:
	if (s->ops->params_changed)
		s->ops->params_changed(s, now);
	return 0;
}

int sched_config_word(struct sched *s, const char *word, size_t len, uint64_t now)
{
	size_t eq = 0;
	while (eq < len && word[eq] != '=')
		eq++;
	if (eq == len || eq == 0)
		return 1; /* a bare word is nothing of ours */
	const char *v = word + eq + 1;
	size_t vlen = len - eq - 1;
	if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
		v++, vlen -= 2;
	return config_kv(s, word, eq, v, vlen, now);
}

int sched_config(struct sched *s, const char *key, const char *val, uint64_t now)
{
	size_t kl = 0, vl = 0;
	while (key[kl])
		kl++;
	while (val[vl])
		vl++;
	return config_kv(s, key, kl, val, vl, now);
}

void sched_trace_ev(struct sched *s, unsigned p, uint64_t t, unsigned ev,
		    const struct sched_vcpu *v, int64_t arg)
{
	struct sched_trace *tr = &s->pcpu[p].trace;
	struct sched_trace_rec *r = &tr->rec[tr->head & (SCHED_TRACE_LEN - 1)];
	r->t = t;
	r->ev = (uint16_t)ev;
	r->dom = v ? (uint16_t)v->dom->id : 0xffff;
	r->vcpu = v ? (uint16_t)v->id : 0xffff;
	r->pcpu = (uint16_t)p;
	r->arg = arg;
	tr->head++;
}

unsigned sched_trace_read(const struct sched *s, unsigned pcpu, struct sched_trace_rec *out,
			  unsigned max)
{
	if (pcpu >= s->nr_pcpus)
		return 0;
	const struct sched_trace *tr = &s->pcpu[pcpu].trace;
	uint32_t n = tr->head < SCHED_TRACE_LEN ? tr->head : SCHED_TRACE_LEN;
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++)
		out[i] = tr->rec[(tr->head - n + i) & (SCHED_TRACE_LEN - 1)];
	return n;
}

const char *sched_ev_name(unsigned ev)
{
	static const char *const names[] = {"?",      "wake",	 "boost",  "unboost", "park",
					    "unpark", "migrate", "switch", "sleep",   "yield"};
	return ev < sizeof(names) / sizeof(names[0]) ? names[ev] : "?";
}

unsigned sched_least_loaded(const struct sched *s, sched_cpumask_t mask)
{
	unsigned best = 0;
	uint32_t best_n = UINT32_MAX;
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		if (!(mask & SCHED_CPU(p)))
			continue;
		if (s->pcpu[p].nr_vcpus < best_n) {
			best = p;
			best_n = s->pcpu[p].nr_vcpus;
		}
	}
	return best;
}

void sched_dom_link(struct sched *s, struct sched_dom *d)
{
	if (d->listed)
		return;
	d->next_dom = s->doms;
	s->doms = d;
	d->listed = true;
}

void sched_dom_unlink(struct sched *s, struct sched_dom *d)
{
	struct sched_dom **pp = &s->doms;
	while (*pp && *pp != d)
		pp = &(*pp)->next_dom;
	if (*pp)
		*pp = d->next_dom;
	d->listed = false;
}

void sched_dump_counters(sched_print_fn pr, void *arg, const char *what, unsigned dom, int vcpu,
			 const struct sched_counters *c)
{
	if (vcpu < 0)
		pr(arg, "sched %s d%u", what, dom);
	else
		pr(arg, "sched %s d%uv%d", what, dom, vcpu);
	pr(arg,
	   " run_ns=%llu wakes=%llu events=%llu boosts=%llu boost_ns=%llu boost_deny=%llu"
	   " parks=%llu unparks=%llu migrations=%llu switches=%llu preempts=%llu yields=%llu\n",
	   (unsigned long long)c->run_ns, (unsigned long long)c->wakes,
	   (unsigned long long)c->events, (unsigned long long)c->boosts,
	   (unsigned long long)c->boost_ns, (unsigned long long)c->boost_deny,
	   (unsigned long long)c->parks, (unsigned long long)c->unparks,
	   (unsigned long long)c->migrations, (unsigned long long)c->switches,
	   (unsigned long long)c->preempts, (unsigned long long)c->yields);
}

/* Both policies keep `since` at the start of a RUNNING vCPU's uncharged interval: set when
 * it is picked, moved to `now` at every charge (credit.c charge(), rr.c rr_charge()). */
uint64_t sched_run_ns(const struct sched_vcpu *v, uint64_t now)
{
	uint64_t ns = v->c.run_ns;
	if (v->state == SCHED_VS_RUNNING && now > v->since)
		ns += now - v->since;
	return ns;
}
