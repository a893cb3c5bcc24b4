/* Credit policy: placeholder that forwards to round-robin until the credit engine lands.
 * The interface (sched/sched.h) is final; only the policy behind it changes. */
#include "sched/sched.h"

static void c_init(struct sched *s) { sched_rr_ops.init(s); }
static int c_insert(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	return sched_rr_ops.vcpu_insert(s, v, now);
}
static void c_remove(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_rr_ops.vcpu_remove(s, v, now);
}
static sched_cpumask_t c_wake(struct sched *s, struct sched_vcpu *v, uint64_t now, unsigned f)
{
	return sched_rr_ops.wake(s, v, now, f);
}
static sched_cpumask_t c_sleep(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	return sched_rr_ops.sleep(s, v, now);
}
static void c_yield(struct sched *s, struct sched_vcpu *v, uint64_t now)
{
	sched_rr_ops.yield(s, v, now);
}
static struct sched_pick c_pick(struct sched *s, unsigned p, uint64_t now)
{
	return sched_rr_ops.pick_next(s, p, now);
}
static int c_set(struct sched *s, struct sched_dom *d, uint32_t w, uint32_t c, uint64_t now)
{
	return sched_rr_ops.set_params(s, d, w, c, now);
}
static sched_cpumask_t c_aff(struct sched *s, struct sched_vcpu *v, sched_cpumask_t m,
			     uint64_t now)
{
	return sched_rr_ops.set_affinity(s, v, m, now);
}
static void c_dump(struct sched *s, sched_print_fn pr, void *arg) { sched_rr_ops.dump(s, pr, arg); }

const struct sched_ops sched_credit_ops = {
	.name = "credit",
	.init = c_init,
	.vcpu_insert = c_insert,
	.vcpu_remove = c_remove,
	.wake = c_wake,
	.sleep = c_sleep,
	.yield = c_yield,
	.pick_next = c_pick,
	.set_params = c_set,
	.set_affinity = c_aff,
	.params_changed = NULL,
	.dump = c_dump,
};
