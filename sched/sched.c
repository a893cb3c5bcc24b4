/* Generic scheduler layer: instance setup, parameter parsing, trace ring, helpers. */
#include "sched/sched.h"
#include "lib/cmdline.h"
#include "sched/sched_priv.h"

/* Zeroes *s (the policies' priv bytes too) and starts `ops` on it with its defaults. */
static void sched_reset(struct sched *s, unsigned nr_pcpus, const struct sched_ops *ops)
{
	/* Zero by hand: sched/ calls no library function it does not need. The caller's locks
	 * (sync) stay: they guard the instance, whatever policy runs it. */
	const struct sched_sync *sync = s->sync;
	unsigned char *b = (unsigned char *)s;
	for (size_t i = 0; i < sizeof(*s); i++)
		b[i] = 0;
	s->sync = sync;
	s->nr_pcpus = nr_pcpus;
	s->all_pcpus = cpumask_below(nr_pcpus);
	s->ops = ops;
	s->ops->init(s);
}

int sched_init(struct sched *s, unsigned nr_pcpus)
{
	if (nr_pcpus == 0 || nr_pcpus > SCHED_MAX_PCPUS)
		return -SCHED_EINVAL;
	s->sync = NULL; /* a new instance has one caller until it says otherwise */
	sched_reset(s, nr_pcpus, &sched_credit_ops);
	return 0;
}

bool sched_str_eq(const char *a, size_t alen, const char *b)
{
	size_t i = 0;
	for (; i < alen; i++)
		if (b[i] == '\0' || a[i] != b[i])
			return false;
	return b[i] == '\0';
}

const struct sched_ops *sched_ops_by_name(const char *name, size_t len)
{
	if (sched_str_eq(name, len, "credit"))
		return &sched_credit_ops;
	if (sched_str_eq(name, len, "rr"))
		return &sched_rr_ops;
	if (sched_str_eq(name, len, "eevdf"))
		return &sched_eevdf_ops;
	if (sched_str_eq(name, len, "credit1"))
		return &sched_credit1_ops;
	return NULL;
}

static size_t str_len(const char *a)
{
	size_t n = 0;
	while (a[n])
		n++;
	return n;
}

/* The length of the policy prefix of key `k` (up to its first '.'), 0 when it has none. */
static size_t prefix_len(const char *k, size_t klen)
{
	for (size_t i = 0; i < klen; i++)
		if (k[i] == '.')
			return i;
	return 0;
}

static const char *const ple_name[] = {"off", "yield", "directed"};

static int config_kv(struct sched *s, const char *k, size_t klen, const char *v, size_t vlen,
		     uint64_t now)
{
	if (sched_str_eq(k, klen, "sched")) {
		const struct sched_ops *ops = sched_ops_by_name(v, vlen);
		if (!ops)
			return -SCHED_EINVAL;
		if (ops == s->ops)
			return 0;
		if (s->nr_vcpus)
			return -SCHED_EINVAL;	 /* no policy change with vCPUs inserted */
		struct sched_params keep = s->p; /* the generic ones survive a switch */
		sched_reset(s, s->nr_pcpus, ops);
		s->p = keep;
		return 0;
	}
	if (sched_str_eq(k, klen, "sched.ple")) {
		for (unsigned i = 0; i < sizeof(ple_name) / sizeof(ple_name[0]); i++) {
			if (sched_str_eq(v, vlen, ple_name[i])) {
				s->p.ple = i;
				return 0;
			}
		}
		return -SCHED_EINVAL;
	}
	/* `<policy>.<key>` goes to the selected policy with the prefix removed, the bare
	 * `<key>` of the design notes (`tslice_us=500`) as it is. Another policy's keys are
	 * not keys of this one: 1, as for any word that is not the scheduler's. */
	size_t pl = prefix_len(k, klen);
	if (pl) {
		if (!sched_str_eq(k, pl, s->ops->name))
			return 1;
		k += pl + 1, klen -= pl + 1;
	}
	if (!s->ops->config || !klen)
		return 1;
	return s->ops->config(s, k, klen, v, vlen, now);
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
	return config_kv(s, key, str_len(key), val, str_len(val), now);
}

void sched_copy_str(char *buf, size_t n, const char *src)
{
	size_t i = 0;
	for (; n && i < n - 1 && src[i]; i++)
		buf[i] = src[i];
	if (n)
		buf[i] = '\0';
}

/* Appends the decimal v at buf[*at] while it fits (one byte kept for the NUL). */
static void put_dec(char *buf, size_t n, size_t *at, unsigned v)
{
	char d[10];
	unsigned k = 0;
	do
		d[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < sizeof d);
	while (k && *at + 1 < n)
		buf[(*at)++] = d[--k];
}

size_t sched_cpumask_format(char *buf, size_t n, sched_cpumask_t m)
{
	size_t at = 0;
	if (!n)
		return 0;
	if (cpumask_empty(m)) {
		sched_copy_str(buf, n, "none");
		return str_len(buf);
	}
	for (unsigned a = cpumask_first(m); a < SCHED_MAX_PCPUS;) {
		unsigned b = a;
		while (b + 1 < SCHED_MAX_PCPUS && cpumask_test(m, b + 1))
			b++;
		if (at && at + 1 < n)
			buf[at++] = ',';
		put_dec(buf, n, &at, a);
		if (b != a) {
			if (at + 1 < n)
				buf[at++] = '-';
			put_dec(buf, n, &at, b);
		}
		a = cpumask_next(m, b);
	}
	buf[at] = '\0';
	return at;
}

int sched_config_get(const struct sched *s, const char *key, char *buf, size_t n)
{
	size_t klen = str_len(key);
	if (sched_str_eq(key, klen, "sched")) {
		sched_copy_str(buf, n, s->ops->name);
		return 0;
	}
	if (sched_str_eq(key, klen, "sched.ple")) {
		sched_copy_str(buf, n, s->p.ple < 3 ? ple_name[s->p.ple] : "?");
		return 0;
	}
	size_t pl = prefix_len(key, klen);
	if (pl) {
		if (!sched_str_eq(key, pl, s->ops->name))
			return 1;
		key += pl + 1, klen -= pl + 1;
	}
	if (!s->ops->config_get || !klen)
		return 1;
	return s->ops->config_get(s, key, klen, buf, n);
}

void sched_config_show(const struct sched *s, sched_print_fn pr, void *arg)
{
	if (s->ops->config_show)
		s->ops->config_show(s, pr, arg);
}

uint64_t sched_slice_ns(const struct sched *s)
{
	return s->ops->slice_ns ? s->ops->slice_ns(s) : 0;
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
		if (!cpumask_test(mask, p))
			continue;
		uint32_t n = SCHED_GET(s->pcpu[p].nr_vcpus); /* a hint: not under p's lock */
		if (n < best_n) {
			best = p;
			best_n = n;
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

void sched_dom_add_vcpu(struct sched *s, struct sched_vcpu *v)
{
	v->next_in_dom = v->dom->vcpus;
	v->dom->vcpus = v;
	sched_dom_link(s, v->dom);
}

uint32_t sched_dom_del_vcpu(struct sched *s, struct sched_vcpu *v)
{
	struct sched_dom *d = v->dom;
	struct sched_vcpu **pp = &d->vcpus;
	while (*pp && *pp != v)
		pp = &(*pp)->next_in_dom;
	if (*pp)
		*pp = v->next_in_dom;
	v->next_in_dom = NULL;
	if (--d->nr_vcpus == 0)
		sched_dom_unlink(s, d);
	return d->nr_vcpus;
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
	uint64_t ns = v->c.run_ns + v->owed_ns;
	if (v->state == SCHED_VS_RUNNING && now > v->since)
		ns += now - v->since;
	return ns > v->refund_ns ? ns - v->refund_ns : 0;
}

uint64_t sched_charge_for(struct sched *s, struct sched_vcpu *runner, struct sched_vcpu *cause,
			  uint64_t ns, uint64_t now)
{
	SCHED_HELD(s, runner->pcpu);
	SCHED_HELD(s, cause->pcpu);
	(void)now;
	if (!s->ops->charges_owed || runner == cause || runner->state != SCHED_VS_RUNNING)
		return 0;
	runner->refund_ns += ns;
	cause->owed_ns += ns;
	return ns;
}

unsigned sched_audit(const struct sched *s, sched_print_fn pr, void *arg)
{
	uint32_t on[SCHED_MAX_PCPUS] = {0}, queued[SCHED_MAX_PCPUS] = {0};
	unsigned bad = 0;
	for (const struct sched_dom *d = s->doms; d; d = d->next_dom) {
		for (const struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			if (v->pcpu >= s->nr_pcpus) {
				pr(arg, "audit: d%uv%u on pCPU %u of %u\n", d->id, v->id, v->pcpu,
				   s->nr_pcpus);
				bad++;
				continue;
			}
			on[v->pcpu]++;
			if (v->state == SCHED_VS_RUNNABLE)
				queued[v->pcpu]++;
			if (v->state == SCHED_VS_RUNNING && s->pcpu[v->pcpu].curr != v) {
				pr(arg, "audit: d%uv%u RUNNING but not pCPU %u's curr\n", d->id,
				   v->id, v->pcpu);
				bad++;
			}
		}
	}
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		const struct sched_pcpu *pc = &s->pcpu[p];
		if (pc->nr_vcpus != on[p] || pc->nr_queued != queued[p]) {
			pr(arg, "audit: pCPU %u counts nr_vcpus=%u nr_queued=%u, has %u and %u\n",
			   p, pc->nr_vcpus, pc->nr_queued, on[p], queued[p]);
			bad++;
		}
		if (pc->curr && pc->curr->state == SCHED_VS_RUNNING && pc->curr->pcpu != p) {
			pr(arg, "audit: pCPU %u's curr d%uv%u RUNNING on pCPU %u\n", p,
			   pc->curr->dom->id, pc->curr->id, pc->curr->pcpu);
			bad++;
		}
	}
	return bad + (s->ops->audit ? s->ops->audit(s, pr, arg) : 0);
}

void sched_trace_vcpu(const struct sched *s, const struct sched_vcpu *v, unsigned max,
		      sched_print_fn pr, void *arg)
{
	/* The newest `max` records of v over every ring, oldest first (a merge by time). */
	uint64_t after = 0;
	for (unsigned k = 0; k < max; k++) {
		const struct sched_trace_rec *best = NULL;
		unsigned skip = 0;
		/* the k-th newest: count records newer than each candidate (small rings) */
		for (unsigned p = 0; p < s->nr_pcpus; p++) {
			const struct sched_trace *tr = &s->pcpu[p].trace;
			uint32_t n = tr->head < SCHED_TRACE_LEN ? tr->head : SCHED_TRACE_LEN;
			for (uint32_t i = 0; i < n; i++) {
				const struct sched_trace_rec *r =
					&tr->rec[(tr->head - 1 - i) & (SCHED_TRACE_LEN - 1)];
				if (r->dom != v->dom->id || r->vcpu != v->id || r->t < after)
					continue;
				if (!best || r->t < best->t)
					best = r;
			}
		}
		(void)skip;
		if (!best)
			return;
		pr(arg, "trace d%uv%u t=%llu pcpu=%u %s arg=%lld\n", v->dom->id, v->id,
		   (unsigned long long)best->t, best->pcpu, sched_ev_name(best->ev),
		   (long long)best->arg);
		after = best->t + 1;
	}
}
