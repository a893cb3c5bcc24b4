/* What core/service.c (the service domain's calls) and core/service_keys.c (the debug keys)
 * share: the text answers and the reports both print. Nothing else includes it. */
#ifndef CORE_SERVICE_PRIV_H
#define CORE_SERVICE_PRIV_H
#include <stdbool.h>
#include <stddef.h>
#include "core/vmm.h"
#include "sliver/service.h"

#define TEXT_MAX 4096

/* A text answer: formats into a bounded buffer, then copies to the guest in one go. A
 * line that does not fit is dropped whole and the answer ends with a truncation note. */
#define TEXT_NOTE "(truncated)\n"
struct text {
	char buf[TEXT_MAX];
	size_t len;
	bool full;
};

/* The reports (core/service.c): a vCPU's wake-to-run latency (with its histogram), the
 * policy and its keys, a pCPU's figures, the scheduler trace (its window, or the last
 * records). Their callers are serialized (service calls, CPU 0's keys). */
void svc_lat_text(struct text *t, const struct vcpu *v, bool histogram);
void svc_sched_text(struct text *t);
void svc_pcpu_info(unsigned cpu, struct sliver_pcpu_info *p);
void svc_trace_text(struct text *t);
/* Registers the debug keys (core/service_keys.c). */
#endif
