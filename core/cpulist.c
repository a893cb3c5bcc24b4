#include "core/cpulist.h"

static bool number(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s++ - '0');
		if (v >= SCHED_MAX_PCPUS)
			return false;
	}
	*p = s;
	*out = v;
	return true;
}

bool cpulist_parse(const char *s, sched_cpumask_t *mask)
{
	sched_cpumask_t m = cpumask_none();
	if (!*s)
		return false;
	while (*s) {
		uint64_t a, b;
		if (!number(&s, &a))
			return false;
		b = a;
		if (*s == '-') {
			s++;
			if (!number(&s, &b) || b < a)
				return false;
		}
		for (uint64_t c = a; c <= b; c++)
			cpumask_set(&m, (unsigned)c);
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return false;
	}
	*mask = m;
	return true;
}
