/* Event ports (include/sliver/event.h): raise marks a port pending with its sender and,
 * when the port is bound, makes its vector pending on the bound vCPU. */
#include "core/vmm.h"
#include "sliver/errno.h"

int event_raise(struct domain *d, unsigned port, unsigned sender)
{
	if (!d || d->dying)
		return -SLIVER_ESRCH;
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	struct evport *p = &d->port[port];
	__atomic_store_n(&p->sender, sender, __ATOMIC_RELAXED);
	__atomic_store_n(&p->pending, 1, __ATOMIC_RELEASE);
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
	if (vector && __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE))
		vcpu_irq_raise(d->vcpu[vcpu], (uint8_t)vector);
	return 0;
}

int event_recv(struct domain *d, unsigned port)
{
	if (port >= SLIVER_NR_PORTS)
		return -SLIVER_EINVAL;
	struct evport *p = &d->port[port];
	if (!__atomic_exchange_n(&p->pending, 0, __ATOMIC_ACQ_REL))
		return -SLIVER_EAGAIN;
	return (int)__atomic_load_n(&p->sender, __ATOMIC_RELAXED);
}
