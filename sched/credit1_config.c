/* sched=credit1, what the outside asks of it: its keys (credit1.tick_us, tslice_us,
 * acct_us, tick_lag_ns, timer_slop_ns), its slice (sched_slice_ns), its dump and its audit.
 * Apart from the scheduling itself (credit1.c, credit1_acct.c) so that each file has one
 * job; the ops table (credit1.c) points here. */
#include "lib/cmdline.h"
#include "sched/credit1_priv.h"

/* Each run queue: only RUNNABLE vCPUs of its pCPU, linked both ways, nr_queued of them. */
unsigned c1_audit(const struct sched *s, sched_print_fn pr, void *arg)
{
	unsigned bad = 0;
	for (unsigned p = 0; p < s->nr_pcpus; p++) {
		const struct c1_list *rq = &SCHED_PRIV(const struct c1_pcpu, &s->pcpu[p])->runq;
		uint32_t n = 0;
		for (const struct c1_list *it = rq->next; it != rq; it = it->next) {
			const struct sched_vcpu *v = c1_runq_entry((struct c1_list *)it)->v;
			if (++n > s->nr_vcpus || it->next->prev != it) {
				pr(arg, "audit: credit1 pCPU %u: run queue broken\n", p);
				return bad + 1;
			}
			if (v->state != SCHED_VS_RUNNABLE || v->pcpu != p) {
				pr(arg, "audit: credit1 pCPU %u: d%uv%u state=%u pcpu=%u queued\n",
				   p, v->dom->id, v->id, v->state, v->pcpu);
				bad++;
			}
		}
		if (n != s->pcpu[p].nr_queued) {
			pr(arg, "audit: credit1 pCPU %u: %u queued, nr_queued %u\n", p, n,
			   s->pcpu[p].nr_queued);
			bad++;
		}
	}
	return bad;
}

void c1_dump(struct sched *s, sched_print_fn pr, void *arg)
{
	struct c1_sched *c = C1S(s);
	char idlers[SCHED_CPUMASK_TEXT];
	sched_cpumask_format(idlers, sizeof idlers, c->idlers);
	pr(arg,
	   "sched policy=credit1 pcpus=%u tick_ns=%llu tslice_ns=%llu acct_ns=%llu credit=%u "
	   "balance=%lld weight=%u accts=%llu steals=%llu tickles=%llu idlers=%s\n",
	   s->nr_pcpus, (unsigned long long)c->tick_ns, (unsigned long long)c->tslice_ns,
	   (unsigned long long)c->acct_ns, c->credit, (long long)c->credit_balance, c->weight,
	   (unsigned long long)c->accts, (unsigned long long)c->steals,
	   (unsigned long long)c->tickles, idlers);
	for (struct sched_dom *d = s->doms; d; d = d->next_dom) {
		sched_dump_counters(pr, arg, "dom", d->id, -1, &d->c);
		for (struct sched_vcpu *v = d->vcpus; v; v = v->next_in_dom) {
			struct c1_vcpu *cv = C1V(v);
			pr(arg,
			   "  d%uv%u pri=%lld credit=%lld (%lld+%u) flags=%u pcpu=%u state=%u\n",
			   d->id, v->id, (long long)cv->pri, (long long)cv->credit,
			   (long long)cv->credit_last, cv->credit_incr, (unsigned)cv->flags,
			   (unsigned)v->pcpu, (unsigned)v->state);
		}
	}
}

static bool key_is(const char *k, size_t kl, const char *name)
{
	size_t i = 0;
	for (; i < kl; i++)
		if (!name[i] || k[i] != name[i])
			return false;
	return !name[i];
}

/* credit1.tick_us / tslice_us / acct_us: 3.0.4's CSCHED_MSECS_PER_TICK and its ticks per
 * slice and per accounting (slice and accounting are whole numbers of ticks). */
int c1_config(struct sched *s, const char *k, size_t kl, const char *val, size_t vl, uint64_t now)
{
	struct c1_sched *c = C1S(s);
	uint64_t us, tick = c->tick_ns, tslice = c->tslice_ns, acct = c->acct_ns;
	if (key_is(k, kl, "tick_lag_ns") || key_is(k, kl, "timer_slop_ns")) {
		if (!parse_u64_n(val, vl, &us) || us > 1000000)
			return -SCHED_EINVAL;
		c1_advance(s, now);
		if (key_is(k, kl, "tick_lag_ns"))
			c->tick_lag_ns = us;
		else
			c->slop_ns = us;
		return 0;
	}
	if (!key_is(k, kl, "tick_us") && !key_is(k, kl, "tslice_us") && !key_is(k, kl, "acct_us"))
		return 1;
	if (!parse_u64_n(val, vl, &us) || us < 100 || us > 10000000)
		return -SCHED_EINVAL;
	if (key_is(k, kl, "tick_us"))
		tick = us * 1000;
	else if (key_is(k, kl, "tslice_us"))
		tslice = us * 1000;
	else
		acct = us * 1000;
	if (tslice % tick || acct % tick)
		return -SCHED_EINVAL;
	c1_advance(s, now);
	c->tick_ns = tick;
	c->tslice_ns = tslice;
	c->acct_ns = acct;
	c->ticks_per_acct = (uint32_t)(acct / tick);
	c->credits_per_tslice = (uint32_t)(tslice / tick) * C1_CREDITS_PER_TICK;
	c->credits_per_acct = c->ticks_per_acct * C1_CREDITS_PER_TICK;
	c->credit = s->nr_pcpus * c->credits_per_acct;
	c1_restart_ticks(s, now);
	return 0;
}

/* The 30 ms slice (sched_slice_ns). */
uint64_t c1_slice_ns(const struct sched *s)
{
	return C1S((struct sched *)s)->tslice_ns;
}
