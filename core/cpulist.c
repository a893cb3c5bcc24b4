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

/* Appends s while it fits (one byte kept for the NUL). */
static void put(char *buf, size_t n, size_t *at, const char *s)
{
	while (*s && *at + 1 < n)
		buf[(*at)++] = *s++;
}

static void put_hex(char *buf, size_t n, size_t *at, uint32_t v)
{
	char d[11] = "0x";
	unsigned k = 2;
	for (int sh = 28; sh >= 0; sh -= 4)
		if (v >> sh || sh == 0 || k > 2)
			d[k++] = "0123456789abcdef"[v >> sh & 15];
	d[k] = '\0';
	put(buf, n, at, d);
}

size_t cpulist_format_ids(char *buf, size_t n, uint32_t *ids, unsigned count)
{
	for (unsigned i = 1; i < count; i++) /* insertion sort: a few hundred at most */
		for (unsigned j = i; j && ids[j - 1] > ids[j]; j--) {
			uint32_t t = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	size_t at = 0;
	for (unsigned i = 0; i < count;) {
		unsigned j = i;
		while (j + 1 < count && ids[j + 1] <= ids[j] + 1)
			j++;
		if (i)
			put(buf, n, &at, ",");
		put_hex(buf, n, &at, ids[i]);
		if (ids[j] != ids[i]) {
			put(buf, n, &at, "-");
			put_hex(buf, n, &at, ids[j]);
		}
		i = j + 1;
	}
	buf[at] = '\0';
	return at;
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
