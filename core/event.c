/* Event ports (include/sliver/event.h): raise counts the event and records its sender
 * in the port's sender set and, when the port is bound, makes its vector pending on the
 * bound vCPU. HC_EVENT_SEND between domains goes through the rules of core/evpolicy.c. */
#include "core/evpolicy.h"
#include "core/vmm.h"
#include "lib/string.h"
#include "sliver/errno.h"

int event_raise(struct domain *d, unsigned port, unsigned sender)
{
	if (!d || d->dying)
		return -SLIVER_ESRCH;
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	struct evport *p = &d->port[port];
	spin_lock(&d->evlock);
	if (p->count != UINT32_MAX)
		p->count++;
	p->last = sender;
	if (sender < SLIVER_MAX_DOMS) {
		domset_add(&p->senders, sender);
		if (sender / 64 >= p->senders_words)
			p->senders_words = (uint8_t)(sender / 64 + 1);
		if (sender != SLIVER_DOMID_HV)
			domset_add(&d->signalled_by, sender);
	}
	spin_unlock(&d->evlock);
	__atomic_fetch_add(&d->events_received, 1, __ATOMIC_RELAXED);
	uint8_t vec = __atomic_load_n(&p->vector, __ATOMIC_ACQUIRE);
	if (vec) {
		struct vcpu *v = d->vcpu[p->vcpu];
		if (port == SLIVER_PORT_TIMER)
			vcpu_irq_raise_timer(v, vec);
		else
			vcpu_irq_raise(v, vec);
	}
	return 0;
}

static void side(const struct domain *d, struct ev_side *s)
{
	s->id = d->id;
	s->service = d->role == SLIVER_ROLE_SERVICE;
	s->signalled_by = &d->signalled_by;
}

int event_send(struct domain *from, uint64_t to, uint64_t port)
{
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	struct domain *t = to < SLIVER_MAX_DOMS ? domain_get((unsigned)to) : NULL;
	if (!t)
		return -SLIVER_ESRCH;
	struct ev_side f, g;
	side(from, &f);
	side(t, &g);
	if (!ev_may_send(&f, &g, &t->port[port].allow)) {
		__atomic_fetch_add(&from->events_denied, 1, __ATOMIC_RELAXED);
		return -SLIVER_EPERM;
	}
	return event_raise(t, (unsigned)port, from->id);
}

int event_allow(struct domain *d, uint64_t port, uint64_t dom, bool on)
{
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	if (dom != SLIVER_DOMID_ANY && (dom == 0 || dom >= SLIVER_MAX_DOMS))
		return -SLIVER_EINVAL;
	struct domset *a = &d->port[port].allow;
	spin_lock(&d->evlock);
	if (dom == SLIVER_DOMID_ANY)
		domset_fill(a, on);
	else if (on)
		domset_add(a, (unsigned)dom);
	else
		domset_del(a, (unsigned)dom);
	spin_unlock(&d->evlock);
	return 0;
}

int event_bind(struct domain *d, unsigned port, unsigned vector, unsigned vcpu)
{
	if (port >= SLIVER_NR_PORTS || vcpu >= d->nr_vcpus)
		return -SLIVER_EINVAL;
	if (vector != 0 && (vector < SLIVER_VECTOR_MIN || vector > 255))
		return -SLIVER_EINVAL;
	struct evport *p = &d->port[port];
	p->vcpu = (uint8_t)vcpu;
	__atomic_store_n(&p->vector, (uint8_t)vector, __ATOMIC_RELEASE);
	/* An event that arrived before the binding is delivered now. */
	if (vector && __atomic_load_n(&p->count, __ATOMIC_ACQUIRE))
		vcpu_irq_raise(d->vcpu[vcpu], (uint8_t)vector);
	return 0;
}

/* *out is written only when the port is pending. Only the words of the sender set that
 * ever had a bit since the last receive are copied and cleared (one for the hypervisor's
 * and the first 63 domains' pings), the others written as zeros: *out may be the guest's
 * buffer itself (hc_event_info), so every word is written once. */
int event_recv_info(struct domain *d, unsigned port, struct sliver_event_info *out)
{
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	struct evport *p = &d->port[port];
	spin_lock(&d->evlock);
	uint32_t count = p->count;
	if (count) {
		out->count = count;
		out->last = p->last;
		/* Zeros first, unrolled (16 stores), then the words in use over them. */
#pragma GCC unroll 16
		for (unsigned i = 0; i < SLIVER_DOMSET_WORDS; i++)
			out->senders[i] = 0;
		for (unsigned i = 0, n = p->senders_words; i < n; i++) {
			out->senders[i] = __atomic_load_n(&p->senders.w[i], __ATOMIC_RELAXED);
			__atomic_store_n(&p->senders.w[i], 0, __ATOMIC_RELAXED);
		}
		p->count = 0;
		p->senders_words = 0;
	}
	spin_unlock(&d->evlock);
	return count ? 0 : -SLIVER_EAGAIN;
}

int event_recv(struct domain *d, unsigned port)
{
	struct sliver_event_info in;
	int rc = event_recv_info(d, port, &in);
	return rc < 0 ? rc : (int)in.last;
}
