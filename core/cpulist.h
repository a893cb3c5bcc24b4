/* CPU lists as module command lines give them (pin=0,2-3): pure, host-tested. */
#ifndef CORE_CPULIST_H
#define CORE_CPULIST_H
#include <stdbool.h>
#include <stdint.h>

/* "0", "0,1", "0-3,5" -> bit mask of CPUs 0..63. False (mask untouched) on junk, an empty
 * list, a reversed range or a CPU above 63. */
bool cpulist_parse(const char *s, uint64_t *mask);

#endif
