/* Credit policy: its parameters (struct credit_params in its private instance state), the
 * `credit.<key>=` keys that set them at boot and at run time, what it tells the outside of
 * them (config_get, config_show, slice_ns) and its dump. sched/sched.c parses none of them:
 * it hands `credit.<key>` (prefix removed) and the bare `<key>` here while credit is the
 * selected policy. */
#include "lib/cmdline.h"
#include "sched/credit_priv.h"

/* The defaults, chosen from the simulator sweeps in docs/BENCHMARKS.md. */
void cr_set_defaults(struct credit_params *p)
{
	p->tslice_ns = 1000000;
	p->ratelimit_ns = 0;
	p->period_ns = 50000000;
	p->boost_ns = 100000;
	p->boost_debt_ns = 2000000;
	p->cap_debt_ns = 500000;
	p->balance_gap_ns = 2000000;
	p->balance_hold_ns = 10000000;
}

/* The keys in microseconds: name, field, range. */
struct us_key {
	const char *name;
	size_t off;
	uint64_t min_us, max_us;
};

#define P_OFF(f) offsetof(struct credit_params, f)
static const struct us_key us_keys[] = {
	{"tslice_us", P_OFF(tslice_ns), 10, 1000000},
	{"ratelimit_us", P_OFF(ratelimit_ns), 0, 1000000},
	{"period_us", P_OFF(period_ns), 100, 10000000},
	{"boost_us", P_OFF(boost_ns), 0, 1000000},
	{"boost_debt_us", P_OFF(boost_debt_ns), 0, 10000000},
	{"cap_debt_us", P_OFF(cap_debt_ns), 0, 10000000},
	{"balance_gap_us", P_OFF(balance_gap_ns), 0, 10000000},
	{"balance_hold_us", P_OFF(balance_hold_ns), 0, 10000000},
};
#define NR_US_KEYS (sizeof(us_keys) / sizeof(us_keys[0]))

static uint64_t *us_field(struct credit_params *p, const struct us_key *k)
{
	return (uint64_t *)(void *)((char *)p + k->off);
}

/* A new value: caps to their (new) depth, the queues re-keyed, every pCPU to decide again. */
static void params_changed(struct sched *s, uint64_t now)
{
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		cr_cap_refill(s, d, now);
		if (cd(d)->cap_tokens > cr_cap_depth(s, d))
			cd(d)->cap_tokens = cr_cap_depth(s, d);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			uint8_t h = cv(v)->heap;
			if (h == HEAP_NORM || h == HEAP_PIN || h == HEAP_BOOST) {
				cr_heap_del(s, v);
				cr_enqueue(s, v);
			}
			sched_kick_later(s, v->pcpu);
		}
	}
}

int cr_config(struct sched *s, const char *k, size_t klen, const char *v, size_t vlen, uint64_t now)
{
	struct credit_params *p = &cs(s)->p;
	for (size_t i = 0; i < NR_US_KEYS; i++) {
		const struct us_key *uk = &us_keys[i];
		uint64_t us;
		if (!sched_str_eq(k, klen, uk->name))
			continue;
		if (!parse_u64_n(v, vlen, &us) || us < uk->min_us || us > uk->max_us)
			return -SCHED_EINVAL;
		*us_field(p, uk) = us * 1000;
		params_changed(s, now);
		return 0;
	}
	return 1;
}

int cr_config_get(const struct sched *s, const char *k, size_t klen, char *buf, size_t n)
{
	struct credit_params *p = &cs(s)->p;
	for (size_t i = 0; i < NR_US_KEYS; i++) {
		if (!sched_str_eq(k, klen, us_keys[i].name))
			continue;
		char d[24];
		size_t j = sizeof(d);
		uint64_t us = *us_field(p, &us_keys[i]) / 1000;
		d[--j] = '\0';
		do
			d[--j] = (char)('0' + us % 10);
		while ((us /= 10) != 0);
		sched_copy_str(buf, n, d + j);
		return 0;
	}
	return 1;
}

void cr_config_show(const struct sched *s, sched_print_fn pr, void *arg)
{
	struct credit_params *p = &cs(s)->p;
	for (size_t i = 0; i < NR_US_KEYS; i++)
		pr(arg, " credit.%s=%llu", us_keys[i].name,
		   (unsigned long long)(*us_field(p, &us_keys[i]) / 1000));
}

uint64_t cr_slice_ns(const struct sched *s)
{
	return cs(s)->p.tslice_ns;
}

static const char *const prio_name[] = {"boost", "under", "over", "idle"};
static const char *const state_name[] = {"blocked", "runnable", "running", "parked"};

void cr_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	const struct credit_params *p = &cs(s)->p;
	pr(arg,
	   "sched policy=credit pcpus=%u tslice_ns=%llu ratelimit_ns=%llu"
	   " period_ns=%llu boost_ns=%llu boost_debt_ns=%llu cap_debt_ns=%llu\n",
	   s->nr_pcpus, (unsigned long long)p->tslice_ns, (unsigned long long)p->ratelimit_ns,
	   (unsigned long long)p->period_ns, (unsigned long long)p->boost_ns,
	   (unsigned long long)p->boost_debt_ns, (unsigned long long)p->cap_debt_ns);
	for (unsigned i = 0; i < s->nr_pcpus; i++) {
		struct sched_pcpu *pc = &s->pcpu[i];
		pr(arg, "sched pcpu%u curr=%s%u queued=%u vcpus=%u w_active=%llu picks=%llu\n", i,
		   pc->curr ? "d" : "idle", pc->curr ? pc->curr->dom->id : 0, pc->nr_queued,
		   pc->nr_vcpus, (unsigned long long)(cpc(pc)->w_active >> EW_SHIFT),
		   (unsigned long long)pc->picks);
	}
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		pr(arg, "sched dom d%u weight=%u cap=%u cap_tokens_ns=%lld vcpus=%u\n", d->id,
		   d->weight, d->cap, (long long)cd(d)->cap_tokens, d->nr_vcpus);
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			pr(arg, "sched vcpu d%uv%u pcpu=%u state=%s prio=%s credit_ns=%lld\n",
			   d->id, v->id, v->pcpu, state_name[v->state & 3], prio_name[v->prio & 3],
			   (long long)cr_vcredit(s, v));
			sched_dump_counters(pr, arg, "vcpu", d->id, (int)v->id, &v->c);
		}
	}
}
