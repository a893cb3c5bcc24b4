/* The domains by id (a bottom layer: the event ports, the console and the service domain
 * look a domain up here without depending on its creation, core/domain.c, which fills the
 * table). */
#include "core/vmm.h"

struct domain *domains[SLIVER_MAX_DOMS];

struct domain *domain_get(unsigned id)
{
	if (id == 0 || id >= SLIVER_MAX_DOMS)
		return NULL;
	struct domain *d = domains[id];
	return d && !d->dying ? d : NULL;
}
