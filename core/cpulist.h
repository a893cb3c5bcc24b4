/* CPU lists as module command lines give them (pin=0,2-3): pure, host-tested. */
#ifndef CORE_CPULIST_H
#define CORE_CPULIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sched/cpumask.h"

/* "0", "0,1", "0-3,5" -> the set of those CPUs (0..SCHED_MAX_PCPUS-1). False (*mask
 * untouched) on junk, an empty list, a reversed range or a CPU past SCHED_MAX_PCPUS-1. */
bool cpulist_parse(const char *s, sched_cpumask_t *mask);
/* APIC IDs as a list of hexadecimal ranges ("0x200-0x22b,0x240") in buf (n > 0), cut to
 * fit and NUL-terminated; sorts ids[0..count) in place. Returns the length. */
size_t cpulist_format_ids(char *buf, size_t n, uint32_t *ids, unsigned count);

#endif
