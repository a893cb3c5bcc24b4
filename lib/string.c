/* The compiler may emit calls to memset/memcpy/memmove/memcmp itself, so these keep
 * their standard names and semantics. */
#include "lib/string.h"
#include <stdint.h>

/* Word at a time where both sides allow it: emulators charge every instruction, and the
 * hypervisor copies kilobytes (histogram snapshots, guest images). */
void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	for (; n && ((uintptr_t)p & 7); n--) /* up to an 8-byte boundary (an ELF's BSS) */
		*p++ = (unsigned char)c;
	if (n >= 16) {
		uint64_t w = 0x0101010101010101ull * (unsigned char)c;
		for (; n >= 8; n -= 8, p += 8)
			*(uint64_t *)(void *)p = w;
	}
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (n >= 16 && !(((uintptr_t)dp | (uintptr_t)sp) & 7)) {
		for (; n >= 8; n -= 8, dp += 8, sp += 8)
			*(uint64_t *)(void *)dp = *(const uint64_t *)(const void *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (dp < sp) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}
