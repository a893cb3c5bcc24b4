/* Helpers shared by the policies in sched/ (not part of the interface). */
#ifndef SCHED_SCHED_PRIV_H
#define SCHED_SCHED_PRIV_H
#include "sched/sched.h"

#define SCHED_EINVAL 22
#define SCHED_ENOSPC 28

/* A policy's private part of obj (a struct sched_dom/_vcpu/_pcpu or struct sched):
 *   struct eevdf_vcpu *e = SCHED_PRIV(struct eevdf_vcpu, v);
 * fails to compile when the type does not fit obj's priv bytes. The bytes are only ever
 * accessed as that one type (and zeroed as bytes), so no aliasing rule is broken. */
#define SCHED_PRIV(type, obj)                                                                      \
	((type *)(void *)((obj)->priv +                                                            \
			  0 * sizeof(struct {                                                      \
				  _Static_assert(sizeof(type) <= sizeof((obj)->priv),              \
						 "policy state larger than its priv bytes");       \
				  int unused;                                                      \
			  })))

/* Mask of the pCPUs this instance has. */
static inline sched_cpumask_t sched_all_pcpus(const struct sched *s)
{
	return s->nr_pcpus >= 64 ? ~(sched_cpumask_t)0 : SCHED_CPU(s->nr_pcpus) - 1;
}

/* Affinity of v restricted to existing pCPUs; an empty or invalid mask means all. */
static inline sched_cpumask_t sched_affinity(const struct sched *s, const struct sched_vcpu *v)
{
	sched_cpumask_t m = v->affinity & sched_all_pcpus(s);
	return m ? m : sched_all_pcpus(s);
}

static inline bool sched_allowed(const struct sched *s, const struct sched_vcpu *v, unsigned p)
{
	return (sched_affinity(s, v) & SCHED_CPU(p)) != 0;
}

/* Appends one record to pCPU p's trace ring. */
void sched_trace_ev(struct sched *s, unsigned p, uint64_t t, unsigned ev,
		    const struct sched_vcpu *v, int64_t arg);

/* The pCPU of `mask` with the fewest vCPUs assigned (ties: lowest number). */
unsigned sched_least_loaded(const struct sched *s, sched_cpumask_t mask);

/* Copies src into buf[n], cut to fit, always NUL-terminated (n > 0). */
void sched_copy_str(char *buf, size_t n, const char *src);

/* `a` (alen bytes) equals the NUL-terminated b. */
bool sched_str_eq(const char *a, size_t alen, const char *b);

/* v joins / leaves its domain's vCPU list (sched_dom.vcpus, which the core, the simulator
 * and yield_to walk); the domain joins the instance's list with its first vCPU and leaves
 * it with its last. The caller counts v into d->nr_vcpus before the add; the removal
 * counts it out and returns the vCPUs left. */
void sched_dom_add_vcpu(struct sched *s, struct sched_vcpu *v);
uint32_t sched_dom_del_vcpu(struct sched *s, struct sched_vcpu *v);

/* Adds v's domain to the instance's domain list if it is not there yet. */
void sched_dom_link(struct sched *s, struct sched_dom *d);
void sched_dom_unlink(struct sched *s, struct sched_dom *d);

/* Prints the counters line of a domain and of a vCPU. */
void sched_dump_counters(sched_print_fn pr, void *arg, const char *what, unsigned dom, int vcpu,
			 const struct sched_counters *c);

#endif
