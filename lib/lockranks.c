/* The hypervisor's lock classes and their ranks: a pCPU waits only for a lock ranked above
 * every lock it holds (lib/lockorder.h). What each lock protects, who takes it and why this
 * order: core/sched_door.c, "Locking" (tools/lint.sh checks that the two name the same
 * locks). */
#include "lib/lockorder.h"

const struct lock_class lock_create = {"create", 5, false};
const struct lock_class lock_conin = {"conin", 10, false};
const struct lock_class lock_dcon = {"dcon", 20, false};
const struct lock_class lock_event = {"event", 30, false};
const struct lock_class lock_vlapic = {"vlapic", 40, false};
const struct lock_class lock_ioapic = {"vioapic", 45, false};
const struct lock_class lock_pcdev = {"pcdev", 47, false};
const struct lock_class lock_ping = {"ping", 50, false};
const struct lock_class lock_svc_ping = {"svc_ping", 55, false};
const struct lock_class lock_rq = {"rq", 100, true};
const struct lock_class lock_sched_dom = {"sched_dom", 110, false};
const struct lock_class lock_scrub = {"scrub", 180, false};
const struct lock_class lock_paging = {"paging", 190, false};
const struct lock_class lock_frames = {"frames", 200, false};
const struct lock_class lock_console = {"console", 250, false};
